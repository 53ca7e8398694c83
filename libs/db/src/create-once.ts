import { idempotencyKeyReused, requestFingerprint } from '@workline/contracts';
import { isUniqueViolation } from './db-pool';

/** What a created row stores of the client's Idempotency-Key: both null without a key. */
export interface IdempotencyStamp {
  idempotencyKey: string | null;
  idempotencyHash: string | null;
}

export interface CreateOnce<Row extends { idempotencyHash: string | null }, T> {
  /** The client's Idempotency-Key; without one the creation simply runs. */
  key: string | undefined;
  /** What makes two requests the same one (fingerprinted with requestFingerprint). */
  request: unknown;
  /** The row stored under the key in the caller's scope (workstream, account), or null. */
  find: (key: string) => Promise<Row | null>;
  /** Checks and creates, writing the stamp on the created row in the same transaction as the creation. */
  create: (stamp: IdempotencyStamp) => Promise<T>;
  /** The answer of the original creation, from its stored row. */
  replay: (row: Row) => T;
  /** Platform API v3 requests: the v3 error code of a key used with another request. */
  v3Code?: number;
  /** Only look for a replay (never create): `value` is undefined when nothing is stored under the key. */
  replayOnly?: boolean;
  /**
   * The id of the RPC request that asks (its correlation id). Without a client key it stands in for one, so
   * that the same request read again after a crash (docs/decisions.md, "RPC topics") answers the creation
   * it made instead of making a second one. The client asked once: such an answer is not `replayed`.
   */
  requestId?: string;
}

/**
 * How a creation keyed by its request id is stored: under a key no client can send (an Idempotency-Key is
 * printable ASCII), so client keys and request ids never meet.
 */
export const REQUEST_ID_KEY_PREFIX = '\u0001request ';

const NO_KEY: IdempotencyStamp = { idempotencyKey: null, idempotencyHash: null };

/**
 * Runs a creation at most once per key (docs/decisions.md, "Idempotent creation"). A key already stored
 * replays the original answer when the request is the same, and is a 422 when it is another one. Two
 * requests racing with one key both try to insert; the unique index on the key refuses the second, which
 * then replays the first one's row. Any other failure of a creation with a key is also answered by a row
 * stored under the key meanwhile, when there is one.
 */
export async function createOnce<Row extends { idempotencyHash: string | null }, T>(
  options: CreateOnce<Row, T>,
): Promise<{ value?: T; replayed: boolean }> {
  const { key } = options;
  if (key === undefined) {
    if (options.replayOnly) return { replayed: false };
    if (options.requestId === undefined) return { value: await options.create(NO_KEY), replayed: false };
    return { value: await createUnderRequestId(options, options.requestId), replayed: false };
  }
  const fingerprint = requestFingerprint(options.request);
  const replayed = async (): Promise<{ value: T; replayed: true } | undefined> => {
    const stored = await options.find(key);
    if (!stored) return undefined;
    if (stored.idempotencyHash !== fingerprint) throw idempotencyKeyReused(key, options.v3Code);
    return { value: options.replay(stored), replayed: true };
  };
  const earlier = await replayed();
  if (earlier) return earlier;
  if (options.replayOnly) return { replayed: false };
  try {
    return { value: await options.create({ idempotencyKey: key, idempotencyHash: fingerprint }), replayed: false };
  } catch (error) {
    // A request racing one with the same key loses on the unique index, or on a check the winner has just
    // changed the answer of (e.g. a key the winner's rotation expired): either way the winner's row answers.
    const raced = await replayed().catch((lookupError: unknown) => {
      if (isUniqueViolation(error)) throw lookupError;
      return undefined;
    });
    if (raced) return raced;
    throw error;
  }
}

/**
 * A keyless creation stored under its request id. No lookup first (the request is almost always new): the
 * unique index refuses a replay's insert, and any failure is answered by the row stored under the request
 * id when there is one (as for client keys, a check may fail now because of what the first run did).
 */
async function createUnderRequestId<Row extends { idempotencyHash: string | null }, T>(
  options: CreateOnce<Row, T>,
  requestId: string,
): Promise<T> {
  const key = `${REQUEST_ID_KEY_PREFIX}${requestId}`;
  try {
    return await options.create({ idempotencyKey: key, idempotencyHash: null });
  } catch (error) {
    const stored = await options.find(key).catch(() => null);
    if (stored) return options.replay(stored);
    throw error;
  }
}
