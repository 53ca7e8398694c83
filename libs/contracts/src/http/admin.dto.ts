import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** Admin API request bodies (docs/admin-api.md). JSON, snake_case. */

export class CreateAccountDto {
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;
}

export class CreateLineDto {
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;
}

export class UseCaseDto {
  @IsString() @IsNotEmpty() @MaxLength(200) id!: string;

  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  task_definition_ids!: string[];
}

export class CreateWorkstreamDto {
  @IsString() @IsNotEmpty() account_id!: string;
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;

  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => UseCaseDto)
  use_cases!: UseCaseDto[];

  /** Quality records scoring below this go to quality control; default 0.5 (docs/performance-api.md). */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  qc_score_threshold?: number;

  /** Share (0..1) of the other quality records sent to quality control at random; default 0.05. */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  qc_sample_rate?: number;
}

/** `{}`: an API key takes no settings yet. */
export class CreateApiKeyDto {}

export class CreateConfigurationDto {
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;
  @IsOptional() @IsBoolean() extended_events?: boolean;
  @IsOptional() @IsString() @MaxLength(200) tool_project_id?: string;
}

export class CreateWorkerDto {
  @IsEmail() email!: string;
  @IsString() @IsNotEmpty() @MaxLength(200) name!: string;
}

/** Longest overlap a rotation may give the old key: 7 days. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export class RotateApiKeyDto {
  @IsInt()
  @Min(0)
  @Max(MAX_ROTATION_OVERLAP_SECONDS)
  overlap_seconds!: number;
}

export class ListApiKeysQuery {
  @IsOptional() @IsString() account_id?: string;
  @IsOptional() @IsString() workstream_id?: string;
}
