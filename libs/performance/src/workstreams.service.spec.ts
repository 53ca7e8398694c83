import { ErrorCode } from '@workline/contracts';
import { InMemoryWorkstreamsRepository } from './testing/workstreams';
import { QC_DEFAULTS, WorkstreamsService } from './workstreams.service';

const setup = () => {
  const repository = new InMemoryWorkstreamsRepository();
  return { repository, workstreams: new WorkstreamsService(repository) };
};

const request = {
  account_id: 'acc-1',
  name: 'Reviews',
  use_cases: [
    { id: 'uc-1', task_definition_ids: ['td-1', 'td-2', 'td-1'] },
    { id: 'uc-2', task_definition_ids: [] },
  ],
};

describe('WorkstreamsService', () => {
  it('creates a workstream with the QC defaults, task definitions once each, and announces it', async () => {
    const { repository, workstreams } = setup();
    const view = await workstreams.create(request);
    const useCases = [
      { id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] },
      { id: 'uc-2', task_definition_ids: [] },
    ];
    expect(view).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      account_id: 'acc-1',
      name: 'Reviews',
      use_cases: useCases,
      qc_score_threshold: QC_DEFAULTS.qc_score_threshold,
      qc_sample_rate: QC_DEFAULTS.qc_sample_rate,
      created_at: '2026-05-06T07:08:09.000Z',
    });
    expect(repository.events).toEqual([
      { workstream_id: view.id, account_id: 'acc-1', name: 'Reviews', use_cases: useCases, created_at: '2026-05-06T07:08:09.000Z' },
    ]);
    await expect(workstreams.get(view.id)).resolves.toEqual(view);
  });

  it('keeps QC settings given, 0 included', async () => {
    const { workstreams } = setup();
    const view = await workstreams.create({ ...request, qc_score_threshold: 0, qc_sample_rate: 1 });
    expect([view.qc_score_threshold, view.qc_sample_rate]).toEqual([0, 1]);
  });

  it('refuses a use case listed twice, storing nothing', async () => {
    const { repository, workstreams } = setup();
    await expect(
      workstreams.create({ ...request, use_cases: [...request.use_cases, { id: 'uc-1', task_definition_ids: ['td-9'] }] }),
    ).rejects.toMatchObject({
      code: ErrorCode.Validation,
      message: 'Invalid request: use case "uc-1" is listed twice',
      errors: [{ field: 'use_cases', message: 'use case "uc-1" is listed twice' }],
    });
    expect([repository.rows.size, repository.events.length]).toEqual([0, 0]);
  });

  it('answers 404 for an unknown workstream', async () => {
    const { workstreams } = setup();
    await expect(workstreams.get('nope')).rejects.toMatchObject({ code: ErrorCode.NotFound, message: 'workstream nope not found' });
  });

  describe('authorize', () => {
    it('lets a project key of the account and the key of the workstream report for it', async () => {
      const { workstreams } = setup();
      const { id } = await workstreams.create(request);
      const expected = {
        id,
        account_id: 'acc-1',
        use_cases: [
          { id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] },
          { id: 'uc-2', task_definition_ids: [] },
        ],
        qc_score_threshold: 0.5,
        qc_sample_rate: 0.05,
      };
      await expect(workstreams.authorize({ account_id: 'acc-1', workstream_id: null }, id)).resolves.toEqual(expected);
      await expect(workstreams.authorize({ account_id: 'acc-1', workstream_id: id }, id)).resolves.toEqual(expected);
    });

    it("refuses another account's workstream (403), and a workstream key for any other workstream, known or not", async () => {
      const { workstreams } = setup();
      const mine = await workstreams.create(request);
      const theirs = await workstreams.create({ ...request, account_id: 'acc-2' });
      const forbidden = (id: string) => ({
        code: ErrorCode.Forbidden,
        message: `Forbidden: this API key is not valid for workstream ${id}`,
      });
      const projectKey = { account_id: 'acc-1', workstream_id: null };
      const workstreamKey = { account_id: 'acc-1', workstream_id: mine.id };
      await expect(workstreams.authorize(projectKey, theirs.id)).rejects.toMatchObject(forbidden(theirs.id));
      await expect(workstreams.authorize(workstreamKey, theirs.id)).rejects.toMatchObject(forbidden(theirs.id));
      await expect(workstreams.authorize(workstreamKey, 'unknown')).rejects.toMatchObject(forbidden('unknown'));
    });

    it('answers 404 to a project key for an unknown workstream', async () => {
      const { workstreams } = setup();
      await expect(workstreams.authorize({ account_id: 'acc-1', workstream_id: null }, 'unknown')).rejects.toMatchObject({
        code: ErrorCode.NotFound,
        message: 'workstream unknown not found',
      });
    });
  });

  it('reads a workstream configuration once, but looks again for one that was missing', async () => {
    const { repository, workstreams } = setup();
    await expect(workstreams.config('late')).rejects.toMatchObject({ code: ErrorCode.NotFound });
    const { id } = await workstreams.create(request);
    await workstreams.config(id);
    await workstreams.config(id);
    expect(repository.finds).toBe(2);
  });
});
