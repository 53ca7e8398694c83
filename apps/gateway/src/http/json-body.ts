import { BadRequestException, HttpException, HttpStatus, PayloadTooLargeException, UnsupportedMediaTypeException } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { once } from 'node:events';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { unstorableJson } from './storable-input';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler reads the request body itself, as a stream (`request.raw`): no parser touches it. */
    streamedBody?: boolean;
  }
}

/** Marks a route whose handler streams the request body (presigned uploads): the body is left unread for it. */
export const StreamedBody = () => RouteConfig({ streamedBody: true });

/** Only these methods' bodies are read; a GET or DELETE body is never read. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** application/json and application/<anything>+json, whatever their parameters. */
const JSON_MEDIA_TYPES = ['application/json', /^application\/[\w!#$%&'*+.^`|~-]+\+json(;|$)/] as const;

/** Decompressors of the Content-Encodings a JSON body may come in; identity needs none. */
const INFLATERS: Record<string, (() => Transform) | undefined> = {
  identity: undefined,
  gzip: createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const tooLarge = (limit: number) => new PayloadTooLargeException(`Body is larger than the limit of ${limit} bytes`);
const aborted = () => new BadRequestException('The request was aborted while its body was read');

export const unsupportedMediaType = (contentType: string | undefined) =>
  new UnsupportedMediaTypeException(`Content-Type must be application/json (got ${contentType ?? 'none'})`);

/**
 * Fastify refuses a Content-Type header that is not a media type at all before any parser sees it
 * (FST_ERR_CTP_INVALID_MEDIA_TYPE), and Nest hands that on as a plain 415 HttpException "Unsupported Media
 * Type": every 415 of ours is an UnsupportedMediaTypeException or a DomainError.
 */
export const isMalformedContentTypeRefusal = (error: unknown) =>
  error instanceof HttpException &&
  error.getStatus() === HttpStatus.UNSUPPORTED_MEDIA_TYPE &&
  !(error instanceof UnsupportedMediaTypeException);

/** What a parser would have answered a malformed Content-Type, in our words. */
export function malformedContentTypeRefusal(request: FastifyRequest): UnsupportedMediaTypeException {
  const contentType = request.headers['content-type'];
  return request.routeOptions.config.streamedBody
    ? new UnsupportedMediaTypeException(`Content-Type ${contentType ?? 'none'} is not a media type (type/subtype)`)
    : unsupportedMediaType(contentType);
}

const hasNoBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] === undefined &&
  (request.headers['content-length'] === undefined || request.headers['content-length'] === '0');

/**
 * Requests whose body no parser reads: a route that streams it, a method whose body is ignored, or no route
 * at all (the answer is 404 whatever the body is: an unknown path is not a 415 for a body it never takes).
 */
const leftUnread = (request: FastifyRequest) =>
  request.is404 || request.routeOptions.config.streamedBody === true || !BODY_METHODS.has(request.method);

/**
 * Reads off what is left of a refused body before the refusal is sent: Fastify closes the connection after
 * a parser's error, and closing while the client is still sending resets the connection, so the client
 * would see a reset instead of its 413 or 415.
 */
async function refuseAfterReading(payload: Readable, refusal: Error): Promise<never> {
  if (!payload.readableEnded && !payload.destroyed) {
    payload.resume();
    await Promise.race([once(payload, 'end'), once(payload, 'close')]).catch(() => undefined);
  }
  throw refusal;
}

/** Collects `source` (the body, decompressed), failing past `limit` bytes or when the client goes away. */
function collect(request: FastifyRequest, payload: Readable, inflater: Transform | undefined, limit: number): Promise<Buffer> {
  const source = inflater ? payload.pipe(inflater) : payload;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      source.off('data', onData).off('end', onEnd).off('error', onSourceError);
      payload.off('error', onAbort).off('close', onAbort);
      if (inflater) {
        payload.unpipe(inflater);
        inflater.destroy();
      }
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onSourceError = (error: Error) =>
      finish(
        inflater ? new BadRequestException(`Body is not valid ${request.headers['content-encoding']} data: ${error.message}`) : aborted(),
      );
    const onAbort = () => {
      if (!request.raw.complete) finish(aborted());
    };
    source.on('data', onData).once('end', onEnd).once('error', onSourceError);
    payload.once('error', onAbort).once('close', onAbort);
  });
}

/** The body's bytes, decompressed; at most `limit` of them (413 past it, said before reading when declared). */
async function readBody(request: FastifyRequest, payload: Readable, limit: number): Promise<Buffer> {
  const encoding = String(request.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (!(encoding in INFLATERS))
    return refuseAfterReading(payload, new UnsupportedMediaTypeException(`unsupported content encoding "${encoding}"`));
  const inflate = INFLATERS[encoding];
  // A compressed body's Content-Length says nothing about its size once inflated: the limit is on that size.
  if (!inflate && Number(request.headers['content-length']) > limit) return refuseAfterReading(payload, tooLarge(limit));
  try {
    return await collect(request, payload, inflate?.(), limit);
  } catch (error) {
    return refuseAfterReading(payload, error as Error);
  }
}

const charsetOf = (contentType: string | undefined) =>
  /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1].toLowerCase() ?? 'utf-8';

/** The text of a JSON body in `charset` (a UTF: UTF-8 unless the Content-Type names UTF-16 or another). */
function decode(body: Buffer, charset: string): string {
  if (charset === 'utf-8') {
    const text = body.toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    throw new UnsupportedMediaTypeException(`unsupported charset "${charset.toUpperCase()}"`);
  }
}

/** The text of each parsed JSON body, for handlers that forward the body as it came (RawJsonBody). */
const bodyTexts = new WeakMap<FastifyRequest, string>();

/** The JSON body's text as the client sent it (decoded from its charset); undefined without a JSON body. */
export const jsonBodyText = (request: FastifyRequest): string | undefined => bodyTexts.get(request);

/**
 * JSON bodies for the API routes, as Fastify content-type parsers: any JSON value (the validation pipe
 * decides what a route takes); invalid JSON is 400, and so is a body nested too deeply or holding text no
 * field can store (unstorableJson); a body over `limitBytes` 413 and a body that is not JSON 415, each with
 * a message saying so. Streamed routes (presigned uploads) and GET/DELETE bodies are
 * left unread.
 */
export function installJsonBody(fastify: FastifyInstance, limitBytes: number): void {
  fastify.removeAllContentTypeParsers();
  const parseJson = async (request: FastifyRequest, payload: Readable): Promise<unknown> => {
    if (leftUnread(request)) return undefined;
    const charset = charsetOf(request.headers['content-type']);
    if (!charset.startsWith('utf-'))
      return refuseAfterReading(payload, new UnsupportedMediaTypeException(`unsupported charset "${charset.toUpperCase()}"`));
    const text = decode(await readBody(request, payload, limitBytes), charset);
    // No body, or only whitespace (which JSON does not count as a value either): the same as none sent.
    if (text.trim().length === 0) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new BadRequestException(`Body is not valid JSON: ${(error as Error).message}`);
    }
    const unstorable = unstorableJson(value, text);
    if (unstorable) throw new BadRequestException(unstorable);
    bodyTexts.set(request, text);
    return value;
  };
  for (const mediaType of JSON_MEDIA_TYPES) fastify.addContentTypeParser(mediaType, parseJson);
  fastify.addContentTypeParser('*', async (request: FastifyRequest, payload: Readable): Promise<undefined> => {
    if (leftUnread(request) || hasNoBody(request)) return undefined;
    return refuseAfterReading(payload, unsupportedMediaType(request.headers['content-type']));
  });
}
