import type { S3Settings } from '@workline/blob-store';
import type { Schemas } from '@workline/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminClient, apiClient, ok, withStatus } from './api';
import { solidPng } from './browser';

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
  const admin = adminClient();
  const account = await ok(admin.POST('/admin/v1/accounts', { body: { name } }), 201);
  const workstream = await ok(
    admin.POST('/admin/v1/workstreams', { body: { account_id: account.id, name, use_cases: options.useCases ?? [] } }),
    201,
  );
  const params = { path: { workstream_id: workstream.id } };
  const { key } = await ok(admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params, body: {} }), 201);
  const { id: configurationId } = await ok(
    admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', { params, body: { name, extended_events: true } }),
    201,
  );
  return { accountId: account.id, workstreamId: workstream.id, key, configurationId };
}

/** Uploads a small PNG through a signed URL; answers its media key. */
export async function uploadImage(tenant: OversightTenant, color: [number, number, number] = [40, 160, 90]): Promise<string> {
  const grant = await ok(
    apiClient({ apiKey: tenant.key }).POST('/v1/signed-url', { body: { configuration_id: tenant.configurationId } }),
    200,
  );
  // The presigned URL is used as handed out (its signature is in the query).
  const upload = await fetch(grant.media_upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: solidPng(64, 48, color),
  });
  if (upload.status !== 200) throw new Error(`media upload answered ${upload.status}`);
  return grant.media_key;
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
  const task = apiClient({ apiKey: tenant.key }).POST('/v1/tasks', {
    body: {
      media_key: mediaKey,
      configuration_id: tenant.configurationId,
      ...(options.callbackUrl ? { callback_url: options.callbackUrl } : {}),
      ...(options.existingTags ? { existing_tags: options.existingTags } : {}),
      ...(options.metadata ? { metadata: options.metadata } : {}),
    },
  });
  return { taskId: (await ok(task, 201)).task_id, mediaKey };
}

/** The work API as the worker holding `token`: leases the next task (the answer, with its status as `status`). */
export const nextTask = (token: string) =>
  withStatus(apiClient({ bearer: token }).POST('/workforce/v1/assignments/next', { body: { kind: 'task' } }));

/** Completes a task assignment as the worker holding `token`. */
export const completeTask = (token: string, assignmentId: string, body: Schemas['CompleteTaskAssignmentDto']) =>
  withStatus(
    apiClient({ bearer: token }).POST('/workforce/v1/assignments/{id}/complete', { params: { path: { id: assignmentId } }, body }),
  );

/** Flags a task assignment as the worker holding `token`. */
export const flagTask = (token: string, assignmentId: string, reason: string) =>
  withStatus(
    apiClient({ bearer: token }).POST('/workforce/v1/assignments/{id}/flag', { params: { path: { id: assignmentId } }, body: { reason } }),
  );

/**
 * Leases until the worker holds `taskId`. Tasks are offered oldest first, and earlier tests may leave
 * tasks queued on purpose (quota, refusals): those are flagged out of the way, so a file that leases takes
 * its turn on the queue (`takesTurnOn('oversight task queue')`).
 */
export async function leaseTask(token: string, taskId: string): Promise<Schemas['TaskAssignmentAnswer']> {
  for (let i = 0; i < 200; i++) {
    const { data: next, status } = await nextTask(token);
    if (status !== 200 || next?.kind !== 'task') throw new Error(`next answered ${status} before task ${taskId} was offered`);
    if (next.task_id === taskId) return next;
    await flagTask(token, next.assignment_id, 'left over by another test');
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
