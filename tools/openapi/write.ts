/**
 * `npm run openapi`: writes the gateway's OpenAPI document, generated from its controllers (apps/gateway/src/openapi),
 * to docs/openapi.json, then the typed client's types (libs/client/src/generated/openapi.ts) from it with openapi-typescript.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { root } from '../stack/deps';
import { clientTypes } from './client-types';

interface OpenApiGenerator {
  generateOpenApiDocument(): Promise<object>;
  openApiText(document: object): string;
}

async function write(): Promise<void> {
  // The gateway as built into dist/ (npm run build, which `npm run openapi` runs first).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { generateOpenApiDocument, openApiText } = require(
    path.join(root, 'dist', 'apps', 'gateway', 'src', 'openapi', 'generate.js'),
  ) as OpenApiGenerator;
  const document = await generateOpenApiDocument();
  fs.writeFileSync(path.join(root, 'docs', 'openapi.json'), openApiText(document));
  console.log('wrote docs/openapi.json');
  // The client is generated from the file as written (what a third party would generate from).
  const committed = JSON.parse(fs.readFileSync(path.join(root, 'docs', 'openapi.json'), 'utf8')) as OpenAPI3;
  fs.writeFileSync(path.join(root, 'libs', 'client', 'src', 'generated', 'openapi.ts'), await clientTypes(committed));
  console.log('wrote libs/client/src/generated/openapi.ts');
}

/** `node tools/bootstrap.js openapi/write` (npm run openapi). */
export const main = (): Promise<void> =>
  write().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
