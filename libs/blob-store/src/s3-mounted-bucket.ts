import type { MountedBucketSpec } from '@workline/contracts';
import type { SecretBox } from '@workline/secrets';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  assertMountedKey,
  FsMountedBucket,
  type MountedBucket,
  MountedBucketError,
  type MountedObject,
  MountedObjectError,
  SNIFF_BYTES,
  sniffMediaType,
} from './mounted-bucket';
import { EMPTY_SHA256, S3Client, S3Error, type S3Settings } from './s3-blob-store';

/**
 * Reads the first `limit` bytes (or all, when shorter) of a stream and hands back the whole stream, those
 * bytes first: what they say is what then streams. Destroying the stream handed back destroys `stream`.
 */
async function peekFirstBytes(stream: Readable, limit: number): Promise<{ head: Buffer; stream: Readable }> {
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const taken: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < limit && !ended) {
    const next = await source.next();
    if (next.done) ended = true;
    else {
      taken.push(next.value);
      length += next.value.length;
    }
  }
  async function* whole(): AsyncGenerator<Buffer> {
    yield* taken;
    for (let next = ended ? undefined : await source.next(); next && !next.done; next = await source.next()) yield next.value;
  }
  const rest = Readable.from(whole(), { objectMode: false });
  // Closed before the end (a client gone, a refusal): the source goes too, not left waiting on its socket.
  rest.once('close', () => stream.destroy());
  return { head: Buffer.concat(taken).subarray(0, limit), stream: rest };
}

/**
 * Driver "s3": objects of an S3-compatible bucket, under an optional key prefix (prepended as is). Reads
 * only: the media type is sniffed from the first bytes (a ranged GET), the bytes stream on GET.
 */
export class S3MountedBucket implements MountedBucket {
  private readonly s3: S3Client;

  constructor(private readonly settings: S3Settings & { prefix?: string }) {
    this.s3 = new S3Client(settings);
  }

  private objectKey(key: string): string {
    assertMountedKey(key);
    const full = `${this.settings.prefix ?? ''}${key}`;
    if (Buffer.byteLength(full) > 1024) throw new MountedObjectError(`object key ${JSON.stringify(key)} is longer than S3 allows`);
    return full;
  }

  /** A 404 for a missing object is "no such object"; any other failure (no bucket, credentials) throws. */
  private async missing(response: IncomingMessage, what: string): Promise<true> {
    const error = await S3Error.of(response, what);
    if (error.code === 'NoSuchKey' || error.code === undefined) return true;
    throw error;
  }

  /**
   * A HEAD for the size, then a ranged GET of the first bytes for the media type (an empty object has no
   * range to ask for). A 404 is read again as a GET, whose body tells a missing object from a missing bucket.
   */
  async head(key: string): Promise<{ size: number; mediaType: string | undefined } | undefined> {
    const objectKey = this.objectKey(key);
    const head = await this.s3.send('HEAD', objectKey, EMPTY_SHA256);
    head.resume();
    if (head.statusCode === 404 && (await this.missing(await this.s3.send('GET', objectKey, EMPTY_SHA256), `GET ${objectKey}`)))
      return undefined;
    await this.s3.expectOk(head, `HEAD ${objectKey}`);
    const size = Number(head.headers['content-length'] ?? 0);
    if (size === 0) return { size, mediaType: undefined };
    const response = await this.s3.send('GET', objectKey, EMPTY_SHA256, {
      headers: { range: `bytes=0-${Math.min(SNIFF_BYTES, size) - 1}` },
    });
    await this.s3.expectOk(response, `GET ${objectKey}`);
    const { head: first, stream } = await peekFirstBytes(response, SNIFF_BYTES);
    stream.destroy();
    return { size, mediaType: sniffMediaType(first) };
  }

  /** One GET: its first bytes are sniffed as they arrive, then stream on with the rest. */
  async get(key: string): Promise<MountedObject | undefined> {
    const objectKey = this.objectKey(key);
    const response = await this.s3.send('GET', objectKey, EMPTY_SHA256);
    if (response.statusCode === 404 && (await this.missing(response, `GET ${objectKey}`))) return undefined;
    await this.s3.expectOk(response, `GET ${objectKey}`);
    const { head, stream } = await peekFirstBytes(response, SNIFF_BYTES);
    return { size: Number(response.headers['content-length'] ?? 0), mediaType: sniffMediaType(head), stream };
  }

  /**
   * Can the bucket be listed with these settings? Throws a MountedBucketError naming the setting at fault
   * (endpoint unreachable, no such bucket, credentials refused, wrong region).
   */
  async check(): Promise<void> {
    let response: IncomingMessage;
    try {
      // ListObjects (version 1: the widest support among S3-compatible stores) of at most one key under the prefix.
      response = await this.s3.send('GET', undefined, EMPTY_SHA256, { query: { 'max-keys': '1', prefix: this.settings.prefix ?? '' } });
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new MountedBucketError('endpoint', `endpoint ${this.settings.endpoint} could not be reached (${reason})`);
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      response.resume();
      return;
    }
    const { code } = await S3Error.of(response, 'list');
    const answered = `answered ${status}${code ? ` (${code})` : ''}`;
    if (code === 'NoSuchBucket')
      throw new MountedBucketError('bucket', `bucket ${this.settings.bucket} does not exist at ${this.settings.endpoint}`);
    if (code === 'SignatureDoesNotMatch')
      throw new MountedBucketError('secret_access_key', `the secret access key was refused: the S3 service ${answered}`);
    if (code === 'AuthorizationHeaderMalformed' || code === 'PermanentRedirect' || status === 301) {
      throw new MountedBucketError('region', `region ${this.settings.region} does not match the bucket: the S3 service ${answered}`);
    }
    if (status === 401 || status === 403)
      throw new MountedBucketError('access_key_id', `the credentials were refused: the S3 service ${answered}`);
    throw new MountedBucketError('endpoint', `the bucket could not be listed: ${this.settings.endpoint} ${answered}`);
  }
}

/** Opens a mounted bucket from its stored settings; an S3 secret is unsealed here, only to sign requests. */
export function openMountedBucket(spec: MountedBucketSpec, box: SecretBox): FsMountedBucket | S3MountedBucket {
  if (spec.driver === 'fs') return new FsMountedBucket(spec.root);
  return new S3MountedBucket({
    endpoint: spec.endpoint,
    region: spec.region,
    bucket: spec.bucket,
    prefix: spec.prefix,
    accessKeyId: spec.access_key_id,
    secretAccessKey: box.open(spec.sealed_secret_access_key),
    forcePathStyle: spec.force_path_style,
  });
}
