import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    const chunks: Buffer[] = [];
    for await (const chunk of got!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toHaveLength(10);
  });
});
