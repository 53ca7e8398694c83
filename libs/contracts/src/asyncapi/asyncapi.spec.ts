import 'reflect-metadata';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DomainError } from '../errors';
import { DeliveryDeadEvent, DeliveryRequestedEvent } from '../events/delivery.events';
import { cloudEventHeaders } from '../events/envelope';
import { OversightTaskEvent } from '../events/oversight.events';
import { QualityReviewForQcEvent, WorkstreamCreatedEvent } from '../events/performance.events';
import { RunAbortRequestedEvent } from '../rpc/platform.messages';
import { TOPIC_CATALOG } from '../topic-catalog';
import { Topic, TOPIC_SPECS } from '../topics';
import { validateContract } from '../validation';
import { asyncApiDocument } from './asyncapi';
import { classSchema } from './json-schema';

interface Document {
  channels: Record<string, { address: string; bindings: { kafka: { partitions: number } } }>;
  operations: Record<string, { action: string; channel: { $ref: string } }>;
  components: { schemas: Record<string, object>; messages: Record<string, { payload: object; headers: object }> };
}

const document = asyncApiDocument() as Document;
const COMMITTED = join(__dirname, '..', '..', '..', '..', 'docs', 'asyncapi.json');

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
/** A validator of one schema of the document, its #/components/... references resolved within the document. */
const validatorOf = (schema: object) => ajv.compile({ ...schema, components: document.components });

const at = '2026-11-23T10:00:00.000Z';
const owner = { account_id: 'acc-1', workstream_id: 'ws-1' };
const webhookEvent = {
  uuid: '5b0e3c1e-5c1f-4a7e-9d1a-2f3a4b5c6d7e',
  event_type: 'task.result_available',
  timestamp: at,
  request_id: 'task-1',
  task_id: 'task-1',
  diagnostic: { workstream_id: 'ws-1', configuration_id: 'cfg-1', tool_project_id: null },
  task_details: { state: 'COMPLETED', updated_tags: [{ value: 'cat', confidence_score: 0.9 }], existing_tags: [] },
  metadata: [{ key: 'reviewer', value: 'w-1' }],
};
const qualityRecord = {
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  dataset_id: null,
  asset_id: null,
  task_id: 't-1',
  unique_id: 'u-1',
  task_url: null,
  task_completed_at: at,
  worker_id: 'w-1',
  review_completed_at: at,
  review_duration: 12.5,
  reviewed_by: null,
  review_score: 0.4,
  review_explanation: null,
  errors: { typo: 2 },
  review_type: null,
  task_review_count: 1,
  subtask_review_count: null,
  review_metadata: { source: 'csv' },
  review_measurements: { accuracy: 0.4, passed: false, grade: 'C' },
};

/** One valid payload of each topic that has a payload class, as its producer writes it. */
const SAMPLES: Partial<Record<Topic, { cls: new () => object; data: Record<string, unknown> }>> = {
  [Topic.WorkstreamCreated]: {
    cls: WorkstreamCreatedEvent,
    data: {
      workstream_id: 'ws-1',
      account_id: 'acc-1',
      name: 'Images',
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
      created_at: at,
    },
  },
  [Topic.QualityReviewForQc]: {
    cls: QualityReviewForQcEvent,
    data: {
      record_id: 'r-1',
      workstream_id: 'ws-1',
      account_id: 'acc-1',
      reason: 'below_threshold',
      qc_score_threshold: 0.5,
      qc_sample_rate: 0,
      outcome: 'stored',
      upload_id: null,
      record: qualityRecord,
    },
  },
  [Topic.TaskResultAvailable]: { cls: OversightTaskEvent, data: { ...owner, task_id: 'task-1', state: 'COMPLETED', event: webhookEvent } },
  [Topic.TaskError]: {
    cls: OversightTaskEvent,
    data: {
      ...owner,
      task_id: 'task-1',
      state: 'ERROR',
      error: 'media unreadable',
      event: { ...webhookEvent, event_type: 'task.error', task_details: undefined, metadata: undefined },
    },
  },
  [Topic.DeliveryDead]: {
    cls: DeliveryDeadEvent,
    data: {
      delivery_id: 'dlv-1',
      owner,
      subject: { task_id: 'task-1' },
      event_type: 'task.error',
      url: 'https://hooks.example.com/w',
      attempts: 5,
      last_error: 'HTTP 500',
    },
  },
  [Topic.DeliveryRequested]: {
    cls: DeliveryRequestedEvent,
    data: {
      delivery_id: 'platform-run-r1',
      owner: { account_id: 'acc-1' },
      subject: { run_id: 'r1' },
      event_type: 'run.processed',
      url: 'http://127.0.0.1:8080/cb',
      body: '{}',
      signing: 'none',
    },
  },
  [Topic.RunAbortRequested]: { cls: RunAbortRequestedEvent, data: { run_id: 'r1', account_id: 'acc-1' } },
};

const withoutUndefined = (data: Record<string, unknown>) => JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
const envelopeOf = (topic: Topic, data: unknown) => ({ id: '0c1f2e3d-4b5a-4c6d-8e7f-9a0b1c2d3e4f', type: topic, occurred_at: at, data });
const messageOf = (topic: Topic) => {
  const channel = Object.values(document.channels).find((c) => c.address === topic);
  const name = Object.entries(Topic).find(([, address]) => address === topic)?.[0] as string;
  return channel ? document.components.messages[name] : undefined;
};
const validatorFails = (cls: new () => object, data: unknown): boolean => {
  try {
    validateContract(cls, data);
    return false;
  } catch (error) {
    return (error as DomainError).errors !== undefined;
  }
};

describe('AsyncAPI document of the Kafka topics', () => {
  it('is committed as docs/asyncapi.json (npm run asyncapi writes it)', () => {
    expect(readFileSync(COMMITTED, 'utf8')).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });

  it('parses and validates with @asyncapi/parser: no error and no warning', async () => {
    const { document: parsed, diagnostics } = await new Parser().parse(readFileSync(COMMITTED, 'utf8'));
    const problems = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error || d.severity === DiagnosticSeverity.Warning);
    expect(problems.map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`)).toEqual([]);
    expect(parsed?.version()).toBe('3.1.0');
    expect(
      parsed
        ?.channels()
        .all()
        .map((channel) => channel.address())
        .sort(),
    ).toEqual(
      Object.values(Topic)
        .filter((topic) => TOPIC_CATALOG[topic].audience !== 'request-reply')
        .sort(),
    );
  });

  it('describes every public and internal topic with its partitions, and leaves the request-reply topics out', () => {
    const documented = Object.values(document.channels).map((channel) => [channel.address, channel.bindings.kafka.partitions]);
    expect(documented.sort()).toEqual(
      Object.values(Topic)
        .filter((topic) => TOPIC_CATALOG[topic].audience !== 'request-reply')
        .map((topic) => [topic, TOPIC_SPECS[topic].partitions])
        .sort(),
    );
    for (const topic of [Topic.PerformanceRpc, Topic.OversightRpc, Topic.PlatformRunsRpc, Topic.WebhookDispatcherRpc, Topic.RpcReplies])
      expect(messageOf(topic)).toBeUndefined();
  });

  it('names each producing and consuming app as an operation on its channel', () => {
    const ops = Object.entries(document.operations).map(([id, op]) => `${id} ${op.action} ${op.channel.$ref}`);
    expect(ops).toEqual(
      expect.arrayContaining([
        'performanceSendsWorkstreamCreated send #/channels/workstreamCreated',
        'oversightSendsDeliveryRequested send #/channels/deliveryRequested',
        'platformRunsSendsDeliveryRequested send #/channels/deliveryRequested',
        'webhookDispatcherReceivesDeliveryRequested receive #/channels/deliveryRequested',
        'platformRunsReceivesRunAbortRequested receive #/channels/runAbortRequested',
      ]),
    );
    const expected = Object.values(Topic).flatMap((topic) => {
      const contract = TOPIC_CATALOG[topic];
      return contract.audience === 'request-reply' ? [] : [...contract.producers, ...contract.consumers].map(() => topic);
    });
    expect(Object.keys(document.operations)).toHaveLength(expected.length);
  });

  describe.each(Object.entries(SAMPLES) as [Topic, { cls: new () => object; data: Record<string, unknown> }][])(
    '%s: schema and validator agree',
    (topic, { cls, data }) => {
      const message = messageOf(topic);
      const payload = () => validatorOf(message?.payload as object);

      it('accept the payload its producer writes, in its envelope', () => {
        expect(validateContract(cls, withoutUndefined(data))).toBeInstanceOf(cls);
        const valid = payload();
        expect(valid(envelopeOf(topic, withoutUndefined(data))) ? [] : valid.errors).toEqual([]);
      });

      it('refuse the payload without a required field, or the envelope of another topic', () => {
        const [first] = Object.keys(data);
        const { [first]: _dropped, ...missing } = withoutUndefined(data);
        expect(validatorFails(cls, missing)).toBe(true);
        expect(payload()(envelopeOf(topic, missing))).toBe(false);
        expect(payload()(envelopeOf(Topic.DeadLetter, withoutUndefined(data)))).toBe(false);
      });
    },
  );

  it('has the headers of a domain event: event-id and the CloudEvents attributes required, request-id optional', () => {
    const headers = validatorOf(document.components.messages.WorkstreamCreated.headers);
    const id = '0c1f2e3d-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    const written = {
      'event-id': id,
      ...cloudEventHeaders({ id, type: Topic.WorkstreamCreated, occurred_at: '2026-11-23T12:00:00.000Z' }, 'performance'),
    };
    expect(headers({ ...written, 'request-id': 'req-1' })).toBe(true);
    expect(headers(written)).toBe(true);
    expect(headers({ ...written, 'event-id': undefined })).toBe(false);
    expect(headers({ ...written, ce_specversion: '0.3' })).toBe(false);
    expect(headers({ ...written, ce_time: undefined })).toBe(false);
  });

  it('stops at a property whose shape the decorators cannot state, naming it', () => {
    class Shapeless {}
    expect(() => classSchema(Shapeless)).toThrow('Shapeless has no class-validator decorators');
    expect(() => classSchema(QualityReviewForQcEvent, { record: { type: 'object' } })).toThrow(
      'The decorators do not state the shape of QualityReviewForQcEvent.record: add @JSONSchema({...}) beside them',
    );
  });
});
