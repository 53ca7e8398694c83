import { testStack, callsOnly } from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { DbPool, isUniqueViolation, refusedByDatabase, statement } from './db-pool';
import { PrismaService } from './prisma.service';

// It calls no app: Kafka, PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

/** The app's pool and its helpers against the real PostgreSQL of the test stack. */
describe('DbPool (real PostgreSQL)', () => {
  const db = new DbPool(testStack().databaseUrl, { size: 4 });
  const table = `db_pool_probe_${randomBytes(4).toString('hex')}`;
  const insert = statement(
    `${table}_insert`,
    `insert into ${table} (id, score) select id, score from jsonb_to_recordset($1::jsonb) as x(id text, score int)`,
  );
  const insertOne = statement(`${table}_insert_one`, `insert into ${table} (id, score) values ($1, $2)`);
  const ids = statement(`${table}_ids`, `select id from ${table} order by id`);
  const stored = async () => (await db.query<{ id: string }>(ids)).map((row) => row.id);

  beforeAll(async () => {
    await db.query(
      statement(`${table}_create`, `create table ${table} (id text primary key, score int not null check (score between 0 and 10))`),
    );
  });

  afterAll(async () => {
    await db.query(statement(`${table}_drop`, `drop table ${table}`));
    await db.end();
  });

  beforeEach(() => db.query(statement(`${table}_clear`, `delete from ${table}`)));

  it('runs prepared statements with their values, and counts every statement sent', async () => {
    const before = db.statementsSent;
    const plus = statement('db_pool_probe_plus', 'select $1::int + 1 as n');
    expect(await db.query(plus, [41])).toEqual([{ n: 42 }]);
    expect(await db.query(plus, [1])).toEqual([{ n: 2 }]);
    expect(db.statementsSent - before).toBe(2);
    expect(() => statement('db_pool_probe_plus', 'select 2')).toThrow(
      'SQL statement "db_pool_probe_plus" is defined twice with different texts',
    );
  });

  it('commits a transaction that succeeds, and rolls back one that throws, on one connection', async () => {
    const before = db.statementsSent;
    await db.transaction(async (sql) => {
      await sql.query(insertOne, ['a', 1]);
      await sql.query(insertOne, ['b', 2]);
    });
    // BEGIN, two inserts, COMMIT.
    expect(db.statementsSent - before).toBe(4);
    await expect(
      db.transaction(async (sql) => {
        await sql.query(insertOne, ['c', 3]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await stored()).toEqual(['a', 'b']);
  });

  it('tells a refusal by the database (safe to retry in parts) from a lost connection, and recognises unique violations', async () => {
    const refusal = await db.query(insertOne, ['x', 99]).catch((error: unknown) => error);
    expect(refusedByDatabase(refusal)).toBe(true);
    await db.query(insertOne, ['y', 1]);
    const duplicate = await db.query(insertOne, ['y', 1]).catch((error: unknown) => error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    const killed = await db
      .transaction((sql) => sql.query(statement('db_pool_probe_terminate', 'select pg_terminate_backend(pg_backend_pid())')))
      .catch((error: unknown) => error);
    expect(killed).toBeInstanceOf(Error);
    expect(refusedByDatabase(killed)).toBe(false);
    // The pool goes on with fresh connections.
    expect(await db.query(statement('db_pool_probe_one', 'select 1 as one'))).toEqual([{ one: 1 }]);
  });

  it('group commit: a batch is one transaction; a refused batch is retried one by one, so only the bad row fails', async () => {
    const flushes: string[][] = [];
    const batcher = db.batcher('probe', async (rows: { id: string; score: number }[]) => {
      flushes.push(rows.map((row) => row.id));
      await db.transaction((sql) => sql.query(insert, [JSON.stringify(rows)]));
      return rows.map((row) => row.id);
    });
    const outcomes = await Promise.allSettled([
      batcher.submit({ id: 'p', score: 1 }),
      batcher.submit({ id: 'q', score: 11 }),
      batcher.submit({ id: 'r', score: 3 }),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as { code: string }).code))).toEqual(['p', '23514', 'r']);
    expect(flushes).toEqual([['p', 'q', 'r'], ['p'], ['q'], ['r']]);
    expect(await stored()).toEqual(['p', 'r']);
  });

  it('group commit: a batch whose connection is lost fails as a whole, never written a second time', async () => {
    let flushes = 0;
    const batcher = db.batcher('probe_lost', async (rows: { id: string; score: number }[]) => {
      flushes++;
      await db.transaction(async (sql) => {
        await sql.query(insert, [JSON.stringify(rows)]);
        await sql.query(statement('db_pool_probe_terminate', 'select pg_terminate_backend(pg_backend_pid())'));
      });
      return rows.map((row) => row.id);
    });
    const outcomes = await Promise.allSettled([batcher.submit({ id: 's', score: 1 }), batcher.submit({ id: 't', score: 2 })]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(flushes).toBe(1);
    expect(await stored()).toEqual([]);
  });

  it('Prisma runs on the same pool', async () => {
    const prisma = new PrismaService(db);
    await prisma.$connect();
    try {
      const before = db.statementsSent;
      await prisma.$queryRawUnsafe(`select count(*) from ${table}`);
      expect(db.statementsSent).toBeGreaterThan(before);
    } finally {
      await prisma.$disconnect();
    }
    // Disconnecting Prisma leaves the shared pool open.
    expect(await db.query(statement('db_pool_probe_one', 'select 1 as one'))).toEqual([{ one: 1 }]);
  });
});
