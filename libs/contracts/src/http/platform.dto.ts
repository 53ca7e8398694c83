import { ArrayMinSize, IsArray, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';

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
