import { Module } from '@nestjs/common';
import { loadEnv } from '@workline/config';
import { CsvUploadController } from './csv-upload.controller';
import { PerformanceApiEnv } from './performance-api.env';
import { PerformanceController } from './performance.controller';

/** Workstream performance API: quality and throughput records, CSV uploads, reports. */
@Module({
  controllers: [PerformanceController, CsvUploadController],
  providers: [{ provide: PerformanceApiEnv, useFactory: () => loadEnv(PerformanceApiEnv) }],
})
export class PerformanceApiModule {}
