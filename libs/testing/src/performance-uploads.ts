import type { Schemas } from '@workline/client';
import type { PerformanceUploadView } from '@workline/contracts';
import { apiClient, ok, withStatus } from './api';
import { eventually } from './eventually';
import { newWorkstreamWithKey, RECORD_USE_CASES } from './performance';

/** A workstream and a key of it, as the bulk suites pass them around. */
export interface WorkstreamKey {
  id: string;
  key: string;
}

export const QUALITY_CSV_HEADER =
  'use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score,review_type,' +
  'replace_duplicate,errors.missing_box,errors.wrong_label,metadata.shift,measurements.attribute_1_count,' +
  'review_explanation';

/** A workstream of the account with RECORD_USE_CASES, and a key of it. */
export async function newBulkWorkstream(
  accountId: string,
  settings: Record<string, number> = { qc_score_threshold: 0, qc_sample_rate: 0 },
): Promise<WorkstreamKey> {
  const { ws, key } = await newWorkstreamWithKey({ account_id: accountId, name: 'Bulk', use_cases: RECORD_USE_CASES, ...settings });
  return { id: ws, key };
}

/** Asks for a presigned upload URL (typed client): the answer, with its status. */
export const presignUpload = (ws: WorkstreamKey, body: Schemas['GeneratePresignedUrlDto'] = { kind: 'quality' }, baseUrl?: string) =>
  withStatus(
    apiClient({ apiKey: ws.key }, baseUrl).POST('/v1/workstreams/{workstream_id}/performance/generate-presigned-url', {
      params: { path: { workstream_id: ws.id } },
      body,
    }),
  );

/**
 * PUTs a file (a string, or chunks streamed as they come) to a presigned URL, used as handed out (the URL is the
 * credential; tests also tamper with it), with fetch rather than the typed client.
 */
export async function putUploadFile(url: string, body: string | AsyncIterable<Uint8Array>, contentType = 'text/csv') {
  const response = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: body as unknown as string,
    duplex: 'half',
  } as RequestInit);
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as PerformanceUploadView & { message?: string }) : undefined };
}

/** An upload's view (typed client): the answer, with its status. */
export const getUpload = (ws: WorkstreamKey, uploadId: string) =>
  withStatus(
    apiClient({ apiKey: ws.key }).GET('/v1/workstreams/{workstream_id}/performance/uploads/{upload_id}', {
      params: { path: { workstream_id: ws.id, upload_id: uploadId } },
    }),
  );

/** The upload's view once it is completed or failed. */
export const uploadFinished = (ws: WorkstreamKey, uploadId: string, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const upload = await ok(getUpload(ws, uploadId), 200);
      return ['completed', 'failed'].includes(upload.state) ? upload : undefined;
    },
    { what: `upload ${uploadId} to finish`, timeoutMs, intervalMs: 250 },
  );

/** Presigns, PUTs the file, and waits for the import to end. */
export async function uploadCsv(
  ws: WorkstreamKey,
  kind: 'quality' | 'throughput',
  csv: string,
): Promise<Schemas['PerformanceUploadAnswer']> {
  const presigned = await ok(presignUpload(ws, { kind }), 201);
  const stored = await putUploadFile(presigned.upload_url, csv);
  if (stored.status !== 200) throw new Error(`the PUT of a ${kind} CSV answered ${stored.status}: ${stored.body?.message}`);
  return uploadFinished(ws, presigned.upload_id);
}
