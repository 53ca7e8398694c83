import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadEnv } from '@workline/config';
import { GatewayEnv } from '../gateway.env';
import { GatewayModule } from '../gateway.module';
import { openApiDocument } from './openapi';

/**
 * The gateway's OpenAPI document without a running gateway: the application in Nest's preview mode (its
 * modules and routes, no provider instantiated, so nothing connects to PostgreSQL, Redis or Kafka).
 * Used by `npm run openapi` and by openapi.spec.ts.
 */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const env = loadEnv(GatewayEnv, { ADMIN_TOKEN: 'openapi-generator-token-0123456789' });
  const app = await NestFactory.create(GatewayModule.register(env), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return openApiDocument(app);
  } finally {
    await app.close();
  }
}

/** The committed form of the document (docs/openapi.json). */
export const openApiText = (document: object): string => `${JSON.stringify(document, null, 2)}\n`;
