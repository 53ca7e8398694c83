import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { DomainError, ErrorCode } from './errors';

/** The most rows a list endpoint answers in one page. */
export const PAGE_MAX = 100;

/** `limit` and `cursor` of a paginated list's query string (the list's own filters extend it). */
export class PageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(PAGE_MAX)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  cursor?: string;
}

/**
 * Opaque keyset cursor over (created_at desc, id desc), as the list endpoints return it in `next_cursor`:
 * stable while new rows arrive. Shared by every paginated list (deliveries, admin tasks).
 */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(String(at));
    if (typeof id !== 'string' || typeof at !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new DomainError(ErrorCode.Validation, 'Invalid request: cursor is not a cursor this API returned', [
      { field: 'cursor', message: 'cursor is not a cursor this API returned' },
    ]);
  }
}

/** The Prisma `where` fragment for the rows after a cursor, in (created_at desc, id desc) order. */
export function afterCursor(cursor: string): { OR: [{ createdAt: { lt: Date } }, { createdAt: Date; id: { lt: string } }] } {
  const { createdAt, id } = decodeCursor(cursor);
  return { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] };
}

/** A page from `limit + 1` rows fetched in (created_at desc, id desc) order, with the cursor of the next one. */
export function keysetPage<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): { page: T[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, next_cursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null };
}
