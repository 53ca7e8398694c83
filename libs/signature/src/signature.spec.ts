import { createHmac } from 'node:crypto';
import { isResultEventType, parseSignatureHeader, sign, verify } from './signature';

describe('X-SVC-Signature', () => {
  const secret = 'key_live_abc';
  const body = Buffer.from('{"uuid":"e1","event_type":"task.result_available"}');

  it('signs t + "." + raw body with HMAC-SHA256, hex', () => {
    const header = sign(body, secret, 1_700_000_000);
    const independent = createHmac('sha256', secret).update(`1700000000.${body.toString()}`).digest('hex');
    expect(header).toBe(`t=1700000000;v1=${independent}`);
  });

  it('verifies its own signature within the tolerance', () => {
    const header = sign(body, secret, 1_700_000_000);
    expect(verify(header, body, secret, { now: 1_700_000_100 })).toEqual({ ok: true, timestamp: 1_700_000_000 });
  });

  it('rejects a re-serialised body, another secret, an old timestamp and a malformed header', () => {
    const header = sign(body, secret, 1_700_000_000);
    const reserialised = JSON.stringify(JSON.parse(body.toString()), null, 1);
    expect(verify(header, reserialised, secret, { now: 1_700_000_000 }).reason).toBe('mismatch');
    expect(verify(header, body, 'other', { now: 1_700_000_000 }).reason).toBe('mismatch');
    expect(verify(header, body, secret, { now: 1_700_000_301 }).reason).toBe('expired');
    expect(verify('v1=abc', body, secret).reason).toBe('malformed');
    expect(verify('t=1700000000', body, secret).reason).toBe('malformed');
    expect(verify(undefined, body, secret).reason).toBe('malformed');
  });

  it('rejects a truncated digest without throwing', () => {
    const header = sign(body, secret, 1_700_000_000).slice(0, -2);
    expect(verify(header, body, secret, { now: 1_700_000_000 })).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('parses elements in any order and ignores unknown ones', () => {
    expect(parseSignatureHeader('v1=AB12;x=1;t=42')).toEqual({ t: 42, v1: 'ab12' });
  });

  it('accepts both spellings of the result event type', () => {
    expect(isResultEventType('task.result_available')).toBe(true);
    expect(isResultEventType('task.resultavailable')).toBe(true);
    expect(isResultEventType('task.error')).toBe(false);
  });
});
