'use strict';
/** Tiny console helpers shared by the stack scripts (they must run before dependencies are installed). */
const colours = { reset: '\x1b[0m', dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m' };
const useColour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (c, s) => (useColour ? `${colours[c]}${s}${colours.reset}` : s);

function step(message) {
  console.log(paint('cyan', '▸ ') + message);
}
function ok(message) {
  console.log(paint('green', '✔ ') + message);
}
function warn(message) {
  console.warn(paint('yellow', '! ') + message);
}

/** An error whose message is meant for the person at the terminal: printed without a stack trace. */
class StackError extends Error {}

function fail(message) {
  throw new StackError(message);
}

function reportAndExit(error) {
  if (error instanceof StackError) {
    console.error(paint('red', '✖ ') + error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
}

module.exports = { step, ok, warn, fail, reportAndExit, StackError, paint };
