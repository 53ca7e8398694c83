import { type RequestQueueInternals, scheduleCheckPendingRequests } from './kafkajs-request-queue';

/** The scheduling rule alone, on a queue's state (the real kafkajs queue is exercised in messaging.integration-spec). */
function queue(pending: number, throttledForMs = 0) {
  const checks: number[] = [];
  const started = Date.now();
  const state: RequestQueueInternals = {
    pending: new Array(pending).fill({}),
    throttledUntil: throttledForMs ? Date.now() + throttledForMs : -1,
    throttleCheckTimeoutId: null,
    checkPendingRequests: () => void checks.push(Date.now() - started),
    scheduleCheckPendingRequests,
  };
  return { state, checks };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kafkajs request queue: a check is scheduled only while requests wait', () => {
  it('schedules nothing when no request waits, throttled or not (kafkajs 2.2.4 looped every 1 ms)', async () => {
    for (const throttle of [0, 30]) {
      const { state, checks } = queue(0, throttle);
      state.scheduleCheckPendingRequests();
      expect(state.throttleCheckTimeoutId).toBeNull();
      await wait(50);
      expect(checks).toEqual([]);
    }
  });

  it("checks waiting requests after kafkajs's 10 ms, or when the throttle ends, once however often asked", async () => {
    const waiting = queue(2);
    waiting.state.scheduleCheckPendingRequests();
    waiting.state.scheduleCheckPendingRequests();
    const throttled = queue(1, 60);
    throttled.state.scheduleCheckPendingRequests();
    await wait(30);
    expect(waiting.checks).toHaveLength(1);
    expect(waiting.state.throttleCheckTimeoutId).toBeNull();
    expect(throttled.checks).toEqual([]);
    await wait(60);
    expect(throttled.checks).toHaveLength(1);
    expect(throttled.checks[0]).toBeGreaterThanOrEqual(55);
  });
});
