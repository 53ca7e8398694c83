'use strict';
/**
 * The typed client's types (libs/client/src/generated/openapi.ts) of an OpenAPI document, by openapi-typescript.
 * `node tools/openapi/client-types.js docs/openapi.json` prints them (libs/client's test compares them with the
 * committed file; Jest cannot load openapi-typescript's ES-module dependencies itself, Node can).
 */
const fs = require('node:fs');
const { default: openapiTS, astToString } = require('openapi-typescript');

const BANNER = '// Generated from docs/openapi.json by openapi-typescript (npm run openapi). Do not edit.\n';

async function clientTypes(document) {
  return `${BANNER}${astToString(await openapiTS(document))}`;
}

module.exports = { clientTypes };

if (require.main === module) {
  clientTypes(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')))
    .then((text) => process.stdout.write(text))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
