import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { FsMountedBucket, MountedObjectError, sniffMediaType } from './mounted-bucket';

describe('mounted buckets', () => {
  it('recognises images, videos and PDFs by their first bytes', () => {
    expect(sniffMediaType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffMediaType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(sniffMediaType(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(sniffMediaType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffMediaType(Buffer.from('\0\0\0\x18ftypmp42'))).toBe('video/mp4');
    expect(sniffMediaType(Buffer.from('%PDF-1.7'))).toBe('application/pdf');
    expect(sniffMediaType(Buffer.from('hello'))).toBeUndefined();
    expect(sniffMediaType(Buffer.alloc(0))).toBeUndefined();
  });

  it('reads objects under its root and refuses keys that leave it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bucket-'));
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'x.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]));
    const bucket = new FsMountedBucket(root);
    await expect(bucket.head('a/x.png')).resolves.toEqual({ size: 10, mediaType: 'image/png' });
    await expect(bucket.head('a/missing.png')).resolves.toBeUndefined();
    await expect(bucket.head('a')).resolves.toBeUndefined();
    await expect(bucket.head('../etc/passwd')).rejects.toBeInstanceOf(MountedObjectError);
    await expect(bucket.head('/etc/passwd')).rejects.toBeInstanceOf(MountedObjectError);
    const got = await bucket.get('a/x.png');
    expect(got?.mediaType).toBe('image/png');
    const chunks: Buffer[] = [];
    for await (const chunk of got!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toHaveLength(10);
  });

  it('sniffs what it serves: a file replaced after it was checked is served as what it is now, from its first byte', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bucket-'));
    writeFileSync(join(root, 'x.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]));
    const bucket = new FsMountedBucket(root);
    await expect(bucket.head('x.png')).resolves.toEqual({ size: 10, mediaType: 'image/png' });
    writeFileSync(join(root, 'x.png'), '<html>not an image</html>');
    const got = await bucket.get('x.png');
    expect(got).toMatchObject({ size: 25, mediaType: undefined });
    const chunks: Buffer[] = [];
    for await (const chunk of got!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('<html>not an image</html>');
    rmSync(root, { recursive: true, force: true });
  });

  describe('symbolic links and special files', () => {
    const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2]);
    const read = async (stream: Readable) => {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('latin1');
    };
    const made: string[] = [];
    afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

    /** A bucket root, and beside it (outside the bucket) a file the client must never get. */
    const layout = () => {
      const base = mkdtempSync(join(tmpdir(), 'bucket-links-'));
      made.push(base);
      const root = join(base, 'root');
      mkdirSync(join(root, 'a'), { recursive: true });
      writeFileSync(join(root, 'a', 'x.png'), PNG);
      mkdirSync(join(base, 'host'));
      writeFileSync(join(base, 'host', 'secret.png'), Buffer.concat([PNG, Buffer.from('host secret')]));
      return { base, root, secret: join(base, 'host', 'secret.png') };
    };

    it('refuses a file swapped for a link after it was checked, and serves nothing through it', async () => {
      const { root, secret } = layout();
      const bucket = new FsMountedBucket(root);
      await expect(bucket.head('a/x.png')).resolves.toEqual({ size: 10, mediaType: 'image/png' });
      unlinkSync(join(root, 'a', 'x.png'));
      symlinkSync(secret, join(root, 'a', 'x.png'));
      await expect(bucket.head('a/x.png')).rejects.toThrow(
        'object key "a/x.png" is a symbolic link: mounted buckets serve regular files only',
      );
      await expect(bucket.head('a/x.png')).rejects.toBeInstanceOf(MountedObjectError);
      await expect(bucket.get('a/x.png')).resolves.toBeUndefined();
    });

    it('refuses a directory on the way that became a link, and links that stay inside the bucket', async () => {
      const { base, root } = layout();
      const bucket = new FsMountedBucket(root);
      renameSync(join(root, 'a'), join(base, 'moved'));
      symlinkSync(join(base, 'host'), join(root, 'a'));
      await expect(bucket.head('a/secret.png')).rejects.toThrow('object key "a/secret.png" goes through a symbolic link');
      await expect(bucket.get('a/secret.png')).resolves.toBeUndefined();
      mkdirSync(join(root, 'b'));
      writeFileSync(join(root, 'b', 'real.png'), PNG);
      symlinkSync(join(root, 'b', 'real.png'), join(root, 'b', 'alias.png'));
      await expect(bucket.head('b/alias.png')).rejects.toBeInstanceOf(MountedObjectError);
      await expect(bucket.head('b/real.png')).resolves.toEqual({ size: 10, mediaType: 'image/png' });
    });

    it('follows a root that is itself a link (the operator chose it), and reads what it checked', async () => {
      const { base, root } = layout();
      symlinkSync(root, join(base, 'mounted'));
      const bucket = new FsMountedBucket(join(base, 'mounted'));
      const got = await bucket.get('a/x.png');
      expect(got?.size).toBe(10);
      expect(await read(got!.stream)).toBe(PNG.toString('latin1'));
    });

    it('does not open a FIFO (it would wait for a writer) or a directory', async () => {
      const { root } = layout();
      execFileSync('mkfifo', [join(root, 'a', 'pipe.png')]);
      const bucket = new FsMountedBucket(root);
      await expect(bucket.head('a/pipe.png')).resolves.toBeUndefined();
      await expect(bucket.get('a/pipe.png')).resolves.toBeUndefined();
      await expect(bucket.get('a')).resolves.toBeUndefined();
    });
  });
});
