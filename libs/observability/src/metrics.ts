import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The Prometheus registry of one app process, with Node's process metrics. Libraries add their metrics to
 * it (handler durations, consumer lag, outbox backlog, domain gauges); the app serves it at /metrics.
 */
export class AppMetrics {
  readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A histogram registered once under `name` (asking again returns the same one). */
  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets = DURATION_BUCKETS): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L> | undefined) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  /** A counter registered once under `name` (asking again returns the same one). */
  counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [this.registry] })
    );
  }

  /**
   * A gauge whose values are read when scraped: `read` returns the samples (label values and value). A
   * failing read keeps the samples of the last successful one, so a slow database does not fail the scrape.
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    read: () => Promise<{ labels: Partial<Record<L, string | number>>; value: number }[]>,
  ): Gauge<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) this.registry.removeSingleMetric(name);
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        let samples;
        try {
          samples = await read();
        } catch {
          return;
        }
        this.reset();
        for (const { labels, value } of samples) this.set(labels, value);
      },
    });
  }
}

/** Seconds: 1 ms to 10 s. */
export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Metrics several apps publish under one name (each with its own label values). */
export const SharedMetric = {
  AssignmentsLeased: {
    name: 'assignments_leased',
    help: 'Work currently leased to workers (lease not expired), by kind: unit (platform-runs) or task (oversight)',
  },
} as const;
