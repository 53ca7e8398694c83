import { Test } from '@nestjs/testing';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { FsBlobStore } from './blob-store';
import { BlobReplies, openJsonReply } from './blob-replies';

describe('BlobReplies (large RPC answers through the blob store)', () => {
  const root = mkdtempSync(join(tmpdir(), 'replies-'));
  const store = new FsBlobStore(root);
  const replies = new BlobReplies(store, {
    service: 'platform-runs',
    inlineBytes: 1024,
    keepSeconds: 600,
    sweepSeconds: 60,
    warn: () => undefined,
  });
  const folder = join(root, 'rpc-replies', 'platform-runs');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('keeps a small answer inline and writes a large one to the blob store, read back once and then deleted', async () => {
    expect(await replies.reply('{"a":1}')).toEqual({ json: '{"a":1}' });
    // 1,024 bytes exactly is still inline; multi-byte characters count as the bytes they take.
    const edge = JSON.stringify({ t: 'x'.repeat(1016) });
    expect(Buffer.byteLength(edge)).toBe(1024);
    expect(await replies.reply(edge)).toEqual({ json: edge });
    const wide = JSON.stringify({ t: 'é'.repeat(600) });
    const large = await replies.reply(wide);
    expect(large).toEqual({
      blob: { key: expect.stringMatching(/^rpc-replies\/platform-runs\/[0-9a-f-]{36}\.json$/), size: Buffer.byteLength(wide) },
    });

    const opened = await openJsonReply(store, large);
    expect(opened && 'stream' in opened && opened.size).toBe(Buffer.byteLength(wide));
    expect(await text((opened as { stream: NodeJS.ReadableStream }).stream)).toBe(wide);
    const key = (large as { blob: { key: string } }).blob.key;
    for (let i = 0; i < 50 && (await store.head(key)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await store.head(key)).toBeUndefined();
    expect(await openJsonReply(store, large)).toBeUndefined();
    expect(await openJsonReply(store, { json: '[]' })).toEqual({ json: '[]' });
  });

  it('the sweep deletes answers nobody read once they are older than keepSeconds, and leaves younger ones', async () => {
    const big = JSON.stringify({ t: 'y'.repeat(2000) });
    const old = await replies.reply(big);
    const young = await replies.reply(big);
    const oldKey = (old as { blob: { key: string } }).blob.key;
    const youngKey = (young as { blob: { key: string } }).blob.key;
    const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
    utimesSync(join(root, oldKey), elevenMinutesAgo, elevenMinutesAgo);
    expect(await replies.sweep()).toBe(1);
    expect(await store.head(oldKey)).toBeUndefined();
    expect(existsSync(join(root, `${oldKey}.meta.json`))).toBe(false);
    expect(await store.head(youngKey)).toBeDefined();
    // Twenty minutes on, the young one is an orphan too.
    expect(await replies.sweep(new Date(Date.now() + 20 * 60_000))).toBe(1);
    expect(readdirSync(folder)).toEqual([]);
    expect(await replies.sweep()).toBe(0);
  });

  it('as a Nest provider (useValue), its sweep starts with the module and stops with it', async () => {
    const provided = new BlobReplies(store, {
      service: 'svc',
      inlineBytes: 1024,
      keepSeconds: 600,
      sweepSeconds: 60,
      warn: () => undefined,
    });
    const start = jest.spyOn(provided, 'onModuleInit');
    const stop = jest.spyOn(provided, 'onModuleDestroy');
    const moduleRef = await Test.createTestingModule({ providers: [{ provide: BlobReplies, useValue: provided }] }).compile();
    await moduleRef.init();
    expect(start).toHaveBeenCalledTimes(1);
    await moduleRef.close();
    expect(stop).toHaveBeenCalledTimes(1);
  });
});
