import 'reflect-metadata';
import { FsBlobStore } from '@workline/blob-store';
import { ErrorCode } from '@workline/contracts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ConfigurationsService } from './configurations.service';
import { InMemoryConfigurations, InMemoryMediaGrants, TEST_MEDIA_KEY_RETENTION_SECONDS, testOversightOptions } from './testing';
import { MediaGrantsService } from './media-grants.service';
import { mediaBlobKey } from '@workline/contracts';

const RETENTION_MS = TEST_MEDIA_KEY_RETENTION_SECONDS * 1000;

describe('MediaGrantsService', () => {
  let root: string;
  let blobs: FsBlobStore;
  let grants: InMemoryMediaGrants;
  let service: MediaGrantsService;
  let configurationId: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'media-grants-spec-'));
    blobs = new FsBlobStore(root);
    grants = new InMemoryMediaGrants();
    const configurations = new ConfigurationsService(new InMemoryConfigurations());
    configurationId = (await configurations.create({ workstream_id: 'ws-1', account_id: 'acc-1', name: 'Shelves' })).id;
    service = new MediaGrantsService(grants, configurations, testOversightOptions(blobs));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A grant whose upload URL expired `ago` ms ago, with its media uploaded. */
  async function expiredGrant(id: string, ago: number): Promise<void> {
    await grants.create({ id, workstreamId: 'ws-1', accountId: 'acc-1', configurationId, expiresAt: new Date(Date.now() - ago) });
    await blobs.put(mediaBlobKey(id), Readable.from(Buffer.from('bytes')), { contentType: 'image/png' });
  }

  it('grants a media_key bound to the workstream, account and configuration until the URL expires', async () => {
    const expiresAt = '2026-11-25T12:00:00.000Z';
    const { media_key } = await service.create({
      workstream_id: 'ws-1',
      account_id: 'acc-1',
      configuration_id: configurationId,
      expires_at: expiresAt,
    });
    expect(media_key).toMatch(/^med_[A-Za-z0-9_-]{24}$/);
    expect(grants.rows.get(media_key)).toMatchObject({
      workstreamId: 'ws-1',
      accountId: 'acc-1',
      configurationId,
      expiresAt: new Date(expiresAt),
    });
  });

  it("grants nothing for another workstream's configuration", async () => {
    const request = {
      workstream_id: 'ws-2',
      account_id: 'acc-1',
      configuration_id: configurationId,
      expires_at: '2026-11-25T12:00:00.000Z',
    };
    await expect(service.create(request)).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: `configuration ${configurationId} not found`,
    });
    expect(grants.rows.size).toBe(0);
  });

  it('retires grants past their retention with their unused media; keeps younger grants and media a task uses', async () => {
    await expiredGrant('med_unused', RETENTION_MS + 60_000);
    await expiredGrant('med_used', RETENTION_MS + 60_000);
    await expiredGrant('med_young', RETENTION_MS - 60_000);
    grants.usedByTasks.add('med_used');

    expect(await service.sweep()).toBe(2);
    expect([...grants.rows.keys()]).toEqual(['med_young']);
    expect(await blobs.head(mediaBlobKey('med_unused'))).toBeUndefined();
    expect(await blobs.head(mediaBlobKey('med_used'))).toEqual({ size: 5, contentType: 'image/png' });
    expect(await blobs.head(mediaBlobKey('med_young'))).toEqual({ size: 5, contentType: 'image/png' });
  });

  it('leaves a grant a task creation holds, media included, for a later sweep', async () => {
    await expiredGrant('med_held', RETENTION_MS + 60_000);
    grants.held.add('med_held');
    expect(await service.sweep()).toBe(1);
    expect(grants.rows.has('med_held')).toBe(true);
    expect(await blobs.head(mediaBlobKey('med_held'))).toBeDefined();
  });

  it('looks at a batch of 100 grants per sweep, longest expired first', async () => {
    for (let i = 0; i < 101; i++) await expiredGrant(`med_${String(i).padStart(3, '0')}`, RETENTION_MS + 1000 * (i + 1));
    expect(await service.sweep()).toBe(100);
    expect([...grants.rows.keys()]).toEqual(['med_000']);
    expect(await service.sweep()).toBe(1);
    expect(grants.rows.size).toBe(0);
  });

  it('keeps a grant whose media could not be deleted, so the next sweep retries', async () => {
    await expiredGrant('med_stuck', RETENTION_MS + 60_000);
    const failing = Object.assign(Object.create(blobs) as FsBlobStore, {
      delete: async () => {
        throw new Error('blob store unavailable');
      },
    });
    const configurations = new ConfigurationsService(new InMemoryConfigurations());
    const stuck = new MediaGrantsService(grants, configurations, testOversightOptions(failing));
    await expect(stuck.sweep()).rejects.toThrow('blob store unavailable');
    expect(grants.rows.has('med_stuck')).toBe(true);
    expect(await service.sweep()).toBe(1);
    expect(grants.rows.size).toBe(0);
  });
});
