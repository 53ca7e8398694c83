import { constants } from 'node:fs';
import { type FileHandle, open, readlink, realpath } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';

/** How many of a file's first bytes sniffMediaType needs. */
export const SNIFF_BYTES = 16;

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
  if (head.subarray(4, 8).toString('latin1') === 'ftyp')
    return head.subarray(8, 11).toString('latin1') === 'qt ' ? 'video/quicktime' : 'video/mp4';
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
  if (key.split('/').some((part) => part === '..' || part === '.'))
    throw new MountedObjectError(`object key ${JSON.stringify(key)} leaves the bucket`);
}

/** An object being read: its size, the media type its first bytes say, and the bytes (those first ones included). */
export interface MountedObject {
  size: number;
  mediaType: string | undefined;
  stream: Readable;
}

/** A client's storage mounted read-only: tasks take images from it (spec "Bucket rule"). */
export interface MountedBucket {
  /** Size and sniffed media type of an object; undefined when there is no such object. */
  head(key: string): Promise<{ size: number; mediaType: string | undefined } | undefined>;
  /**
   * The object's bytes and the media type sniffed from the very bytes that stream (the client may have
   * replaced the object since a task was created on it); undefined when there is no such object.
   */
  get(key: string): Promise<MountedObject | undefined>;
}

/**
 * Driver "fs": a directory. Keys are relative paths inside the root; a key that would leave the root is
 * refused, and so is any symbolic link on the way (the root itself, set by the operator, may be one): the
 * bucket is the client's storage, so a file may be swapped for a link to anywhere on the host after a task
 * was created. Each read opens the file once without following a final link (O_NOFOLLOW), then checks on
 * the open descriptor that it is a regular file whose real path is exactly the key's path under the real
 * root (no link in a directory on the way either), and reads from that descriptor: what was checked is
 * what is served.
 */
export class FsMountedBucket implements MountedBucket {
  private readonly root: string;
  private realRoot?: Promise<string>;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The object's file, open and checked; undefined when there is no such regular file. */
  private async openObject(key: string): Promise<{ file: FileHandle; size: number } | undefined> {
    assertMountedKey(key);
    this.realRoot ??= realpath(this.root);
    const root = await this.realRoot.catch(() => undefined);
    if (!root) return undefined;
    const path = resolve(root, key);
    if (!path.startsWith(root + sep)) throw new MountedObjectError(`object key ${JSON.stringify(key)} leaves the bucket`);
    // O_NONBLOCK: opening a FIFO someone left in the bucket must not wait for a writer.
    const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOOP')
          throw new MountedObjectError(`object key ${JSON.stringify(key)} is a symbolic link: mounted buckets serve regular files only`);
        return undefined;
      },
    );
    if (!file) return undefined;
    try {
      const info = await file.stat();
      if (!info.isFile()) {
        await file.close();
        return undefined;
      }
      if ((await realPathOf(file, path)) !== path) {
        throw new MountedObjectError(
          `object key ${JSON.stringify(key)} goes through a symbolic link: mounted buckets serve regular files only`,
        );
      }
      return { file, size: info.size };
    } catch (error) {
      await file.close().catch(() => undefined);
      throw error;
    }
  }

  /** Size and sniffed media type of an object; undefined when there is no such file. */
  async head(key: string): Promise<{ size: number; mediaType: string | undefined } | undefined> {
    const object = await this.openObject(key);
    if (!object) return undefined;
    try {
      return { size: object.size, mediaType: await sniffFile(object.file) };
    } finally {
      await object.file.close();
    }
  }

  /** The object's bytes and sniffed type, both read from the descriptor that was checked; undefined when it is not a plain file here. */
  async get(key: string): Promise<MountedObject | undefined> {
    const object = await this.openObject(key).catch((error: unknown) => {
      if (error instanceof MountedObjectError) return undefined;
      throw error;
    });
    if (!object) return undefined;
    try {
      const mediaType = await sniffFile(object.file);
      return { size: object.size, mediaType, stream: object.file.createReadStream({ start: 0 }) };
    } catch (error) {
      await object.file.close().catch(() => undefined);
      throw error;
    }
  }
}

/** The media type an open file's first bytes say (a positional read: the file's own position stays at 0). */
async function sniffFile(file: FileHandle): Promise<string | undefined> {
  const buffer = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await file.read(buffer, 0, SNIFF_BYTES, 0);
  return sniffMediaType(buffer.subarray(0, bytesRead));
}

/**
 * Where an open file really is: Linux names it in /proc/self/fd (no race with a later rename or swap);
 * elsewhere the path is resolved again, which is the best the platform offers.
 */
async function realPathOf(file: FileHandle, path: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${file.fd}`);
  } catch {
    return realpath(path);
  }
}
