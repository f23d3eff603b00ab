import { useIntl } from 'react-intl';

/** A time that names its zone (ISO with Z or an offset): only then is it one instant to show in the admin's. */
const ZONED_TIME = /\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The plugin's one way to write a date and time, wherever it shows one: the admin's locale (as
 * the Content Manager writes dates), with seconds, since log entries are often seconds apart.
 * A time without a zone (the platform's own log) is shown as it came: its zone is unknown.
 */
export function useFormatDateTime() {
  const { formatDate } = useIntl();
  return (value: string | Date) =>
    typeof value === 'string' && !ZONED_TIME.test(value)
      ? value
      : formatDate(value, { dateStyle: 'medium', timeStyle: 'medium', hourCycle: 'h23' });
}
