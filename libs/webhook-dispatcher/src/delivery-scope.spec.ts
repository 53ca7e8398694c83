import 'reflect-metadata';
import { scopeWhere } from './delivery-scope';

describe('delivery scope', () => {
  it('shows a workstream key its workstream, an account key every workstream, Basic the platform callbacks', () => {
    expect(scopeWhere({ kind: 'workstream', account_id: 'a', workstream_id: 'w' })).toEqual({ accountId: 'a', workstreamId: 'w' });
    expect(scopeWhere({ kind: 'account-workstreams', account_id: 'a' })).toEqual({ accountId: 'a', workstreamId: { not: null } });
    expect(scopeWhere({ kind: 'platform', account_id: 'a' })).toEqual({ accountId: 'a', workstreamId: null });
  });
});
