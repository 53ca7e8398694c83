import { BadRequestException } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

/**
 * Deepest nesting of objects and arrays a JSON body may have. No documented body comes near it (a unit's
 * input or a record's metadata is a few levels); deeper values overflowed the stack of the validation pipe
 * (a 5,000-level body was a 500).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON can carry a NUL or a lone surrogate only as a `\u` escape (raw control characters are invalid JSON,
 * and UTF-8 or UTF-16 decoding turns broken sequences into U+FFFD): a body without such an escape needs no
 * look at its strings. The match may be a false alarm (an escaped backslash before `u0000`); the strings decide.
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** A NUL, or a surrogate without its pair: text PostgreSQL cannot store (text refuses NUL, jsonb both). */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const fieldPath = (path: (string | number)[]) =>
  path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('') || '(body)';

const holdsUnstorable = (what: 'field' | 'key', path: (string | number)[]) =>
  `Body ${what} ${fieldPath(path)} holds a NUL character or an unpaired surrogate (\\u0000, \\uD800-\\uDFFF), which cannot be stored`;

/**
 * Keys that reach an object's prototype when a parsed body is copied into a DTO or spread (`__proto__`, and
 * `constructor` holding `prototype`): Fastify's own JSON parser refuses them, and ours does too.
 */
const reachesPrototype = (key: string, value: unknown): boolean =>
  key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value);

/**
 * Why a parsed JSON body cannot be taken, or undefined: nested deeper than MAX_JSON_DEPTH, a string (value or
 * key) holding a NUL or an unpaired surrogate, which no stored field can hold (each was a 500 from the
 * database), a number too large for a double (it would be stored as null), or a key that reaches a
 * prototype. `text` is the body as sent, to skip the string check when it cannot find anything.
 */
export function unstorableJson(value: unknown, text: string): string | undefined {
  const checkStrings = SUSPECT_ESCAPE.test(text);
  const path: (string | number)[] = [];
  const visit = (node: unknown, depth: number): string | undefined => {
    if (typeof node === 'string') {
      return checkStrings && UNSTORABLE.test(node) ? holdsUnstorable('field', path) : undefined;
    }
    // JSON.parse reads a number beyond a double's range (1e400, or 309 digits and more) as Infinity, which
    // JSON.stringify then writes as null: a value silently lost.
    if (typeof node === 'number') {
      return Number.isFinite(node)
        ? undefined
        : `Body field ${fieldPath(path)} is a number beyond the range of a double (about ±1.8e308), which cannot be stored`;
    }
    if (typeof node !== 'object' || node === null) return undefined;
    if (depth > MAX_JSON_DEPTH) return `Body is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays)`;
    // Plain loops: every body passes here, a 10,000-unit run's 50,000 values too.
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        const problem = visit(node[index], depth + 1);
        path.pop();
        if (problem) return problem;
      }
      return undefined;
    }
    const object = node as Record<string, unknown>;
    for (const key in object) {
      path.push(key);
      const problem =
        checkStrings && UNSTORABLE.test(key)
          ? holdsUnstorable('key', path)
          : reachesPrototype(key, object[key])
            ? `Body key ${fieldPath(path)} is not allowed: it would reach the prototype of the object it is copied into`
            : visit(object[key], depth + 1);
      path.pop();
      if (problem) return problem;
    }
    return undefined;
  };
  return visit(value, 1);
}

/**
 * Refuses a URL whose path or query holds a NUL (`%00`): no id or parameter can hold one, and the database
 * refused it with an error (a 500) wherever the value reached a query. First among the onRequest hooks.
 */
export function refuseNulInUrl(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.url.includes('%00')) {
      done(new BadRequestException('The URL holds a NUL character (%00), which no path segment or query parameter can hold'));
    } else done();
  });
}
