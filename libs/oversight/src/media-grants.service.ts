import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type BlobStore, PeriodicSweep } from '@workline/blob-store';
import { DomainError, type MediaGrantCreateReply, type MediaGrantCreateRequest, mediaBlobKey } from '@workline/contracts';
import { randomBytes } from 'node:crypto';
import { ConfigurationsService } from './configurations.service';
import { type MediaGrantRows, MediaGrantsRepository } from './media-grants.repository';
import { OVERSIGHT_OPTIONS, type OversightOptions } from './oversight.options';

/** Grants looked at per sweep query (the sweep goes on until a query finds fewer). */
const SWEEP_BATCH = 100;

export const unknownMediaKey = (mediaKey: string) =>
  DomainError.notFound(
    `media ${mediaKey} not found: get a media_key from POST /v1/signed-url, or send bucket_id for media in a mounted bucket`,
  );

/**
 * Upload grants: the media_key behind a signed upload URL, bound to a workstream and configuration. A grant
 * lives until MEDIA_KEY_RETENTION_SECONDS after its URL expired; the periodic sweep then removes it, and
 * deletes its media unless a task uses it, so abandoned uploads do not fill the blob store.
 */
@Injectable()
export class MediaGrantsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MediaGrantsService.name);
  private readonly blobs: BlobStore;
  private readonly retentionSeconds: number;
  private readonly sweeper: PeriodicSweep;

  constructor(
    @Inject(MediaGrantsRepository) private readonly repository: MediaGrantRows,
    private readonly configurations: ConfigurationsService,
    @Inject(OVERSIGHT_OPTIONS) options: OversightOptions,
  ) {
    this.blobs = options.blobs;
    this.retentionSeconds = options.mediaKeyRetentionSeconds;
    this.sweeper = new PeriodicSweep(
      'media grant sweep',
      options.uploadSweepSeconds * 1000,
      async () => (await this.sweep()) === SWEEP_BATCH,
      (message) => this.logger.warn(message),
    );
  }

  async create(request: MediaGrantCreateRequest): Promise<MediaGrantCreateReply> {
    await this.configurations.ofWorkstream(request.workstream_id, request.configuration_id);
    const id = `med_${randomBytes(18).toString('base64url')}`;
    await this.repository.create({
      id,
      workstreamId: request.workstream_id,
      accountId: request.account_id,
      configurationId: request.configuration_id,
      expiresAt: new Date(request.expires_at),
    });
    return { media_key: id };
  }

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  /** One batch of grants past their retention; returns how many it looked at. */
  async sweep(): Promise<number> {
    const cutoff = new Date(Date.now() - this.retentionSeconds * 1000);
    const grants = await this.repository.expiredBefore(cutoff, SWEEP_BATCH);
    for (const id of grants) await this.retire(id);
    return grants.length;
  }

  /** Removes a grant; its media too unless a task uses it (tasks read their media for as long as they exist). */
  private async retire(id: string): Promise<void> {
    await this.repository.retire(id, async (usedByTask) => {
      // Deleted before the grant's row: if this fails the grant stays and the next sweep retries.
      if (!usedByTask) await this.blobs.delete(mediaBlobKey(id));
    });
  }
}
