import { MAX_JSON_DEPTH, unstorableJson } from './storable-input';

const check = (value: unknown) => unstorableJson(value, JSON.stringify(value));
const nested = (depth: number): unknown => (depth === 1 ? {} : { a: nested(depth - 1) });

describe('unstorableJson', () => {
  it('takes ordinary bodies, emoji and escaped backslashes included', () => {
    expect(check({ name: 'Ann 😀', units: [{ input: { deep: [[1, 2], { x: null }] } }], note: 'C:\\u0000 is text' })).toBeUndefined();
    expect(check(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(check([1, 'two', true, null])).toBeUndefined();
  });

  it('refuses nesting deeper than the limit', () => {
    expect(check(nested(MAX_JSON_DEPTH + 1))).toBe(`Body is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays)`);
    const text = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    expect(unstorableJson(JSON.parse(text), text)).toContain('nested more than');
  });

  it('names the field or key that holds a NUL or an unpaired surrogate', () => {
    expect(check({ units: [{ identifier: 'ok' }, { identifier: 'a\u0000b' }] })).toBe(
      'Body field units[1].identifier holds a NUL character or an unpaired surrogate (\\u0000, \\uD800-\\uDFFF), which cannot be stored',
    );
    expect(check({ name: 'x\ud800' })).toContain('Body field name holds');
    expect(check({ name: '\udc00x' })).toContain('Body field name holds');
    expect(check({ metadata: { ['k\u0000']: 'v' } })).toContain('Body key metadata.k\u0000 holds');
    expect(check('\u0000')).toContain('Body field (body) holds');
  });

  it('finds the strings only from their escapes in the text (JSON carries NUL and lone surrogates no other way)', () => {
    // The same value, with a text that shows no escape: the strings are not looked at.
    expect(unstorableJson({ name: 'a\u0000b' }, '{"name":"ab"}')).toBeUndefined();
    expect(unstorableJson({ name: 'a\u0000b' }, '{"name":"a\\u0000b"}')).toContain('holds a NUL');
  });

  it('names a number beyond the range of a double (JSON.parse reads it as Infinity, stored as null)', () => {
    const parsed = (text: string) => unstorableJson(JSON.parse(text), text);
    expect(parsed('{"units":[{"n":1},{"n":1e400}]}')).toBe(
      'Body field units[1].n is a number beyond the range of a double (about ±1.8e308), which cannot be stored',
    );
    expect(parsed('{"n":-1E+309}')).toContain('Body field n is a number beyond');
    expect(parsed(`{"n":${'9'.repeat(400)}}`)).toContain('Body field n is a number beyond');
    // Large but finite, and tiny (read as 0, a double's own rounding): taken.
    expect(parsed('{"n":1.7e308,"m":1e-400,"k":12345678901234567890}')).toBeUndefined();
  });

  it('refuses a key that reaches a prototype (__proto__, constructor.prototype), as Fastify does', () => {
    const parsed = (text: string) => unstorableJson(JSON.parse(text), text);
    expect(parsed('{"configuration_id":"c","__proto__":{"x":1}}')).toBe(
      'Body key __proto__ is not allowed: it would reach the prototype of the object it is copied into',
    );
    expect(parsed('{"units":[{"a":{"constructor":{"prototype":{"x":1}}}}]}')).toContain('Body key units[0].a.constructor is not allowed');
    // The word alone, or a constructor that is plain data, is taken.
    expect(parsed('{"note":"__proto__","constructor":"Ann","c":{"constructor":{"name":"x"}}}')).toBeUndefined();
  });
});
