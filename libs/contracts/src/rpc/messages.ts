import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsNumber, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { UseCaseDto } from '../http/admin.dto';

/** Request and reply payloads of the request-reply patterns (RpcPattern), snake_case like the HTTP API. */

export interface HealthReply {
  service: string;
  instance_id: string;
  database: 'up' | 'down';
  database_error?: string;
}

export class WorkstreamCreateRequest {
  @IsString() account_id!: string;
  @IsString() name!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => UseCaseDto) use_cases!: UseCaseDto[];
  @IsOptional() @IsNumber() @Min(0) @Max(1) qc_score_threshold?: number;
  @IsOptional() @IsNumber() @Min(0) @Max(1) qc_sample_rate?: number;
}

export class WorkstreamGetRequest {
  @IsString() workstream_id!: string;
}

export interface WorkstreamView {
  id: string;
  account_id: string;
  name: string;
  use_cases: UseCaseDto[];
  qc_score_threshold: number;
  qc_sample_rate: number;
  created_at: string;
}

export class ConfigurationCreateRequest {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  @IsString() name!: string;
  @IsOptional() @IsBoolean() extended_events?: boolean;
  @IsOptional() @IsString() tool_project_id?: string;
}

export interface ConfigurationView {
  id: string;
  workstream_id: string;
  name: string;
  extended_events: boolean;
  tool_project_id: string | null;
  created_at: string;
}

export class LineCreateRequest {
  @IsString() account_id!: string;
  @IsString() name!: string;
}

export interface LineView {
  id: string;
  name: string;
}
