import type { ChainableCommander } from 'ioredis';
import type Redis from 'ioredis';

/**
 * One command of a pipelined round trip: its owner queues it and reads its own reply, so several owners
 * (identity epoch, failed-auth check, rate limit) can share one round trip without knowing each other.
 */
export interface Pipelined<T> {
  queue(pipeline: ChainableCommander): void;
  /** Its reply; with `replies`, the `[error, reply]` pairs of the commands it queued (errors its to judge). */
  read(reply: unknown): T;
  /** How many commands it queues when more than one (see `together`). */
  readonly replies?: number;
}

type Replies<T extends readonly Pipelined<unknown>[]> = { [K in keyof T]: T[K] extends Pipelined<infer R> ? R : never };

interface Waiter {
  first: number;
  count: number;
  resolve(replies: [Error | null, unknown][]): void;
  reject(error: unknown): void;
}

/** The pipeline being filled during this turn of the event loop, per client. */
interface SharedPipeline {
  pipeline: ChainableCommander;
  size: number;
  waiters: Waiter[];
}

const forming = new WeakMap<Redis, SharedPipeline>();

/**
 * Sends the commands of every caller of this turn of the event loop in one pipeline: one write and one read
 * for all the requests a gateway parsed together. A socket write to Redis cost the gateway more CPU than the
 * rest of its Redis work (CPU profile under load, docs/benchmarks.md "Where the time goes"); the wait is one
 * event-loop turn. Each caller's commands stay contiguous and in order; a pipeline is not a transaction, so
 * nothing is lost by sharing it (the scripts that need atomicity are atomic on their own).
 */
function sharedPipeline(redis: Redis): SharedPipeline {
  const current = forming.get(redis);
  if (current) return current;
  const shared: SharedPipeline = { pipeline: redis.pipeline(), size: 0, waiters: [] };
  forming.set(redis, shared);
  setImmediate(() => {
    forming.delete(redis);
    shared.pipeline.exec().then(
      (replies) => {
        for (const waiter of shared.waiters) waiter.resolve((replies ?? []).slice(waiter.first, waiter.first + waiter.count));
      },
      (error: unknown) => {
        for (const waiter of shared.waiters) waiter.reject(error);
      },
    );
  });
  return shared;
}

/**
 * Sends the commands in one round trip (shared with the other callers of this event-loop turn); rejects when
 * Redis cannot answer, at once when it is not connected: callers fail open, and a request must not wait out
 * reconnection attempts.
 */
export async function roundTrip<T extends readonly Pipelined<unknown>[]>(redis: Redis, ...commands: T): Promise<Replies<T>> {
  if (redis.status !== 'ready') throw new Error(`Redis is not connected (${redis.status})`);
  const shared = sharedPipeline(redis);
  const first = shared.size;
  const counts = commands.map((command) => command.replies ?? 1);
  try {
    for (const command of commands) command.queue(shared.pipeline);
  } finally {
    // Positions come from what the pipeline really holds: a command that failed to queue after others had
    // must not shift the replies of the callers that queue after it.
    shared.size = shared.pipeline.length;
  }
  const count = shared.size - first;
  const replies = await new Promise<[Error | null, unknown][]>((resolve, reject) => shared.waiters.push({ first, count, resolve, reject }));
  let at = 0;
  return commands.map((command, index) => {
    const own = replies.slice(at, (at += counts[index]));
    if (command.replies !== undefined) return command.read(own);
    const [error, reply] = own[0] ?? [new Error('Redis gave no reply'), undefined];
    if (error) throw error;
    return command.read(reply);
  }) as Replies<T>;
}

type Optional<T extends readonly (Pipelined<unknown> | undefined)[]> = {
  [K in keyof T]: T[K] extends Pipelined<infer R> | undefined ? R | undefined : never;
};

/**
 * Several owners' commands as one (for a caller that takes one command to send alongside its own): each
 * reads its own reply; one left out (undefined) reads as undefined. A command whose reply is an error
 * reads as undefined too, so one owner's failure (say, a script Redis refused) is not the others'.
 */
export function together<T extends readonly (Pipelined<unknown> | undefined)[]>(...commands: T): Pipelined<Optional<T>> | undefined {
  const present = commands.filter((command): command is Pipelined<unknown> => command !== undefined);
  if (!present.length) return undefined;
  return {
    replies: present.length,
    queue: (pipeline) => present.forEach((command) => command.queue(pipeline)),
    read: (pairs) => {
      const queue = [...(pairs as [Error | null, unknown][])];
      return commands.map((command) => {
        if (!command) return undefined;
        const [error, reply] = queue.shift() ?? [new Error('Redis gave no reply'), undefined];
        return error ? undefined : command.read(reply);
      }) as unknown as Optional<T>;
    },
  };
}

/**
 * A Lua script run as a custom command (EVALSHA after the first use on a connection), in a pipeline or alone.
 * Scripts make a check and its update atomic across every gateway instance.
 */
export class RedisScript {
  private static defined = new WeakMap<Redis, Set<string>>();

  constructor(
    private readonly name: string,
    private readonly lua: string,
    private readonly keys = 1,
  ) {}

  /** Queues the script with its keys and arguments, defining it on the client first if needed. */
  command<T>(redis: Redis, args: (string | number)[], read: (reply: unknown) => T): Pipelined<T> {
    this.defineOn(redis);
    // The client's method called on the pipeline, not the pipeline's own copy: a pipeline copies the scripts
    // defined when it was formed, and this may be the first use of the script, after the pipeline of its turn formed.
    const send = (redis as unknown as Record<string, (...values: (string | number)[]) => unknown>)[this.name];
    return { queue: (pipeline) => send.apply(pipeline, args), read };
  }

  async run<T>(redis: Redis, args: (string | number)[], read: (reply: unknown) => T): Promise<T> {
    const [reply] = await roundTrip(redis, this.command(redis, args, read));
    return reply;
  }

  private defineOn(redis: Redis): void {
    const names = RedisScript.defined.get(redis) ?? new Set<string>();
    if (names.has(this.name)) return;
    redis.defineCommand(this.name, { numberOfKeys: this.keys, lua: this.lua });
    names.add(this.name);
    RedisScript.defined.set(redis, names);
  }
}
