import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * What a file's first bytes say it is. Mounted buckets carry no content types of their own (they are
 * the client's storage), so the bucket rule (images only) is checked on the bytes, not on a name.
 */
export function sniffMediaType(head: Buffer): string | undefined {
  const starts = (bytes: number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a') return 'image/gif';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') return head.subarray(8, 11).toString('latin1') === 'qt ' ? 'video/quicktime' : 'video/mp4';
  if (starts([0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 11).toString('latin1') === 'AVI') return 'video/x-msvideo';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  return undefined;
}

/** A media_key that cannot name an object in a mounted bucket. */
export class MountedObjectError extends Error {}

/** A mounted bucket that cannot be read as configured; `field` names the setting at fault. */
export class MountedBucketError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Keys of mounted objects: relative, no empty, "." or ".." segments, no NUL. */
export function assertMountedKey(key: string): void {
  if (!key || key.includes('\0') || key.startsWith('/')) throw new MountedObjectError(`invalid object key ${JSON.stringify(key)}`);
  if (key.split('/').some((part) => part === '..' || part === '.')) throw new MountedObjectError(`object key ${JSON.stringify(key)} leaves the bucket`);
}

/** A client's storage mounted read-only: tasks take images from it (spec "Bucket rule"). */
export interface MountedBucket {
  /** Size and sniffed media type of an object; undefined when there is no such object. */
  head(key: string): Promise<{ size: number; mediaType: string | undefined } | undefined>;
  get(key: string): Promise<{ size: number; stream: Readable } | undefined>;
}

/**
 * Driver "fs": a directory. Keys are relative paths inside the root; a key that would leave the root is
 * refused.
 */
export class FsMountedBucket implements MountedBucket {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    assertMountedKey(key);
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new MountedObjectError(`object key ${JSON.stringify(key)} leaves the bucket`);
    return path;
  }

  /** Size and sniffed media type of an object; undefined when there is no such file. */
  async head(key: string): Promise<{ size: number; mediaType: string | undefined } | undefined> {
    const path = this.path(key);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(16);
      const { bytesRead } = await file.read(buffer, 0, 16, 0);
      return { size: info.size, mediaType: sniffMediaType(buffer.subarray(0, bytesRead)) };
    } finally {
      await file.close();
    }
  }

  async get(key: string): Promise<{ size: number; stream: Readable } | undefined> {
    const path = this.path(key);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    return { size: info.size, stream: createReadStream(path) };
  }
}
