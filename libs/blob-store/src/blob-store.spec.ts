import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { BlobTooLargeError, FsBlobStore } from './blob-store';

describe('FsBlobStore', () => {
  const root = mkdtempSync(join(tmpdir(), 'blobs-'));
  const store = new FsBlobStore(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('stores, describes, streams back and deletes a blob', async () => {
    const meta = await store.put('media/a/b.txt', Readable.from(['hello ', 'world']), { contentType: 'text/plain' });
    expect(meta).toEqual({ size: 11, contentType: 'text/plain' });
    expect(await store.head('media/a/b.txt')).toEqual(meta);
    const found = await store.get('media/a/b.txt');
    expect(await text(found!.stream)).toBe('hello world');
    await store.delete('media/a/b.txt');
    expect(await store.head('media/a/b.txt')).toBeUndefined();
    expect(await store.get('media/a/b.txt')).toBeUndefined();
  });

  it('refuses a stream over the limit and keeps nothing', async () => {
    await expect(
      store.put('big.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), {
        contentType: 'application/octet-stream',
        maxBytes: 1000,
      }),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.head('big.bin')).toBeUndefined();
  });

  it('deletes a folder: its blobs, their descriptions and a leftover temporary file, and nothing beside it', async () => {
    await store.put('uploads/u1/a.csv', Readable.from(['a']), { contentType: 'text/csv' });
    await store.put('uploads/u1/b.csv', Readable.from(['b']), { contentType: 'text/csv' });
    await store.put('uploads/u10/c.csv', Readable.from(['c']), { contentType: 'text/csv' });
    writeFileSync(join(root, 'uploads/u1/.interrupted.partial'), 'half');
    await store.deleteFolder('uploads/u1/');
    expect(existsSync(join(root, 'uploads/u1'))).toBe(false);
    expect(await store.head('uploads/u10/c.csv')).toEqual({ size: 1, contentType: 'text/csv' });
    await expect(store.deleteFolder('uploads/u1/')).resolves.toBeUndefined();
    for (const folder of ['uploads/u10', '../', 'uploads/../../', '/'])
      await expect(store.deleteFolder(folder)).rejects.toThrow(/invalid blob/);
  });

  it(
    'deletes what is older than a date directly in a folder, ' + 'a leftover temporary file too, at most `limit`, nothing newer or deeper',
    async () => {
      const past = new Date(Date.now() - 3_600_000);
      for (const name of ['a', 'b', 'c', 'new'])
        await store.put(`old/${name}.json`, Readable.from(['{}']), { contentType: 'application/json' });
      await store.put('old/deeper/d.json', Readable.from(['{}']), { contentType: 'application/json' });
      writeFileSync(join(root, 'old/.interrupted.partial'), 'half');
      for (const name of ['a.json', 'b.json', 'c.json', '.interrupted.partial', 'deeper/d.json'])
        utimesSync(join(root, 'old', name), past, past);
      const cutoff = new Date(Date.now() - 60_000);
      expect(await store.deleteOlderThan('old/', cutoff, 2)).toBe(2);
      expect(await store.deleteOlderThan('old/', cutoff, 10)).toBe(2);
      expect(await store.deleteOlderThan('old/', cutoff, 10)).toBe(0);
      for (const name of ['a', 'b', 'c']) expect(existsSync(join(root, `old/${name}.json.meta.json`))).toBe(false);
      expect(existsSync(join(root, 'old/.interrupted.partial'))).toBe(false);
      expect(await store.head('old/new.json')).toBeDefined();
      expect(await store.head('old/deeper/d.json')).toBeDefined();
      expect(await store.deleteOlderThan('missing/', cutoff, 10)).toBe(0);
      mkdirSync(join(root, 'empty'));
      expect(await store.deleteOlderThan('empty/', cutoff, 10)).toBe(0);
      await expect(store.deleteOlderThan('../', cutoff, 10)).rejects.toThrow(/invalid blob/);
    },
  );

  it('deletes the temporary files of writes a killed process left in a folder once they are old, and nothing else', async () => {
    const past = new Date(Date.now() - 3_600_000);
    await store.put('media/med_1', Readable.from(['kept']), { contentType: 'video/mp4' });
    const partial = (name: string) => join(root, 'media', `.${name}.partial`);
    const [old1, old2, fresh] = [randomUUID(), randomUUID(), randomUUID()];
    for (const name of [old1, old2, fresh]) writeFileSync(partial(name), 'half');
    writeFileSync(join(root, 'media/.not-a-write'), 'other');
    for (const path of [partial(old1), partial(old2), join(root, 'media/.not-a-write'), join(root, 'media/med_1')])
      utimesSync(path, past, past);
    const cutoff = new Date(Date.now() - 60_000);
    expect(await store.deleteInterruptedWrites('media/', cutoff, 1)).toBe(1);
    expect(await store.deleteInterruptedWrites('media/', cutoff, 10)).toBe(1);
    expect(await store.deleteInterruptedWrites('media/', cutoff, 10)).toBe(0);
    expect([old1, old2, fresh].map((name) => existsSync(partial(name)))).toEqual([false, false, true]);
    expect(existsSync(join(root, 'media/.not-a-write'))).toBe(true);
    expect(await store.head('media/med_1')).toEqual({ size: 4, contentType: 'video/mp4' });
    expect(await store.deleteInterruptedWrites('nothing-here/', cutoff, 10)).toBe(0);
    await expect(store.deleteInterruptedWrites('../', cutoff, 10)).rejects.toThrow(/invalid blob/);
  });

  it('refuses keys that would escape its directory', async () => {
    for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '']) {
      await expect(store.put(key, Readable.from(['x']), { contentType: 'text/plain' })).rejects.toThrow(/invalid blob key/);
    }
  });
});
