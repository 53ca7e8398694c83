import fs from 'node:fs';
import path from 'node:path';

const MIGRATIONS = path.join(__dirname, '../../prisma/migrations');

/**
 * Prisma applies a migration through the pg driver adapter one statement at a time, splitting the file on
 * semicolons without reading comments: a `;` in a `--` comment ends a statement in the middle of the
 * comment, and the rest of its line fails as SQL ("syntax error at or near …", and the database is left with
 * a failed migration to resolve by hand).
 */
describe('committed migrations', () => {
  const files = fs
    .readdirSync(MIGRATIONS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(MIGRATIONS, entry.name, 'migration.sql'));

  it('are found', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [path.basename(path.dirname(file)), file]))('%s has no semicolon inside a comment', (_name, file) => {
    const commentsWithSemicolons = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((line, index) => ({ line: index + 1, comment: line.slice(line.indexOf('--')) }))
      .filter(({ comment }) => comment.startsWith('--') && comment.includes(';'));
    expect(commentsWithSemicolons).toEqual([]);
  });
});
