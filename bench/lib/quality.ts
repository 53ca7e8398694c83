/** Quality submissions (POST /v1/workstreams/:id/task_reviewed) under load, and their baseline route. */
import type { Client } from 'pg';
import { qualityRecord } from '../../libs/testing/src/quality-record';
import type { BaselineRoute } from './baseline';
import { runLoad, type LoadResult } from './load';

/** A task_reviewed record; __ID__ becomes a unique id per request. */
export const qualityBody = (workstreamId: string) =>
  JSON.stringify(qualityRecord(workstreamId, { review_type: 'QA', errors: { missing_box: 1 }, unique_id: '__ID__' }));

export const qualityBaselineRoute: BaselineRoute = {
  method: 'POST',
  url: '/v1/workstreams/:id/task_reviewed',
  status: 202,
  body: { message: 'Record stored' },
};

export interface QualityResult extends LoadResult {
  /** requests answered 2xx whose record is in PostgreSQL / missing from it */
  persisted: number;
  lost: number;
}

/**
 * task_reviewed submissions from the load generator against `base`; with `db`, every 202 is checked
 * against the rows in PostgreSQL (requests cut off at the end may also have committed: not counted).
 * With `rate`, paced at that many requests per second.
 */
export async function qualityLoad(
  base: string,
  workstreamId: string,
  key: string,
  connections: number,
  seconds: number,
  db?: Client,
  rate?: number,
): Promise<QualityResult> {
  const { acknowledged = [], ...result } = await runLoad({
    kind: 'http',
    url: `${base}/v1/workstreams/${workstreamId}/task_reviewed`,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: qualityBody(workstreamId),
    connections,
    seconds,
    ...(rate ? { rate } : {}),
  });
  if (!db) return { ...result, persisted: 0, lost: 0 };
  const persisted = Number(
    (
      await db.query('select count(*)::int as n from performance_quality_record where workstream_id = $1 and unique_id = any($2::text[])', [
        workstreamId,
        acknowledged,
      ])
    ).rows[0].n,
  );
  return { ...result, persisted, lost: acknowledged.length - persisted };
}
