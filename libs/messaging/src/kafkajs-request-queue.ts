/**
 * kafkajs 2.2.4 keeps a 1 ms timer loop running on every broker connection for as long as the client lives:
 * its RequestQueue schedules a "check pending requests" after every check, and with no client-side
 * throttle the delay it computes is negative (tulios/kafkajs#1556, #1604, #1704; the fix proposed upstream
 * in #1667 is not released). Measured here: an idle oversight service woke its event loop 1,750 times a
 * second and spent 2.5–4.6 % of a core doing nothing, each of the five apps alike.
 *
 * The check is only needed while requests wait: a request pushed later is either sent at once or queued
 * and scheduled by push() itself, and a request that completes runs the check. So a check is scheduled only
 * while requests are pending, at the end of a throttle if one is in force, else after kafkajs's own 10 ms.
 * kafkajs is pinned (package.json), so the internals replaced here are the ones read.
 */

/** The RequestQueue internals the replaced method uses (kafkajs/src/network/requestQueue/index.js). */
export interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's CHECK_PENDING_REQUESTS_INTERVAL: how soon to look again when requests wait on in-flight ones. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

export function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.pending.length === 0 || this.throttleCheckTimeoutId) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

// A deep require: kafkajs has no `exports` map, and this is the module instance its clients use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals };
RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;

export { RequestQueue };
