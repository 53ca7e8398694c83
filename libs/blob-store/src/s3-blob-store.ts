import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, type BlobMeta, type BlobStore, byteLimit } from './blob-store';

export interface S3Settings {
  /** e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000 (MinIO and other S3-compatible stores). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** RFC 3986 encoding as S3 expects in canonical paths (slashes kept between segments). */
const encodeSegment = (segment: string) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * S3-compatible driver (AWS Signature Version 4, path-style addressing), without an SDK. A put spools
 * the stream to a temporary file first: S3 needs the length and the payload hash before the first byte,
 * and the size limit must refuse a body before anything reaches the bucket.
 */
export class S3BlobStore implements BlobStore {
  private readonly endpoint: URL;

  constructor(private readonly settings: S3Settings) {
    this.endpoint = new URL(settings.endpoint);
  }

  async put(key: string, body: Readable, options: { contentType: string; maxBytes?: number }): Promise<BlobMeta> {
    assertBlobKey(key);
    const dir = await mkdtemp(join(tmpdir(), 'workline-s3-'));
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
      const response = await this.send('PUT', key, hash.digest('hex'), {
        body: createReadStream(spool),
        headers: { 'content-type': options.contentType, 'content-length': String(counter.bytes) },
      });
      await this.expectOk(response, 'PUT', key);
      return { size: counter.bytes, contentType: options.contentType };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async head(key: string): Promise<BlobMeta | undefined> {
    assertBlobKey(key);
    const response = await this.send('HEAD', key, EMPTY_SHA256);
    response.resume();
    if (response.statusCode === 404) return undefined;
    await this.expectOk(response, 'HEAD', key);
    return metaOf(response);
  }

  async get(key: string): Promise<{ meta: BlobMeta; stream: Readable } | undefined> {
    assertBlobKey(key);
    const response = await this.send('GET', key, EMPTY_SHA256);
    if (response.statusCode === 404) {
      response.resume();
      return undefined;
    }
    await this.expectOk(response, 'GET', key);
    return { meta: metaOf(response), stream: response };
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    const response = await this.send('DELETE', key, EMPTY_SHA256);
    if (response.statusCode === 404) {
      response.resume();
      return;
    }
    await this.expectOk(response, 'DELETE', key);
    response.resume();
  }

  private async expectOk(response: IncomingMessage, method: string, key: string): Promise<void> {
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return;
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const code = /<Code>([^<]+)<\/Code>/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
    throw new Error(`S3 ${method} ${key} answered ${status}${code ? ` (${code})` : ''}`);
  }

  private send(method: string, key: string, payloadHash: string, options: { body?: Readable; headers?: Record<string, string> } = {}): Promise<IncomingMessage> {
    const basePath = this.endpoint.pathname.replace(/\/+$/, '');
    const path = `${basePath}/${encodeSegment(this.settings.bucket)}/${key.split('/').map(encodeSegment).join('/')}`;
    const headers = this.sign(method, path, payloadHash, { ...(options.headers ?? {}), host: this.endpoint.host });
    const request = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = request({ protocol: this.endpoint.protocol, hostname: this.endpoint.hostname, port: this.endpoint.port, method, path, headers }, resolve);
      outgoing.on('error', reject);
      if (options.body) {
        options.body.on('error', (error) => outgoing.destroy(error));
        options.body.pipe(outgoing);
      } else {
        outgoing.end();
      }
    });
  }

  /** Signature Version 4: signs every given header plus x-amz-content-sha256 and x-amz-date (no query string). */
  sign(method: string, path: string, payloadHash: string, headers: Record<string, string>, now = new Date()): Record<string, string> {
    const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const signed: Record<string, string> = { 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
    for (const [name, value] of Object.entries(headers)) signed[name.toLowerCase()] = value;
    const names = Object.keys(signed).sort();
    const canonical = [method, path, '', ...names.map((n) => `${n}:${signed[n].trim().replace(/\s+/g, ' ')}`), '', names.join(';'), payloadHash].join('\n');
    const scope = `${day}/${this.settings.region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
    const key = hmac(hmac(hmac(hmac(`AWS4${this.settings.secretAccessKey}`, day), this.settings.region), 's3'), 'aws4_request');
    const signature = createHmac('sha256', key).update(toSign).digest('hex');
    signed.authorization = `AWS4-HMAC-SHA256 Credential=${this.settings.accessKeyId}/${scope},SignedHeaders=${names.join(';')},Signature=${signature}`;
    return signed;
  }
}

function metaOf(response: IncomingMessage): BlobMeta {
  return { size: Number(response.headers['content-length'] ?? 0), contentType: response.headers['content-type'] ?? 'application/octet-stream' };
}
