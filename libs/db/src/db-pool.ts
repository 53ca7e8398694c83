import { Logger } from '@nestjs/common';
import type { AppMetrics } from '@workline/observability';
import { Pool, type PoolClient } from 'pg';
import { Batcher, type BatcherOptions } from './batcher';

/** Connections of one app's pool when DATABASE_POOL_SIZE is not set. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * A statement sent as a pg named query: each connection parses and plans it once, then only binds values.
 * Define statements once, at module level, with `statement(...)`.
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

const definedStatements = new Map<string, string>();

/**
 * Defines a named (prepared) statement. A connection keeps a prepared statement under its name, so one name
 * must always mean one text: defining a name twice with different texts throws at once.
 */
export function statement(name: string, text: string): Statement {
  const earlier = definedStatements.get(name);
  if (earlier !== undefined && earlier !== text) throw new Error(`SQL statement "${name}" is defined twice with different texts`);
  definedStatements.set(name, text);
  return { name, text };
}

/** Runs statements: the pool (each statement on any connection, committed on its own) or one transaction's connection. */
export interface Sql {
  query<R extends object = Record<string, unknown>>(statement: Statement, values?: unknown[]): Promise<R[]>;
}

/**
 * Whether a failed statement certainly changed nothing, so its work may be tried again in smaller parts:
 * PostgreSQL refused it with an error of its own (bad data, constraint, deadlock, serialization). Not so
 * for a lost connection or a server shutting down (SQLSTATE classes 08 and 57, or no SQLSTATE at all),
 * where a COMMIT may have been applied without its answer arriving.
 */
export function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08') && !code.startsWith('57');
}

/** A row could not be created because a unique key is taken: reads as a unique violation (23505). */
export class AlreadyCreated extends Error {
  readonly code = '23505';
}

/** A write refused by a unique index: PostgreSQL 23505, or Prisma's P2002. */
export const isUniqueViolation = (error: unknown): boolean => {
  const code = (error as { code?: string } | null)?.code;
  return code === 'P2002' || code === '23505';
};

/**
 * How a transaction's statements are planned. `statistics`: as PostgreSQL sees fit. `along-indexes`: only
 * along indexes (no sequential or bitmap scans, hash or merge joins), whatever the statistics say. Sorts stay
 * allowed: ruled out, they made the planner read a whole index that gives the order rather than sort the
 * few rows found by key (the outcome's lock order read every assignment). For queue statements that take a
 * few rows by key or in index order: statistics lag behind bursts (until autovacuum analyzes the table,
 * a 10,000-unit run that just arrived is a handful of rows to the planner), and a plan that then reads every
 * waiting row costs each claim 50 ms (docs/decisions.md, "Queue statements are planned along their indexes").
 */
export type Planning = 'statistics' | 'along-indexes';

const PLANS_OFF_ALONG_INDEXES = ['seqscan', 'bitmapscan', 'hashjoin', 'mergejoin'];

const BEGIN: Record<Planning, string> = {
  statistics: 'begin',
  // One round trip: the settings travel with BEGIN (simple query protocol) and end with the transaction.
  'along-indexes': ['begin', ...PLANS_OFF_ALONG_INDEXES.map((plan) => `set local enable_${plan} = off`)].join('; '),
};

/** The BEGIN of a transaction planned so (for tests that read its plans). */
export const beginTransaction = (planning: Planning): string => BEGIN[planning];

/**
 * The `along-indexes` settings as one statement, for a transaction another client opened (Prisma's
 * interactive transactions): `set_config(…, true)` is `SET LOCAL`, and ends with the transaction.
 */
export const PLAN_ALONG_INDEXES = `select ${PLANS_OFF_ALONG_INDEXES.map((plan) => `set_config('enable_${plan}', 'off', true)`).join(', ')}`;

/**
 * The server option every connection of a pool takes when it opens (DbPoolOptions.sequentialScans). A prepared
 * statement keeps the generic plan PostgreSQL made for it after its fifth execution until the table is next
 * analyzed; made while a queue table was a few pages, that plan reads the whole table, and keeps reading it
 * as the table grows (docs/decisions.md, "A queue's plans made while it was small").
 */
const NO_SEQUENTIAL_SCANS = '-c enable_seqscan=off';

/** The connection URL with `settings` added to the server options it may already carry (`?options=`). */
export function withServerOptions(databaseUrl: string, settings: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('options', [url.searchParams.get('options'), settings].filter(Boolean).join(' '));
  return url.toString();
}

export interface DbPoolOptions {
  size?: number;
  metrics?: AppMetrics;
  /**
   * false: the pool's statements never read a table sequentially when an index can serve them, whatever
   * the table's size was when they were planned. For an app whose statements all take rows by key or in
   * index order (the webhook dispatcher's queue); not for one that aggregates whole tables (reports).
   */
  sequentialScans?: boolean;
}

const clientSql = (client: PoolClient): Sql => ({
  query: async <R extends object>(s: Statement, values: unknown[] = []) =>
    (await client.query<R>({ name: s.name, text: s.text, values })).rows,
});

/**
 * The PostgreSQL connection pool of one app: Prisma's adapter runs on it (ordinary CRUD, migrations are
 * the CLI's), and hot paths run raw SQL on it, prepared statements in transactions of their own making
 * (docs/decisions.md, "Hot paths on raw SQL"). Counts every statement sent, Prisma's included.
 */
export class DbPool implements Sql {
  private readonly logger = new Logger(DbPool.name);
  readonly pool: Pool;
  /** Statements sent on this pool so far (each one round trip to the server). */
  statementsSent = 0;
  private readonly metrics?: AppMetrics;

  constructor(databaseUrl: string, options: DbPoolOptions = {}) {
    // Sent when each connection opens (startup options): no round trip of its own.
    const connectionString = options.sequentialScans === false ? withServerOptions(databaseUrl, NO_SEQUENTIAL_SCANS) : databaseUrl;
    this.pool = new Pool({ connectionString, max: options.size ?? DEFAULT_POOL_SIZE });
    this.metrics = options.metrics;
    // An idle connection that breaks (the server restarted) is dropped by the pool; it must not crash the app.
    this.pool.on('error', (error) => this.logger.warn(`an idle database connection failed: ${error.message}`));
    const sent = options.metrics?.counter(
      'db_statements_total',
      "SQL statements sent on the app's PostgreSQL pool (raw and Prisma's), one round trip each",
      [],
    );
    this.pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        this.statementsSent++;
        sent?.inc();
        return query(...args);
      };
    });
    options.metrics?.gauge(
      'db_pool_clients',
      "Connections of the app's PostgreSQL pool: total, idle, and requests waiting for one",
      ['state'],
      async () => [
        { labels: { state: 'total' }, value: this.pool.totalCount },
        { labels: { state: 'idle' }, value: this.pool.idleCount },
        { labels: { state: 'waiting' }, value: this.pool.waitingCount },
      ],
    );
  }

  async query<R extends object = Record<string, unknown>>(s: Statement, values: unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R>({ name: s.name, text: s.text, values })).rows;
  }

  /** One statement in a transaction of its own, planned along indexes (see Planning): two round trips more than `query`. */
  queryAlongIndexes<R extends object = Record<string, unknown>>(s: Statement, values: unknown[] = []): Promise<R[]> {
    return this.transaction((sql) => sql.query<R>(s, values), 'along-indexes');
  }

  /**
   * Runs `work` in one transaction on one connection: BEGIN, its statements, COMMIT (ROLLBACK when it
   * throws, and the error goes on). A connection that failed or cannot even roll back is discarded.
   */
  async transaction<T>(work: (sql: Sql) => Promise<T>, planning: Planning = 'statistics'): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // A connection that dies while checked out emits 'error' (its pending query also fails): without a
    // listener that event would crash the process.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await client.query(BEGIN[planning]);
      const result = await work(clientSql(client));
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  /**
   * A group-commit Batcher whose batches fall back to one-by-one only when the database refused the batch
   * (refusedByDatabase): after a lost connection the batch may have committed, so its items fail instead of
   * being written twice. Batch sizes go to the `db_batch_size` histogram under `name`.
   */
  batcher<I, R>(
    name: string,
    flush: (items: I[]) => Promise<R[]>,
    options: Omit<BatcherOptions<I, R>, 'flush' | 'splitOn' | 'onFlush'> = {},
  ): Batcher<I, R> {
    const sizes = this.metrics?.histogram(
      'db_batch_size',
      'Items written per batch (one transaction, one commit), by batcher',
      ['batch'],
      BATCH_SIZE_BUCKETS,
    );
    return new Batcher<I, R>({ ...options, flush, splitOn: refusedByDatabase, onFlush: (size) => sizes?.observe({ batch: name }, size) });
  }

  async end(): Promise<void> {
    await this.pool.end();
  }
}

const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
