import {
  faultPorts,
  FLEET_APPS,
  type FleetApp,
  type FleetAppEnv,
  type ProxyCounts,
  type ProxyMode,
  proxyTargetOf,
  TcpProxy,
  testStack,
} from '@workline/testing';

/** A dependency an app reaches over the network. */
export type Dependency = 'kafka' | 'postgres' | 'redis';
export const DEPENDENCIES: readonly Dependency[] = ['kafka', 'postgres', 'redis'];

const withHostPort = (url: string, address: string) => {
  const parsed = new URL(url);
  parsed.host = address;
  return parsed.toString();
};

/**
 * The network between every app of a fault fleet and its dependencies, made of {@link TcpProxy}s the test
 * controls: one per app and dependency (PostgreSQL, Redis, Kafka). {@link env} gives each app addresses
 * that lead through its proxies.
 *
 * Kafka: a client connects to the bootstrap address once, then to the addresses the broker advertises in
 * its metadata, so a proxy in front of the bootstrap port alone would be bypassed. The fault suite's
 * broker has one more listener per app (tools/stack/faults-infra.ts, `kafkaPerApp`), advertised at the
 * port of that app's proxy: the broker answers metadata with the addresses of the listener the request
 * came in on, so every connection of the app, bootstrap and broker alike, goes through its proxy. The test
 * process itself keeps using the plain listener.
 */
export class AppNetwork {
  private constructor(private readonly proxies: Map<string, TcpProxy>) {}

  static async start(): Promise<AppNetwork> {
    const stack = testStack();
    const perApp = new Map(faultPorts().kafkaPerApp.map((l) => [l.app, l]));
    const proxies = new Map<string, TcpProxy>();
    for (const app of FLEET_APPS) {
      const kafka = perApp.get(app);
      if (!kafka) throw new Error(`the fault broker has no listener for ${app} (tools/stack/faults-infra.ts, kafkaPerApp)`);
      proxies.set(`${app}/kafka`, await new TcpProxy(`${app} → Kafka`, { host: '127.0.0.1', port: kafka.listener }, kafka.proxy).start());
      proxies.set(`${app}/postgres`, await new TcpProxy(`${app} → PostgreSQL`, proxyTargetOf(stack.databaseUrl)).start());
      proxies.set(`${app}/redis`, await new TcpProxy(`${app} → Redis`, proxyTargetOf(stack.redisUrl)).start());
    }
    return new AppNetwork(proxies);
  }

  proxy(app: FleetApp, dependency: Dependency): TcpProxy {
    const proxy = this.proxies.get(`${app}/${dependency}`);
    if (!proxy) throw new Error(`no proxy between ${app} and ${dependency}`);
    return proxy;
  }

  /** Each app's DATABASE_URL, REDIS_URL and KAFKA_BROKERS, through its own proxies. */
  env(): FleetAppEnv {
    const stack = testStack();
    return Object.fromEntries(
      FLEET_APPS.map((app) => [
        app,
        {
          DATABASE_URL: withHostPort(stack.databaseUrl, this.proxy(app, 'postgres').address),
          REDIS_URL: withHostPort(stack.redisUrl, this.proxy(app, 'redis').address),
          KAFKA_BROKERS: this.proxy(app, 'kafka').address,
        },
      ]),
    );
  }

  /** Sets the mode of the links from `apps` (every app by default) to `dependency`. */
  set(dependency: Dependency, mode: ProxyMode, apps: readonly FleetApp[] = FLEET_APPS): void {
    for (const app of apps) this.proxy(app, dependency).set(mode);
  }

  /** Every link back to `pass`. */
  heal(): void {
    for (const proxy of this.proxies.values()) proxy.pass();
  }

  /** The counts of the links from `apps` (every app by default) to `dependency`, summed. */
  counts(dependency: Dependency, apps: readonly FleetApp[] = FLEET_APPS): ProxyCounts {
    const sum: ProxyCounts = { accepted: 0, reset: 0, stalled: 0, redispatched: 0, open: 0, bytesUp: 0, bytesDown: 0 };
    for (const app of apps) {
      const counts = this.proxy(app, dependency).counts;
      for (const key of Object.keys(sum) as (keyof ProxyCounts)[]) sum[key] += counts[key];
    }
    return sum;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.proxies.values()].map((p) => p.stop()));
  }
}
