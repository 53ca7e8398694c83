import type { Schemas } from '@workline/client';
import { adminClient, apiClient, ok, withStatus } from './api';
import { qualityRecord } from './quality-record';

/** A new workstream of the account (admin API), and a new API key of it. */
export async function newWorkstreamWithKey(workstream: Schemas['CreateWorkstreamDto']): Promise<{ ws: string; key: string }> {
  const admin = adminClient();
  const ws = (await ok(admin.POST('/admin/v1/workstreams', { body: workstream }), 201)).id;
  const key = await ok(
    admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params: { path: { workstream_id: ws } }, body: {} }),
    201,
  );
  return { ws, key: key.key };
}

/** A new account (admin API): its id. */
export const newAccountId = async (name: string): Promise<string> =>
  (await ok(adminClient().POST('/admin/v1/accounts', { body: { name } }), 201)).id;

/** An account with a workstream (use case `uc`, task definition `td`, QC threshold 0.5, no sampling) and an API key of it. */
export async function newQualityWorkstream(name: string): Promise<{ ws: string; key: string }> {
  return newWorkstreamWithKey({
    account_id: await newAccountId(name),
    name,
    use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
    qc_score_threshold: 0.5,
    qc_sample_rate: 0,
  });
}

/** A task_reviewed body for newQualityWorkstream's use case and task definition. */
export const qualityReview = (ws: string, uniqueId: string, workerId: string, score: number, replace: boolean | undefined) => ({
  workstream_id: ws,
  use_case_id: 'uc',
  task_definition_id: 'td',
  unique_id: uniqueId,
  worker_id: workerId,
  review_completed_at: '2024-05-01T12:00:00Z',
  review_score: score,
  ...(replace === undefined ? {} : { replace_duplicate: replace }),
});

/** The records suites' account: two workstreams with the same use cases (uc-1: td-1, td-2; uc-2: td-3), a key of each. */
export interface PerformanceAccount {
  accountId: string;
  /** QC threshold 0.6, no sampling. */
  ws: string;
  key: string;
  otherWs: string;
  otherKey: string;
  /** A valid task_reviewed body for ws (uc-1, td-1, score 0.9) with the overrides applied. */
  review(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** A task_completed body with only the two required fields, and the overrides. */
  completed(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs a record to ws (or another workstream) with its key (another key, or none with null): the answer, with its status. */
  post(route: RecordRoute, body: Record<string, unknown>, apiKey?: string | null, workstream?: string): ReturnType<typeof postRecord>;
}

export type RecordRoute = 'task_reviewed' | 'task_completed';

/** POSTs a performance record (typed client) to a workstream with this API key (none with null): the answer, with its status. */
export function postRecord(route: RecordRoute, workstream: string, body: Record<string, unknown>, apiKey: string | null) {
  const client = apiClient(apiKey ? { apiKey } : {});
  const params = { path: { workstream_id: workstream } };
  // The records suites send records the rules refuse (a 422 per field) through the same call as valid ones: the
  // body is any JSON object, so it is given as the record type, not checked against it.
  return withStatus(
    route === 'task_reviewed'
      ? client.POST('/v1/workstreams/{workstream_id}/task_reviewed', { params, body: body as Schemas['QualityReviewRecord'] })
      : client.POST('/v1/workstreams/{workstream_id}/task_completed', { params, body: body as Schemas['ThroughputRecord'] }),
  );
}

/** The use cases of the records and bulk suites' workstreams: uc-1 (td-1, td-2) and uc-2 (td-3). */
export const RECORD_USE_CASES = [
  { id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] },
  { id: 'uc-2', task_definition_ids: ['td-3'] },
];

export async function newPerformanceAccount(name: string): Promise<PerformanceAccount> {
  const accountId = await newAccountId(name);
  const { ws, key } = await newWorkstreamWithKey({
    account_id: accountId,
    use_cases: RECORD_USE_CASES,
    name: 'Quality',
    qc_score_threshold: 0.6,
    qc_sample_rate: 0,
  });
  const { ws: otherWs, key: otherKey } = await newWorkstreamWithKey({ account_id: accountId, use_cases: RECORD_USE_CASES, name: 'Other' });
  return {
    accountId,
    ws,
    key,
    otherWs,
    otherKey,
    review: (overrides = {}) => qualityRecord(ws, overrides),
    completed: (overrides = {}) => ({ worker_id: 'bob@example.com', task_completed_at: '2024-05-01T12:00:00Z', ...overrides }),
    post: (route, body, apiKey = key, target = ws) => postRecord(route, target, body, apiKey),
  };
}

/**
 * How many records a workstream's report counts: what a client sees of what is stored, so black-box suites
 * check "stores nothing" without reading performance's tables.
 */
export async function reportedRecords(ws: string, key: string, kind: 'quality' | 'throughput'): Promise<number> {
  const client = apiClient({ apiKey: key });
  const params = { path: { workstream_id: ws } };
  if (kind === 'quality')
    return (await ok(client.GET('/v1/workstreams/{workstream_id}/reports/quality', { params }), 200)).groups[0]?.count ?? 0;
  return (await ok(client.GET('/v1/workstreams/{workstream_id}/reports/throughput', { params }), 200)).groups[0]?.records ?? 0;
}
