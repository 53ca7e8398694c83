/**
 * No line over 140 columns in the files eslint does not read: eslint's max-len holds the TypeScript and
 * JavaScript of the same folders, this holds their JSON, the console's HTML and CSS and any other text file
 * (docs/decisions.md, "Formatting and names"). Generated files and fixtures (compared byte for byte) are left
 * as they are. `node tools/bootstrap.js stack/long-lines` (in `npm run lint`) and npm test's static checks run it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { root } from './deps';

export const MAX_LINE_LENGTH = 140;
/** What eslint reads, max-len included (eslint.config.mjs), and what the runs write (logs). */
const NOT_CHECKED_HERE = /\.(ts|js|mjs|cjs|log)$/;
/** Folders that hold no hand-written file (.prettierignore and .gitignore say the same). */
const NOT_HAND_WRITTEN = new Set(['node_modules', 'dist', 'generated', 'fixtures', '.cache', '.nx', 'coverage', 'test-artifacts']);

/** Every line over MAX_LINE_LENGTH in the files under `folders` (relative to `base`) that eslint does not read. */
export function longLines(base: string, folders: readonly string[]): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!NOT_HAND_WRITTEN.has(entry.name)) visit(file);
        continue;
      }
      if (!entry.isFile() || NOT_CHECKED_HERE.test(entry.name)) continue;
      const text = fs.readFileSync(file, 'utf8');
      if (text.includes('\0')) continue; // not text
      text.split('\n').forEach((line, i) => {
        if (line.length > MAX_LINE_LENGTH) found.push(`${path.relative(base, file)}:${i + 1}: ${line.length} columns`);
      });
    }
  };
  for (const folder of folders) if (fs.existsSync(path.join(base, folder))) visit(path.join(base, folder));
  return found;
}

/** What eslint, Prettier and the line check read. */
export const CODE_FOLDERS = ['apps', 'libs', 'e2e', 'tools', 'bench'];

/** The check as npm test's static stage runs it: its exit code and what it prints. */
export function lineLengthCheck(): { code: number; output: string } {
  const found = longLines(root, CODE_FOLDERS);
  if (!found.length) return { code: 0, output: '' };
  return { code: 1, output: `Lines over ${MAX_LINE_LENGTH} columns (eslint checks the .ts and .js files):\n${found.join('\n')}\n` };
}

/** `node tools/bootstrap.js stack/long-lines`. */
export function main(): void {
  const { code, output } = lineLengthCheck();
  process.stdout.write(output);
  process.exitCode = code;
}
