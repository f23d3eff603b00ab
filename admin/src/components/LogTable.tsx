import * as React from 'react';
import { Button, Flex, IconButton, Th, VisuallyHidden } from '@strapi/design-system';
import { ArrowClockwise, Eye } from '@strapi/icons';
import { Pagination, Table } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { getTranslation } from '../utils/getTranslation';
import { DetailsModal, type Fact, type Payload } from './DetailsModal';

/** A column of a log table: its header, and what a row shows in it. */
export type LogColumn<Row> = { name: string; label: string; cell: (row: Row) => React.ReactNode };

export type LogDetails = { title: string; facts: Fact[]; payloads?: Payload[] };

type Props<Row> = {
  columns: LogColumn<Row>[];
  rows: Row[];
  isLoading: boolean;
  emptyText: string;
  /** Left out while there is nothing to page through yet. */
  pagination?: { pageCount: number; total: number };
  /** The row in full, shown in a modal when the row is clicked. */
  detailsOf: (row: Row) => LogDetails;
  /** When given, a last column holds a button of this name opening the details (for keyboards). */
  viewLabel?: string;
};

/**
 * A log as Strapi's own list views show one: a table whose rows open their details, with the
 * pager under it. Its page and page size are in the URL, where Strapi's Pagination keeps them.
 */
// Over 50 lines: the table's JSX.
export const LogTable = <Row extends { id: string | number }>({
  columns,
  rows,
  isLoading,
  emptyText,
  pagination,
  detailsOf,
  viewLabel,
}: Props<Row>) => {
  const [selected, setSelected] = React.useState<Row>();
  const headers = columns.map(({ name, label }) => ({ name, label }));

  return (
    <>
      <Table.Root rows={rows} headers={headers} isLoading={isLoading}>
        <Table.Content>
          <Table.Head>
            {headers.map((header) => (
              <Table.HeaderCell key={header.name} {...header} sortable={false} />
            ))}
            {viewLabel ? (
              <Th>
                <VisuallyHidden>{viewLabel}</VisuallyHidden>
              </Th>
            ) : null}
          </Table.Head>
          <Table.Empty content={emptyText} />
          <Table.Loading />
          <Table.Body>
            {rows.map((row) => (
              <Table.Row key={row.id} onClick={() => setSelected(row)} style={{ cursor: 'pointer' }}>
                {columns.map((column) => (
                  <Table.Cell key={column.name}>{column.cell(row)}</Table.Cell>
                ))}
                {viewLabel ? (
                  <Table.Cell onClick={(event: React.MouseEvent) => event.stopPropagation()}>
                    <Flex justifyContent="end">
                      <IconButton label={viewLabel} variant="ghost" onClick={() => setSelected(row)}>
                        <Eye />
                      </IconButton>
                    </Flex>
                  </Table.Cell>
                ) : null}
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Content>
      </Table.Root>
      {pagination ? (
        <Pagination.Root pageCount={pagination.pageCount} total={pagination.total}>
          <Pagination.PageSize />
          <Pagination.Links />
        </Pagination.Root>
      ) : null}
      {selected ? <DetailsModal {...detailsOf(selected)} onClose={() => setSelected(undefined)} /> : null}
    </>
  );
};

/** Reads a log again: the logs do not refresh themselves. */
export const RefreshButton = ({ isFetching, onClick }: { isFetching: boolean; onClick: () => void }) => {
  const { formatMessage } = useIntl();
  return (
    <Button variant="tertiary" size="S" startIcon={<ArrowClockwise />} loading={isFetching} onClick={onClick}>
      {formatMessage({ id: getTranslation('logs.refresh'), defaultMessage: 'Refresh' })}
    </Button>
  );
};
