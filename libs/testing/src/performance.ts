import { adminCreate, http, type HttpResult } from './http';

/** An account with a workstream (use case `uc`, task definition `td`, QC threshold 0.5, no sampling) and an API key of it. */
export async function newQualityWorkstream(name: string): Promise<{ ws: string; key: string }> {
  const account = await adminCreate<{ id: string }>('/accounts', { name });
  const ws = (
    await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name,
      use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
      qc_score_threshold: 0.5,
      qc_sample_rate: 0,
    })
  ).id;
  const key = (await adminCreate<{ key: string }>(`/workstreams/${ws}/api-keys`, {})).key;
  return { ws, key };
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
  /** POSTs a record to ws (or another workstream) with its key (another key, or none with null). */
  post<T = { message: string }>(
    route: 'task_reviewed' | 'task_completed',
    body: unknown,
    apiKey?: string | null,
    workstream?: string,
  ): Promise<HttpResult<T>>;
}

/** The use cases of the records and bulk suites' workstreams: uc-1 (td-1, td-2) and uc-2 (td-3). */
export const RECORD_USE_CASES = [
  { id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] },
  { id: 'uc-2', task_definition_ids: ['td-3'] },
];

export async function newPerformanceAccount(name: string): Promise<PerformanceAccount> {
  const accountId = (await adminCreate<{ id: string }>('/accounts', { name })).id;
  const workstream = (settings: Record<string, unknown>) =>
    adminCreate<{ id: string }>('/workstreams', { account_id: accountId, use_cases: RECORD_USE_CASES, ...settings });
  const ws = (await workstream({ name: 'Quality', qc_score_threshold: 0.6, qc_sample_rate: 0 })).id;
  const otherWs = (await workstream({ name: 'Other' })).id;
  const key = (await adminCreate<{ key: string }>(`/workstreams/${ws}/api-keys`, {})).key;
  const otherKey = (await adminCreate<{ key: string }>(`/workstreams/${otherWs}/api-keys`, {})).key;
  return {
    accountId,
    ws,
    key,
    otherWs,
    otherKey,
    review: (overrides = {}) => ({
      workstream_id: ws,
      use_case_id: 'uc-1',
      task_definition_id: 'td-1',
      worker_id: 'ann@example.com',
      review_completed_at: '2024-05-01T12:00:00Z',
      review_score: 0.9,
      ...overrides,
    }),
    completed: (overrides = {}) => ({ worker_id: 'bob@example.com', task_completed_at: '2024-05-01T12:00:00Z', ...overrides }),
    post: <T>(route: string, body: unknown, apiKey: string | null = key, target = ws) =>
      http<T>('POST', `/v1/workstreams/${target}/${route}`, { headers: apiKey ? { 'x-api-key': apiKey } : {}, body }),
  };
}

/**
 * How many records a workstream's report counts: what a client sees of what is stored, so black-box suites
 * check "stores nothing" without reading performance's tables.
 */
export async function reportedRecords(ws: string, key: string, kind: 'quality' | 'throughput'): Promise<number> {
  const result = await http<{ groups: { count?: number; records?: number }[]; message?: string }>(
    'GET',
    `/v1/workstreams/${ws}/reports/${kind}`,
    { headers: { 'x-api-key': key } },
  );
  if (result.status !== 200) throw new Error(`the ${kind} report of ${ws} answered ${result.status}: ${result.body.message}`);
  const [overall] = result.body.groups;
  return overall?.count ?? overall?.records ?? 0;
}
