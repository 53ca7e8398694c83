import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testStack } from './stack';

export interface LogLine {
  level: string;
  time: string;
  app: string;
  instance: string;
  msg: string;
  request_id?: string;
  [field: string]: unknown;
}

/**
 * The text of every log of the test stack (its logDir): each app's (`<app>.log`) and each extra instance's, by
 * file name. For "no log holds this secret".
 */
export function stackLogs(): Map<string, string> {
  const { logDir } = testStack();
  return new Map(
    readdirSync(logDir)
      .filter((name) => name.endsWith('.log'))
      .map((name) => [name, readFileSync(join(logDir, name), 'utf8')]),
  );
}

/**
 * The JSON log lines of every app of the test stack (and every extra instance) that carry `requestId`,
 * read from the stack's logDir (*.log).
 */
export function logLinesOf(requestId: string): LogLine[] {
  const lines: LogLine[] = [];
  const { logDir } = testStack();
  for (const file of readdirSync(logDir).filter((name) => name.endsWith('.log'))) {
    for (const text of readFileSync(join(logDir, file), 'utf8').split('\n')) {
      if (!text.includes(requestId)) continue;
      try {
        const line = JSON.parse(text) as LogLine;
        if (line.request_id === requestId) lines.push(line);
      } catch {
        /* not a JSON line */
      }
    }
  }
  return lines;
}

/** The value of one sample of a Prometheus text exposition, undefined when the series is absent. */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : undefined;
}

/** The sum of every sample of `name` (all label values). */
export function metricSum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
