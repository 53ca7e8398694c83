import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export const DATABASE_URL = Symbol('DATABASE_URL');

/** The Prisma client of one app, on the pg driver adapter (no native engine). */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnApplicationShutdown {
  constructor(databaseUrl: string) {
    super({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 10 }) });
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

/** A write refused by a unique index (Prisma P2002): the row already exists. */
export const isUniqueViolation = (error: unknown): boolean => (error as { code?: string } | null)?.code === 'P2002';
