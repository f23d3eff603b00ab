import * as React from 'react';
import { Box, Flex, Typography } from '@strapi/design-system';
import { Filters, Page, useQueryParams } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import { useGetPublishBridgeActivityQuery } from '../services/api';
import type { ActivityItem, ActivityQuery } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { EntryLink } from './EntryLink';
import { HttpStatus } from './HttpStatus';
import { LogTable, RefreshButton, type LogColumn, type LogDetails } from './LogTable';
import { isRefusalAggregate, useRefusalText } from './refusals';

/** A cell read without hovering: long reasons and notes wrap, one note a line, none cut short. */
const WrappedText = ({ children }: { children: React.ReactNode }) => (
  <Box minWidth="12rem" maxWidth="24rem">
    <Typography textColor="neutral800" tag="p" style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>
      {children}
    </Typography>
  </Box>
);

const OUTCOME_LABELS = { success: 'Success', rejected: 'Rejected', error: 'Error' } as const;

/** `prefix`: the contract routes' path prefix, left out of the Request column (it is on every row). */
// Over 50 lines: its filters, columns and details as translated data.
export const ActivityTab = ({ prefix }: { prefix: string }) => {
  const { formatMessage } = useIntl();
  const formatDateTime = useFormatDateTime();
  const refusalText = useRefusalText();
  const [{ query }] = useQueryParams<ActivityQuery>();
  const { data, isLoading, isFetching, isError, refetch } = useGetPublishBridgeActivityQuery(
    { page: query.page ?? 1, pageSize: query.pageSize ?? 10, filters: query.filters },
    { refetchOnMountOrArgChange: true }
  );

  const t = (id: string, defaultMessage: string, values?: Record<string, string>) =>
    formatMessage({ id: getTranslation(id), defaultMessage }, values);
  /** Rows of several connections: each names its own, as the paths alone do not tell them apart. */
  const severalConnections = (data?.filterOptions.connection.length ?? 0) > 1;
  const operators = [
    {
      label: formatMessage({ id: 'components.FilterOptions.FILTER_TYPES.$eq', defaultMessage: 'is' }),
      value: '$eq',
    },
    {
      label: formatMessage({ id: 'components.FilterOptions.FILTER_TYPES.$ne', defaultMessage: 'is not' }),
      value: '$ne',
    },
  ];
  const outcomeLabel = (outcome: keyof typeof OUTCOME_LABELS) =>
    t(`activity.outcome.${outcome}`, OUTCOME_LABELS[outcome]);
  const filterOptions: Filters.Filter[] = [
    {
      name: 'outcome',
      label: t('activity.column.outcome', 'Outcome'),
      type: 'enumeration',
      operators,
      options: (data?.filterOptions.outcome ?? ['success', 'rejected', 'error']).map((outcome) => ({
        label: outcomeLabel(outcome),
        value: outcome,
      })),
    },
    {
      name: 'action',
      label: t('activity.column.action', 'Action'),
      type: 'enumeration',
      operators,
      options: (data?.filterOptions.action ?? []).map((action) => ({ label: action, value: action })),
    },
    // Only a site with several connections (config `connections`) has a choice to make.
    ...(severalConnections
      ? [
          {
            name: 'connection',
            label: t('activity.column.connection', 'Connection'),
            type: 'enumeration' as const,
            operators,
            options: data!.filterOptions.connection.map((name) => ({ label: name, value: name })),
          },
        ]
      : []),
  ];
  const shortPath = (path: string) => (path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path);
  const requestText = (item: ActivityItem) =>
    isRefusalAggregate(item) ? refusalText.summary(item) : `${item.method} ${shortPath(item.path)}`;

  /** An aggregate of refusals has no single request: its details are counts, times and a sample. */
  const detailsOf = (item: ActivityItem): LogDetails =>
    isRefusalAggregate(item)
      ? {
          title: refusalText.summary(item),
          facts: [
            ...refusalText.facts(item, formatDateTime),
            {
              label: t('activity.column.status', 'Status'),
              value: `${item.httpStatus} (${outcomeLabel(item.outcome)})`,
            },
          ],
        }
      : {
          title: `${item.method} ${item.path}`,
          facts: [
            { label: t('activity.column.time', 'Time'), value: formatDateTime(item.receivedAt) },
            { label: t('activity.column.action', 'Action'), value: item.action },
            { label: t('activity.column.connection', 'Connection'), value: item.connection ?? '-' },
            {
              label: t('activity.column.status', 'Status'),
              value: `${item.httpStatus} (${outcomeLabel(item.outcome)})`,
            },
            {
              label: t('activity.column.duration', 'Duration'),
              value: item.durationMs === undefined ? '-' : `${item.durationMs} ms`,
            },
            {
              label: t('activity.column.entry', 'Entry'),
              value: <EntryLink id={item.entityId} entry={item.entry} />,
            },
            { label: t('activity.entryId', 'Entry id'), value: item.entityId ?? '-' },
            { label: t('activity.requestId', 'Request id'), value: item.requestId ?? '-' },
            { label: t('activity.column.reason', 'Reason'), value: item.reason ?? '-' },
            { label: t('activity.notes', 'Notes'), value: item.notes?.join('\n') || '-' },
          ],
        };

  const columns: LogColumn<ActivityItem>[] = [
    {
      name: 'receivedAt',
      label: t('activity.column.time', 'Time'),
      cell: (item) => <Typography textColor="neutral800">{formatDateTime(item.receivedAt)}</Typography>,
    },
    // The request (method and path, or a refusal count) under its action: one column less to scroll past.
    {
      name: 'action',
      label: t('activity.column.action', 'Action'),
      cell: (item) => (
        <Flex direction="column" alignItems="flex-start" gap={1} maxWidth="16rem">
          <Typography textColor="neutral800">{item.action}</Typography>
          <Typography variant="pi" textColor="neutral600" style={{ whiteSpace: 'normal' }}>
            {requestText(item)}
          </Typography>
          {severalConnections && (
            <Typography variant="pi" textColor="neutral600">
              {t('activity.connectionOf', 'Connection {name}', { name: item.connection ?? 'default' })}
            </Typography>
          )}
        </Flex>
      ),
    },
    {
      name: 'entityId',
      label: t('activity.column.entry', 'Entry'),
      cell: (item) => (
        <Typography textColor="neutral800">
          <EntryLink id={item.entityId} entry={item.entry} />
        </Typography>
      ),
    },
    {
      name: 'httpStatus',
      label: t('activity.column.status', 'Status'),
      cell: (item) => <HttpStatus status={item.httpStatus} outcome={item.outcome} />,
    },
    // Why a request was refused, or what the site adjusted while storing one that succeeded: one
    // column, as a request has one or the other, so the table fits a laptop's width unscrolled.
    {
      name: 'reason',
      label: t('activity.column.reasonOrNotes', 'Reason or notes'),
      cell: (item) => (
        <WrappedText>{[item.reason, ...(item.notes ?? [])].filter(Boolean).join('\n') || '-'}</WrappedText>
      ),
    },
  ];

  if (isError) return <Page.Error />;
  const results = data?.results ?? [];

  return (
    <Flex direction="column" alignItems="stretch" gap={4}>
      <Flex justifyContent="space-between" alignItems="flex-start" gap={2}>
        <Flex gap={2} wrap="wrap">
          <Filters.Root options={filterOptions}>
            <Filters.Trigger />
            <Filters.Popover zIndex={499} />
            <Filters.List />
          </Filters.Root>
          <Typography variant="pi" textColor="neutral600">
            {t(
              'activity.refusal.hint',
              'Requests that fail authentication are counted per minute, reason and source address, and appear once their minute has ended.'
            )}
          </Typography>
        </Flex>
        <RefreshButton isFetching={isFetching} onClick={refetch} />
      </Flex>
      <LogTable
        columns={columns}
        rows={results}
        isLoading={isLoading}
        emptyText={t(
          'activity.empty',
          'No requests yet. Every request the publisher sends to the base URL appears here.'
        )}
        pagination={data?.pagination}
        detailsOf={detailsOf}
      />
    </Flex>
  );
};
