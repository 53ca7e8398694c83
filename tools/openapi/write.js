'use strict';
/**
 * `npm run openapi`: writes the gateway's OpenAPI document, generated from its controllers (apps/gateway/src/openapi),
 * to docs/openapi.json, then the typed client's types (libs/client/src/schema.d.ts) from it with openapi-typescript.
 */
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');

async function main() {
  const { generateOpenApiDocument, openApiText } = require(path.join(root, 'dist', 'apps', 'gateway', 'src', 'openapi', 'generate.js'));
  fs.writeFileSync(path.join(root, 'docs', 'openapi.json'), openApiText(await generateOpenApiDocument()));
  console.log('wrote docs/openapi.json');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
