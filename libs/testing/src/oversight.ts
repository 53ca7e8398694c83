import type { S3Settings } from '@workline/blob-store';
import type { TaskAssignmentView } from '@workline/contracts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { solidPng } from './browser';
import { adminCreate, http } from './http';

/** A workstream with an x-api-key and an oversight configuration, ready for tasks. */
export interface OversightTenant {
  accountId: string;
  workstreamId: string;
  key: string;
  configurationId: string;
}

export async function createOversightTenant(
  name: string,
  options: { useCases?: { id: string; task_definition_ids: string[] }[] } = {},
): Promise<OversightTenant> {
  const account = await adminCreate<{ id: string }>('/accounts', { name });
  const workstream = await adminCreate<{ id: string }>('/workstreams', { account_id: account.id, name, use_cases: options.useCases ?? [] });
  const { key } = await adminCreate<{ key: string }>(`/workstreams/${workstream.id}/api-keys`, {});
  const { id: configurationId } = await adminCreate<{ id: string }>(`/workstreams/${workstream.id}/configurations`, {
    name,
    extended_events: true,
  });
  return { accountId: account.id, workstreamId: workstream.id, key, configurationId };
}

/** Uploads a small PNG through a signed URL; answers its media key. */
export async function uploadImage(tenant: OversightTenant, color: [number, number, number] = [40, 160, 90]): Promise<string> {
  const grant = await http<{ media_upload_url: string; media_key: string }>('POST', '/v1/signed-url', {
    headers: { 'x-api-key': tenant.key },
    body: { configuration_id: tenant.configurationId },
  });
  if (grant.status !== 200) throw new Error(`signed-url answered ${grant.status}: ${grant.text}`);
  const upload = await fetch(grant.body.media_upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: solidPng(64, 48, color),
  });
  if (upload.status !== 200) throw new Error(`media upload answered ${upload.status}`);
  return grant.body.media_key;
}

/** Uploads a small PNG through a signed URL and creates a task for it; answers the task id and media key. */
export async function createImageTask(
  tenant: OversightTenant,
  options: {
    callbackUrl?: string;
    existingTags?: { value: string; confidence_score: number }[];
    metadata?: { key: string; value: string }[];
    color?: [number, number, number];
  } = {},
): Promise<{ taskId: string; mediaKey: string }> {
  const mediaKey = await uploadImage(tenant, options.color);
  const task = await http<{ task_id: string }>('POST', '/v1/tasks', {
    headers: { 'x-api-key': tenant.key },
    body: {
      media_key: mediaKey,
      configuration_id: tenant.configurationId,
      ...(options.callbackUrl ? { callback_url: options.callbackUrl } : {}),
      ...(options.existingTags ? { existing_tags: options.existingTags } : {}),
      ...(options.metadata ? { metadata: options.metadata } : {}),
    },
  });
  if (task.status !== 201) throw new Error(`POST /v1/tasks answered ${task.status}: ${task.text}`);
  return { taskId: task.body.task_id, mediaKey };
}

/** A call to the work API's assignments as the worker holding `token`. */
export const workCall = (token: string, path: string, body: unknown) =>
  http<TaskAssignmentView & { message?: string; state?: string }>('POST', `/workforce/v1/assignments${path}`, {
    headers: { authorization: `Bearer ${token}` },
    body,
  });

/**
 * Leases until the worker holds `taskId`. Tasks are offered oldest first, and earlier tests may leave
 * tasks queued on purpose (quota, refusals): those are flagged out of the way, so a file that leases takes
 * its turn on the queue (`takesTurnOn('oversight task queue')`).
 */
export async function leaseTask(token: string, taskId: string): Promise<TaskAssignmentView> {
  for (let i = 0; i < 200; i++) {
    const next = await workCall(token, '/next', { kind: 'task' });
    if (next.status !== 200) throw new Error(`next answered ${next.status} before task ${taskId} was offered`);
    if (next.body.task_id === taskId) return next.body;
    await workCall(token, `/${next.body.assignment_id}/flag`, { reason: 'left over by another test' });
  }
  throw new Error(`task ${taskId} was never offered`);
}

/** An S3-compatible server on loopback (s3rver) with one bucket; it knows the access key id S3RVER and checks no signature. */
export async function startS3Server(bucket: string, secretAccessKey: string): Promise<{ settings: S3Settings; close(): Promise<void> }> {
  // Loaded here, not with libs/testing: a fifth of a second of every integration file's start, for two suites.
  const { default: S3rver } = await import('s3rver');
  const directory = mkdtempSync(join(tmpdir(), 'workline-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  return {
    settings: { endpoint: `http://127.0.0.1:${port}`, bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
