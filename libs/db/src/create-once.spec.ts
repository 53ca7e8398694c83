import { DomainError, ErrorCode, requestFingerprint } from '@workline/contracts';
import { createOnce, REQUEST_ID_KEY_PREFIX } from './create-once';

type Row = { id: string; idempotencyHash: string | null };

/** A store of rows by Idempotency-Key, as the unique index keeps them: pure logic, no database. */
function store() {
  const rows = new Map<string, Row>();
  return {
    rows,
    find: async (key: string) => rows.get(key) ?? null,
    replay: (row: Row) => row.id,
  };
}

describe('createOnce', () => {
  const request = { overlap_seconds: 60 };

  it('creates once, then replays the stored row for the same request and refuses another request with 422', async () => {
    const { rows, find, replay } = store();
    let created = 0;
    const create = async (stamp: { idempotencyKey: string | null; idempotencyHash: string | null }) => {
      created++;
      rows.set(stamp.idempotencyKey!, { id: `row-${created}`, idempotencyHash: stamp.idempotencyHash });
      return `row-${created}`;
    };
    expect(await createOnce({ key: 'k', request, find, create, replay })).toEqual({ value: 'row-1', replayed: false });
    expect(await createOnce({ key: 'k', request, find, create, replay })).toEqual({ value: 'row-1', replayed: true });
    await expect(createOnce({ key: 'k', request: { overlap_seconds: 0 }, find, create, replay })).rejects.toMatchObject({
      code: ErrorCode.Validation,
    });
    expect(created).toBe(1);
  });

  it('answers the winner of a race with the winner row, whether it lost on the unique index or on a check the winner changed', async () => {
    for (const failure of [Object.assign(new Error('duplicate key'), { code: '23505' }), new DomainError(ErrorCode.Conflict, 'expired')]) {
      const { rows, find, replay } = store();
      const create = async () => {
        // The other request with the same key committed between this one's lookup and its own creation.
        rows.set('k', { id: 'winner', idempotencyHash: requestFingerprint(request) });
        throw failure;
      };
      expect(await createOnce({ key: 'k', request, find, create, replay })).toEqual({ value: 'winner', replayed: true });
    }
  });

  it('keeps the creation error when nothing is stored under the key, or when there is no key', async () => {
    const { find, replay } = store();
    const conflict = new DomainError(ErrorCode.Conflict, 'API key k1 is expired and cannot be rotated');
    const create = async () => {
      throw conflict;
    };
    await expect(createOnce({ key: 'k', request, find, create, replay })).rejects.toBe(conflict);
    await expect(createOnce({ key: undefined, request, find, create, replay })).rejects.toBe(conflict);
  });
  it('keys a keyless creation by its request id: a replay of the request answers the first creation, not as a replay', async () => {
    const { rows, find, replay } = store();
    const stamps: (string | null)[] = [];
    const create = async (stamp: { idempotencyKey: string | null; idempotencyHash: string | null }) => {
      stamps.push(stamp.idempotencyKey);
      // The unique index refuses a second row under the same key.
      if (rows.has(stamp.idempotencyKey!)) throw Object.assign(new Error('duplicate key'), { code: '23505' });
      rows.set(stamp.idempotencyKey!, { id: `row-${rows.size + 1}`, idempotencyHash: stamp.idempotencyHash });
      return `row-${rows.size}`;
    };
    const once = { key: undefined, request, find, create, replay, requestId: 'corr-1' };
    expect(await createOnce(once)).toEqual({ value: 'row-1', replayed: false });
    expect(await createOnce(once)).toEqual({ value: 'row-1', replayed: false });
    expect(await createOnce({ ...once, requestId: 'corr-2' })).toEqual({ value: 'row-2', replayed: false });
    // Under a key no client can send (an Idempotency-Key is printable ASCII).
    expect(stamps).toEqual([`${REQUEST_ID_KEY_PREFIX}corr-1`, `${REQUEST_ID_KEY_PREFIX}corr-1`, `${REQUEST_ID_KEY_PREFIX}corr-2`]);
    expect(stamps.every((key) => !/^[\x20-\x7e]+$/.test(key!))).toBe(true);
    // A failure with nothing stored under the request id is the request's own.
    const refused = new DomainError(ErrorCode.Validation, 'line_id is unknown');
    await expect(
      createOnce({
        ...once,
        requestId: 'corr-3',
        create: async () => {
          throw refused;
        },
      }),
    ).rejects.toBe(refused);
  });
});
