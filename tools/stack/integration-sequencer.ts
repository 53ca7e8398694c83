import type { Test } from '@jest/test-result';
import Sequencer from '@jest/test-sequencer';
import fs from 'node:fs';

/** How a file asks for its turns (libs/testing/src/stack-turns.ts). */
const ALONE = /\brunsAloneOnStack\(/;
const DISTURBS_SOME = /\bdisturbsOnly\(\[([^\]]*)\]/;
const TAKES_TURN = /\b(takesTurnOn(InThisBlock)?|inTurnOn)\(/;
const CALLS_SOME = /\bcallsOnly\(\[([^\]]*)\]/;
/** As many files run at once (jest.integration.config.js). */
const WORKERS = Number(process.env.WORKLINE_TEST_WORKERS ?? 3);

/**
 * The files in an order where no file disturbs an app that one of the WORKERS - 1 files before it disturbs, where
 * possible: two such files started together would leave a worker waiting for the other's turn.
 */
function apart(files: Test[], appsOf: (test: Test) => string[]): Test[] {
  const left = [...files];
  const order: Test[] = [];
  while (left.length) {
    const recent = new Set(order.slice(-(WORKERS - 1)).flatMap(appsOf));
    const next = left.findIndex((test) => !appsOf(test).some((app) => recent.has(app)));
    order.push(...left.splice(Math.max(0, next), 1));
  }
  return order;
}

/**
 * The order the integration files start in. The files that disturb some apps only come first, so they run
 * beside one another while nothing else has begun (two that disturb the same app not side by side); then the
 * files that call some apps only (fewest first), which run beside those; then the rest, with the files that
 * take turns on a shared resource spread among them, longest first (the oversight task queue's turns are one
 * after another: the sooner the first, the sooner the last), so the workers seldom wait for one another; the
 * files that run alone on the stack last. An alone file waits for every file running beside it to end while
 * the other workers wait for it: in the middle of the run that is a drain of two workers, at its end only the
 * tail every run has. Otherwise Jest's own order: slowest of the last run first, else largest.
 */
export default class IntegrationSequencer extends Sequencer {
  override async sort(tests: Test[]): Promise<Test[]> {
    const source = new Map(tests.map((test) => [test.path, fs.readFileSync(test.path, 'utf8')]));
    const ordered = await super.sort(tests);
    const disturbed = (test: Test) =>
      (DISTURBS_SOME.exec(source.get(test.path) ?? '')?.[1] ?? '')
        .split(',')
        .map((app) => app.trim())
        .filter(Boolean);
    const disturbing = apart(
      ordered.filter((test) => DISTURBS_SOME.test(source.get(test.path) ?? '')),
      disturbed,
    );
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
    // The turns on the queue come one after another whatever the order: the longest first (by their size, which
    // every run knows; Jest's cached durations put the files it has timed after those it has not).
    const turns = rest
      .filter((test) => TAKES_TURN.test(source.get(test.path) ?? ''))
      .sort((a, b) => (source.get(b.path)?.length ?? 0) - (source.get(a.path)?.length ?? 0));
    const others = rest.filter((test) => !turns.includes(test));
    const spread: Test[] = [];
    const stride = Math.max(1, Math.ceil(others.length / Math.max(1, turns.length)));
    for (let i = 0; i < Math.max(turns.length, Math.ceil(others.length / stride)); i++) {
      if (turns[i]) spread.push(turns[i]);
      spread.push(...others.slice(i * stride, (i + 1) * stride));
    }
    return [...disturbing, ...narrow, ...spread, ...alone];
  }
}
