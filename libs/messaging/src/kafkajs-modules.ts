/**
 * How kafkajs's internals are replaced (kafkajs is pinned in package.json, so the internals replaced are the ones
 * read). kafkajs has no `exports` map: its modules are reached by their paths, and a module takes another's
 * export when it loads, so a replacement must be in place before its first user loads.
 */
import Module from 'node:module';

const cache = require.cache as Record<string, NodeModule | undefined>;

/**
 * Replaces the export of a kafkajs module that is loaded; `users` are the modules that take it when they load,
 * which must not have loaded yet (one that had would keep kafkajs's own, silently).
 */
export function replaceExport(module: string, replacement: unknown, users: string[]): void {
  const cached = cache[module];
  if (!cached) throw new Error(`kafkajs module ${module} is not loaded`);
  if (users.some((user) => cache[user])) {
    throw new Error(`kafkajs encoding was loaded before ${module} could be replaced (import @workline/messaging first)`);
  }
  cached.exports = replacement;
}

/**
 * Places `exports` in Node's module cache as kafkajs's `module`, for its users to take when they load, unless
 * `firstUser` has loaded already (a script that required kafkajs first, or Jest, whose module registry is its
 * own): then kafkajs keeps its own, which does the same work at its own cost. Returns whether it was placed.
 */
export function installBeforeLoad(module: string, exports: unknown, firstUser: string): boolean {
  if (cache[firstUser]) return false;
  const replacement = new Module(module);
  replacement.filename = module;
  replacement.loaded = true;
  replacement.exports = exports;
  cache[module] = replacement;
  return true;
}
