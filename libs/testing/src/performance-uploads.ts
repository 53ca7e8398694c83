import type { PerformanceUploadView } from '@workline/contracts';
import { eventually } from './eventually';
import { adminCreate, http } from './http';
import { RECORD_USE_CASES } from './performance';

/** A workstream and a key of it, as the bulk suites pass them around. */
export interface WorkstreamKey {
  id: string;
  key: string;
}

export interface Presigned {
  upload_url: string;
  upload_id: string;
  expires_at: string;
}

export const QUALITY_CSV_HEADER =
  'use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score,review_type,replace_duplicate,errors.missing_box,errors.wrong_label,metadata.shift,measurements.attribute_1_count,review_explanation';

/** A workstream of the account with RECORD_USE_CASES, and a key of it. */
export async function newBulkWorkstream(
  accountId: string,
  settings: Record<string, number> = { qc_score_threshold: 0, qc_sample_rate: 0 },
): Promise<WorkstreamKey> {
  const { id } = await adminCreate<{ id: string }>('/workstreams', {
    account_id: accountId,
    name: 'Bulk',
    use_cases: RECORD_USE_CASES,
    ...settings,
  });
  const { key } = await adminCreate<{ key: string }>(`/workstreams/${id}/api-keys`, {});
  return { id, key };
}

export const presignUpload = (ws: WorkstreamKey, body: unknown = { kind: 'quality' }) =>
  http<Presigned>('POST', `/v1/workstreams/${ws.id}/performance/generate-presigned-url`, { headers: { 'x-api-key': ws.key }, body });

/** PUTs a file (a string, or chunks streamed as they come) to a presigned URL. */
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

export const getUpload = (ws: WorkstreamKey, uploadId: string) =>
  http<PerformanceUploadView>('GET', `/v1/workstreams/${ws.id}/performance/uploads/${uploadId}`, { headers: { 'x-api-key': ws.key } });

/** The upload's view once it is completed or failed. */
export const uploadFinished = (ws: WorkstreamKey, uploadId: string, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const upload = (await getUpload(ws, uploadId)).body;
      return ['completed', 'failed'].includes(upload.state) ? upload : undefined;
    },
    { what: `upload ${uploadId} to finish`, timeoutMs, intervalMs: 250 },
  );

/** Presigns, PUTs the file, and waits for the import to end. */
export async function uploadCsv(ws: WorkstreamKey, kind: string, csv: string): Promise<PerformanceUploadView> {
  const presigned = (await presignUpload(ws, { kind })).body;
  const stored = await putUploadFile(presigned.upload_url, csv);
  if (stored.status !== 200) throw new Error(`the PUT of a ${kind} CSV answered ${stored.status}: ${stored.body?.message}`);
  return uploadFinished(ws, presigned.upload_id);
}
