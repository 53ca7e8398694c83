/** Tiny console helpers shared by the stack scripts (tools/bootstrap.js prints the same markers before they are compiled). */
const colours = { reset: '\x1b[0m', dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m' };
type Colour = Exclude<keyof typeof colours, 'reset'>;
const useColour = process.stdout.isTTY && !process.env.NO_COLOR;
export const paint = (c: Colour, s: string): string => (useColour ? `${colours[c]}${s}${colours.reset}` : s);

export function step(message: string): void {
  console.log(paint('cyan', '▸ ') + message);
}
export function ok(message: string): void {
  console.log(paint('green', '✔ ') + message);
}
export function warn(message: string): void {
  console.warn(paint('yellow', '! ') + message);
}

/** An error whose message is meant for the person at the terminal: printed without a stack trace. */
export class StackError extends Error {
  override name = 'StackError';
}

export function fail(message: string): never {
  throw new StackError(message);
}

export function reportAndExit(error: unknown): never {
  if (error instanceof StackError) {
    console.error(paint('red', '✖ ') + error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
}
