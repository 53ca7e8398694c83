import { adminCreate, adminHeaders, basicHeader, createWorker, http } from '@workline/testing';

/**
 * What each credential reaches, and what it never does (docs/operations.md, "Credentials and what they
 * reach"): one request of each API group with each kind of credential, as the table says, side by side.
 * Each probe changes nothing (reads, and a lease request on a line with no work).
 */
describe('credential reach: each kind of credential reaches its own API groups only', () => {
  let workstreamId: string;
  let siblingWorkstreamId: string;
  let lineId: string;
  let credentials: Record<string, Record<string, string>>;

  beforeAll(async () => {
    const account = await adminCreate<{ id: string; username: string; password: string }>('/accounts', { name: 'Reach Inc' });
    workstreamId = (await adminCreate<{ id: string }>('/workstreams', { account_id: account.id, name: 'Reach', use_cases: [] })).id;
    siblingWorkstreamId = (await adminCreate<{ id: string }>('/workstreams', { account_id: account.id, name: 'Sibling', use_cases: [] }))
      .id;
    lineId = (await adminCreate<{ id: string }>(`/accounts/${account.id}/lines`, { name: 'Reach line' })).id;
    const workstreamKey = (await adminCreate<{ key: string }>(`/workstreams/${workstreamId}/api-keys`, {})).key;
    const projectKey = (await adminCreate<{ key: string }>(`/accounts/${account.id}/api-keys`, {})).key;
    credentials = {
      'workstream key': { 'x-api-key': workstreamKey },
      'project key': { 'x-api-key': projectKey },
      'account Basic': basicHeader(account.username, account.password),
      'worker token': await createWorker(),
      'admin token': adminHeaders(),
      none: {},
    };
  });

  /** The requests tried with every credential: one route of each API group (and the sibling workstream). */
  const probes = (): [name: string, method: string, path: string, body?: unknown][] => [
    ['/v1 own workstream', 'GET', `/v1/workstreams/${workstreamId}/reports/quality`],
    ['/v1 sibling workstream', 'GET', `/v1/workstreams/${siblingWorkstreamId}/reports/quality`],
    ['/v1/api-key', 'GET', '/v1/api-key'],
    ['/v1/deliveries', 'GET', '/v1/deliveries'],
    ['/v4', 'GET', '/v4/lines'],
    // Reached, an unknown task is v3's 400 (code 109 Task not found); not reached, 401.
    ['/v3', 'GET', '/v3/tasks/no-such-task'],
    ['/workforce', 'POST', '/workforce/v1/assignments/next', { kind: 'unit', line_id: lineId }],
    ['/admin', 'GET', `/admin/v1/tasks?workstream_id=${workstreamId}`],
    ['/health details', 'GET', '/health'],
  ];

  it(
    'answers each API group only for the credentials docs/operations.md lists ' + '(401 for the others, 403 for another workstream)',
    async () => {
      const seen: Record<string, Record<string, number | string>> = {};
      for (const [credential, headers] of Object.entries(credentials)) {
        seen[credential] = {};
        for (const [name, method, path, body] of probes()) {
          const result = await http<{ components?: unknown }>(method, path, { headers, body });
          // /health answers everyone: what differs is whether the details come with it.
          seen[credential][name] =
            name === '/health details' && result.status === 200 ? (result.body.components ? 'details' : 'status only') : result.status;
        }
      }
      // Every group refuses every credential (401) but where its row says otherwise; /health gives its status
      // to anyone without an Authorization header (an x-api-key is none), and refuses any but the admin token.
      const refusedBut = (reached: Record<string, number | string>) => ({
        ...Object.fromEntries(probes().map(([name]) => [name, 401])),
        '/health details': 'status only',
        ...reached,
      });
      const ownWorkstream = { '/v1 own workstream': 200, '/v1/api-key': 200, '/v1/deliveries': 200 };
      expect(seen).toEqual({
        'workstream key': refusedBut({ ...ownWorkstream, '/v1 sibling workstream': 403 }),
        'project key': refusedBut({ ...ownWorkstream, '/v1 sibling workstream': 200 }),
        'account Basic': refusedBut({ '/v1/deliveries': 200, '/v4': 200, '/v3': 400, '/health details': 401 }),
        'worker token': refusedBut({ '/workforce': 204, '/health details': 401 }),
        'admin token': refusedBut({ '/admin': 200, '/health details': 'details' }),
        none: refusedBut({}),
      });
    },
  );
});
