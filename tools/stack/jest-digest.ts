/**
 * A short digest of a Jest run's failures, printed as `npm test`'s last lines: a CI log that keeps only its
 * tail (and a long fault suite whose console output comes before its failure) still shows which check
 * failed and how.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The parts of Jest's `--json` output the digest reads. */
interface JestJson {
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
/** Lines kept of one failure: the assertion, its diff and code frame, the first frames of its stack. */
const LINES_PER_FAILURE = 30;
const STACK_FRAMES_KEPT = 2;

function trimmed(message: string): string[] {
  const lines = message.replace(ANSI, '').split('\n');
  let frames = 0;
  const kept = lines.filter((line) => !/^\s+at /.test(line) || ++frames <= STACK_FRAMES_KEPT);
  return kept.length > LINES_PER_FAILURE
    ? [...kept.slice(0, LINES_PER_FAILURE), `    … (${kept.length - LINES_PER_FAILURE} more lines)`]
    : kept;
}

/** The failures recorded in a `--json --outputFile` result, as lines to print; none when the file is missing. */
export function failureDigest(resultFile: string, root: string): string[] {
  if (!existsSync(resultFile)) return [];
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as JestJson;
  const lines: string[] = [];
  for (const suite of result.testResults.filter((s) => s.status === 'failed')) {
    const file = suite.name.startsWith(root) ? suite.name.slice(root.length + 1) : suite.name;
    const failed = suite.assertionResults.filter((a) => a.status === 'failed');
    // A suite that failed outside its tests (a hook, a syntax error) has only the suite's message.
    if (!failed.length) lines.push(`✖ ${file}`, ...trimmed(suite.message).map((l) => `  ${l}`));
    for (const assertion of failed) {
      lines.push(`✖ ${file} › ${assertion.fullName}`);
      for (const message of assertion.failureMessages) lines.push(...trimmed(message).map((l) => `  ${l}`));
    }
  }
  return lines;
}
