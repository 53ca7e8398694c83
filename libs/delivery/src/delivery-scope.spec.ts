import 'reflect-metadata';
import { DomainError, ErrorCode } from '@workline/contracts';
import { decodeCursor, encodeCursor, scopeWhere } from './delivery-scope';

describe('delivery scope and paging', () => {
  it('shows a workstream key its workstream, an account key every workstream, Basic the platform callbacks', () => {
    expect(scopeWhere({ kind: 'workstream', account_id: 'a', workstream_id: 'w' })).toEqual({ accountId: 'a', workstreamId: 'w' });
    expect(scopeWhere({ kind: 'account-workstreams', account_id: 'a' })).toEqual({ accountId: 'a', workstreamId: { not: null } });
    expect(scopeWhere({ kind: 'platform', account_id: 'a' })).toEqual({ accountId: 'a', workstreamId: null });
  });

  it('round-trips a cursor', () => {
    const createdAt = new Date('2026-11-21T10:00:00.123Z');
    expect(decodeCursor(encodeCursor(createdAt, 'd-1'))).toEqual({ createdAt, id: 'd-1' });
  });

  it('refuses a cursor it did not issue, naming the field', () => {
    for (const bad of ['', 'nonsense', Buffer.from('[1,2]').toString('base64url'), Buffer.from('["not a date","x"]').toString('base64url')]) {
      let caught: unknown;
      try {
        decodeCursor(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(DomainError);
      expect(caught).toMatchObject({ code: ErrorCode.Validation, errors: [{ field: 'cursor' }] });
    }
  });
});
