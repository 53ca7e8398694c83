import { DbPool, PrismaService } from '@workline/db';
import { KafkaProducer, OutboxRelay } from '@workline/messaging';
import { callsOnly, testStack } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { ImportBatch } from './csv-import';
import type { WorkstreamConfig } from './record-rules';
import { QUALITY_TEST_COLUMNS, qualityTestCells } from './testing/csv-batches';
import { UploadClaimLost, UploadsRepository } from './uploads.repository';
import { ServiceName } from '@workline/contracts';

// It calls no app: PostgreSQL only (the relay never starts): it runs beside files that disturb apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

/**
 * An import's batches take turns on two connections (docs/csv-formats.md, "How an import runs"): the next
 * batch is handed over while the one before is still committing, against the real PostgreSQL of the test stack.
 */
describe('UploadsRepository: an import writes on two connections in turn', () => {
  const stack = testStack();
  const db = new DbPool(stack.databaseUrl, { size: 4 });
  const prisma = new PrismaService(db);
  const relay = new OutboxRelay(db, new KafkaProducer({ brokers: stack.kafkaBrokers, app: 'test-uploads', instanceId: 'jest' }), {
    source: ServiceName.Performance,
  });
  const uploads = new UploadsRepository(prisma, db, relay);
  const INSTANCE = 'instance-a';
  // No QC: these batches raise no events, so the relay is never poked.
  const workstream: WorkstreamConfig = {
    id: `ws-${randomUUID()}`,
    account_id: `acc-${randomUUID()}`,
    use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
    qc_score_threshold: 0,
    qc_sample_rate: 0,
  };
  const batchOf = (rows: [uniqueId: string, score: string][]) => {
    const batch = new ImportBatch('quality', workstream);
    rows.forEach(([uniqueId, score], i) =>
      batch.add(i + 2, QUALITY_TEST_COLUMNS, qualityTestCells(uniqueId, 'true', score, { id: 'uc', taskDefinition: 'td' })),
    );
    return batch;
  };

  const claimedUpload = async () => {
    const id = `upl_${randomUUID().replace(/-/g, '')}`;
    await db.pool.query(
      `insert into performance_upload (id, workstream_id, account_id, kind, state, expires_at, claimed_by, heartbeat_at)
       values ($1, $2, $3, 'quality', 'processing', now() + interval '1 hour', $4, now())`,
      [id, workstream.id, workstream.account_id, INSTANCE],
    );
    return id;
  };
  const counters = async (uploadId: string) =>
    (
      await db.pool.query<Record<string, number>>(
        'select rows_processed, rows_stored, rows_replaced, rows_ignored from performance_upload where id = $1',
        [uploadId],
      )
    ).rows[0];
  const scores = async (uploadId: string) =>
    (
      await db.pool.query<{ unique_id: string; review_score: number }>(
        'select unique_id, review_score from performance_quality_record where upload_id = $1 order by unique_id',
        [uploadId],
      )
    ).rows.map((row) => [row.unique_id, row.review_score]);

  afterAll(async () => {
    await prisma.$disconnect();
    await db.end();
  });

  it('applies batches handed over while the one before commits in the order they came, with exact counters', async () => {
    const uploadId = await claimedUpload();
    const writer = await uploads.openImport('quality');
    try {
      const key = `k-${randomUUID()}`;
      // Each batch replaces the key: only file order leaves the last batch's score.
      const commits = [0.1, 0.2, 0.3, 0.4].map((score, i) =>
        writer.commit(
          uploadId,
          INSTANCE,
          batchOf([
            [key, String(score)],
            [`${key}-${i}`, '0.9'],
          ]),
          10,
        ),
      );
      await Promise.all(commits);
      expect(await scores(uploadId)).toEqual([
        [key, 0.4],
        [`${key}-0`, 0.9],
        [`${key}-1`, 0.9],
        [`${key}-2`, 0.9],
        [`${key}-3`, 0.9],
      ]);
      expect(await counters(uploadId)).toEqual({ rows_processed: 8, rows_stored: 5, rows_replaced: 3, rows_ignored: 0 });
    } finally {
      writer.release();
    }
  });

  it('rolls back every batch handed over after one that failed, with that failure, and writes nothing of them', async () => {
    const uploadId = await claimedUpload();
    const writer = await uploads.openImport('quality');
    try {
      // The first batch is committed as an instance that no longer holds the upload: it fails when applied.
      const lost = writer.commit(uploadId, 'instance-b', batchOf([['first', '0.5']]), 10);
      const next = writer.commit(uploadId, INSTANCE, batchOf([['second', '0.6']]), 10);
      await expect(lost).rejects.toBeInstanceOf(UploadClaimLost);
      await expect(next).rejects.toBeInstanceOf(UploadClaimLost);
      expect(await scores(uploadId)).toEqual([]);
      expect(await counters(uploadId)).toEqual({ rows_processed: 0, rows_stored: 0, rows_replaced: 0, rows_ignored: 0 });
      // Nor any batch after them: the file would have a gap.
      await expect(writer.commit(uploadId, INSTANCE, batchOf([['third', '0.7']]), 10)).rejects.toBeInstanceOf(UploadClaimLost);
      expect(await scores(uploadId)).toEqual([]);
    } finally {
      writer.release();
    }
  });
});
