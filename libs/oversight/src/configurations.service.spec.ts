import 'reflect-metadata';
import { ErrorCode } from '@workline/contracts';
import { ConfigurationsService } from './configurations.service';
import { domainError, InMemoryConfigurations } from './testing';

const notFound = (message: string) => domainError(ErrorCode.NotFound, message);

describe('ConfigurationsService', () => {
  let repository: InMemoryConfigurations;
  let service: ConfigurationsService;

  beforeEach(() => {
    repository = new InMemoryConfigurations();
    service = new ConfigurationsService(repository);
  });

  it('creates a configuration with plain events and no tool project by default, and shows it', async () => {
    const view = await service.create({ workstream_id: 'ws-1', account_id: 'acc-1', name: 'Shelves' });
    expect(view).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workstream_id: 'ws-1',
      name: 'Shelves',
      extended_events: false,
      tool_project_id: null,
      created_at: repository.rows.get(view.id)!.createdAt.toISOString(),
    });
    expect(repository.rows.get(view.id)!.accountId).toBe('acc-1');
    expect(await service.get({ account_id: 'acc-1', workstream_id: 'ws-1', configuration_id: view.id })).toEqual(view);
  });

  it('keeps extended_events and tool_project_id as sent', async () => {
    const view = await service.create({
      workstream_id: 'ws-1',
      account_id: 'acc-1',
      name: 'Shelves',
      extended_events: true,
      tool_project_id: 'tp-9',
    });
    expect(view).toMatchObject({ extended_events: true, tool_project_id: 'tp-9' });
  });

  it('shows a configuration to a project-level key of its account, and to no other account or workstream', async () => {
    const { id } = await service.create({ workstream_id: 'ws-1', account_id: 'acc-1', name: 'Shelves' });
    expect((await service.get({ account_id: 'acc-1', configuration_id: id })).id).toBe(id);
    const hidden = `configuration ${id} not found`;
    await expect(service.get({ account_id: 'acc-2', configuration_id: id })).rejects.toEqual(notFound(hidden));
    await expect(service.get({ account_id: 'acc-1', workstream_id: 'ws-2', configuration_id: id })).rejects.toEqual(notFound(hidden));
    await expect(service.get({ account_id: 'acc-1', configuration_id: 'nope' })).rejects.toEqual(notFound('configuration nope not found'));
  });

  it("answers a workstream's own configuration, and another workstream's as not found", async () => {
    const { id } = await service.create({ workstream_id: 'ws-1', account_id: 'acc-1', name: 'Shelves' });
    expect(await service.ofWorkstream('ws-1', id)).toMatchObject({ id, workstreamId: 'ws-1', accountId: 'acc-1' });
    await expect(service.ofWorkstream('ws-2', id)).rejects.toEqual(notFound(`configuration ${id} not found`));
    await expect(service.ofWorkstream('ws-1', 'nope')).rejects.toEqual(notFound('configuration nope not found'));
  });

  it('reads a configuration found once only, and looks a missing one up again (another instance may create it)', async () => {
    const { id } = await service.create({ workstream_id: 'ws-1', account_id: 'acc-1', name: 'Shelves' });
    await service.ofWorkstream('ws-1', id);
    await service.ofWorkstream('ws-1', id);
    expect(repository.reads).toBe(1);

    await expect(service.ofWorkstream('ws-1', 'later')).rejects.toThrow('configuration later not found');
    await repository.create({
      id: 'later',
      workstreamId: 'ws-1',
      accountId: 'acc-1',
      name: 'Late',
      extendedEvents: false,
      toolProjectId: null,
    });
    expect((await service.ofWorkstream('ws-1', 'later')).name).toBe('Late');
    expect(repository.reads).toBe(3);
  });
});
