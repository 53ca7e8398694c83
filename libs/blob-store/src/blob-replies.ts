import type { JsonReply } from '@workline/contracts';
import { randomUUID } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { BlobStore } from './blob-store';
import { PeriodicSweep } from './periodic-sweep';

export interface BlobRepliesOptions {
  /** The answering service: its blobs live under `rpc-replies/<service>/`. */
  service: string;
  /** Answers up to this size (bytes of UTF-8) travel inline; larger ones go through the blob store. */
  inlineBytes: number;
  /** A blob still there this long after it was written was never read: the sweep deletes it. */
  keepSeconds: number;
  /** How often the sweep runs. */
  sweepSeconds: number;
  warn: (message: string) => void;
}

/** Blobs deleted per sweep batch (the next batch follows at once while batches come back full). */
const SWEEP_BATCH = 200;

/**
 * The answering side of JsonReply: keeps large answers off the shared reply topic (see JsonReply), and
 * sweeps the ones no caller took. A Nest provider as it is (onModuleInit/onModuleDestroy start and stop the
 * sweep); with several instances each sweeps, which is harmless.
 */
export class BlobReplies {
  readonly folder: string;
  private readonly sweeper: PeriodicSweep;

  constructor(
    private readonly store: BlobStore,
    private readonly options: BlobRepliesOptions,
  ) {
    this.folder = `rpc-replies/${options.service}/`;
    this.sweeper = new PeriodicSweep(
      'RPC reply blob sweep',
      options.sweepSeconds * 1000,
      async () => (await this.sweep()) === SWEEP_BATCH,
      options.warn,
    );
  }

  /** `json` inline when it is small enough, else written to the blob store and its key. */
  async reply(json: string): Promise<JsonReply> {
    if (json.length <= this.options.inlineBytes / 3 || Buffer.byteLength(json) <= this.options.inlineBytes) return { json };
    const key = `${this.folder}${randomUUID()}.json`;
    const { size } = await this.store.put(key, Readable.from([Buffer.from(json)]), { contentType: 'application/json' });
    return { blob: { key, size } };
  }

  /** Deletes one batch of answers nobody read; resolves with how many it deleted. */
  sweep(now = new Date()): Promise<number> {
    return this.store.deleteOlderThan(this.folder, new Date(now.getTime() - this.options.keepSeconds * 1000), SWEEP_BATCH);
  }

  onModuleInit(): void {
    this.sweeper.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.sweeper.stop();
  }
}

/**
 * The calling side: the answer's JSON text, or a stream of its blob (deleted once the stream has ended or
 * was abandoned: an answer is read once). Undefined when the blob is gone (swept: the caller was too slow).
 */
export async function openJsonReply(
  store: BlobStore,
  reply: JsonReply,
): Promise<{ json: string } | { stream: Readable; size: number } | undefined> {
  if ('json' in reply) return { json: reply.json };
  const found = await store.get(reply.blob.key);
  if (!found) return undefined;
  void finished(found.stream)
    .catch(() => undefined)
    .then(() => store.delete(reply.blob.key))
    .catch(() => undefined);
  return { stream: found.stream, size: reply.blob.size };
}
