import { PUBLISH_DATE_PATTERN } from './schemas';

/**
 * Reads the contract's `YYYY-MM-DD HH:MM:SS` (no zone) as wall-clock time in `timeZone`
 * and returns the instant as an ISO string.
 */
export function publishDateToIso(value: string, timeZone: string): string {
  const match = PUBLISH_DATE_PATTERN.exec(value);
  if (!match) throw new RangeError(`Not a contract date: ${value}`);
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const wallClockAsUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // The zone's offset can differ between the guess and the answer across a DST change,
  // so the offset is taken twice.
  const firstGuess = wallClockAsUtc - zoneOffsetMs(wallClockAsUtc, timeZone);
  const instant = wallClockAsUtc - zoneOffsetMs(firstGuess, timeZone);
  return new Date(instant).toISOString();
}

function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
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
