export * from './prisma.service';
export * from './db.module';
export * from './db-pool';
export * from './batcher';
export { Prisma } from './generated/prisma/client';
export type * from './generated/prisma/client';
export * from './create-once';
export * from './immutable-row-cache';
export * from './public-surface';
