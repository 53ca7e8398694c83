import type { PublicSurface } from '@workline/db';
import type { LineRow, LinesRepository } from './lines.repository';
import { LinesService } from './lines.service';

/** The production_line table in memory, in creation order. */
class InMemoryLinesRepository implements PublicSurface<LinesRepository> {
  readonly rows: LineRow[] = [];

  async insert(line: LineRow): Promise<LineRow> {
    this.rows.push(line);
    return line;
  }

  async ofAccount(accountId: string): Promise<LineRow[]> {
    return this.rows.filter((row) => row.accountId === accountId);
  }
}

describe('LinesService', () => {
  const setup = () => {
    const repository = new InMemoryLinesRepository();
    return { repository, lines: new LinesService(repository) };
  };

  it('creates a line of the account under a new id and answers it as {id, name}', async () => {
    const { repository, lines } = setup();
    const view = await lines.create({ account_id: 'acc-1', name: 'Labelling' });
    expect(view).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Labelling' });
    expect(repository.rows).toEqual([{ id: view.id, accountId: 'acc-1', name: 'Labelling' }]);
    const other = await lines.create({ account_id: 'acc-1', name: 'Labelling' });
    expect(other.id).not.toBe(view.id);
  });

  it("lists the caller's lines only, as {name, id}", async () => {
    const { lines } = setup();
    const first = await lines.create({ account_id: 'acc-1', name: 'first' });
    await lines.create({ account_id: 'acc-2', name: 'not yours' });
    const second = await lines.create({ account_id: 'acc-1', name: 'second' });
    expect(await lines.list('acc-1')).toEqual([
      { name: 'first', id: first.id },
      { name: 'second', id: second.id },
    ]);
    expect(await lines.list('acc-3')).toEqual([]);
  });
});
