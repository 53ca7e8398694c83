import { Type } from 'class-transformer';
import { IsArray, IsISO8601, IsString, ValidateNested } from 'class-validator';
import { UseCaseDto } from '../http/admin.dto';

/** Topic.WorkstreamCreated: a workstream exists; services that keep per-workstream state may prepare. */
export class WorkstreamCreatedEvent {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  @IsString() name!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => UseCaseDto) use_cases!: UseCaseDto[];
  @IsISO8601() created_at!: string;
}
