import * as React from 'react';
import {
  Button,
  EmptyStateLayout,
  Flex,
  IconButton,
  Th,
  Typography,
  VisuallyHidden,
} from '@strapi/design-system';
import { ArrowClockwise, Eye } from '@strapi/icons';
import { EmptyDocuments } from '@strapi/icons/symbols';
import { Pagination, Table, useQueryParams } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useApiErrorText } from '../hooks/useApiErrorText';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import { useGetPublishBridgePlatformLogsQuery } from '../services/api';
import type { DeliveryLogEntry } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { DetailsModal } from './DetailsModal';
import { EntryLink } from './EntryLink';

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
// Over 50 lines: the table's JSX, and its columns and details as translated data.
export const DeliveryLogTab = ({ configured, onConfigure }: Props) => {
  const { formatMessage } = useIntl();
  const apiErrorText = useApiErrorText();
  const formatDateTime = useFormatDateTime();
  const [{ query }] = useQueryParams<{ page?: string; pageSize?: string }>();
  const [selected, setSelected] = React.useState<DeliveryLogEntry>();
  const { data, error, isLoading, isFetching, refetch } = useGetPublishBridgePlatformLogsQuery(undefined, {
    skip: !configured,
    refetchOnMountOrArgChange: true,
  });
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

  const refresh = (
    <Button variant="tertiary" size="S" startIcon={<ArrowClockwise />} loading={isFetching} onClick={refetch}>
      {t('logs.refresh', 'Refresh')}
    </Button>
  );

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
  const headers = [
    { name: 'log_id', label: t('delivery.column.logId', 'Log id') },
    { name: 'action', label: t('delivery.column.action', 'Action') },
    { name: 'status', label: t('delivery.column.status', 'Status') },
    { name: 'external_id', label: t('delivery.column.entry', 'Entry') },
    { name: 'create_at', label: t('delivery.column.createdAt', 'Created at') },
  ];
  const viewLabel = t('delivery.payloads', 'Request and response payloads');

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
      <Table.Root rows={shown} headers={headers} isLoading={isLoading}>
        <Table.Content>
          <Table.Head>
            {headers.map((header) => (
              <Table.HeaderCell key={header.name} {...header} sortable={false} />
            ))}
            <Th>
              <VisuallyHidden>{viewLabel}</VisuallyHidden>
            </Th>
          </Table.Head>
          <Table.Empty content={t('delivery.empty', 'The platform has no deliveries to this site yet.')} />
          <Table.Loading />
          <Table.Body>
            {shown.map((entry) => (
              <Table.Row key={entry.id} onClick={() => setSelected(entry)} style={{ cursor: 'pointer' }}>
                <Table.Cell>
                  <Typography textColor="neutral800">{entry.log_id || '-'}</Typography>
                </Table.Cell>
                <Table.Cell>
                  <Typography textColor="neutral800">{entry.action || '-'}</Typography>
                </Table.Cell>
                <Table.Cell>
                  <DeliveryStatus status={entry.status} />
                </Table.Cell>
                <Table.Cell>
                  <Typography textColor="neutral800">
                    <EntryLink id={entry.external_id} entry={entry.entry} />
                  </Typography>
                </Table.Cell>
                <Table.Cell>
                  <Typography textColor="neutral800">
                    {entry.create_at ? formatDateTime(entry.create_at) : '-'}
                  </Typography>
                </Table.Cell>
                <Table.Cell onClick={(event: React.MouseEvent) => event.stopPropagation()}>
                  <Flex justifyContent="end">
                    <IconButton label={viewLabel} variant="ghost" onClick={() => setSelected(entry)}>
                      <Eye />
                    </IconButton>
                  </Flex>
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Content>
      </Table.Root>
      <Pagination.Root total={entries.length} pageCount={Math.max(1, Math.ceil(entries.length / pageSize))}>
        <Pagination.PageSize />
        <Pagination.Links />
      </Pagination.Root>
      {selected ? (
        <DetailsModal
          title={`${selected.action || t('delivery.column.logId', 'Log id')} ${selected.log_id}`}
          onClose={() => setSelected(undefined)}
          facts={[
            { label: t('delivery.column.logId', 'Log id'), value: selected.log_id || '-' },
            { label: t('delivery.column.action', 'Action'), value: selected.action || '-' },
            { label: t('delivery.column.status', 'Status'), value: selected.status || '-' },
            {
              label: t('delivery.column.createdAt', 'Created at'),
              value: selected.create_at ? formatDateTime(selected.create_at) : '-',
            },
            {
              label: t('delivery.column.entry', 'Entry'),
              value: <EntryLink id={selected.external_id} entry={selected.entry} />,
            },
          ]}
          payloads={[
            { label: t('delivery.request', 'Request payload'), value: selected.request_payload },
            { label: t('delivery.response', 'Response payload'), value: selected.response_payload },
          ]}
        />
      ) : null}
    </Flex>
  );
};
