import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppMetrics } from '@workline/observability';
import { DbPool, type DbPoolOptions, DEFAULT_POOL_SIZE } from './db-pool';
import { PrismaService } from './prisma.service';

/** The app's one PostgreSQL pool (DbPool) and the Prisma client running on it. */
@Module({})
export class DbModule implements OnApplicationShutdown {
  constructor(private readonly pool: DbPool) {}

  static forRoot(databaseUrl: string, poolSize = DEFAULT_POOL_SIZE, options: Pick<DbPoolOptions, 'sequentialScans'> = {}): DynamicModule {
    return {
      module: DbModule,
      global: true,
      providers: [
        {
          provide: DbPool,
          inject: [{ token: AppMetrics, optional: true }],
          useFactory: (metrics?: AppMetrics) => new DbPool(databaseUrl, { ...options, size: poolSize, metrics }),
        },
        { provide: PrismaService, inject: [DbPool], useFactory: (pool: DbPool) => new PrismaService(pool) },
      ],
      exports: [DbPool, PrismaService],
    };
  }

  /** Nest calls a module's own hook after its providers' (the Prisma client disconnects in its own): the pool closes last. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
