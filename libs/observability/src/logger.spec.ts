import { Writable } from 'node:stream';
import { JsonLogger, prettyLine, SECRET_KEYS } from './logger';
import { REQUEST_ID_KAFKA_HEADER, requestIdFrom, runWithRequestId, withRequestIdHeader } from './request-context';

function capture(level = 'log') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: new JsonLogger({ app: 'performance', instance: 'i-1', level, destination }) };
}

describe('JsonLogger', () => {
  it('writes one JSON line per event with level, time, app, instance, msg, context and the current request id', async () => {
    const { lines, logger } = capture();
    await runWithRequestId('req-42', async () => {
      await Promise.resolve();
      logger.log('record stored', 'RecordsService');
    });
    logger.warn('outside any request', 'Relay');
    expect(lines[0]).toMatchObject({
      level: 'info',
      app: 'performance',
      instance: 'i-1',
      msg: 'record stored',
      context: 'RecordsService',
      request_id: 'req-42',
    });
    expect(new Date(String(lines[0].time)).toISOString()).toBe(lines[0].time);
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'outside any request' });
    expect(lines[1]).not.toHaveProperty('request_id');
  });

  it('keeps an error stack, takes objects as fields, and filters by LOG_LEVEL', () => {
    const { lines, logger } = capture('warn');
    logger.log('not written');
    logger.error('failed', 'Error: boom\n    at x', 'Transport');
    logger.warn({ msg: 'slow', duration_ms: 12 }, 'Transport');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'failed', stack: 'Error: boom\n    at x', context: 'Transport' });
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'slow', duration_ms: 12 });
  });

  it('never writes secrets held in logged fields', () => {
    const { lines, logger } = capture();
    logger.log({ msg: 'call', authorization: 'Bearer abc', headers: { 'x-api-key': 'k-123' }, password: 'p' });
    const text = JSON.stringify(lines[0]);
    expect(text).not.toMatch(/abc|k-123|"p"/);
    expect(lines[0]).toMatchObject({ authorization: '[redacted]', password: '[redacted]' });
  });

  it('redacts each secret key as a field of the line and one or two levels below it, not deeper (docs/operations.md)', () => {
    const { lines, logger } = capture();
    const keys = SECRET_KEYS;
    for (const key of keys) {
      logger.log({ msg: key, [key]: 's0', one: { [key]: 's1', two: { [key]: 's2', three: { [key]: 's3' } } }, list: [{ [key]: 's1' }] });
      // A Nest logger call's extra parameter becomes `details`: a secret in it is one level down.
      logger.log(key, { [key]: 's1', nested: { [key]: 's2' } }, 'Context');
    }
    for (const [i, key] of keys.entries()) {
      const [fields, withDetails] = [lines[2 * i], lines[2 * i + 1]];
      expect({ key, fields }).toMatchObject({
        key,
        fields: {
          [key]: '[redacted]',
          one: { [key]: '[redacted]', two: { [key]: '[redacted]', three: { [key]: 's3' } } },
          list: [{ [key]: '[redacted]' }],
        },
      });
      expect({ key, details: withDetails.details }).toEqual({ key, details: { [key]: '[redacted]', nested: { [key]: '[redacted]' } } });
    }
  });

  it('formats a line for humans when LOG_FORMAT=pretty', () => {
    const line = prettyLine(
      JSON.stringify({
        level: 'info',
        time: '2026-01-01T00:00:00.000Z',
        app: 'gateway',
        instance: 'i',
        msg: 'hello',
        context: 'http',
        request_id: 'r1',
        status: 200,
      }),
    );
    expect(line).toBe('2026-01-01T00:00:00.000Z INFO  gateway [http] (r1) hello status=200\n');
  });
});

describe('request ids', () => {
  it('honours a well-formed incoming id and replaces anything else', () => {
    expect(requestIdFrom('abc-123_X.y:z')).toBe('abc-123_X.y:z');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), 'semi;colon', ['a']])
      expect(requestIdFrom(bad)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('adds the current id to Kafka headers without overriding one already there', () => {
    expect(withRequestIdHeader({ a: '1' })).toEqual({ a: '1' });
    runWithRequestId('r-1', () => {
      expect(withRequestIdHeader(undefined)).toEqual({ [REQUEST_ID_KAFKA_HEADER]: 'r-1' });
      expect(withRequestIdHeader({ [REQUEST_ID_KAFKA_HEADER]: 'r-0' })).toEqual({ [REQUEST_ID_KAFKA_HEADER]: 'r-0' });
    });
  });
});
