/** `npm run asyncapi`: writes the AsyncAPI document of the Kafka topics (libs/contracts/src/asyncapi) to docs/asyncapi.json. */
// The payload schemas come from the contract classes' decorators: load the metadata they need.
import 'reflect-metadata';
import { asyncApiDocument } from '@workline/contracts';
import fs from 'node:fs';
import path from 'node:path';
import { root } from '../stack/deps';

/** `node tools/bootstrap.js asyncapi/write` (npm run asyncapi). */
export function main(): void {
  fs.writeFileSync(path.join(root, 'docs', 'asyncapi.json'), `${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
  console.log('wrote docs/asyncapi.json');
}
