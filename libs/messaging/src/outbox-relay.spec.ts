import type { DbPool, Sql, Statement } from '@workline/db';
import { OutboxRelay, type OutboxRow, RELAY_READ } from './outbox-relay';
import type { KafkaProducer } from './producer';

describe('OutboxRelay', () => {
  /** Resolves once `done` holds, checking every few ms (a relay that never gets there fails on the test's timeout). */
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  /**
   * A relay over a pool whose reads wait until the test answers them (`reads`), so a poke or a shutdown can
   * land while one is under way; its poll is far longer than a test's timeout, so only they can move it.
   */
  const heldRelay = () => {
    const reads: ((rows: OutboxRow[]) => void)[] = [];
    const sql = {
      query: (statement: Statement) =>
        statement === RELAY_READ ? new Promise<OutboxRow[]>((resolve) => reads.push(resolve)) : Promise.resolve([]),
    } as unknown as Sql;
    const db = { transaction: (work: (sql: Sql) => Promise<unknown>) => work(sql), query: sql.query } as unknown as DbPool;
    const producer = { send: () => Promise.resolve() } as unknown as KafkaProducer;
    const relay = new OutboxRelay(db, producer, { source: 'test', pollMs: 600_000 });
    relay.onApplicationBootstrap();
    /** Stops the relay, answering every read (its final flush reads too) with no rows. */
    const stop = async () => {
      let answered = 0;
      const answering = setInterval(() => {
        while (answered < reads.length) reads[answered++]([]);
      }, 1);
      await relay.beforeApplicationShutdown();
      clearInterval(answering);
    };
    return { relay, reads, stop };
  };

  it('reads again at once when poked while a batch was being read, instead of waiting for its next poll', async () => {
    const { relay, reads, stop } = heldRelay();
    try {
      await until(() => reads.length === 1);
      relay.poke(); // an event committed after the read began
      reads[0]([]);
      await until(() => reads.length === 2);
      expect(reads).toHaveLength(2);
    } finally {
      await stop();
    }
  });

  it('stops without waiting out its poll when asked to during a batch', async () => {
    const { reads, stop } = heldRelay();
    await until(() => reads.length === 1);
    await stop();
    // The final flush read once more and found nothing.
    expect(reads).toHaveLength(2);
  });
});
