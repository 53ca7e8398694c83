import { timeOrderedUuid } from './time-ordered-id';

describe('timeOrderedUuid', () => {
  it('is a UUID of version 7 and the RFC variant, its first 48 bits the time in milliseconds', () => {
    const now = Date.UTC(2026, 10, 27, 18, 5, 0, 123);
    const id = timeOrderedUuid(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
  });

  it('sorts by the millisecond it was made in, as text and as PostgreSQL compares uuids (bytewise)', () => {
    const made = [5, 1, 4, 2, 3].map((ms) => ({ ms, id: timeOrderedUuid(1_800_000_000_000 + ms) }));
    const inTimeOrder = [...made].sort((a, b) => a.ms - b.ms).map(({ id }) => id);
    expect(made.map(({ id }) => id).sort()).toEqual(inTimeOrder);
  });

  it('never repeats, within a millisecond and across refills of its entropy', () => {
    const ids = Array.from({ length: 10_000 }, () => timeOrderedUuid(1_800_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    const randomParts = new Set(ids.map((id) => id.slice(15)));
    expect(randomParts.size).toBe(ids.length);
  });
});
