/**
 * `promise`, or a rejection naming `what` once `ms` have passed. The timer ends with the promise: a relay
 * publishing hundreds of times a second would otherwise keep as many pending timers (and what they hold) alive.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `work` settled (resolved or rejected) within `ms`; undefined counts as settled. */
export async function settledWithin(work: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!work) return true;
  const settled = work.then(
    () => true,
    () => true,
  );
  return withTimeout(settled, ms, 'the work').catch(() => false);
}
