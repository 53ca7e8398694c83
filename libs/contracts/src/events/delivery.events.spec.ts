import 'reflect-metadata';
import type { DomainError } from '../errors';
import { validateContract } from '../validation';
import { DeliveryRequestedEvent } from './delivery.events';

const valid = {
  delivery_id: 'dlv_1',
  owner: { account_id: 'acc-1', workstream_id: 'ws-1' },
  subject: { task_id: 'task-1' },
  event_type: 'task.result_available',
  url: 'https://hooks.example.com/workline',
  body: '{"uuid":"u"}',
  signing: 'x-svc-signature',
  sealed_secret: 'v1.a.b.c',
};

const fieldsOf = (plain: unknown): string[] => {
  try {
    validateContract(DeliveryRequestedEvent, plain);
    return [];
  } catch (error) {
    return ((error as DomainError).errors ?? []).map((e) => e.field);
  }
};

describe('DeliveryRequestedEvent contract', () => {
  it('accepts a signed task event and an unsigned platform callback', () => {
    expect(fieldsOf(valid)).toEqual([]);
    expect(
      fieldsOf({
        ...valid,
        owner: { account_id: 'acc-1' },
        subject: { run_id: 'r' },
        signing: 'none',
        sealed_secret: undefined,
        sealed_authorization: 'v1.x.y.z',
      }),
    ).toEqual([]);
  });

  it('names missing owner and subject objects', () => {
    const { owner: _owner, subject: _subject, ...rest } = valid;
    expect(fieldsOf(rest)).toEqual(['owner', 'subject']);
    expect(fieldsOf({ ...valid, owner: {} })).toEqual(['owner.account_id']);
  });

  it('requires the sealed secret of a signed delivery', () => {
    expect(fieldsOf({ ...valid, sealed_secret: undefined })).toEqual(['sealed_secret']);
  });

  it('refuses an unknown signing mode and a URL that is not http(s)', () => {
    expect(fieldsOf({ ...valid, signing: 'hmac' })).toEqual(['signing']);
    expect(fieldsOf({ ...valid, url: 'ftp://example.com/x' })).toEqual(['url']);
  });
});
