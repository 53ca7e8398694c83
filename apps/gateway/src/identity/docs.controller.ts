import { Controller, Get, Header, NotFoundException } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { V3_MIGRATION_NOTES_PATH } from '../http/v3-deprecation';

/** Serves the v3 migration notes that every /v3 response links to. */
@Controller()
export class DocsController {
  private readonly notes = (() => {
    try {
      return readFileSync(join(process.cwd(), 'docs', 'v3-migration.md'), 'utf8');
    } catch {
      return undefined;
    }
  })();

  @Get(V3_MIGRATION_NOTES_PATH)
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  v3MigrationNotes(): string {
    if (!this.notes) throw new NotFoundException('Migration notes are not installed with this gateway');
    return this.notes;
  }
}
