import 'reflect-metadata';
import type { DeliveryStore, OutcomeRow, RecordedRow } from './delivery-store';
import { OutcomeRecorder } from './outcome-recorder';

const outcome = (id: string, status: OutcomeRow['status'] = 'delivered'): OutcomeRow => ({
  id,
  lease_token: `lease-${id}`,
  attempted_at: new Date(0).toISOString(),
  duration_ms: 3,
  status_code: status === 'delivered' ? 200 : 500,
  error: status === 'delivered' ? null : 'HTTP 500',
  response_excerpt: null,
  success: status === 'delivered',
  status,
  round_failures: 0,
  wait_ms: null,
  request_id: null,
});

/** A store whose writes the test finishes (or fails) one by one; `held` are the leases still held. */
function controlledStore(held: (id: string) => boolean = () => true) {
  const writes: string[][] = [];
  const pending: { resolve: (rows: RecordedRow[]) => void; reject: (error: Error) => void; outcomes: OutcomeRow[] }[] = [];
  const store = {
    record: (outcomes: OutcomeRow[]) =>
      new Promise<RecordedRow[]>((resolve, reject) => {
        writes.push(outcomes.map((o) => o.id));
        pending.push({ resolve, reject, outcomes });
      }),
  } as unknown as DeliveryStore;
  const finish = () => {
    const write = pending.shift()!;
    write.resolve(write.outcomes.filter((o) => held(o.id)).map((o) => ({ id: o.id, attempt_count: 1, status: o.status })));
  };
  const fail = () => pending.shift()!.reject(new Error('connection lost'));
  return { store, writes, finish, fail, pending };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** Lets the recorder run until `done` holds (writes follow each other at most every 20 ms). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}
const later = Date.now() + 60_000;

describe('OutcomeRecorder (batched outcome writes)', () => {
  it('writes the outcomes of one turn together, and those that end during a write in the next one', async () => {
    const { store, writes, finish } = controlledStore();
    const recorder = new OutcomeRecorder(store, () => undefined);
    recorder.add(outcome('a'), later);
    recorder.add(outcome('b'), later);
    await turn();
    expect(writes).toEqual([['a', 'b']]);
    recorder.add(outcome('c'), later);
    recorder.add(outcome('d'), later);
    recorder.add(outcome('e'), later);
    await turn();
    expect(writes).toHaveLength(1);
    finish();
    await until(() => writes.length === 2);
    expect(writes).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
    finish();
    await recorder.flush();
    expect(recorder.waiting).toBe(0);
  });

  it('tries a failed write again while the leases last, and gives up the outcomes whose lease ended', async () => {
    const { store, writes, finish, fail } = controlledStore();
    const recorder = new OutcomeRecorder(store, () => undefined);
    recorder.add(outcome('kept'), later);
    recorder.add(outcome('expired'), Date.now() - 1);
    await turn();
    fail();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(writes).toEqual([['kept', 'expired'], ['kept']]);
    finish();
    await recorder.flush();
    expect(recorder.waiting).toBe(0);
  });

  it('says so when a write made a delivery dead, not when its lease had moved on', async () => {
    let dead = 0;
    const { store, finish } = controlledStore((id) => id !== 'lost');
    const recorder = new OutcomeRecorder(store, () => dead++);
    recorder.add(outcome('lost', 'dead'), later);
    await turn();
    finish();
    await recorder.flush();
    expect(dead).toBe(0);
    recorder.add(outcome('gone', 'dead'), later);
    await turn();
    finish();
    await recorder.flush();
    expect(dead).toBe(1);
  });

  it('writes one outcome per delivery in a write', async () => {
    const { store, writes, finish } = controlledStore();
    const recorder = new OutcomeRecorder(store, () => undefined);
    recorder.add(outcome('a'), later);
    recorder.add({ ...outcome('a'), lease_token: 'newer' }, later);
    await turn();
    finish();
    await recorder.flush();
    expect(writes).toEqual([['a']]);
  });
});
