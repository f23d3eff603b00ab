import { isValidTimeZone, publishDateToIso } from '../../server/src/contract/dates';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock an instant shows in a zone, as `YYYY-MM-DD HH:MM:SS`. */
function wallClock(iso: string, timeZone: string): string {
  if (!formatters.has(timeZone)) {
    formatters.set(
      timeZone,
      new Intl.DateTimeFormat('sv-SE', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
    );
  }
  return formatters.get(timeZone)!.format(new Date(iso));
}

describe('publishDateToIso', () => {
  it('reads the date as UTC by default', () => {
    expect(publishDateToIso('2026-07-01 12:00:00', 'UTC')).toBe('2026-07-01T12:00:00.000Z');
    expect(publishDateToIso('2024-02-29 23:59:59', 'UTC')).toBe('2024-02-29T23:59:59.000Z');
  });

  it('reads Europe/Paris summer time as UTC+2 and winter time as UTC+1', () => {
    expect(publishDateToIso('2026-07-01 12:00:00', 'Europe/Paris')).toBe('2026-07-01T10:00:00.000Z');
    expect(publishDateToIso('2026-01-15 12:00:00', 'Europe/Paris')).toBe('2026-01-15T11:00:00.000Z');
  });

  it('reads America/New_York daylight time as UTC-4 and standard time as UTC-5', () => {
    expect(publishDateToIso('2026-07-01 12:00:00', 'America/New_York')).toBe('2026-07-01T16:00:00.000Z');
    expect(publishDateToIso('2026-01-15 12:00:00', 'America/New_York')).toBe('2026-01-15T17:00:00.000Z');
  });

  it('crosses a day boundary when the zone does', () => {
    expect(publishDateToIso('2026-01-01 00:30:00', 'Europe/Paris')).toBe('2025-12-31T23:30:00.000Z');
    expect(publishDateToIso('2026-12-31 22:00:00', 'America/New_York')).toBe('2027-01-01T03:00:00.000Z');
  });

  it('reads the hours just around a DST change with the offset in force at that moment', () => {
    // Europe/Paris springs forward on 2026-03-29 at 02:00 and falls back on 2026-10-25 at 03:00.
    expect(publishDateToIso('2026-03-29 01:59:59', 'Europe/Paris')).toBe('2026-03-29T00:59:59.000Z');
    expect(publishDateToIso('2026-03-29 03:00:00', 'Europe/Paris')).toBe('2026-03-29T01:00:00.000Z');
    expect(publishDateToIso('2026-10-25 01:59:59', 'Europe/Paris')).toBe('2026-10-24T23:59:59.000Z');
    expect(publishDateToIso('2026-10-25 03:00:00', 'Europe/Paris')).toBe('2026-10-25T02:00:00.000Z');
  });

  it.each(['Europe/Paris', 'America/New_York'])(
    'moves a time skipped by the spring change in %s forward by the gap',
    (zone) => {
      const skipped = zone === 'Europe/Paris' ? '2026-03-29 02:30:00' : '2026-03-08 02:30:00';
      const expectedWall = zone === 'Europe/Paris' ? '2026-03-29 03:30:00' : '2026-03-08 03:30:00';
      expect(wallClock(publishDateToIso(skipped, zone), zone)).toBe(expectedWall);
    }
  );

  it.each([
    ['Europe/Paris', '2026-10-25 02:30:00', '2026-10-25T00:30:00.000Z'],
    ['America/New_York', '2026-11-01 01:30:00', '2026-11-01T05:30:00.000Z'],
  ])('reads a time that %s shows twice as the earlier instant', (zone, wall, instant) => {
    expect(publishDateToIso(wall, zone)).toBe(instant);
    expect(wallClock(instant, zone)).toBe(wall);
  });

  it('round-trips every hour of a year in Europe/Paris except the skipped one', () => {
    const start = Date.UTC(2026, 0, 1);
    for (let hour = 0; hour < 365 * 24; hour += 1) {
      const wall = new Date(start + hour * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
      if (wall === '2026-03-29 02:00:00') continue;
      expect(wallClock(publishDateToIso(wall, 'Europe/Paris'), 'Europe/Paris')).toBe(wall);
    }
  });

  it('refuses text that is not a contract date', () => {
    expect(() => publishDateToIso('2026-07-01T12:00:00Z', 'UTC')).toThrow(RangeError);
  });
});

describe('isValidTimeZone', () => {
  it('accepts IANA names and refuses anything else', () => {
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Europe/Paris')).toBe(true);
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
