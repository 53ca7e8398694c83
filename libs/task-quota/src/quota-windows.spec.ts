import { quotaWindow } from './quota-windows';

describe('task quota windows (UTC calendar)', () => {
  it('days end at the next UTC midnight', () => {
    expect(quotaWindow('day', new Date('2026-11-21T23:59:59.999Z'))).toEqual({
      id: 'd2026-11-21',
      endsAt: new Date('2026-11-22T00:00:00Z'),
    });
    expect(quotaWindow('day', new Date('2026-12-31T00:00:00Z'))).toEqual({ id: 'd2026-12-31', endsAt: new Date('2027-01-01T00:00:00Z') });
  });

  it('weeks are ISO weeks, Monday to Sunday', () => {
    // 2026-11-21 is a Saturday; 2026-11-23 a Monday.
    expect(quotaWindow('week', new Date('2026-11-21T12:00:00Z'))).toEqual({ id: 'w2026-11-16', endsAt: new Date('2026-11-23T00:00:00Z') });
    expect(quotaWindow('week', new Date('2026-11-22T23:00:00Z'))).toEqual({ id: 'w2026-11-16', endsAt: new Date('2026-11-23T00:00:00Z') });
    expect(quotaWindow('week', new Date('2026-11-23T00:00:00Z'))).toEqual({ id: 'w2026-11-23', endsAt: new Date('2026-11-30T00:00:00Z') });
  });

  it('months are calendar months', () => {
    expect(quotaWindow('month', new Date('2026-12-15T08:00:00Z'))).toEqual({ id: 'm2026-12', endsAt: new Date('2027-01-01T00:00:00Z') });
    expect(quotaWindow('month', new Date('2026-02-28T23:59:59Z'))).toEqual({ id: 'm2026-02', endsAt: new Date('2026-03-01T00:00:00Z') });
  });
});
