import { Button, EmptyStateLayout, Flex, Typography } from '@strapi/design-system';
import { EmptyDocuments } from '@strapi/icons/symbols';
import { useQueryParams } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useApiErrorText } from '../hooks/useApiErrorText';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import { useGetPublishBridgePlatformLogsQuery } from '../services/api';
import { useSelectedConnection } from '../hooks/useSelectedConnection';
import type { DeliveryLogEntry } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { EntryLink } from './EntryLink';
import { LogTable, RefreshButton, type LogColumn, type LogDetails } from './LogTable';

const SUCCESS_STATUSES = /^(success|succeeded|ok|done|delivered|published|2\d\d)$/i;
const FAILURE_STATUSES = /^(fail|failed|failure|error|errored|rejected|[45]\d\d)$/i;

const DeliveryStatus = ({ status }: { status: string }) => {
  const textColor = SUCCESS_STATUSES.test(status)
    ? 'success600'
    : FAILURE_STATUSES.test(status)
      ? 'danger600'
      : 'neutral800';
  return (
    <Typography textColor={textColor} fontWeight="semiBold">
      {status || '-'}
    </Typography>
  );
};

type Props = { configured: boolean; onConfigure: () => void };

/** The platform's own record of what it sent here, read by the server; never fetched by the browser. */
// Over 50 lines: its columns and details as translated data.
export const DeliveryLogTab = ({ configured, onConfigure }: Props) => {
  const { formatMessage } = useIntl();
  const apiErrorText = useApiErrorText();
  const formatDateTime = useFormatDateTime();
  const [{ query }] = useQueryParams<{ page?: string; pageSize?: string }>();
  const connection = useSelectedConnection();
  const { data, error, isLoading, isFetching, refetch } = useGetPublishBridgePlatformLogsQuery(
    { connection },
    {
      skip: !configured,
      refetchOnMountOrArgChange: true,
    }
  );
  const t = (id: string, defaultMessage: string) => formatMessage({ id: getTranslation(id), defaultMessage });

  if (!configured) {
    return (
      <EmptyStateLayout
        icon={<EmptyDocuments width="16rem" />}
        content={t(
          'delivery.notConfigured',
          'Set the platform URL and its log key in the Connection tab to see what the publisher sent to this site.'
        )}
        action={
          <Button variant="secondary" onClick={onConfigure}>
            {t('delivery.configure', 'Open the connection settings')}
          </Button>
        }
      />
    );
  }

  const refresh = <RefreshButton isFetching={isFetching} onClick={refetch} />;

  if (error) {
    return (
      <EmptyStateLayout
        icon={<EmptyDocuments width="16rem" />}
        content={apiErrorText(error)}
        action={refresh}
      />
    );
  }

  const entries = data ?? [];
  const pageSize = Number(query.pageSize ?? 10);
  const page = Math.max(1, Number(query.page ?? 1));
  const shown = entries.slice((page - 1) * pageSize, page * pageSize).map((entry, index) => ({
    ...entry,
    id: `${entry.log_id}-${(page - 1) * pageSize + index}`,
  }));
  const cellText = (text: string) => <Typography textColor="neutral800">{text || '-'}</Typography>;
  const createdAt = (entry: DeliveryLogEntry) => (entry.create_at ? formatDateTime(entry.create_at) : '-');
  const columns: LogColumn<DeliveryLogEntry & { id: string }>[] = [
    { name: 'log_id', label: t('delivery.column.logId', 'Log id'), cell: (entry) => cellText(entry.log_id) },
    { name: 'action', label: t('delivery.column.action', 'Action'), cell: (entry) => cellText(entry.action) },
    {
      name: 'status',
      label: t('delivery.column.status', 'Status'),
      cell: (entry) => <DeliveryStatus status={entry.status} />,
    },
    {
      name: 'external_id',
      label: t('delivery.column.entry', 'Entry'),
      cell: (entry) => (
        <Typography textColor="neutral800">
          <EntryLink id={entry.external_id} entry={entry.entry} />
        </Typography>
      ),
    },
    {
      name: 'create_at',
      label: t('delivery.column.createdAt', 'Created at'),
      cell: (entry) => cellText(createdAt(entry)),
    },
  ];
  const detailsOf = (entry: DeliveryLogEntry): LogDetails => ({
    title: `${entry.action || t('delivery.column.logId', 'Log id')} ${entry.log_id}`,
    facts: [
      { label: t('delivery.column.logId', 'Log id'), value: entry.log_id || '-' },
      { label: t('delivery.column.action', 'Action'), value: entry.action || '-' },
      { label: t('delivery.column.status', 'Status'), value: entry.status || '-' },
      { label: t('delivery.column.createdAt', 'Created at'), value: createdAt(entry) },
      {
        label: t('delivery.column.entry', 'Entry'),
        value: <EntryLink id={entry.external_id} entry={entry.entry} />,
      },
    ],
    payloads: [
      { label: t('delivery.request', 'Request payload'), value: entry.request_payload },
      { label: t('delivery.response', 'Response payload'), value: entry.response_payload },
    ],
  });

  return (
    <Flex direction="column" alignItems="stretch" gap={4}>
      <Flex justifyContent="space-between">
        <Typography variant="pi" textColor="neutral600">
          {t(
            'delivery.subtitle',
            'Every publish, update and delete the platform sent to this site, as the platform recorded it.'
          )}
        </Typography>
        {refresh}
      </Flex>
      <LogTable
        columns={columns}
        rows={shown}
        isLoading={isLoading}
        emptyText={t('delivery.empty', 'The platform has no deliveries to this site yet.')}
        pagination={{ total: entries.length, pageCount: Math.max(1, Math.ceil(entries.length / pageSize)) }}
        detailsOf={detailsOf}
        viewLabel={t('delivery.payloads', 'Request and response payloads')}
      />
    </Flex>
  );
};
