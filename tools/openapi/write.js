'use strict';
/** `npm run openapi`: writes the gateway's OpenAPI document (apps/gateway/src/openapi/openapi.ts) to docs/openapi.json. */
// The document names contracts (header names, limits): load the decorator metadata they need.
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const { openApiDocument } = require(path.join(root, 'dist', 'apps', 'gateway', 'src', 'openapi', 'openapi.js'));
fs.writeFileSync(path.join(root, 'docs', 'openapi.json'), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log('wrote docs/openapi.json');
