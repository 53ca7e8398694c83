import { stopAll } from './faults-infra';

/** Stops the fault suite's private Kafka, Redis and PostgreSQL (the tests stop the apps they started). */
export default async function globalTeardown(): Promise<void> {
  await stopAll();
}
