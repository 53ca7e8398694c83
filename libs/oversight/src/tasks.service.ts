import { Inject, Injectable } from '@nestjs/common';
import { type BlobStore, type MountedBucket, MountedObjectError, openMountedBucket } from '@workline/blob-store';
import { parseCallbackUrl } from '@workline/callback-url';
import {
  type AdminTaskView,
  BUCKET_MEDIA_TYPES,
  DomainError,
  ErrorCode,
  errorMessage,
  keysetPage,
  MEDIA_KEY_PATTERN,
  mediaBlobKey,
  type MediaLocation,
  type MetadataItemView,
  type TagView,
  TASK_PAGE_DEFAULT,
  type TaskCreateReply,
  type TaskCreateRequest,
  type TaskGetRequest,
  type TaskListRequest,
  type TaskMediaLocateRequest,
  type TaskPage,
  type TaskState,
  type TaskView,
  UPLOAD_MEDIA_TYPES,
} from '@workline/contracts';
import { AlreadyCreated, createOnce, type IdempotencyStamp } from '@workline/db';
import { SecretBox } from '@workline/secrets';
import { randomBytes } from 'node:crypto';
import { bucketSpec, BucketsService } from './buckets.service';
import { ConfigurationsService } from './configurations.service';
import { unknownMediaKey } from './media-grants.service';
import { OVERSIGHT_OPTIONS, type OversightOptions } from './oversight.options';
import { type NewTask, type TaskRows, TasksRepository } from './tasks.repository';

const invalid = (field: string, message: string) =>
  new DomainError(ErrorCode.Validation, `Invalid request: ${message}`, [{ field, message }]);

interface TaskRow {
  id: string;
  state: string;
  mediaKey: string;
  configurationId: string;
  bucketId: string | null;
  existingTags: unknown;
  updatedTags: unknown;
  metadata: unknown;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toTaskView(row: TaskRow): TaskView {
  const view: TaskView = {
    task_id: row.id,
    state: row.state as TaskState,
    media_key: row.mediaKey,
    configuration_id: row.configurationId,
    bucket_id: row.bucketId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (row.state === 'COMPLETED') {
    view.result = {
      updated_tags: (row.updatedTags as TagView[] | null) ?? [],
      existing_tags: (row.existingTags as TagView[] | null) ?? [],
      metadata: (row.metadata as MetadataItemView[] | null) ?? [],
    };
  }
  if (row.state === 'ERROR') view.error = { message: row.error ?? 'the task failed' };
  return view;
}

/** Annotation tasks: creation (with the media and bucket rules), status, and where their media is. */
@Injectable()
export class TasksService {
  private readonly blobs: BlobStore;
  private readonly box: SecretBox;

  constructor(
    @Inject(TasksRepository) private readonly repository: TaskRows,
    private readonly configurations: ConfigurationsService,
    private readonly buckets: BucketsService,
    @Inject(OVERSIGHT_OPTIONS) options: OversightOptions,
  ) {
    this.blobs = options.blobs;
    this.box = new SecretBox(options.secretsKey);
  }

  /**
   * Creates a task; with an Idempotency-Key, at most once per workstream and key (createOnce): the same
   * request again answers the task created first. Without one, `requestId` (the RPC request's correlation
   * id) keeps a replayed request from creating twice.
   */
  async create(request: TaskCreateRequest, requestId?: string): Promise<TaskCreateReply> {
    const { workstream_id: workstreamId, idempotency_key: key } = request;
    const { value, replayed } = await createOnce({
      key,
      requestId,
      // What the client sent: the workstream is the key's scope, the sealed key differs on every request.
      request: {
        ...request,
        workstream_id: undefined,
        account_id: undefined,
        sealed_api_key: undefined,
        idempotency_key: undefined,
        replay_only: undefined,
      },
      find: (idempotencyKey) => this.repository.findByIdempotencyKey(workstreamId, idempotencyKey),
      create: (stamp) => this.insert(request, stamp),
      replay: (row) => row.id,
      replayOnly: request.replay_only,
    });
    return value === undefined ? { replayed: false } : { task_id: value, replayed };
  }

  private async insert(request: TaskCreateRequest, stamp: IdempotencyStamp): Promise<string> {
    await this.configurations.ofWorkstream(request.workstream_id, request.configuration_id);
    const mediaType = request.bucket_id ? await this.bucketMediaType(request, request.bucket_id) : await this.uploadedMediaType(request);
    const callback = request.callback_url ? parseCallbackUrl(request.callback_url) : undefined;
    const task: NewTask = {
      id: `tsk_${randomBytes(16).toString('base64url')}`,
      workstream_id: request.workstream_id,
      account_id: request.account_id,
      configuration_id: request.configuration_id,
      media_key: request.media_key,
      bucket_id: request.bucket_id ?? null,
      media_type: mediaType,
      callback_url: callback?.url ?? null,
      sealed_authorization: callback?.authorization ? this.box.seal(callback.authorization) : null,
      sealed_api_key: request.sealed_api_key,
      existing_tags: (request.existing_tags ?? []).map((t) => ({ value: t.value, confidence_score: t.confidence_score })),
      metadata: (request.metadata ?? []).map((m) => ({ key: m.key, value: m.value })),
      idempotency_key: stamp.idempotencyKey,
      idempotency_hash: stamp.idempotencyHash,
    };
    const outcome = await this.repository.insert(task);
    if (outcome === 'grant gone') throw unknownMediaKey(request.media_key);
    // Another request with the key got there first: createOnce replays its task.
    if (outcome === 'key taken')
      throw new AlreadyCreated(`a task with Idempotency-Key ${stamp.idempotencyKey} exists in workstream ${request.workstream_id}`);
    return task.id;
  }

  async get(request: TaskGetRequest): Promise<TaskView> {
    const row = await this.repository.findById(request.task_id);
    const visible = row && row.accountId === request.account_id && (!request.workstream_id || row.workstreamId === request.workstream_id);
    if (!visible) throw DomainError.notFound(`task ${request.task_id} not found`);
    return toTaskView(row);
  }

  /** Every task (admin), optionally of one workstream and in one state, newest first, a page at a time. */
  async list(request: TaskListRequest): Promise<TaskPage> {
    const limit = request.limit ?? TASK_PAGE_DEFAULT;
    const filter = { workstreamId: request.workstream_id, state: request.state, cursor: request.cursor };
    const rows = await this.repository.list(filter, limit + 1);
    const { page, next_cursor } = keysetPage(rows, limit);
    const tasks: AdminTaskView[] = page.map((row) => ({ ...toTaskView(row), workstream_id: row.workstreamId, account_id: row.accountId }));
    return { tasks, next_cursor };
  }

  /** Where the gateway finds a task's bytes (for the signed media URL it serves to workers). */
  async locateMedia(request: TaskMediaLocateRequest): Promise<MediaLocation> {
    const task = await this.repository.findById(request.task_id);
    if (!task) throw DomainError.notFound(`task ${request.task_id} not found`);
    if (!task.bucketId) return { source: 'upload', blob_key: mediaBlobKey(task.mediaKey), content_type: task.mediaType };
    const bucket = await this.buckets.find(task.bucketId);
    if (!bucket) throw DomainError.notFound(`bucket ${task.bucketId} not found`);
    return { source: 'bucket', bucket: bucketSpec(bucket), key: task.mediaKey, content_type: task.mediaType };
  }

  /**
   * Can the task's media still be read, as what the task was created on? The reason when it cannot (the task
   * then fails with task.error). A mounted bucket's file is sniffed again: the client may have replaced it.
   */
  async unreadableMedia(task: { mediaKey: string; bucketId: string | null; mediaType: string }): Promise<string | undefined> {
    try {
      if (!task.bucketId)
        return (await this.blobs.head(mediaBlobKey(task.mediaKey))) ? undefined : `media ${task.mediaKey} can no longer be read`;
      const bucket = await this.buckets.find(task.bucketId);
      if (!bucket) return `bucket ${task.bucketId} no longer exists`;
      const object = await openMountedBucket(bucketSpec(bucket), this.box).head(task.mediaKey);
      if (!object) return `media ${task.mediaKey} can no longer be read from bucket ${task.bucketId}`;
      return object.mediaType === task.mediaType
        ? undefined
        : `media ${task.mediaKey} in bucket ${task.bucketId} is no longer the ${task.mediaType} the task was created with`;
    } catch (error) {
      return `media ${task.mediaKey} could not be read: ${errorMessage(error)}`;
    }
  }

  private async uploadedMediaType(request: TaskCreateRequest): Promise<string> {
    const grant = MEDIA_KEY_PATTERN.test(request.media_key) ? await this.repository.grant(request.media_key) : undefined;
    if (!grant || grant.workstream_id !== request.workstream_id) throw unknownMediaKey(request.media_key);
    if (grant.configuration_id !== request.configuration_id) {
      throw invalid(
        'configuration_id',
        `media ${request.media_key} was granted for configuration ${grant.configuration_id}: send the same configuration_id`,
      );
    }
    const meta = await this.blobs.head(mediaBlobKey(request.media_key));
    if (!meta)
      throw new DomainError(
        ErrorCode.Conflict,
        `media ${request.media_key} has not been uploaded: PUT its bytes to the media_upload_url first`,
      );
    if (!(UPLOAD_MEDIA_TYPES as readonly string[]).includes(meta.contentType))
      throw invalid('media_key', `media ${request.media_key} has an unsupported type ${meta.contentType}`);
    return meta.contentType;
  }

  private async bucketMediaType(request: TaskCreateRequest, bucketId: string): Promise<string> {
    const bucket = await this.buckets.ofWorkstream(request.workstream_id, bucketId);
    let object: Awaited<ReturnType<MountedBucket['head']>>;
    try {
      object = await openMountedBucket(bucketSpec(bucket), this.box).head(request.media_key);
    } catch (error) {
      if (error instanceof MountedObjectError) throw invalid('media_key', error.message);
      // The bucket itself cannot be read (credentials revoked, bucket gone, endpoint down).
      throw invalid('bucket_id', `bucket ${bucketId} could not be read: ${errorMessage(error)}`);
    }
    if (!object) throw DomainError.notFound(`media ${request.media_key} not found in bucket ${bucketId}`);
    if (object.mediaType?.startsWith('video/')) {
      throw invalid(
        'media_key',
        `media ${request.media_key} in bucket ${bucketId} is a video (${object.mediaType}): mounted buckets take ` +
          `images only; upload videos through POST /v1/signed-url`,
      );
    }
    if (!object.mediaType || !(BUCKET_MEDIA_TYPES as readonly string[]).includes(object.mediaType)) {
      throw invalid(
        'media_key',
        `media ${request.media_key} in bucket ${bucketId} is not an image (${BUCKET_MEDIA_TYPES.join(', ')}): mounted ` +
          `buckets take images only`,
      );
    }
    return object.mediaType;
  }
}
