import type { OversightTask } from '@workline/db';

/** A queued task row, as task creation stores it. */
export const queuedTask = (fields: Partial<OversightTask> & { id: string }): OversightTask => ({
  workstreamId: 'ws-1',
  accountId: 'acc-1',
  configurationId: 'cfg-1',
  mediaKey: `med_${fields.id}`,
  bucketId: null,
  mediaType: 'image/png',
  callbackUrl: null,
  sealedAuthorization: null,
  sealedApiKey: 'sealed',
  state: 'QUEUED',
  existingTags: [],
  updatedTags: null,
  metadata: null,
  error: null,
  assignmentId: null,
  workerId: null,
  leaseExpiresAt: null,
  idempotencyKey: null,
  idempotencyHash: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...fields,
});
