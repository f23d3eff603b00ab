import { timingOf } from '../../server/src/contract/scheduling';

const now = new Date('2026-06-01T12:00:00Z');
const later = new Date('2026-06-02T08:00:00Z');
const evenLater = new Date('2026-06-03T08:00:00Z');
const earlier = new Date('2026-05-01T08:00:00Z');

describe('timingOf', () => {
  it('keeps a publish with a future date waiting, as a draft', () => {
    expect(timingOf('publish', later, null, now)).toEqual({ status: 'draft', publishAt: later });
  });

  it('publishes at once for a date in the past, or now, or none', () => {
    expect(timingOf('publish', earlier, null, now)).toEqual({ status: 'publish', publishAt: null });
    expect(timingOf('publish', now, null, now)).toEqual({ status: 'publish', publishAt: null });
    expect(timingOf('publish', undefined, null, now)).toEqual({ status: 'publish', publishAt: null });
  });

  it('leaves a draft a draft whatever its date, and cancels a waiting publish', () => {
    expect(timingOf('draft', later, null, now)).toEqual({ status: 'draft', publishAt: null });
    expect(timingOf('draft', undefined, later, now)).toEqual({ status: 'draft', publishAt: null });
  });

  it('moves a waiting publish to a new future date, with or without a status', () => {
    expect(timingOf('publish', evenLater, later, now)).toEqual({ status: 'draft', publishAt: evenLater });
    expect(timingOf(undefined, evenLater, later, now)).toEqual({ status: 'draft', publishAt: evenLater });
  });

  it('keeps the waiting date when a write names none', () => {
    expect(timingOf('publish', undefined, later, now)).toEqual({ status: 'draft', publishAt: later });
    expect(timingOf(undefined, undefined, later, now)).toEqual({ status: 'draft', publishAt: later });
  });

  it('publishes at once when a write moves a waiting publish into the past', () => {
    expect(timingOf(undefined, earlier, later, now)).toEqual({ status: 'publish', publishAt: null });
  });

  it('changes nothing for a write with neither status nor a waiting publish', () => {
    expect(timingOf(undefined, later, null, now)).toEqual({ status: undefined, publishAt: null });
  });
});
