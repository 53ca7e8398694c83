import { ALL_APPS, ALL_SERVICES, type AppName, consumerGroupOf, GATEWAY_APP } from '@workline/contracts';
import { createKafka, kafkaClientIdOf } from '@workline/messaging';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { eventually } from './eventually';
import { adminHeaders } from './http';
import { type AppInstance, startAppInstance } from './instances';
import { testStack } from './stack';
import { proxyTargetOf, TcpProxy } from './tcp-proxy';

/** The apps a fleet runs instances of: every app (the services first, then the gateway). */
export const FLEET_APPS = ALL_APPS;
export type FleetApp = AppName;
/** Environment for the instances of some apps only (e.g. each app's own proxied DATABASE_URL). */
export type FleetAppEnv = Partial<Record<FleetApp, Record<string, string>>>;

interface Member {
  app: FleetApp;
  index: number;
  instanceId: string;
  instance: AppInstance;
}

const READY_TIMEOUT_MS = 180_000;
/** How often {@link Fleet.ready} asks again: each fault's recovery is measured to within this. */
const READY_POLL_MS = 200;
/** How often the fleet's balancer asks each gateway whether it is ready. */
const BALANCER_POLL_MS = 200;
/**
 * A stopping gateway keeps serving this long with its readiness at 503 (SHUTDOWN_DELAY_MS), well beyond
 * the balancer's poll, so no client is sent to it after it stopped listening.
 */
const GATEWAY_SHUTDOWN_DELAY_MS = '5000';
/**
 * A rolling restart waits this long for an instance to exit: past the apps' own shutdown limit (60 s,
 * libs/service-runtime installGracefulShutdown, after which an app exits 1), so the exit code says whether it
 * stopped gracefully.
 */
const ROLLING_STOP_GRACE_MS = 65_000;

/** One instance's SIGTERM stop: how long it took, its exit code (0 when graceful) or the signal that ended it. */
export interface GracefulStop {
  app: FleetApp;
  index: number;
  ms: number;
  exit: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A point of an instance's start-up at which {@link Fleet.crashDuringStartup} kills it:
 * - `joining its consumer group`: its modules are up (PostgreSQL and the topics reached, its /health endpoint
 *   listens) and its Kafka consumer is on its way into its group: its readiness still answers 503 (a service is
 *   ready once its consumer is a member of its group);
 * - `waiting for Kafka`: it tried to reach the broker and failed (it logged the connection error), as during
 *   a Kafka outage.
 */
export type StartupPhase = 'joining its consumer group' | 'waiting for Kafka';

/** What {@link Fleet.crashDuringStartup} saw: the phase the killed instance had reached, and when. */
export interface StartupCrash {
  phase: StartupPhase;
  /** From the launch of the doomed instance to the moment the phase was seen (it was killed at once). */
  reachedAfterMs: number;
  /** `joining its consumer group`: its readiness answer then (503, and why). */
  readiness?: string;
}

/** What a rolling restart did: each instance stopped, how long its graceful stop took. */
export interface RollingRestart {
  stops: GracefulStop[];
}

/**
 * N instances of every app on the current test stack, which a test may crash (SIGKILL) and restart one at a
 * time. Gateways listen on the given ports (a restarted gateway comes back on its port, as behind a load
 * balancer). An instance is ready when, for a gateway, GET /health answers 200 (it reaches PostgreSQL,
 * Redis and every service over Kafka) and, for a service, when its Kafka consumer group is stable with
 * the instance among its members (so it takes its share of the partitions).
 */
export class Fleet {
  private readonly members = new Map<string, Member>();
  private launches = 0;
  private readonly inRotation = new Set<string>();
  /** Gateways that answer their readiness probe but not 200 and are not draining (e.g. 503 while Redis is down). */
  private readonly serving = new Set<string>();
  /**
   * Gateways sent SIGTERM, out of rotation at once until they are launched again: an orchestrator takes a
   * terminating instance out of its service's endpoints as it signals it (Kubernetes does), while the instance
   * drains for SHUTDOWN_DELAY_MS. Left to the probes alone, a draining gateway too busy to answer one within its
   * timeout stayed in rotation, and clients met its closed port (a rolling restart of a fresh-clone run, 2026-11-27).
   */
  private readonly terminating = new Set<string>();
  private turn = 0;
  private balancing = true;
  private balancer?: Promise<void>;
  /** The load balancer clients connect to (see {@link gatewayUrl}). */
  private front?: TcpProxy;

  private constructor(
    readonly instances: number,
    private readonly gatewayPorts: number[],
    private readonly extraEnv: Record<string, string>,
    private readonly appEnv: FleetAppEnv,
  ) {}

  get gatewayUrls(): string[] {
    return this.gatewayPorts.slice(0, this.instances).map((port) => `http://127.0.0.1:${port}`);
  }

  /** `extraEnv` goes to every instance, `appEnv[app]` (after it) to each instance of that app. */
  static async start(
    instances: number,
    gatewayPorts: number[],
    extraEnv: Record<string, string> = {},
    appEnv: FleetAppEnv = {},
  ): Promise<Fleet> {
    if (gatewayPorts.length < instances) throw new Error(`${instances} gateways need ${instances} ports`);
    const fleet = new Fleet(instances, gatewayPorts, extraEnv, appEnv);
    for (const app of FLEET_APPS) for (let index = 0; index < instances; index++) fleet.launch(app, index);
    await fleet.ready();
    fleet.balancer = fleet.balance();
    fleet.front = await new TcpProxy('load balancer → gateways', () => fleet.gatewayChoice().map(proxyTargetOf)).start();
    return fleet;
  }

  /**
   * The load balancer's address: a layer-4 balancer in front of the gateways (a {@link TcpProxy}), whose
   * view of them their readiness gives (see {@link gatewayChoice}). A connection a gateway refuses goes on to
   * the next one, as a real balancer redispatches (nothing was sent); a client sees a connection error only
   * when every gateway refused it, and a reset or a 5xx when the gateway it reached failed.
   */
  gatewayUrl(): string {
    if (!this.front) throw new Error('the fleet is not started');
    return `http://127.0.0.1:${this.front.port}`;
  }

  /** Connections the balancer sent on to another gateway because the first one it chose refused them. */
  get redispatched(): number {
    return this.front?.counts.redispatched ?? 0;
  }

  /**
   * The gateways a new connection is offered to, in order: those in rotation (their GET /health/ready answers
   * 200, asked every 200 ms), taken in turn; when none is, those that still answer and are not draining
   * (Redis or PostgreSQL down makes every gateway's readiness 503; a gateway stopping after SIGTERM says
   * `draining`); when none does, any not sent SIGTERM. Then, should those refuse the connection, the others.
   */
  private gatewayChoice(): string[] {
    const pool = this.inRotation.size ? this.inRotation : this.serving;
    // Never one that was sent SIGTERM first: its port closes once it has drained.
    const alive = this.gatewayUrls.filter((url) => !this.terminating.has(url));
    const preferred = pool.size ? this.gatewayUrls.filter((url) => pool.has(url)) : alive.length ? alive : this.gatewayUrls;
    const start = this.turn++ % preferred.length;
    const first = [...preferred.slice(start), ...preferred.slice(0, start)];
    return [
      ...first,
      ...alive.filter((url) => !first.includes(url)),
      ...this.gatewayUrls.filter((url) => !first.includes(url) && !alive.includes(url)),
    ];
  }

  /** Resolves once `url` is in rotation (for a client that must reach one given gateway). */
  async inRotationWait(url: string): Promise<void> {
    await eventually(() => this.inRotation.has(url), { what: `${url} to be in rotation`, timeoutMs: READY_TIMEOUT_MS, intervalMs: 100 });
  }

  /** One probe loop per gateway, so a slow answer of one never delays noticing another one draining. */
  private async balance(): Promise<void> {
    await Promise.all(
      this.gatewayUrls.map(async (url) => {
        let failedInARow = 0;
        while (this.balancing) {
          let probe: { status: number; text: string } | undefined;
          try {
            const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1000) });
            probe = { status: response.status, text: await response.text() };
            failedInARow = 0;
          } catch (error) {
            // A probe that timed out (a loaded gateway) tells nothing new: the gateway keeps what its last
            // answer said. (Taking it for "serving" once put a draining gateway back in the pool, and clients
            // met its closed port.) A refused or reset one is gone once it fails twice in a row, as a load
            // balancer's unhealthy threshold has it: a single reset (a kept-alive socket the gateway closed as
            // the probe reused it) took the one gateway serving out of the pool, and clients fell back to the
            // other, still starting (ECONNREFUSED in a rolling restart of a fresh-clone run, 2026-11-28).
            // Caught here, the body read included: a failed probe must never end the loop.
            const timedOut = error instanceof Error && error.name === 'TimeoutError';
            failedInARow = timedOut ? failedInARow : failedInARow + 1;
            probe = timedOut || failedInARow < 2 ? undefined : { status: 0, text: '' };
          }
          if (!probe) {
            await new Promise((resolve) => setTimeout(resolve, BALANCER_POLL_MS));
            continue;
          }
          const draining = probe.text.includes('"draining"') || this.terminating.has(url);
          if (probe.status === 200 && !draining) this.inRotation.add(url);
          else this.inRotation.delete(url);
          if (probe.status !== 0 && !draining) this.serving.add(url);
          else this.serving.delete(url);
          await new Promise((resolve) => setTimeout(resolve, BALANCER_POLL_MS));
        }
      }),
    );
  }

  private launch(app: FleetApp, index: number): void {
    const instanceId = `${app}-${index}-${++this.launches}-${randomUUID().slice(0, 6)}`;
    const env: Record<string, string> = { ...this.extraEnv, ...this.appEnv[app], INSTANCE_ID: instanceId };
    if (app === GATEWAY_APP) {
      env.PORT = String(this.gatewayPorts[index]);
      env.PUBLIC_URL = `http://127.0.0.1:${this.gatewayPorts[index]}`;
      env.SHUTDOWN_DELAY_MS ??= GATEWAY_SHUTDOWN_DELAY_MS;
      this.terminating.delete(env.PUBLIC_URL);
    }
    const instance = startAppInstance(app, env, `fleet-${app}-${index}`);
    this.members.set(`${app}#${index}`, { app, index, instanceId, instance });
  }

  /**
   * SIGKILL one instance (no shutdown hooks, as in a crash), start a new one in its place, wait until it is
   * ready (`ready`: as {@link ready} takes it). `whileDown` runs between the kill and the new start.
   */
  async crash(
    app: FleetApp,
    index: number,
    { whileDown, ready }: { whileDown?: () => Promise<void>; ready?: { gateways?: boolean } } = {},
  ): Promise<void> {
    await this.kill(this.member(app, index));
    await whileDown?.();
    this.launch(app, index);
    await this.ready(ready);
  }

  /** SIGKILL every instance of one app at once (its whole service is gone), start them all again, wait until ready. */
  async crashAll(app: FleetApp): Promise<void> {
    const members = [...this.members.values()].filter((m) => m.app === app);
    await Promise.all(members.map((m) => this.kill(m)));
    for (const member of members) this.launch(app, member.index);
    await this.ready();
  }

  /**
   * SIGKILL one instance of a service, start a new one and SIGKILL that one too as soon as its start-up
   * reaches `phase` (watched every 50 ms), then start it for good and, unless told not to (a fault still on,
   * e.g. Kafka away), wait until the fleet is ready. Fails if the phase is never reached. Says when the phase
   * was seen and, for a group, in which state.
   */
  async crashDuringStartup(
    app: FleetApp,
    index: number,
    phase: StartupPhase,
    { waitReady = true }: { waitReady?: boolean } = {},
  ): Promise<StartupCrash> {
    if (app === GATEWAY_APP) throw new Error('a start-up phase is watched on a service (its consumer group, its Kafka client)');
    await this.kill(this.member(app, index));
    const launchedAt = Date.now();
    this.launch(app, index);
    const doomed = this.member(app, index);
    const seen = await eventually(
      async () => {
        const { exitCode, signalCode } = doomed.instance.process;
        if (exitCode !== null || signalCode !== null) throw new Error(`${app} #${index} exited (${signalCode ?? exitCode}) while starting`);
        return phase === 'waiting for Kafka' ? this.loggedKafkaUnreachable(doomed) : this.joiningItsGroup(doomed);
      },
      { what: `${app} #${index} (${doomed.instanceId}) to be ${phase}`, timeoutMs: READY_TIMEOUT_MS, intervalMs: 20 },
    );
    const reachedAfterMs = Date.now() - launchedAt;
    await this.kill(doomed);
    this.launch(app, index);
    if (waitReady) await this.ready();
    if (seen !== true && seen.ready) throw new Error(`${app} #${index} was ready before its start-up was seen (${seen.readiness})`);
    return { phase, reachedAfterMs, readiness: seen === true ? undefined : seen.readiness };
  }

  /**
   * Once `member`'s /health endpoint listens, its readiness answer (503 while its consumer is not yet in its
   * group; 200 means its start-up ended before it was seen); undefined before.
   */
  private async joiningItsGroup(member: Member): Promise<{ ready: boolean; readiness: string } | undefined> {
    let port = '';
    try {
      port = readFileSync(member.instance.portFile ?? '', 'utf8').trim();
    } catch {
      return undefined;
    }
    if (!port) return undefined;
    const readiness = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(1000) });
    return { ready: readiness.status === 200, readiness: `${readiness.status} ${(await readiness.text()).slice(0, 120)}` };
  }

  /**
   * True once `member` logged a failed connection to Kafka (kafkajs logs each one as an error, at every
   * LOG_LEVEL); its log file also holds the lines of the instances that ran in its place before.
   */
  private loggedKafkaUnreachable(member: Member): boolean {
    let text = '';
    try {
      text = readFileSync(member.instance.logFile, 'utf8');
    } catch {
      return false;
    }
    return text.split('\n').some((line) => {
      if (!line.includes(member.instanceId)) return false;
      try {
        const { level, msg, instance } = JSON.parse(line) as { level?: string; msg?: unknown; instance?: string };
        return instance === member.instanceId && level === 'error' && /ECONNREFUSED|Connection error|Failed to connect/.test(String(msg));
      } catch {
        return false;
      }
    });
  }

  /** The INSTANCE_ID of instance `index` of `app` now (a service records it, e.g. as an upload's claim). */
  instanceIdOf(app: FleetApp, index: number): string {
    return this.member(app, index).instanceId;
  }

  /** Which instance of `app` runs with INSTANCE_ID `instanceId`; undefined when none does (any more). */
  indexOfInstance(app: FleetApp, instanceId: string): number | undefined {
    return [...this.members.values()].find((m) => m.app === app && m.instanceId === instanceId)?.index;
  }

  /**
   * SIGTERM one instance and wait for its exit (SIGKILL past ROLLING_STOP_GRACE_MS, beyond the apps' own 60 s
   * limit): how long its stop took, and its exit code (0: a graceful stop) or the signal that ended it.
   */
  async stopGracefully(app: FleetApp, index: number): Promise<GracefulStop> {
    const member = this.member(app, index);
    if (app === GATEWAY_APP) {
      const url = this.gatewayUrls[index];
      this.terminating.add(url);
      this.inRotation.delete(url);
      this.serving.delete(url);
    }
    const startedAt = Date.now();
    await member.instance.stop(ROLLING_STOP_GRACE_MS);
    return { app, index, ms: Date.now() - startedAt, exit: member.instance.process.exitCode, signal: member.instance.process.signalCode };
  }

  /** Starts instance `index` of `app` again after {@link stopGracefully} (a new instance id); {@link ready} waits for it. */
  relaunch(app: FleetApp, index: number): void {
    this.launch(app, index);
  }

  /**
   * A rolling restart of the whole fleet: for each instance number in turn, SIGTERM that instance of every
   * app at once (the other instances of each app keep serving), wait for each to exit 0 (a graceful stop:
   * readiness 503, drain, exit; a stop that needs SIGKILL after the grace period fails), start them again
   * and wait until the fleet is ready. Needs two instances or more.
   */
  async rollingRestart(): Promise<RollingRestart> {
    if (this.instances < 2) throw new Error('a rolling restart needs two instances of every app');
    const stops: RollingRestart['stops'] = [];
    for (let index = 0; index < this.instances; index++) {
      const exits = await Promise.all(FLEET_APPS.map((app) => this.stopGracefully(app, index)));
      stops.push(...exits);
      const ungraceful = exits.filter((e) => e.exit !== 0);
      if (ungraceful.length) throw new Error(`not a graceful stop: ${JSON.stringify(ungraceful)}`);
      for (const app of FLEET_APPS) this.launch(app, index);
      await this.ready();
      // As an orchestrator does: the next instance goes down only once this one is back in the balancer's
      // rotation. ready() asks /health itself; the balancer may not have seen the new gateway ready yet, and
      // with the other one terminating, clients would have had no gateway in rotation (a fresh-clone run met
      // ECONNREFUSED so, 2026-11-27 10:05).
      await Promise.all(this.gatewayUrls.map((url) => this.inRotationWait(url)));
    }
    return { stops };
  }

  private member(app: FleetApp, index: number): Member {
    const member = this.members.get(`${app}#${index}`);
    if (!member) throw new Error(`no instance ${index} of ${app}`);
    return member;
  }

  private async kill(member: Member): Promise<void> {
    const child = member.instance.process;
    const exited =
      child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
    member.instance.kill();
    await exited;
  }

  /**
   * Waits until every instance is ready (see the class comment); fails if one exited. `gateways: false`
   * waits for the services only: while Redis is down every gateway's GET /health is 503, by design.
   */
  async ready({ gateways = true }: { gateways?: boolean } = {}): Promise<void> {
    const probe = createKafka({ brokers: testStack().kafkaBrokers, app: 'fleet-probe', instanceId: randomUUID() });
    await eventually(
      async () => {
        for (const member of this.members.values()) {
          const { exitCode, signalCode } = member.instance.process;
          if (exitCode !== null || signalCode !== null)
            throw new Error(`${member.app} #${member.index} exited (${signalCode ?? exitCode})`);
        }
        for (const url of gateways ? this.gatewayUrls : []) {
          // With the admin token, a 503 names what is down (anonymous callers get only the status).
          const health = await fetch(`${url}/health`, { headers: adminHeaders(), signal: AbortSignal.timeout(10_000) });
          if (health.status !== 200) throw new Error(`${url}/health answered ${health.status}: ${await health.text()}`);
        }
        const admin = probe.admin();
        await admin.connect();
        try {
          const { groups } = await admin.describeGroups(ALL_SERVICES.map(consumerGroupOf));
          for (const app of ALL_SERVICES) {
            const group = groups.find((g) => g.groupId === consumerGroupOf(app));
            const expected = [...this.members.values()].filter((m) => m.app === app).map((m) => kafkaClientIdOf(app, m.instanceId));
            const clients = group?.members.map((m) => m.clientId) ?? [];
            if (group?.state !== 'Stable' || clients.length !== expected.length || expected.some((id) => !clients.includes(id))) {
              throw new Error(
                `consumer group ${consumerGroupOf(app)} is ${group?.state} with [${clients.join(', ')}], waiting for ` +
                  `[${expected.join(', ')}]`,
              );
            }
          }
        } finally {
          await admin.disconnect();
        }
        return true;
      },
      { what: 'every app instance to be ready', timeoutMs: READY_TIMEOUT_MS, intervalMs: READY_POLL_MS },
    );
  }

  async stop(): Promise<void> {
    this.balancing = false;
    await this.balancer;
    await this.front?.stop();
    await Promise.all([...this.members.values()].map((m) => m.instance.stop()));
    this.members.clear();
  }
}
