import { createReadStream, readFile as readFileCallback, stat as statCallback } from 'node:fs';
import { promisify } from 'node:util';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';

export interface BlobMeta {
  size: number;
  contentType: string;
}

/** Raised when a stream is longer than the limit given to put(); nothing is stored. */
export class BlobTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`larger than the limit of ${limitBytes} bytes`);
  }
}

/**
 * Where uploaded bytes live (media, CSV files). Streams in and out: a large file never sits whole in
 * memory. Drivers: filesystem (default, a directory shared by the apps) and S3-compatible (production).
 */
export interface BlobStore {
  put(key: string, body: Readable, options: { contentType: string; maxBytes?: number }): Promise<BlobMeta>;
  head(key: string): Promise<BlobMeta | undefined>;
  get(key: string): Promise<{ meta: BlobMeta; stream: Readable } | undefined>;
  delete(key: string): Promise<void>;
  /** Deletes every blob whose key starts with `folder` (`<key>/`), leftovers of interrupted writes included. */
  deleteFolder(folder: string): Promise<void>;
  /**
   * Deletes at most `limit` blobs directly in `folder` last written before `before` (leftovers nobody will
   * read: see BlobReplies); resolves with how many it deleted, so a sweep knows whether more are left.
   */
  deleteOlderThan(folder: string, before: Date, limit: number): Promise<number>;
  /**
   * Deletes at most `limit` leftovers of writes into `folder` that a killed process never finished, untouched
   * since `before` (a write under way touches its file as bytes arrive); resolves with how many it deleted.
   * Finished blobs are never touched. Filesystem: the write's temporary file beside its blob. S3: a PUT is
   * atomic in the bucket, and what an interrupted one leaves is its spool under this host's temporary
   * directory (any folder's: the spool does not say which).
   */
  deleteInterruptedWrites(folder: string, before: Date, limit: number): Promise<number>;
}

/** The temporary file of a write under way (FsBlobStore.put), in the directory of its blob. */
const PARTIAL = /^\.[0-9a-f-]{36}\.partial$/;
const partialFileName = () => `.${randomUUID()}.partial`;

// head() runs for every task created: the callback API costs half the CPU of fs/promises there (its
// FileHandle open, fstat, read and close each settle a promise): 27–39 µs against 49–68 µs a head.
const readSmallFile = promisify(readFileCallback);
const statFile = promisify(statCallback);

const KEY = /^[A-Za-z0-9][A-Za-z0-9._\-/]{0,511}$/;

export function assertBlobKey(key: string): void {
  if (!KEY.test(key) || key.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
}

/** A folder is a valid key followed by one slash: `performance-uploads/upl_1/`. */
export function assertBlobFolder(folder: string): void {
  if (!folder.endsWith('/')) throw new Error(`invalid blob folder (no trailing slash): ${JSON.stringify(folder)}`);
  assertBlobKey(folder.slice(0, -1));
}

/** Counts bytes as they pass and fails the stream past `limit`. */
export function byteLimit(limit: number | undefined, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counter.bytes += chunk.length;
      if (limit !== undefined && counter.bytes > limit) callback(new BlobTooLargeError(limit));
      else callback(null, chunk);
    },
  });
}

/** Filesystem driver: `<root>/<key>` plus `<key>.meta.json`; written to a temp file, then renamed (atomic). */
export class FsBlobStore implements BlobStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    assertBlobKey(key);
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
    return path;
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes?: number }): Promise<BlobMeta> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = join(dirname(path), partialFileName());
    const counter = { bytes: 0 };
    try {
      await pipeline(body, byteLimit(options.maxBytes, counter), createWriteStream(temp));
      const meta: BlobMeta = { size: counter.bytes, contentType: options.contentType };
      await writeFile(`${path}.meta.json`, JSON.stringify(meta));
      await rename(temp, path);
      return meta;
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async head(key: string): Promise<BlobMeta | undefined> {
    const path = this.path(key);
    try {
      const [meta, file] = await Promise.all([readSmallFile(`${path}.meta.json`, 'utf8'), statFile(path)]);
      return { ...(JSON.parse(meta) as BlobMeta), size: file.size };
    } catch {
      return undefined;
    }
  }

  async get(key: string): Promise<{ meta: BlobMeta; stream: Readable } | undefined> {
    const meta = await this.head(key);
    return meta ? { meta, stream: createReadStream(this.path(key)) } : undefined;
  }

  async delete(key: string): Promise<void> {
    const path = this.path(key);
    await Promise.all([rm(path, { force: true }), rm(`${path}.meta.json`, { force: true })]);
  }

  async deleteFolder(folder: string): Promise<void> {
    assertBlobFolder(folder);
    // A write in progress keeps its temporary file in the same directory (see put), so it goes too.
    await rm(this.path(folder.slice(0, -1)), { recursive: true, force: true });
  }

  async deleteOlderThan(folder: string, before: Date, limit: number): Promise<number> {
    return this.deleteFilesOlderThan(folder, before, limit, (name) => {
      // Descriptions go with their blob; a temporary file of an interrupted write goes once it is old.
      if (name.endsWith('.meta.json')) return false;
      return name.startsWith('.') ? 'file' : 'blob';
    });
  }

  async deleteInterruptedWrites(folder: string, before: Date, limit: number): Promise<number> {
    // Only the temporary files are looked at: a folder of media may hold many blobs, which need no stat.
    return this.deleteFilesOlderThan(folder, before, limit, (name) => PARTIAL.test(name) && 'file');
  }

  /**
   * Deletes at most `limit` files directly in `folder` last written before `before`, of those `kind` names:
   * a blob (with its description) or a plain file; false leaves the name alone without a stat.
   */
  private async deleteFilesOlderThan(
    folder: string,
    before: Date,
    limit: number,
    kind: (name: string) => 'blob' | 'file' | false,
  ): Promise<number> {
    assertBlobFolder(folder);
    const dir = this.path(folder.slice(0, -1));
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let deleted = 0;
    for (const name of names) {
      if (deleted >= limit) break;
      const what = kind(name);
      if (!what) continue;
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (!info?.isFile() || info.mtime >= before) continue;
      if (what === 'file') await rm(join(dir, name), { force: true });
      else await this.delete(`${folder}${name}`);
      deleted++;
    }
    return deleted;
  }
}
