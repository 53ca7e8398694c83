import { started } from './jest-global-setup';

/** Stops what the integration run's global setup started. */
export default async function globalTeardown(): Promise<void> {
  await started.stack?.stop();
  await started.dns?.stop();
}
