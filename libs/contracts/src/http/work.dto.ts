import { randomUUID } from 'node:crypto';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

/** Work API (docs/work-api.md). Workers lease units (platform runs) and tasks (oversight). */
export const ASSIGNMENT_KINDS = ['unit', 'task'] as const;
export type AssignmentKind = (typeof ASSIGNMENT_KINDS)[number];

/**
 * Assignment ids start with their kind's prefix, so the gateway knows which service owns one without
 * a lookup. Services must mint ids with `newAssignmentId`.
 */
export const ASSIGNMENT_ID_PREFIX: Record<AssignmentKind, string> = { unit: 'asgu_', task: 'asgt_' };

export const newAssignmentId = (kind: AssignmentKind): string => `${ASSIGNMENT_ID_PREFIX[kind]}${randomUUID().replace(/-/g, '')}`;

export function assignmentKindOf(assignmentId: string): AssignmentKind | undefined {
  return ASSIGNMENT_KINDS.find((kind) => assignmentId.startsWith(ASSIGNMENT_ID_PREFIX[kind]));
}

export class NextAssignmentDto {
  @IsIn(ASSIGNMENT_KINDS, { message: 'kind must be one of: unit, task' })
  kind!: AssignmentKind;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  line_id?: string;
}

/**
 * The optional `next` of a complete or flag body: the body `next` would take, whose answer comes back in
 * the same reply (docs/work-api.md). The gateway takes it out of the body before the owning service sees it.
 */
export class FollowUpNextDto {
  @IsObject({ message: 'next must be an object' })
  @ValidateNested()
  @Type(() => NextAssignmentDto)
  next!: NextAssignmentDto;
}

/**
 * The optional `next` every complete and flag body may carry (FollowUpNextDto checks it in the gateway,
 * which takes it out before the owning service sees the body); declared here so the bodies' schemas show it.
 */
export class WithFollowUpNext {
  // Left out, or an object: not null (FollowUpNextDto refuses it), so not IsOptional, which lets null through
  // and makes the schema say so.
  @ValidateIf((_, value) => value !== undefined)
  @ValidateNested()
  @Type(() => NextAssignmentDto)
  next?: NextAssignmentDto;
}

export class FlagAssignmentDto extends WithFollowUpNext {
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  reason!: string;
}

/** Body of complete for a unit: the unit's output, key-value pairs (values may be objects). */
export class CompleteUnitAssignmentDto extends WithFollowUpNext {
  @IsObject({ message: 'output must be an object' })
  @JSONSchema({ additionalProperties: true })
  output!: Record<string, unknown>;
}

/** What `next` answers for kind "unit" (200). */
export interface UnitAssignmentView {
  assignment_id: string;
  kind: 'unit';
  run_id: string;
  line_id: string;
  input: Record<string, unknown>;
  /** When the lease ends (YYYY-MM-DDTHH:MM:SSZ); after it the unit goes back to the queue. */
  lease_expires_at: string;
}

/** What the gateway sends with every work request: who the worker is. */
export interface WorkerRef {
  worker_id: string;
}

/** RPC payload of *AssignmentNext. */
export interface AssignmentNextRequest extends WorkerRef {
  line_id?: string;
}

/** RPC payload of *AssignmentComplete and *AssignmentFlag: the body is validated by the owning service. */
export interface AssignmentActionRequest extends WorkerRef {
  assignment_id: string;
  body: unknown;
  /**
   * Present when the worker asked for the next assignment of the same kind in the same answer: the owning
   * service leases it once the complete or flag is stored, and answers it under `next` (null: none).
   */
  next?: { line_id?: string };
}

/** What complete and flag answer; `next` only when it was asked for. */
export interface AssignmentActionReply {
  assignment_id: string;
  status: string;
  next?: UnitAssignmentView | null;
}
