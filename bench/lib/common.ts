/**
 * What every benchmark shares: the stack it starts, HTTP helpers, timing and figures.
 * Compiled to .cache/bench-dist/bench/lib/ with the stack scripts it starts (tools/stack), whose root is found by walking up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { root } from '../../tools/stack/deps';
import { profiles } from '../../tools/stack/profiles';
import { startStack, type Stack } from '../../tools/stack/stack';

export type { Stack };
export const ROOT = root;
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
export type Headers = Record<string, string>;
/**
 * A JSON answer of the gateway, read by field as the spec documents it: the benches declare no type per answer
 * (the suites do, through libs/client).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonAnswer = any;

/**
 * Starts the bench profile (BENCH_PORT, BENCH_KAFKA_PORT, BENCH_DATABASE_URL, BENCH_REDIS_URL; its data is
 * reset) with rate limits and quotas off, so the figures are the system's and not its limits'.
 */
export function startBenchStack(extraEnv: Record<string, string> = {}): Promise<Stack> {
  return startStack(profiles.bench, {
    quietApps: true,
    extraEnv: {
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      RATE_LIMIT_V1_PER_MINUTE: '0',
      RATE_LIMIT_V3_PER_MINUTE: '0',
      RATE_LIMIT_V4_PER_MINUTE: '0',
      RATE_LIMIT_WORK_PER_MINUTE: '0',
      RATE_LIMIT_ADMIN_PER_MINUTE: '0',
      TASK_QUOTA_PER_DAY: '100000000',
      TASK_QUOTA_PER_WEEK: '100000000',
      TASK_QUOTA_PER_MONTH: '100000000',
      ...extraEnv,
    },
  });
}

export async function call(
  base: string,
  method: string,
  path: string,
  headers: Headers,
  body?: unknown,
): Promise<{ status: number; json: JsonAnswer }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

export async function expectStatus(
  promise: Promise<{ status: number; json: JsonAnswer }>,
  status: number,
  what: string,
): Promise<JsonAnswer> {
  const result = await promise;
  if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${result.status} ${JSON.stringify(result.json)}`);
  return result.json;
}

/** Runs `count` jobs with `concurrency` at a time; resolves with the elapsed seconds. */
export async function timed(count: number, concurrency: number, job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export const percentile = (values: number[], p: number): number => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};

export const fmt = (n: number, digits = 1): string =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-';

/** Throughput and latency of one measured load. */
export interface Figures {
  /** operations per second */
  perSecond: number;
  /** latency percentiles, ms */
  p50: number;
  p99: number;
  /** operations done */
  count: number;
  /** operations that failed (non-2xx, errors, timeouts) */
  failed: number;
}

/** The figures of a measure whose every latency is a completed operation, over `seconds`. */
export const figuresOf = (latencies: number[], failed: number, seconds: number): Figures & { seconds: number } => ({
  perSecond: latencies.length / seconds,
  p50: percentile(latencies, 50),
  p99: percentile(latencies, 99),
  count: latencies.length,
  failed,
  seconds,
});

/** A tenant of the performance and oversight APIs: an account, a workstream (use case uc-1) and its key. */
export async function newWorkstream(base: string, name = 'Bench'): Promise<{ accountId: string; workstreamId: string; key: string }> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const account = await expectStatus(call(base, 'POST', '/admin/v1/accounts', admin, { name }), 201, 'account');
  const ws = await expectStatus(
    call(base, 'POST', '/admin/v1/workstreams', admin, {
      account_id: account.id,
      name,
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] }],
    }),
    201,
    'workstream',
  );
  const { key } = await expectStatus(call(base, 'POST', `/admin/v1/workstreams/${ws.id}/api-keys`, admin, {}), 201, 'api key');
  return { accountId: account.id, workstreamId: ws.id, key };
}

/** Linux's USER_HZ (`getconf CLK_TCK`): the unit of utime and stime in /proc/<pid>/stat. */
const CLOCK_TICKS = 100;

/** The fields of a /proc/<pid>/stat line after the command name (which may hold spaces): index 0 is field 3. */
const statFields = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/** utime + stime of a /proc/<pid>/stat line (fields 14 and 15), in ms. */
function cpuMsOfStat(stat: string): number {
  const fields = statFields(stat);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU time used so far by each process of the bench stack, by pid: its name in the stack and its ms. */
export type StackCpu = Map<string, { name: string; ms: number }>;

/**
 * CPU time (user + system, ms) used so far by each process of this checkout's bench stack: the five apps,
 * the Kafka broker, PostgreSQL (the server and every backend) and Redis (nothing else uses them during a bench), read
 * from /proc. The difference over a measure divided by its operations is a figure the machine's load hardly
 * moves (unlike throughput), which is what "where the time goes" needs.
 */
export function stackCpuMs(): StackCpu {
  const cpu: StackCpu = new Map();
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let args: string;
    let stat: string;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const app = args.match(new RegExp(`${ROOT}/dist/apps/([a-z-]+)/`))?.[1];
    const name =
      app ??
      (args.includes(`${ROOT}/.cache/kafka/bench/`) && args.includes('kafka.Kafka')
        ? 'kafka'
        : /^postgres:|\/bin\/postgres /.test(args)
          ? 'postgresql'
          : /^\S*redis-server /.test(args)
            ? 'redis'
            : undefined);
    if (name) cpu.set(pid, { name, ms: cpuMsOfStat(stat) });
  }
  return cpu;
}

/**
 * CPU time (ms) the bench stack's Kafka broker has spent in its JIT compiler threads (HotSpot's "C1 CompilerThre…"
 * and "C2 CompilerThre…", from /proc/<pid>/task), or undefined when the broker is not the stack's own (an existing
 * Kafka, BENCH_KAFKA_BROKERS). While this grows under load, the broker's code is still being compiled.
 */
export function brokerCompilerCpuMs(): number | undefined {
  const broker = [...stackCpuMs()].find(([, { name }]) => name === 'kafka')?.[0];
  if (!broker) return undefined;
  let ms = 0;
  for (const thread of readdirSync(`/proc/${broker}/task`)) {
    try {
      const stat = readFileSync(`/proc/${broker}/task/${thread}/stat`, 'utf8');
      if (/^\d+ \(C\d CompilerThre/.test(stat)) ms += cpuMsOfStat(stat);
    } catch {
      // a compiler thread HotSpot stopped meanwhile: its time is gone with it
    }
  }
  return ms;
}

/**
 * CPU ms per operation of each stack process between two `stackCpuMs` readings, as one line of text. A
 * process started meanwhile counts from 0; one that exited meanwhile (a PostgreSQL backend) is left out.
 */
export function cpuPerOperation(before: StackCpu, after: StackCpu, operations: number): string {
  const used = new Map<string, number>();
  for (const [pid, { name, ms }] of after) used.set(name, (used.get(name) ?? 0) + ms - (before.get(pid)?.ms ?? 0));
  return [...used.keys()]
    .sort()
    .map((name) => `${name} ${fmt(used.get(name)! / Math.max(1, operations), 2)}`)
    .join(', ');
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat (Linux): load-robust, unlike rates. */
export function processCpuMs(pid: number): number {
  return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** A counter's value from a service's Prometheus /metrics (summed over its labels); NaN if it cannot be read. */
export async function scrapeCounter(metricsUrl: string, name: string): Promise<number> {
  try {
    const text = await (await fetch(metricsUrl)).text();
    let total = 0;
    let found = false;
    for (const line of text.split('\n')) {
      if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
      found = true;
    }
    return found ? total : NaN;
  } catch {
    return NaN;
  }
}

/** A service's CPU and SQL statements over a measure: call the result when the measure is over. */
export async function usageOf(
  pid: number | undefined,
  metricsUrl: string,
): Promise<() => Promise<{ cpuMs: number; statements: number; minorFaults: number }>> {
  const cpu = pid ? processCpuMs(pid) : NaN;
  const faults = pid ? processMinorFaults(pid) : NaN;
  const statements = await scrapeCounter(metricsUrl, 'db_statements_total');
  return async () => ({
    cpuMs: (pid ? processCpuMs(pid) : NaN) - cpu,
    statements: (await scrapeCounter(metricsUrl, 'db_statements_total')) - statements,
    minorFaults: (pid ? processMinorFaults(pid) : NaN) - faults,
  });
}

/**
 * Minor page faults of a process so far (/proc/<pid>/stat field 10): on a VM each page touched afresh costs
 * far more than its bytes, so the count explains CPU that a profile spreads over whatever touched the page.
 */
function processMinorFaults(pid: number): number {
  return Number(statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'))[7]);
}
