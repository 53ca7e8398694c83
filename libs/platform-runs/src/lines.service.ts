import { Inject, Injectable } from '@nestjs/common';
import type { PublicSurface } from '@workline/db';
import type { LineCreateRequest, LineView } from '@workline/contracts';
import { randomUUID } from 'node:crypto';
import { LinesRepository } from './lines.repository';

/** Production lines of an account: where runs are sent. */
@Injectable()
export class LinesService {
  constructor(@Inject(LinesRepository) private readonly lines: PublicSurface<LinesRepository>) {}

  async create(request: LineCreateRequest): Promise<LineView> {
    const row = await this.lines.insert({ id: randomUUID(), accountId: request.account_id, name: request.name });
    return { id: row.id, name: row.name };
  }

  /** GET /v4/lines: the caller's lines only, oldest first, as `{name, id}`. */
  async list(accountId: string): Promise<{ name: string; id: string }[]> {
    const rows = await this.lines.ofAccount(accountId);
    return rows.map((row) => ({ name: row.name, id: row.id }));
  }
}
