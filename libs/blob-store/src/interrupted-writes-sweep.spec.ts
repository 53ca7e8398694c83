import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FsBlobStore } from './blob-store';
import { InterruptedWritesSweep } from './interrupted-writes-sweep';

describe('InterruptedWritesSweep', () => {
  const root = mkdtempSync(join(tmpdir(), 'sweep-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('once started, deletes the old leftovers of killed writes in its folder on its schedule, and stops when told', async () => {
    const blobs = new FsBlobStore(root);
    await blobs.put('media/med_1', Readable.from(['bytes']), { contentType: 'image/png' });
    mkdirSync(join(root, 'media'), { recursive: true });
    const old = join(root, 'media', `.${randomUUID()}.partial`);
    const young = join(root, 'media', `.${randomUUID()}.partial`);
    writeFileSync(old, 'half');
    writeFileSync(young, 'half');
    const past = new Date(Date.now() - 120_000);
    utimesSync(old, past, past);
    utimesSync(join(root, 'media/med_1'), past, past);
    const warnings: string[] = [];
    const sweep = new InterruptedWritesSweep(blobs, 'media/', (message) => warnings.push(message), { everyMs: 20, olderThanMs: 60_000 });
    sweep.onApplicationBootstrap();
    for (let waited = 0; existsSync(old) && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await sweep.beforeApplicationShutdown();
    expect([existsSync(old), existsSync(young)]).toEqual([false, true]);
    expect(await blobs.head('media/med_1')).toEqual({ size: 5, contentType: 'image/png' });
    expect(warnings).toEqual([]);
  });
});
