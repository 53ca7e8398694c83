import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobFolder, assertBlobKey, type BlobMeta, type BlobStore, byteLimit } from './blob-store';

/** The directories (under the host's temporary directory) that PUTs spool their bodies to. */
export const S3_SPOOL_PREFIX = 'workline-s3-';

export interface S3Settings {
  /** e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000 (MinIO and other S3-compatible stores). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`, the default) or virtual-hosted (`<bucket>.<endpoint host>/<key>`). */
  forcePathStyle?: boolean;
  /** Keys per listing page (`max-keys`); S3's default and most, 1,000. Smaller in tests of the paging. */
  listPageSize?: number;
}

/** A request that gets no answer for this long is given up (the caller gets an error, not a hang). */
const IDLE_TIMEOUT_MS = 30_000;

export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** RFC 3986 encoding as S3 expects in canonical paths (slashes kept between segments). */
const encodeSegment = (segment: string) =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

export interface S3Request {
  body?: Readable;
  headers?: Record<string, string>;
  /** Query parameters (signed; sent in canonical order). */
  query?: Record<string, string>;
}

/**
 * One S3-compatible bucket spoken to over HTTP with AWS Signature Version 4, without an SDK. Shared by
 * the blob store (S3BlobStore) and mounted client buckets (S3MountedBucket).
 */
export class S3Client {
  private readonly endpoint: URL;

  constructor(private readonly settings: S3Settings) {
    this.endpoint = new URL(settings.endpoint);
  }

  /** Sends a request for an object (`key`) or for the bucket itself (`key` undefined). */
  send(method: string, key: string | undefined, payloadHash: string, options: S3Request = {}): Promise<IncomingMessage> {
    const basePath = this.endpoint.pathname.replace(/\/+$/, '');
    const pathStyle = this.settings.forcePathStyle ?? true;
    const bucketPath = pathStyle ? `${basePath}/${encodeSegment(this.settings.bucket)}` : basePath;
    const path = key === undefined ? `${bucketPath}/` : `${bucketPath}/${key.split('/').map(encodeSegment).join('/')}`;
    const hostname = pathStyle ? this.endpoint.hostname : `${this.settings.bucket}.${this.endpoint.hostname}`;
    const host = this.endpoint.port ? `${hostname}:${this.endpoint.port}` : hostname;
    const query = canonicalQuery(options.query ?? {});
    const headers = this.sign(method, path, payloadHash, { ...(options.headers ?? {}), host }, new Date(), query);
    const request = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = request(
        { protocol: this.endpoint.protocol, hostname, port: this.endpoint.port, method, path: query ? `${path}?${query}` : path, headers },
        (response) => {
          // The answer has begun: its body may stream as slowly as its reader takes it.
          outgoing.setTimeout(0);
          resolve(response);
        },
      );
      outgoing.on('error', reject);
      outgoing.setTimeout(IDLE_TIMEOUT_MS, () =>
        outgoing.destroy(new Error(`no answer from ${this.endpoint.host} within ${IDLE_TIMEOUT_MS / 1000} s`)),
      );
      if (options.body) {
        options.body.on('error', (error) => outgoing.destroy(error));
        options.body.pipe(outgoing);
      } else {
        outgoing.end();
      }
    });
  }

  /** Resolves for a 2xx answer; otherwise reads the S3 error code and throws an S3Error. */
  async expectOk(response: IncomingMessage, what: string): Promise<void> {
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return;
    throw await S3Error.of(response, what);
  }

  /** Signature Version 4: signs every given header plus x-amz-content-sha256 and x-amz-date, and the canonical query. */
  sign(
    method: string,
    path: string,
    payloadHash: string,
    headers: Record<string, string>,
    now = new Date(),
    query = '',
  ): Record<string, string> {
    const amzDate = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const signed: Record<string, string> = { 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
    for (const [name, value] of Object.entries(headers)) signed[name.toLowerCase()] = value;
    const names = Object.keys(signed).sort();
    const canonical = [
      method,
      path,
      query,
      ...names.map((n) => `${n}:${signed[n].trim().replace(/\s+/g, ' ')}`),
      '',
      names.join(';'),
      payloadHash,
    ].join('\n');
    const scope = `${day}/${this.settings.region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
    const key = hmac(hmac(hmac(hmac(`AWS4${this.settings.secretAccessKey}`, day), this.settings.region), 's3'), 'aws4_request');
    const signature = createHmac('sha256', key).update(toSign).digest('hex');
    const credential = `${this.settings.accessKeyId}/${scope}`;
    signed.authorization = `AWS4-HMAC-SHA256 Credential=${credential},SignedHeaders=${names.join(';')},Signature=${signature}`;
    return signed;
  }
}

/** Query parameters as SigV4 canonicalises them: encoded, sorted by name. */
export function canonicalQuery(query: Record<string, string>): string {
  return Object.entries(query)
    .map(([name, value]) => [encodeSegment(name), encodeSegment(value)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** A non-2xx answer from S3, with its status and error code (e.g. 404 NoSuchBucket, 403 InvalidAccessKeyId). */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    what: string,
  ) {
    super(`S3 ${what} answered ${status}${code ? ` (${code})` : ''}`);
  }

  static async of(response: IncomingMessage, what: string): Promise<S3Error> {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const code = /<Code>([^<]+)<\/Code>/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
    return new S3Error(response.statusCode ?? 0, code, what);
  }
}

/**
 * S3-compatible blob store driver. A put spools the stream to a temporary file first: S3 needs the length
 * and the payload hash before the first byte, and the size limit must refuse a body before anything
 * reaches the bucket.
 */
export class S3BlobStore implements BlobStore {
  private readonly s3: S3Client;

  /** `spoolRoot`: where PUTs spool their bodies, the host's temporary directory unless told. */
  private readonly listPage: Record<string, string>;

  constructor(
    settings: S3Settings,
    private readonly spoolRoot = tmpdir(),
  ) {
    this.s3 = new S3Client(settings);
    this.listPage = settings.listPageSize ? { 'max-keys': String(settings.listPageSize) } : {};
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes?: number }): Promise<BlobMeta> {
    assertBlobKey(key);
    const dir = await mkdtemp(join(this.spoolRoot, S3_SPOOL_PREFIX));
    const spool = join(dir, randomUUID());
    try {
      const counter = { bytes: 0 };
      const hash = createHash('sha256');
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      await pipeline(body, byteLimit(options.maxBytes, counter), hashing, createWriteStream(spool));
      const response = await this.s3.send('PUT', key, hash.digest('hex'), {
        body: createReadStream(spool),
        headers: { 'content-type': options.contentType, 'content-length': String(counter.bytes) },
      });
      await this.s3.expectOk(response, `PUT ${key}`);
      response.resume();
      return { size: counter.bytes, contentType: options.contentType };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async head(key: string): Promise<BlobMeta | undefined> {
    assertBlobKey(key);
    const response = await this.s3.send('HEAD', key, EMPTY_SHA256);
    response.resume();
    if (response.statusCode === 404) return undefined;
    await this.s3.expectOk(response, `HEAD ${key}`);
    return metaOf(response);
  }

  async get(key: string): Promise<{ meta: BlobMeta; stream: Readable } | undefined> {
    assertBlobKey(key);
    const response = await this.s3.send('GET', key, EMPTY_SHA256);
    if (response.statusCode === 404) {
      response.resume();
      return undefined;
    }
    await this.s3.expectOk(response, `GET ${key}`);
    return { meta: metaOf(response), stream: response };
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    const response = await this.s3.send('DELETE', key, EMPTY_SHA256);
    if (response.statusCode === 404) {
      response.resume();
      return;
    }
    await this.s3.expectOk(response, `DELETE ${key}`);
    response.resume();
  }

  /**
   * Lists the folder (ListObjects version 1, the widest support among S3-compatible stores; up to 1,000 keys
   * a page, or listPageSize) and deletes what it finds until it is empty.
   */
  async deleteFolder(folder: string): Promise<void> {
    assertBlobFolder(folder);
    for (;;) {
      const response = await this.s3.send('GET', undefined, EMPTY_SHA256, { query: { prefix: folder, ...this.listPage } });
      await this.s3.expectOk(response, `list ${folder}`);
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const listing = Buffer.concat(chunks).toString('utf8');
      const keys = [...listing.matchAll(/<Key>([^<]*)<\/Key>/g)].map(([, key]) => key);
      for (const key of keys) await this.delete(key);
      // Deleted keys leave the listing, so the next page is the first page again.
      if (!keys.length || !listing.includes('<IsTruncated>true</IsTruncated>')) return;
    }
  }

  /** The spools of PUTs a killed process left in the spool root (see BlobStore). */
  async deleteInterruptedWrites(folder: string, before: Date, limit: number): Promise<number> {
    assertBlobFolder(folder);
    const root = this.spoolRoot;
    let deleted = 0;
    for (const name of await readdir(root)) {
      if (deleted >= limit) break;
      if (!name.startsWith(S3_SPOOL_PREFIX)) continue;
      const dir = join(root, name);
      // The spool's file is written as the body arrives (its mtime), then read while the PUT sends it (its
      // atime, on the first read): those say whether anyone still uses it. The directory's own atime is
      // not looked at: listing it here touches it.
      const files = await readdir(dir).catch(() => undefined);
      if (!files) continue;
      const [spoolDir, ...bodies] = await Promise.all(
        [dir, ...files.map((file) => join(dir, file))].map((path) => stat(path).catch(() => undefined)),
      );
      if (!spoolDir || spoolDir.mtime >= before || bodies.some((info) => !info || info.mtime >= before || info.atime >= before)) continue;
      await rm(dir, { recursive: true, force: true });
      deleted++;
    }
    return deleted;
  }

  async deleteOlderThan(folder: string, before: Date, limit: number): Promise<number> {
    assertBlobFolder(folder);
    let deleted = 0;
    let marker: string | undefined;
    while (deleted < limit) {
      // delimiter '/': only the objects directly in the folder, as the filesystem driver does.
      const response = await this.s3.send('GET', undefined, EMPTY_SHA256, {
        query: { prefix: folder, delimiter: '/', ...this.listPage, ...(marker ? { marker } : {}) },
      });
      await this.s3.expectOk(response, `list ${folder}`);
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const listing = Buffer.concat(chunks).toString('utf8');
      const objects = [...listing.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].map(([, entry]) => ({
        // Keys are plain (assertBlobKey): nothing in them is escaped in XML.
        key: /<Key>([^<]*)<\/Key>/.exec(entry)?.[1] ?? '',
        modified: new Date(/<LastModified>([^<]*)<\/LastModified>/.exec(entry)?.[1] ?? NaN),
      }));
      for (const { key, modified } of objects) {
        if (deleted >= limit) break;
        if (!(modified < before)) continue;
        await this.delete(key);
        deleted++;
      }
      if (!objects.length || !listing.includes('<IsTruncated>true</IsTruncated>')) break;
      marker = objects[objects.length - 1].key;
    }
    return deleted;
  }
}

function metaOf(response: IncomingMessage): BlobMeta {
  return {
    size: Number(response.headers['content-length'] ?? 0),
    contentType: response.headers['content-type'] ?? 'application/octet-stream',
  };
}
