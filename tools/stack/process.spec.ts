import { waitFor } from './process';

describe('waitFor', () => {
  it('gives up as soon as its signal is aborted (npm start interrupted during start-up), without waiting out its timeout', async () => {
    const interrupt = new AbortController();
    let checks = 0;
    const waiting = waitFor(
      'something that never comes',
      () => {
        if (++checks === 2) interrupt.abort();
        return false;
      },
      { timeoutMs: 600_000, intervalMs: 1, signal: interrupt.signal },
    );
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(checks).toBe(2);
  });

  it('answers the first truthy value of its check', async () => {
    let checks = 0;
    await expect(waitFor('the third check', () => ++checks === 3 && 'ready', { intervalMs: 1 })).resolves.toBe('ready');
  });
});
