/** The gateway's shutdown state: once draining, readiness answers 503 while requests are still served. */
export class GatewayLifecycle {
  draining = false;
}
