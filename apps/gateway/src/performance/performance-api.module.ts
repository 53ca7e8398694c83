import { Module } from '@nestjs/common';
import { CsvUploadController } from './csv-upload.controller';
import { PerformanceController } from './performance.controller';

/** Workstream performance API: quality and throughput records, CSV uploads, reports. */
@Module({ controllers: [PerformanceController, CsvUploadController] })
export class PerformanceApiModule {}
