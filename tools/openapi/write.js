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
  const document = await generateOpenApiDocument();
  fs.writeFileSync(path.join(root, 'docs', 'openapi.json'), openApiText(document));
  console.log('wrote docs/openapi.json');
  // The client is generated from the file as written (what a third party would generate from).
  const { clientTypes } = require('./client-types');
  const committed = JSON.parse(fs.readFileSync(path.join(root, 'docs', 'openapi.json'), 'utf8'));
  fs.writeFileSync(path.join(root, 'libs', 'client', 'src', 'generated', 'openapi.ts'), await clientTypes(committed));
  console.log('wrote libs/client/src/generated/openapi.ts');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
