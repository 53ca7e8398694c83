import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { PerformanceEnv } from './performance.env';
import { PerformanceModule } from './performance.module';

// A CSV import allocates fast and keeps little. Left to its own heuristics, V8 let the heap grow to about four
// times its live size between full collections (peak RSS 355 MB importing 1,000,000 rows, 157 MB idle);
// growing by at most double keeps the peak near 257 MB for 5-13 % more CPU per row (docs/benchmarks.md,
// "The import's heap"). Set for the whole process: set only while an import ran, the heap had already grown.
setFlagsFromString('--heap-growing-percent=100');

runService(ServiceName.Performance, (env) => PerformanceModule.register(env), PerformanceEnv);
