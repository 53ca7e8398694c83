import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { longLines, MAX_LINE_LENGTH } from './long-lines';

describe('longLines', () => {
  let base: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(base, file)), { recursive: true });
    fs.writeFileSync(path.join(base, file), text);
  };
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'long-lines-'));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('names each line over the limit of the files eslint does not read, with its length', () => {
    const long = 'x'.repeat(MAX_LINE_LENGTH + 1);
    write('apps/a/console/index.html', `<p>\n${long}\n${'y'.repeat(MAX_LINE_LENGTH)}\n`);
    write('libs/b/project.json', `{}\n${long}x`);
    write('apps/a/src/main.ts', long);
    write('apps/a/console/console.js', long);
    expect(longLines(base, ['apps', 'libs'])).toEqual([
      `apps/a/console/index.html:2: ${MAX_LINE_LENGTH + 1} columns`,
      `libs/b/project.json:2: ${MAX_LINE_LENGTH + 2} columns`,
    ]);
  });

  it('leaves out generated files, fixtures, build output, other folders and folders that do not exist', () => {
    const long = 'x'.repeat(MAX_LINE_LENGTH + 1);
    write('libs/client/src/generated/openapi.json', long);
    write('apps/p/src/fixtures/golden.json', long);
    write('apps/p/dist/x.json', long);
    write('apps/p/node_modules/m/package.json', long);
    write('docs/notes.md', long);
    expect(longLines(base, ['apps', 'libs', 'bench'])).toEqual([]);
  });
});
