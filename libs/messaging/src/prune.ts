/** How many rows one prune statement deletes: short transactions, no long locks. */
export const PRUNE_CHUNK = 5_000;

/** Runs `chunk` (one prune statement of at most PRUNE_CHUNK rows) until one deletes fewer; returns how many rows went. */
export async function pruneAll(chunk: () => Promise<number>): Promise<number> {
  let total = 0;
  let deleted: number;
  do {
    deleted = await chunk();
    total += deleted;
  } while (deleted === PRUNE_CHUNK);
  return total;
}
