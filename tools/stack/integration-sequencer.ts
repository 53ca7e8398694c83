import type { Test } from '@jest/test-result';
import Sequencer from '@jest/test-sequencer';
import fs from 'node:fs';

/** How a file asks for its turns (libs/testing/src/stack-turns.ts). */
const ALONE = /\brunsAloneOnStack\(/;
const DISTURBS_SOME = /\bdisturbsOnly\(/;
const TAKES_TURN = /\btakesTurnOn\(/;
const CALLS_SOME = /\bcallsOnly\(\[([^\]]*)\]/;

/**
 * The order the integration files start in. The files that disturb some apps only come first, so they run
 * beside one another while nothing else has begun; then the files that call some apps only (fewest first),
 * which run beside those; then the files that run alone on the stack (one at a time; later, each would hold
 * up every worker until the files running beside it end). The files that take turns on
 * a shared resource are spread among the others, so the workers seldom wait for one another. Otherwise Jest's
 * own order: slowest of the last run first, else largest.
 */
export default class IntegrationSequencer extends Sequencer {
  override async sort(tests: Test[]): Promise<Test[]> {
    const source = new Map(tests.map((test) => [test.path, fs.readFileSync(test.path, 'utf8')]));
    const ordered = await super.sort(tests);
    const disturbing = ordered.filter((test) => DISTURBS_SOME.test(source.get(test.path) ?? ''));
    const alone = ordered.filter((test) => ALONE.test(source.get(test.path) ?? ''));
    const appsCalled = new Map(
      ordered.flatMap((test) => {
        const list = CALLS_SOME.exec(source.get(test.path) ?? '')?.[1];
        return list === undefined ? [] : [[test, list.split(',').filter((app) => app.trim()).length] as const];
      }),
    );
    const narrow = ordered
      .filter((test) => appsCalled.has(test) && !disturbing.includes(test) && !alone.includes(test))
      .sort((a, b) => appsCalled.get(a)! - appsCalled.get(b)!);
    const rest = ordered.filter((test) => !alone.includes(test) && !disturbing.includes(test) && !narrow.includes(test));
    const turns = rest.filter((test) => TAKES_TURN.test(source.get(test.path) ?? ''));
    const others = rest.filter((test) => !turns.includes(test));
    const spread: Test[] = [];
    const stride = Math.max(1, Math.ceil(others.length / Math.max(1, turns.length)));
    for (let i = 0; i < Math.max(turns.length, Math.ceil(others.length / stride)); i++) {
      if (turns[i]) spread.push(turns[i]);
      spread.push(...others.slice(i * stride, (i + 1) * stride));
    }
    return [...disturbing, ...narrow, ...alone, ...spread];
  }
}
