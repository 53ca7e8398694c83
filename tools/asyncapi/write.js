'use strict';
/** `npm run asyncapi`: writes the AsyncAPI document of the Kafka topics (libs/contracts/src/asyncapi) to docs/asyncapi.json. */
// The payload schemas come from the contract classes' decorators: load the metadata they need.
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const { asyncApiDocument } = require(path.join(root, 'dist', 'libs', 'contracts', 'src', 'asyncapi', 'asyncapi.js'));
fs.writeFileSync(path.join(root, 'docs', 'asyncapi.json'), `${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
console.log('wrote docs/asyncapi.json');
