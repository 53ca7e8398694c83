import { adminCreate, createPlatformAccount, createWorker, eventually, type Fleet, type LoopbackReceiver } from '@workline/testing';
import { FaultClient, type Worker } from './client';
import { QualityCsvImport } from './csv-import';
import { auditDeliveries } from './deliveries-audit';
import { withScenarioContext, writeFaultReport } from './fault-audit';
import { type AbortRunSize, Line2Stream } from './line2-stream';
import { QualityStream, type WorkstreamKey } from './quality-stream';
import { RedeliveryStream } from './redelivery-stream';
import { RunStream } from './run-stream';
import { TaskStream } from './task-stream';
import { ThroughputStream } from './throughput-stream';

/** How large a scenario's streams are. */
export interface ScenarioSize {
  /** The v4 run the unit bots work, and the units they keep for after the last fault. */
  run: { units: number; reserve: number };
  unitBots: number;
  taskBots: number;
  line2Bots: number;
  /** A run on line 2 that the scenario aborts under fire ({@link FaultScenario.line2}.abort()); none without. */
  abortRun?: AbortRunSize;
  /** A quality CSV import of this many rows, which the scenario starts itself (csvImport); none without. */
  csvRows?: number;
  /** Quality records stored before the faults for the CSV import to write over. */
  csvSeeds?: number;
}

/** What a scenario is made of (FaultScenario.create makes them). */
interface ScenarioParts {
  state: { faultsDone: boolean };
  client: FaultClient;
  receiver: LoopbackReceiver;
  paths: { run: string; tasks: string; v3: string; abort: string };
  oversight: WorkstreamKey;
  workers: { units: Worker[]; tasks: Worker[]; line2: Worker[] };
  quality: QualityStream;
  csvImport?: QualityCsvImport;
  run: RunStream;
  tasks: TaskStream;
  throughput: ThroughputStream;
  line2: Line2Stream;
  redeliveries: RedeliveryStream;
}

/** Where a scenario's callbacks go: a path of the receiver, reached at `url` (the receiver itself, or a proxy in front of it). */
export type CallbackAddress = (path: string) => string;

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/**
 * The fault suites' scenario (docs/operations.md, "Fault tests"): its tenants, the streams a fault must not
 * break (quality submissions with records written again, a bulk CSV import, a v4 run worked by bots,
 * oversight tasks with webhooks, throughput records with API key rotation, v3 batches and a run aborted under
 * fire on a second line, redeliveries), their progress, the log of the faults injected, and the audit of
 * everything answered 2xx against the tables, the receivers and the QC topic. The suites differ only in the
 * faults they inject.
 */
export class FaultScenario {
  readonly faultLog: [string, string][] = [];
  readonly state: { faultsDone: boolean };
  readonly client: FaultClient;
  readonly paths: ScenarioParts['paths'];
  readonly quality: QualityStream;
  readonly csvImport?: QualityCsvImport;
  readonly run: RunStream;
  readonly tasks: TaskStream;
  readonly throughput: ThroughputStream;
  readonly line2: Line2Stream;
  readonly redeliveries: RedeliveryStream;
  private startedAt = 0;

  private constructor(private readonly parts: ScenarioParts) {
    this.state = parts.state;
    this.client = parts.client;
    this.paths = parts.paths;
    this.quality = parts.quality;
    this.csvImport = parts.csvImport;
    this.run = parts.run;
    this.tasks = parts.tasks;
    this.throughput = parts.throughput;
    this.line2 = parts.line2;
    this.redeliveries = parts.redeliveries;
  }

  static async create(options: {
    tag: string;
    fleet: Fleet;
    receiver: LoopbackReceiver;
    callbackAddress: CallbackAddress;
    size: ScenarioSize;
  }): Promise<FaultScenario> {
    const { tag, fleet, receiver, callbackAddress, size } = options;
    const client = new FaultClient(() => fleet.gatewayUrl());
    const state = { faultsDone: false };
    const paths = { run: `/run-${tag}`, tasks: `/tasks-${tag}`, v3: `/v3-${tag}`, abort: `/abort-${tag}` };
    const at = (path: string) => ({ path, url: callbackAddress(path) });

    const account = await adminCreate<{ id: string }>('/accounts', { name: `Faults ${tag}` });
    const qualityWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name: 'Faults quality',
      use_cases: [{ id: QualityStream.useCase.use_case_id, task_definition_ids: [QualityStream.useCase.task_definition_id] }],
      qc_sample_rate: 0,
    });
    const qualityKey = (await adminCreate<{ key: string }>(`/workstreams/${qualityWs.id}/api-keys`, {})).key;
    const throughputWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name: 'Faults throughput',
      use_cases: [{ id: 'uc-t', task_definition_ids: ['td-t'] }],
      qc_sample_rate: 0,
    });
    const oversightAccount = await adminCreate<{ id: string }>('/accounts', { name: `Faults oversight ${tag}` });
    const oversightWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: oversightAccount.id,
      name: 'Faults',
      use_cases: [],
    });
    const oversight = { id: oversightWs.id, key: (await adminCreate<{ key: string }>(`/workstreams/${oversightWs.id}/api-keys`, {})).key };
    const configuration = await adminCreate<{ id: string }>(`/workstreams/${oversightWs.id}/configurations`, {
      name: 'Faults',
      extended_events: true,
      tool_project_id: 'tp-faults',
    });
    const platform = await createPlatformAccount(`Faults ${tag}`);
    const line2Id = (await adminCreate<{ id: string }>(`/accounts/${platform.id}/lines`, { name: 'Faults line 2' })).id;
    const workers = {
      units: await Promise.all(Array.from({ length: size.unitBots }, () => createWorker())),
      tasks: await Promise.all(Array.from({ length: size.taskBots }, () => createWorker())),
      line2: await Promise.all(Array.from({ length: size.line2Bots }, () => createWorker())),
    };

    const quality = new QualityStream(client, { id: qualityWs.id, key: qualityKey }, tag, state);
    const csvImport = size.csvRows
      ? new QualityCsvImport(
          client,
          quality.workstream,
          tag,
          quality.submissions.records,
          await quality.seed(size.csvSeeds ?? 0),
          size.csvRows,
        )
      : undefined;
    const run = new RunStream(client, platform, receiver, at(paths.run), size.run, state);
    await run.create();
    const line2 = new Line2Stream(client, platform, line2Id, receiver, { v3: at(paths.v3), abort: at(paths.abort) }, size.abortRun, state);
    await line2.create();
    return new FaultScenario({
      state,
      client,
      receiver,
      paths,
      oversight,
      workers,
      quality,
      csvImport,
      run,
      tasks: new TaskStream(client, oversight, configuration.id, receiver, at(paths.tasks), state),
      throughput: await ThroughputStream.create(client, fleet, throughputWs.id, tag, state),
      line2,
      redeliveries: new RedeliveryStream(client, oversight, state),
    });
  }

  /** Starts every stream (the CSV import excepted: a fault starts it). */
  start(): void {
    this.startedAt = Date.now();
    this.quality.start();
    this.run.start(this.parts.workers.units);
    this.tasks.start(this.parts.workers.tasks);
    this.throughput.start();
    this.line2.start(this.parts.workers.line2);
    this.redeliveries.start();
  }

  private mark() {
    return {
      q: this.quality.submissions.accepted,
      u: this.run.outcome.size,
      t: this.tasks.created,
      hooks: this.parts.receiver.requests.length,
    };
  }

  /**
   * Resolves once every stream has accepted something new since the call (units: unless the run waits for
   * the faults to end; with `needHooks`, a receiver got a request too).
   */
  async progressed(what: string, needHooks = false): Promise<void> {
    const before = this.mark();
    await eventually(
      () => {
        const now = this.mark();
        return now.q > before.q && now.t > before.t && (now.u > before.u || this.run.held) && (!needHooks || now.hooks > before.hooks);
      },
      { what: `every stream to make progress ${what}`, timeoutMs: 240_000, intervalMs: 250 },
    );
  }

  /**
   * Injects one fault (or two at once) and waits until every stream has moved since (which also proves the
   * system recovered); logs how long it took. `fault` may return words to add to its name (what it found).
   * Records answered before the fault began may then be written again (KeyedSubmissions.nextToResend).
   */
  async inject(name: string, fault: () => Promise<string | void> | void): Promise<void> {
    const started = Date.now();
    const found = await fault();
    const ready = seconds(started);
    await this.progressed(`after ${name}`);
    this.faultLog.push([found ? `${name} (${found})` : name, `${ready} to ready, ${seconds(started)} until every stream moved again`]);
    this.settle(started);
  }

  /** A network fault's entry (its own measures) in the log, and what it settles. */
  logFault(name: string, took: string, startedAt: number): void {
    this.faultLog.push([name, took]);
    this.settle(startedAt);
  }

  private settle(faultStartedAt: number): void {
    this.quality.submissions.settle(faultStartedAt);
    this.throughput.submissions.settle(faultStartedAt);
  }

  /** The faults are over: the streams stop, the bots finish the run, line 2 and every task, the import ends. */
  async finish(): Promise<void> {
    this.state.faultsDone = true;
    const recoveryStarted = Date.now();
    const tail: string[] = [];
    const timed = (what: string, done: Promise<unknown>) => done.then(() => tail.push(`${what} ${seconds(recoveryStarted)}`));
    await Promise.all([this.quality.finished(), this.throughput.finished(), this.redeliveries.finished()]);
    await Promise.all([
      timed('run', this.run.finished()),
      timed('line 2', this.line2.finished()),
      timed('tasks', this.tasks.finished()),
      ...(this.csvImport ? [timed('import', this.csvImport.finished())] : []),
    ]);
    this.faultLog.push([
      '(all faults injected, then: every stream done, run Processed, tasks final)',
      `${seconds(recoveryStarted)} (${tail.join(', ')})`,
    ]);
  }

  /**
   * Every answer the clients got as 2xx, checked against the tables, the receivers and the QC topic (each
   * stream's audit), every delivery as its rows say; no client got an unexpected answer. The counts checked.
   */
  async audit(): Promise<Record<string, string | number>> {
    const deliveries = await auditDeliveries({
      workstreamId: this.parts.oversight.id,
      runIds: [this.run.runId, ...this.line2.runIds],
      receiver: this.parts.receiver,
      paths: Object.values(this.paths),
      redeliveries: this.redeliveries.redelivered,
    });
    const failedAttempts = `${deliveries.failedAttempts} / ${deliveries.erroredAttempts} / ${deliveries.timedOutAttempts}`;
    const summary = {
      ...(await this.quality.audit()),
      ...(this.csvImport?.audit() ?? {}),
      ...(await this.run.audit()),
      ...(await this.tasks.audit()),
      ...(await this.throughput.audit()),
      ...(await this.line2.audit()),
      'redeliveries answered 202 (each received again, one more success)': this.redeliveries.redelivered.size,
      'deliveries delivered (DB; exactly one success per delivery round)': deliveries.deliveries,
      'delivery attempts failed (status) / no answer / of them timed out (DB)': failedAttempts,
    };
    expect(this.client.problems).toEqual([]);
    return summary;
  }

  /** Runs the scenario's faults, then finish and audit; a failed check carries the faults injected and the clients' unexpected answers. */
  async play(
    faults: () => Promise<void>,
    report: { file: string; title: string; extra?: () => Record<string, string | number> },
  ): Promise<string> {
    try {
      this.start();
      await this.progressed('at start-up');
      await faults();
      await this.finish();
      const summary = { ...(await this.audit()), ...report.extra?.() };
      this.faultLog.push(['(scenario total)', seconds(this.startedAt)]);
      return writeFaultReport(report.file, report.title, this.faultLog, summary);
    } catch (error) {
      throw withScenarioContext(error, this.faultLog, this.client.problems);
    }
  }
}
