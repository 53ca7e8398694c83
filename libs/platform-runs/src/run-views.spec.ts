import { v3Callback, v3Polled, v3Resource, v4Run } from './run-views';
import { isoSeconds, utcSeconds } from './time-format';

const created = new Date('2026-03-04T05:06:07.890Z');
const done = new Date('2026-03-04T06:07:08.123Z');

describe('run views', () => {
  it('formats timestamps to the second', () => {
    expect(isoSeconds(created)).toBe('2026-03-04T05:06:07Z');
    expect(utcSeconds(created)).toBe('2026-03-04 05:06:07 UTC');
    // The last value is kept: the same instant again, another one, then the first again.
    expect([isoSeconds(new Date(created)), isoSeconds(done), isoSeconds(created), isoSeconds(new Date(0))]).toEqual([
      '2026-03-04T05:06:07Z',
      '2026-03-04T06:07:08Z',
      '2026-03-04T05:06:07Z',
      '1970-01-01T00:00:00Z',
    ]);
  });

  it('v4: output only for Completed units; processed_at null until processed', () => {
    const run = { id: 'r', lineId: 'l', status: 'Processing', createdAt: created, processedAt: null };
    const units = [
      { input: { a: { b: 1 } }, output: { x: 1 }, status: 'Completed', createdAt: created, processedAt: done },
      { input: { a: 2 }, output: null, status: 'Flagged', createdAt: created, processedAt: done },
      { input: { a: 3 }, output: null, status: 'Processing', createdAt: created, processedAt: null },
    ];
    expect(v4Run(run, units)).toEqual({
      id: 'r',
      line_id: 'l',
      status: 'Processing',
      created_at: '2026-03-04T05:06:07Z',
      processed_at: null,
      units: [
        {
          input: { a: { b: 1 } },
          output: { x: 1 },
          meta: { status: 'Completed', created_at: '2026-03-04T05:06:07Z', processed_at: '2026-03-04T06:07:08Z' },
        },
        {
          input: { a: 2 },
          output: {},
          meta: { status: 'Flagged', created_at: '2026-03-04T05:06:07Z', processed_at: '2026-03-04T06:07:08Z' },
        },
        { input: { a: 3 }, output: {}, meta: { status: 'Processing', created_at: '2026-03-04T05:06:07Z', processed_at: null } },
      ],
    });
  });

  it('v3: output keys never replace input keys or extra', () => {
    const unit = {
      input: { identifier: 'i', label: 'in' },
      output: { label: 'out', score: 1, extra: 'no' },
      status: 'Completed',
      createdAt: created,
      processedAt: done,
    };
    expect(v3Resource(unit)).toEqual({ identifier: 'i', label: 'in', score: 1, extra: { status: 'Completed' } });
  });

  it('v3 polled uses finished_at and ISO; the callback uses completed_at and "UTC"', () => {
    const run = { id: 'r', lineId: 'l', status: 'Processed', createdAt: created, processedAt: done };
    expect(v3Polled(run, [])).toEqual({
      task_id: 'r',
      template_id: 'l',
      status: 'Completed',
      started_at: '2026-03-04T05:06:07Z',
      finished_at: '2026-03-04T06:07:08Z',
      resources: [],
    });
    expect(v3Callback(run, [])).toEqual({
      task_id: 'r',
      template_id: 'l',
      status: 'Completed',
      started_at: '2026-03-04 05:06:07 UTC',
      completed_at: '2026-03-04 06:07:08 UTC',
      resources: [],
    });
  });
});
