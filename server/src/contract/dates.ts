import { PUBLISH_DATE_PATTERN } from './schemas';

const DAY_MS = 24 * 3_600_000;

/**
 * Reads the contract's `YYYY-MM-DD HH:MM:SS` (no zone) as wall-clock time in `timeZone`
 * and returns the instant as an ISO string. Around DST changes it resolves like JavaScript's
 * own local dates (Temporal's "compatible"): a time that occurs twice is the earlier
 * instant, a time skipped by the clock moves forward by the gap.
 */
export function publishDateToIso(value: string, timeZone: string): string {
  const match = PUBLISH_DATE_PATTERN.exec(value);
  if (!match) throw new RangeError(`Not a contract date: ${value}`);
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const wallClockAsUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // A zone changes its offset at most once a day, so the offsets a day either side are the
  // only ones this wall-clock time can have.
  const offsetBefore = zoneOffsetMs(wallClockAsUtc - DAY_MS, timeZone);
  const offsetAfter = zoneOffsetMs(wallClockAsUtc + DAY_MS, timeZone);
  const readings = [wallClockAsUtc - offsetBefore, wallClockAsUtc - offsetAfter].filter(
    (instant) => instant + zoneOffsetMs(instant, timeZone) === wallClockAsUtc
  );
  const instant = readings.length > 0 ? Math.min(...readings) : wallClockAsUtc - offsetBefore;
  return new Date(instant).toISOString();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Building a formatter costs far more than using one, and a site uses one or two zones. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(instant));
  const field = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const asUtc = Date.UTC(
    field('year'),
    field('month') - 1,
    field('day'),
    field('hour'),
    field('minute'),
    field('second')
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}
