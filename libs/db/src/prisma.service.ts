import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { DbPool } from './db-pool';
import { PrismaClient } from './generated/prisma/client';

export const DATABASE_URL = Symbol('DATABASE_URL');

/**
 * The Prisma client of one app, on the pg driver adapter (no native engine). Given the app's DbPool, it
 * runs on that pool (one pool per app, shared with the raw-SQL hot paths); given a URL (tests, tools), on
 * a pool of its own that it closes on disconnect.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnApplicationShutdown {
  constructor(database: DbPool | string) {
    super({ adapter: database instanceof DbPool ? new PrismaPg(database.pool) : new PrismaPg({ connectionString: database, max: 10 }) });
  }

  async onModuleInit(): Promise<void> {
    await this.$connect();
  }

  /**
   * Last of all: Nest runs onModuleDestroy hooks before it closes the HTTP server and the Kafka consumers,
   * so a disconnect there would fail the requests and handlers still draining.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }

  /** Resolves to undefined when the database answers, or the error text when it does not. */
  async probe(): Promise<string | undefined> {
    try {
      await this.$queryRaw`select 1`;
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message.split('\n').pop() || error.name : String(error);
    }
  }
}
