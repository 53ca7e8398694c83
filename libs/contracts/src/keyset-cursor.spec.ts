import 'reflect-metadata';
import { DomainError, ErrorCode } from './errors';
import { decodeCursor, encodeCursor } from './keyset-cursor';

describe('keyset cursor', () => {
  it('round-trips a cursor', () => {
    const createdAt = new Date('2026-11-21T10:00:00.123Z');
    expect(decodeCursor(encodeCursor(createdAt, 'd-1'))).toEqual({ createdAt, id: 'd-1' });
  });

  it('refuses a cursor it did not issue, naming the field', () => {
    for (const bad of [
      '',
      'nonsense',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('["not a date","x"]').toString('base64url'),
    ]) {
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
