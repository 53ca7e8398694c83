import { ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { PageQuery } from '../keyset-cursor';
import type { PlatformApi } from '../rpc/platform.messages';

/**
 * Platform API request shapes, for the API description (docs/openapi.json) and its typed client. The
 * gateway passes these bodies on as they came: platform-runs checks them (libs/platform-runs run-request.ts),
 * because the v4 texts and v3 codes of each refusal are the spec's.
 */

const UNIT = {
  type: 'object',
  additionalProperties: true,
  description: 'The unit input: key-value pairs (values may be objects); an identifier key is recommended',
} as const;

export class CreateRunBody {
  @IsString() line_id!: string;
  /** Receives the run once every unit is processed; may carry HTTP Basic credentials. */
  @IsOptional() @IsString() callback_url?: string;
  @IsArray() @ArrayMinSize(1) @JSONSchema({ items: UNIT }) units!: Record<string, unknown>[];
}

/** POST /v3/tasks (deprecated): a v4 run with v3 names. */
export class CreateV3TaskBody {
  @IsString() template_id!: string;
  @IsOptional() @IsString() callback_url?: string;
  @IsArray() @ArrayMinSize(1) @JSONSchema({ items: UNIT }) resources!: Record<string, unknown>[];
}

/** GET /v4/runs/{id}: a page of the run's units (extension); without them every unit is answered. */
export class RunUnitsQuery {
  @IsOptional() @IsInt() @Min(0) units_offset?: number;
  @IsOptional() @IsInt() @Min(1) @Max(10_000) units_limit?: number;
}

/** A run's status as v4 shows it (v3 shows Processing as In-Progress, Processed as Completed). */
export const RUN_STATUSES = ['Processing', 'Processed'] as const;
export type RunStatusValue = (typeof RUN_STATUSES)[number];

export const RUN_PAGE_DEFAULT = 20;

/** GET /admin/v1/runs query string: the production runs of every account (v4 and v3), newest first. */
export class ListRunsQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  account_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  line_id?: string;

  @IsOptional()
  @IsIn(RUN_STATUSES, { message: `status must be one of: ${RUN_STATUSES.join(', ')}` })
  status?: RunStatusValue;
}

/** A run as the admin API lists it: what support asks first, without its units (GET /v4/runs/:id has those). */
export interface AdminRunView {
  id: string;
  account_id: string;
  line_id: string;
  /** The API that created it. */
  api: PlatformApi;
  status: RunStatusValue;
  unit_count: number;
  /** Units not yet completed, flagged or aborted. */
  pending_units: number;
  abort_requested: boolean;
  created_at: string;
  processed_at: string | null;
}

export interface RunPage {
  runs: AdminRunView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}
