import { Controller, Get, Header, NotFoundException } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { V3_MIGRATION_NOTES_PATH } from '../http/v3-deprecation';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** Serves the v3 migration notes that every /v3 response links to. */
@Controller()
@ApiArea('platform v3', 'none')
export class DocsController {
  private readonly notes = (() => {
    try {
      return readFileSync(join(process.cwd(), 'docs', 'v3-migration.md'), 'utf8');
    } catch {
      return undefined;
    }
  })();

  @Get(V3_MIGRATION_NOTES_PATH)
  @ApiDoc({
    summary: 'Migration notes from platform API v3 to v4',
    doc: 'docs/v3-migration.md',
    ok: [200, 'Markdown', { 'text/markdown': { type: 'string' } }],
  })
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  v3MigrationNotes(): string {
    if (!this.notes) throw new NotFoundException('Migration notes are not installed with this gateway');
    return this.notes;
  }
}
