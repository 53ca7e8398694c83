import { Logger } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';

export interface GracefulShutdown {
  /** Called at once on SIGTERM/SIGINT: stop looking ready (readiness 503). */
  drain(): void;
  /** Waited for after drain(), before stop(): lets load balancers and probes see the 503 first. */
  delayMs: number;
  /** Stops intake, lets in-flight work finish, then closes connections (the app's order). */
  stop(): Promise<void>;
  /** Past this the process exits with status 1 whatever is still running. Default 60 s. */
  timeoutMs?: number;
}

/**
 * Installs the SIGTERM/SIGINT handling of an app: drain (readiness turns 503), wait `delayMs`, stop in
 * order, exit 0 (1 when stopping failed or timed out). A second signal while stopping is ignored.
 * Nest's own enableShutdownHooks is not used: it closes modules (the database) before the HTTP server
 * and Kafka consumers, and re-raises the signal instead of exiting 0.
 */
export function installGracefulShutdown(app: string, shutdown: GracefulShutdown): void {
  const logger = new Logger(app);
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const startedAt = Date.now();
    logger.log({ msg: `${signal}: shutting down`, signal });
    shutdown.drain();
    const timeoutMs = shutdown.timeoutMs ?? 60_000;
    const killer = setTimeout(() => {
      logger.error(`shutdown did not finish within ${timeoutMs} ms: exiting`);
      process.exit(1);
    }, timeoutMs);
    killer.unref();
    void (async () => {
      let status = 0;
      try {
        if (shutdown.delayMs > 0) await new Promise((r) => setTimeout(r, shutdown.delayMs));
        await shutdown.stop();
        logger.log({ msg: `stopped in ${Date.now() - startedAt} ms`, duration_ms: Date.now() - startedAt });
      } catch (error) {
        status = 1;
        logger.error(`shutdown failed: ${errorMessage(error)}`);
      }
      process.exit(status);
    })();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
