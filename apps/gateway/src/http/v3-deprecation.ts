import type { onRequestHookHandler } from 'fastify';
import { pathOf } from './problem';

/** The spec: "Version 3 is withdrawn after December 25, 2017". */
export const V3_SUNSET = 'Mon, 25 Dec 2017 00:00:00 GMT';
export const V3_MIGRATION_NOTES_PATH = '/docs/v3-migration.md';

/**
 * Every /v3 response says the version is deprecated (RFC 9745 Deprecation, RFC 8594 Sunset) and links
 * the migration notes. With V3_ENABLED=false, /v3 answers 410 in the v3 error shape.
 */
export function v3Deprecation(enabled: boolean, publicUrl: string): onRequestHookHandler {
  const headers = {
    Deprecation: 'true',
    Sunset: V3_SUNSET,
    Link: `<${publicUrl}${V3_MIGRATION_NOTES_PATH}>; rel="deprecation"; type="text/markdown"`,
  };
  const withdrawn = {
    status: 410,
    error: `API version 3 has been withdrawn: use /v4 (migration notes: ${publicUrl}${V3_MIGRATION_NOTES_PATH})`,
  };
  return (request, reply, done) => {
    if (!/^\/v3(\/|$)/.test(pathOf(request))) return done();
    reply.headers(headers);
    if (enabled) return done();
    reply.code(410).send(withdrawn);
  };
}
