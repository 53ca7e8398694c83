/** Runs a load job in the load-generator process (bench/load-generator.ts) and returns its figures. */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Figures, Headers } from './common';

export type LoadJob =
  /** `rate`: requests per second over all connections (paced, autocannon's overallRate); absent: as fast as answered. */
  | { kind: 'http'; url: string; method?: string; headers: Headers; body: string; connections: number; seconds: number; rate?: number }
  /**
   * `combined`: each bot asks for its next unit in its complete (`next` on complete, docs/work-api.md); an
   * answer without a `next` key (a build without it) is followed by a separate `next` request.
   */
  | { kind: 'bots'; base: string; workers: Headers[]; lineId: string; seconds: number; combined?: boolean }
  /** `count` requests one after the other on one kept-alive connection (large bodies: latency per request). */
  | { kind: 'sequence'; url: string; method: 'GET' | 'POST'; headers: Headers; body?: string; count: number }
  /** `batched`: through libs/messaging's KafkaProducer (concurrent sends merged), else one produce per send. */
  | { kind: 'kafka'; brokers: string[]; topic: string; concurrency: number; seconds: number; batched?: boolean }
  /** Request-reply through libs/messaging (KafkaRpcClient → a KafkaTransport's rpcTopic), `concurrency` at a time. */
  | { kind: 'rpc'; brokers: string[]; topic: string; pattern: string; concurrency: number; seconds: number };

export interface LoadResult extends Figures {
  seconds: number;
  /** `http`: the __ID__s of the requests answered 2xx. */
  acknowledged?: string[];
  /** `bots`: when the last unit was completed (epoch ms). */
  lastCompletion?: number;
  /** `rpc`, `kafka`: CPU time of the load generator during the measure (user + system), ms. */
  cpuMs?: number;
  /** `bots` with `combined`: completes whose answer carried the next assignment (0: not supported). */
  combinedAnswers?: number;
  /** `sequence`: size of the last answer's body, bytes. */
  answerBytes?: number;
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const child = fork(join(__dirname, '..', 'load-generator.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the load generator exited (status ${code}) without figures`);
  });
  child.send(job);
  const [result] = (await Promise.race([once(child, 'message'), exited])) as [LoadResult | { error: string }];
  if ('error' in result) throw new Error(`load generator: ${result.error}`);
  return result;
}
