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
