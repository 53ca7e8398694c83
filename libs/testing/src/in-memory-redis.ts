import type { Pipelined } from '@workline/redis';

type Replies<T extends readonly Pipelined<unknown>[]> = { [K in keyof T]: T[K] extends Pipelined<infer R> ? R : never };

/**
 * A command of a unit test's in-memory Redis: it does its work when its reply is read, and
 * {@link InMemoryRoundTrip} reads the commands of a round trip in order, as Redis runs a pipeline.
 */
export const inMemoryCommand = <T>(run: () => T): Pipelined<T> => ({ queue: () => undefined, read: () => run() });

/**
 * Round trips to an in-memory Redis, for the unit tests of services that send their commands through a
 * round-trip port (libs/redis `roundTrip` in production): each command runs in order. While `down`, every
 * round trip rejects before anything runs, as `roundTrip` does when Redis is not connected.
 */
export class InMemoryRoundTrip {
  down = false;
  /** Round trips sent so far (while up). */
  sent = 0;

  /** Rejects while `down`, as every Redis call of a test's fakes that consult it should. */
  check(): void {
    if (this.down) throw new Error('Redis is not connected (end)');
  }

  async send<T extends readonly Pipelined<unknown>[]>(...commands: T): Promise<Replies<T>> {
    this.check();
    this.sent++;
    return commands.map((command) => command.read(undefined)) as Replies<T>;
  }
}
