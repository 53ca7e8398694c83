import { PollWait } from './poll-wait';

describe('PollWait', () => {
  const LONG_MS = 600_000;
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  /** A wait of LONG_MS and whether it has ended. */
  const longWait = (poll: PollWait) => {
    const state = { ended: false, done: Promise.resolve() };
    state.done = poll.wait(LONG_MS).then(() => {
      state.ended = true;
    });
    return state;
  };

  it('waits until woken, however long the wait asked for', async () => {
    const poll = new PollWait();
    const waiting = longWait(poll);
    await tick();
    expect(waiting.ended).toBe(false);
    poll.wake();
    await waiting.done;
    expect(waiting.ended).toBe(true);
  });

  it('ends the next wait at once after a wake that came between waits, and only that one', async () => {
    const poll = new PollWait();
    poll.wake();
    await poll.wait(LONG_MS);
    const next = longWait(poll);
    await tick();
    expect(next.ended).toBe(false);
    poll.wake();
    await next.done;
  });

  it('forgets a kept wake when told to', async () => {
    const poll = new PollWait();
    poll.wake();
    poll.forget();
    const waiting = longWait(poll);
    await tick();
    expect(waiting.ended).toBe(false);
    poll.wake();
    await waiting.done;
  });

  it('keeps nothing of a wake that ended a wait', async () => {
    const poll = new PollWait();
    const first = poll.wait(LONG_MS);
    poll.wake();
    await first;
    const next = longWait(poll);
    await tick();
    expect(next.ended).toBe(false);
    poll.wake();
    await next.done;
  });
});
