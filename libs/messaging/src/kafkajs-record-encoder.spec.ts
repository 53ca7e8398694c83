import {
  crc32c,
  crc32cInJs,
  encodeRecord,
  type KafkaRecordInput,
  kafkajsCrc32c,
  kafkajsRecord,
  nativeCrc32c,
} from './kafkajs-record-encoder';

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's internal modules, as its clients load them */
type EncoderLike = { buf: Buffer; offset: number };
const bytesOf = (encoder: EncoderLike): Buffer => encoder.buf.subarray(0, encoder.offset);

/** An event as our producer sends it: JSON value, a key, CloudEvents and id headers. */
const event = (value: string, key: string | null = 'workstream-1'): KafkaRecordInput => ({
  offsetDelta: 3,
  timestampDelta: 12,
  key,
  value,
  headers: {
    ce_id: 'b1946ac9-2f3c-4b65-8a3a-0c1f0e9e2c11',
    ce_source: 'performance',
    ce_type: 'workline.performance.quality-review.for-qc.v1',
    ce_time: '2026-11-27T09:30:00.000Z',
    ce_specversion: '1.0',
    'content-type': 'application/json',
    'event-id': 'b1946ac9-2f3c-4b65-8a3a-0c1f0e9e2c11',
    'request-id': 'req-42',
  },
});

describe('encodeRecord (kafkajs record format in one buffer)', () => {
  const cases: [string, KafkaRecordInput][] = [
    ['an event with eight headers', event(JSON.stringify({ id: 'e1', data: { score: 0.42 } }))],
    ['a value over 16 KB (three-byte length varints)', event('x'.repeat(20_000))],
    ['a value over 2 MB (four-byte length varints)', event('y'.repeat(2_200_000))],
    ['non-ASCII text in key, value and headers', { ...event('{"name":"Zoë ✓ 𝄞"}', 'clé-ü'), headers: { ключ: 'значение ✓' } }],
    // Strings up to 64 characters are measured and written in JS when ASCII: both sides of that line, and strings that are not.
    [
      'ASCII strings of 64 and 65 characters',
      { key: 'k'.repeat(64), value: 'v'.repeat(65), headers: { ['n'.repeat(64)]: 'h'.repeat(65) } },
    ],
    ['short strings ending in a non-ASCII character', { key: `${'k'.repeat(63)}é`, value: '✓', headers: { ['n'.repeat(10) + 'ü']: 'a𝄞' } }],
    ['a lone surrogate in a short string', { key: 'k\ud800', value: '\udfff', headers: { h: 'x\ud83dy' } }],
    ['no key', event('{}', null)],
    ['an undefined key and value', { offsetDelta: 0, timestampDelta: 0 }],
    ['an empty value and an empty header value', { key: '', value: '', headers: { empty: '' } }],
    [
      'Buffers as key, value and header value',
      { key: Buffer.from([0, 1, 2, 255]), value: Buffer.from('raw bytes'), headers: { b: Buffer.from([9, 8]) } },
    ],
    ['a negative timestamp delta', { ...event('{}'), timestampDelta: -5_000 }],
    ['a large offset delta and timestamp delta', { ...event('{}'), offsetDelta: 70_000, timestampDelta: 2_000_000_000 }],
    ['no headers object', { offsetDelta: 1, timestampDelta: 1, key: 'k', value: 'v' }],
    // Shapes left to kafkajs's own encoder: still the same bytes.
    ['a header with several values', { key: 'k', value: 'v', headers: { many: ['a', 'b'] } }],
    ['a timestamp delta beyond int32', { key: 'k', value: 'v', timestampDelta: 2 ** 33 }],
  ];

  it.each(cases)('writes the bytes kafkajs writes: %s', (_name, record) => {
    const expected = (kafkajsRecord(record) as unknown as { buffer: Buffer }).buffer;
    expect(bytesOf(encodeRecord(record)).equals(expected)).toBe(true);
  });

  it('refuses a number as the value as kafkajs does', () => {
    const record = { key: 'k', value: 42 as unknown as string };
    expect(() => kafkajsRecord(record)).toThrow(/must be of type string/);
    expect(() => encodeRecord(record)).toThrow(/must be of type string/);
  });

  it('matches kafkajs on random records (lengths across every varint width, random headers)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const text = (max: number) =>
      String.fromCharCode(...Array.from({ length: Math.floor(random() * max) }, () => 32 + Math.floor(random() * 0x2000)));
    for (let i = 0; i < 500; i++) {
      const headers: Record<string, string> = {};
      for (let h = Math.floor(random() * 10); h > 0; h--) headers[text(20) || 'h'] = text(300);
      const record: KafkaRecordInput = {
        offsetDelta: Math.floor(random() * 100_000),
        timestampDelta: Math.floor(random() * 2_000_000) - 1_000_000,
        key: random() < 0.2 ? null : text(64),
        value: text(random() < 0.1 ? 40_000 : 400),
        headers,
      };
      expect(bytesOf(encodeRecord(record)).equals((kafkajsRecord(record) as unknown as { buffer: Buffer }).buffer)).toBe(true);
    }
  });

  it.each([
    ['the CPU instruction', nativeCrc32c as (bytes: Buffer) => number],
    ['the tables', crc32cInJs],
  ])('computes with %s the CRC-32C kafkajs computes, at every length and offset', (_, checksum) => {
    // The check value of CRC-32C (RFC 3720, B.4): "123456789" -> 0xe3069283.
    expect(checksum(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(checksum(Buffer.alloc(0))).toBe(kafkajsCrc32c(Buffer.alloc(0)));
    const bytes = Buffer.from(Array.from({ length: 5_000 }, (_, i) => (i * 131 + (i >> 3)) & 0xff));
    for (let length = 0; length < 40; length++)
      expect(checksum(bytes.subarray(3, 3 + length))).toBe(kafkajsCrc32c(bytes.subarray(3, 3 + length)));
    expect(checksum(bytes)).toBe(kafkajsCrc32c(bytes));
    expect(checksum(bytes.subarray(1))).toBe(kafkajsCrc32c(bytes.subarray(1)));
  });

  it("uses the CPU instruction: @node-rs/crc32's prebuilt binary for this platform loads", () => {
    expect(nativeCrc32c).toBeDefined();
    expect(crc32c).toBe(nativeCrc32c);
  });

  it('is the record encoder of kafkajs produce requests, which encode byte for byte as before', async () => {
    expect(require('kafkajs/src/protocol/recordBatch/record/v0')).toBe(encodeRecord);
    expect(require('kafkajs/src/protocol/recordBatch/crc32C')).toBe(crc32c);
    const topicData = [
      {
        topic: 'workline.test.v1',
        partitions: [
          {
            partition: 0,
            firstSequence: 0,
            messages: [
              { ...event('{"a":1}'), timestamp: '1700000000000' },
              { ...event('{"b":2}', null), timestamp: '1700000000250' },
              { ...event('x'.repeat(3_000)), timestamp: '1700000000100' },
            ],
          },
        ],
      },
    ];
    const request = { acks: -1, timeout: 30_000, compression: 0, topicData, producerId: 7, producerEpoch: 0 };
    const encode = async (produce: (options: typeof request) => { encode(): Promise<{ buffer: Buffer }> }) =>
      (await produce(request).encode()).buffer;
    const ours = await encode(require('kafkajs/src/protocol/requests/produce/v3/request'));
    let kafkajsOwn: Buffer | undefined;
    // A fresh module registry: kafkajs as it ships, with its own record encoder.
    await jest.isolateModulesAsync(async () => {
      kafkajsOwn = await encode(require('kafkajs/src/protocol/requests/produce/v3/request'));
    });
    // Explicit timestamps: a message without one takes the clock's, which may differ between the two runs.
    expect(kafkajsOwn).toBeDefined();
    expect(ours.length).toBe(kafkajsOwn?.length);
    expect(ours.equals(kafkajsOwn as Buffer)).toBe(true);
  });
});
