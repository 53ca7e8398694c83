import type { BlobStore } from './blob-store';
import { PeriodicSweep } from './periodic-sweep';

/** How many leftovers one sweep step deletes before it looks again. */
const BATCH = 100;

/**
 * Deletes, every `everyMs`, what writes into `folder` left behind when the process making them was killed
 * (BlobStore.deleteInterruptedWrites) once untouched for `olderThanMs`. Run by the app that writes the
 * folder, so the S3 driver's spools are on its own host. The default age is far beyond any write: a body
 * arrives within the server's request timeout, and an S3 PUT reads its spool from the start.
 */
export class InterruptedWritesSweep {
  private readonly sweep: PeriodicSweep;

  constructor(
    blobs: BlobStore,
    folder: string,
    warn: (message: string) => void,
    { everyMs = 10 * 60_000, olderThanMs = 6 * 3_600_000 }: { everyMs?: number; olderThanMs?: number } = {},
  ) {
    this.sweep = new PeriodicSweep(
      `sweep of interrupted writes in ${folder}`,
      everyMs,
      async () => (await blobs.deleteInterruptedWrites(folder, new Date(Date.now() - olderThanMs), BATCH)) === BATCH,
      warn,
    );
  }

  /** Nest calls these on the provider that holds the sweep. */
  onApplicationBootstrap(): void {
    this.sweep.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweep.stop();
  }
}
