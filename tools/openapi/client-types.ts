/**
 * The typed client's types (libs/client/src/generated/openapi.ts) of an OpenAPI document, by openapi-typescript.
 * `node tools/bootstrap.js openapi/client-types docs/openapi.json` prints them (libs/client's test compares them
 * with the committed file; Jest cannot load openapi-typescript's ES-module dependencies itself, Node can).
 */
import fs from 'node:fs';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

const BANNER = '// Generated from docs/openapi.json by openapi-typescript (npm run openapi). Do not edit.\n';

export async function clientTypes(document: OpenAPI3): Promise<string> {
  return `${BANNER}${astToString(await openapiTS(document))}`;
}

/** Prints the types of the document in file `documentFile`. */
export async function main([documentFile]: string[]): Promise<void> {
  try {
    process.stdout.write(await clientTypes(JSON.parse(fs.readFileSync(documentFile, 'utf8')) as OpenAPI3));
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
