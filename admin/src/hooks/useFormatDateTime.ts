import { useIntl } from 'react-intl';

/** Dates as the admin's locale writes them, with seconds: log entries are often seconds apart. */
export function useFormatDateTime(dateStyle: 'short' | 'medium' = 'medium') {
  const { formatDate } = useIntl();
  return (value: string | number | Date) =>
    formatDate(value, { dateStyle, timeStyle: 'medium', hourCycle: 'h23' });
}
