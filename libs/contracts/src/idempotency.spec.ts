import 'reflect-metadata';
import { DomainError, ErrorCode } from './errors';
import { canonicalJson, idempotencyKeyReused, parseIdempotencyKey, requestFingerprint } from './idempotency';

describe('Idempotency-Key', () => {
  it('takes 1 to 255 printable ASCII characters, absent is undefined', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    for (const key of ['a', ' x~!', 'k'.repeat(255), '550e8400-e29b-41d4-a716-446655440000']) expect(parseIdempotencyKey(key)).toBe(key);
  });

  it('refuses empty, too long, non-ASCII, control characters and repeated headers with a 422 naming the header', () => {
    for (const bad of ['', 'k'.repeat(256), 'clé', 'a\tb', 'a\u007f', ['a', 'b']]) {
      let thrown: unknown;
      try {
        parseIdempotencyKey(bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).code).toBe(ErrorCode.Validation);
      expect((thrown as DomainError).errors).toEqual([
        { field: 'Idempotency-Key', message: 'Idempotency-Key header must be 1 to 255 printable ASCII characters' },
      ]);
    }
  });

  it('speaks v3 (code 102, "Data is invalid") when given the v3 code', () => {
    expect(() => parseIdempotencyKey('', 102)).toThrow(
      'Data is invalid: Idempotency-Key header must be 1 to 255 printable ASCII characters',
    );
    const reused = idempotencyKeyReused('k1', 102);
    expect([reused.v3Code, reused.message]).toEqual([
      102,
      expect.stringMatching(/^Data is invalid: Idempotency-Key "k1" was already used with another request/),
    ]);
    expect(idempotencyKeyReused('k1').v3Code).toBeUndefined();
  });

  it('fingerprints requests by value: key order does not matter, array order and every value do', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(requestFingerprint({ a: 1, b: [1, 2] })).toBe(requestFingerprint({ b: [1, 2], a: 1, c: undefined }));
    expect(requestFingerprint({ a: 1, b: [1, 2] })).not.toBe(requestFingerprint({ a: 1, b: [2, 1] }));
    expect(requestFingerprint({ a: 1 })).not.toBe(requestFingerprint({ a: '1' }));
    expect(requestFingerprint({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
