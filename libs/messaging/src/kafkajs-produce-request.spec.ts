import { encodeProduceRequest, produceRequest, type ProduceRequestInput, type ProduceMessage } from './kafkajs-produce-request';
import { frameRequest, REQUEST_HEADROOM } from './kafkajs-request-framing';

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's internal modules, as its clients load them */
type Encoded = { buffer: Buffer };
const bytesOf = (encoder: { buf: Buffer; offset: number }): Buffer => encoder.buf.subarray(0, encoder.offset);
type Framing = (input: { correlationId: number; clientId: string | null; request: unknown }) => Promise<Encoded>;

/** kafkajs as it ships (a fresh module registry, none of our replacements): its produce request and its framing. */
async function kafkajsOwn(): Promise<{ produce: (input: ProduceRequestInput) => { encode(): Promise<Encoded> }; frame: Framing }> {
  let own: Awaited<ReturnType<typeof kafkajsOwn>> | undefined;
  await jest.isolateModulesAsync(async () => {
    own = { produce: require('kafkajs/src/protocol/requests/produce/v3/request'), frame: require('kafkajs/src/protocol/request') };
  });
  return own as Awaited<ReturnType<typeof kafkajsOwn>>;
}

const event = (value: string, key: string | null = 'workstream-1', id = 'b1946ac9-2f3c-4b65-8a3a-0c1f0e9e2c11'): ProduceMessage => ({
  key,
  value,
  headers: {
    ce_id: id,
    ce_source: 'performance',
    ce_type: 'workline.performance.quality-review.for-qc.v1',
    ce_time: '2026-11-27T09:30:00.000Z',
    ce_specversion: '1.0',
    'content-type': 'application/json',
    'event-id': id,
    'request-id': 'req-42',
  },
});

const request = (topicData: ProduceRequestInput['topicData'], extra: Partial<ProduceRequestInput> = {}): ProduceRequestInput => ({
  acks: -1,
  timeout: 30_000,
  compression: 0,
  producerId: 4_711,
  producerEpoch: 3,
  topicData,
  ...extra,
});

const cases: [string, ProduceRequestInput][] = [
  [
    'one partition of QC events',
    request([
      {
        topic: 'workline.performance.quality-review.for-qc.v1',
        partitions: [{ partition: 2, firstSequence: 1_200, messages: Array.from({ length: 50 }, (_, i) => event(`{"n":${i}}`)) }],
      },
    ]),
  ],
  [
    'several topics and partitions, keys, no keys and Buffers',
    request([
      {
        topic: 'a.v1',
        partitions: [
          { partition: 0, firstSequence: 0, messages: [event('{}'), event('{"x":"zoë ✓ 𝄞"}', null)] },
          {
            partition: 5,
            firstSequence: 9,
            messages: [{ key: Buffer.from([1, 2]), value: Buffer.from('raw'), headers: { b: Buffer.from([0]) } }],
          },
        ],
      },
      { topic: 'tópico.v1', partitions: [{ partition: 1, messages: [{ key: 'k', value: 'v' }] }] },
    ]),
  ],
  [
    'a full record batch (about 1 MB)',
    request([{ topic: 't', partitions: [{ partition: 0, messages: Array.from({ length: 1_000 }, () => event('x'.repeat(1_000))) }] }]),
  ],
  [
    'no producer id (not idempotent) and acks 1',
    request([{ topic: 't', partitions: [{ partition: 0, messages: [event('{}')] }] }], {
      producerId: undefined,
      producerEpoch: undefined,
      acks: 1,
    }),
  ],
  [
    'a transactional id',
    request([{ topic: 't', partitions: [{ partition: 0, firstSequence: 3, messages: [event('{}')] }] }], { transactionalId: 'tx-1' }),
  ],
  ['an empty partition and no topics', request([{ topic: 't', partitions: [{ partition: 0, messages: [] }] }])],
  ['no topic data', request([])],
  // Left to kafkajs's own request: still the same bytes.
  [
    'a message with a timestamp',
    request([{ topic: 't', partitions: [{ partition: 0, messages: [{ ...event('{}'), timestamp: '1700000000000' }, event('{}')] }] }]),
  ],
  [
    'a header with several values',
    request([{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', headers: { many: ['a', 'b'] } as never }] }] }]),
  ],
];

describe('produceRequest (kafkajs produce request in one buffer)', () => {
  beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(1_764_320_000_000));
  afterEach(() => jest.restoreAllMocks());

  it.each(cases)('writes the bytes kafkajs writes, framed as kafkajs frames them: %s', async (_name, input) => {
    const own = await kafkajsOwn();
    for (const clientId of ['workline-performance-3f2a', null, 'c'.repeat(300)]) {
      const framing = { correlationId: 77, clientId };
      const expected = (await own.frame({ ...framing, request: own.produce(input) })).buffer;
      const ours = bytesOf(await frameRequest({ ...framing, request: produceRequest(input) }));
      expect(ours.length).toBe(expected.length);
      expect(ours.equals(expected)).toBe(true);
    }
  });

  it('keeps kafkajs framing working with its request bytes (a connection loaded before the framing was replaced)', async () => {
    const own = await kafkajsOwn();
    const input = cases[0][1];
    const framing = { correlationId: 5, clientId: 'workline-performance' };
    const expected = (await own.frame({ ...framing, request: own.produce(input) })).buffer;
    expect((await own.frame({ ...framing, request: produceRequest(input) })).buffer.equals(expected)).toBe(true);
  });

  it('frames other requests (not produce) as kafkajs does', async () => {
    const own = await kafkajsOwn();
    const Encoder = require('kafkajs/src/protocol/encoder');
    const metadata = { apiKey: 3, apiVersion: 6, encode: async () => new Encoder().writeArray(['topic-a', 'topic-b']).writeBoolean(true) };
    const framing = { correlationId: 123_456, clientId: 'workline-gateway-1' };
    expect(
      bytesOf(await frameRequest({ ...framing, request: metadata })).equals((await own.frame({ ...framing, request: metadata })).buffer),
    ).toBe(true);
  });

  it('writes the request after room for its framing, so the frame needs no copy', () => {
    const encoded = encodeProduceRequest(cases[0][1]);
    expect(encoded?.headroom).toBe(REQUEST_HEADROOM);
    expect(encoded?.room.length).toBe(REQUEST_HEADROOM + (encoded?.offset ?? 0));
  });

  it('leaves compressed requests to kafkajs', () => {
    expect(encodeProduceRequest({ ...cases[0][1], compression: 1 })).toBeUndefined();
  });

  it('is the produce request kafkajs clients build (v3, and v4 to v7 through it)', async () => {
    require('./kafkajs-produce-request');
    expect(require('kafkajs/src/protocol/requests/produce/v3/request')).toBe(produceRequest);
    const v7 = require('kafkajs/src/protocol/requests/produce/v7/request') as (input: ProduceRequestInput) => {
      apiVersion: number;
      encode(): unknown;
    };
    const built = v7(cases[0][1]);
    expect(built.apiVersion).toBe(7);
    expect(await built.encode()).toHaveProperty('headroom', REQUEST_HEADROOM);
  });
});
