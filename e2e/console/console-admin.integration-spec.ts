import {
  completeTask,
  createImageTask,
  createOversightTenant,
  flagTask,
  leaseTask,
  newWorkerToken,
  type OversightTenant,
  postRecord,
  TestBrowser,
  testStack,
  takesTurnOnInThisBlock,
} from '@workline/testing';
import type { Page } from 'playwright-core';

/**
 * The console's admin-token sections (docs/console.md) in headless Chromium against the whole stack: the
 * task list follows a task to COMPLETED and another to ERROR, and the report charts draw the records
 * this test submitted, for the picked workstream and date range only.
 */
describe('console in a browser: tasks and reports with the admin token', () => {
  let browser: TestBrowser;
  let operator: Page;
  let worker: string;
  let tenant: OversightTenant;

  beforeAll(async () => {
    browser = await TestBrowser.launch();
    worker = await newWorkerToken();
    tenant = await createOversightTenant('Console admin', { useCases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }] });
    operator = await browser.page();
    await operator.goto(`${testStack().gatewayUrl}/console`);
    await operator.click('#tab-operator');
    await operator.fill('#op-admin-token', testStack().adminToken);
    await operator.click('#operator-signin button[type=submit]');
    await operator.waitForSelector('#admin-sections:not([hidden])');
  });

  afterAll(() => browser?.close());

  /** Leases tasks through the work API until it holds `taskId`; flags any other (left over by other files). */
  const lease = (taskId: string) => leaseTask(worker, taskId);

  const stateCell = (taskId: string) => operator.locator(`tr[data-task="${taskId}"] .task-state`);

  describe('tasks', () => {
    // Its tasks are created and leased from the one queue (leasing flags what other files left there) in a turn of
    // its own; the charts below share the queue with other files.
    takesTurnOnInThisBlock('oversight task queue');

    it("lists the workstream's tasks newest first and follows one to COMPLETED and one to ERROR, with their details", async () => {
      const first = await createImageTask(tenant, { existingTags: [{ value: 'animal', confidence_score: 0.5 }] });
      const second = await createImageTask(tenant, { color: [200, 40, 40] });
      await operator.fill('#task-workstream', tenant.workstreamId);
      await operator.click('#task-filter button[type=submit]');
      await stateCell(second.taskId).waitFor();
      expect(await operator.locator('#tasks tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-task')))).toEqual([
        second.taskId,
        first.taskId,
      ]);
      expect(await stateCell(first.taskId).textContent()).toBe('QUEUED');
      expect(await operator.locator(`tr[data-task="${first.taskId}"] td`).allTextContents()).toEqual(
        expect.arrayContaining([first.mediaKey, tenant.configurationId]),
      );

      const completing = await lease(first.taskId);
      await stateCell(first.taskId).filter({ hasText: 'IN_PROGRESS' }).waitFor({ timeout: 30_000 });
      const done = await completeTask(worker, completing.assignment_id, { updated_tags: [{ value: 'cat', confidence_score: 0.9 }] });
      expect(done.status).toBe(200);
      // Live refresh: the operator's page shows the change without a click.
      await stateCell(first.taskId).filter({ hasText: 'COMPLETED' }).waitFor({ timeout: 30_000 });
      await operator.click(`tr[data-task="${first.taskId}"] .open-task`);
      await operator.waitForSelector(`#task-detail h3:text-is("Task ${first.taskId}")`);
      expect(await operator.textContent('#task-detail [data-field="result-tags"]')).toBe('cat (0.9)');
      expect(await operator.textContent('#task-detail [data-field="existing-tags"]')).toBe('animal (0.5)');
      expect(await operator.textContent('#task-detail [data-field="workstream"]')).toBe(tenant.workstreamId);

      const flagging = await lease(second.taskId);
      await flagTask(worker, flagging.assignment_id, 'the image is all red');
      await stateCell(second.taskId).filter({ hasText: 'ERROR' }).waitFor({ timeout: 30_000 });
      await operator.click(`tr[data-task="${second.taskId}"] .open-task`);
      await operator.waitForSelector('#task-detail [data-field="error"]');
      expect(await operator.textContent('#task-detail [data-field="error"]')).toBe('flagged by the worker: the image is all red');
      await browser.screenshotOf(operator.locator('#tasks-section'), 'console-operator-tasks');

      // The state filter narrows the list to the task in that state.
      await operator.selectOption('#task-state', 'ERROR');
      await operator.click('#task-filter button[type=submit]');
      await operator.waitForFunction((id) => {
        const rows = (
          globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null }> } }
        ).document.querySelectorAll('#tasks tbody tr');
        return rows.length === 1 && rows[0].getAttribute('data-task') === id;
      }, second.taskId);
    });

    it('pages through the tasks, newest first, with Older and Newest', async () => {
      const paged = await createOversightTenant('Console paging');
      const created: string[] = [];
      for (let i = 0; i < 21; i++) created.push((await createImageTask(paged)).taskId);
      await operator.selectOption('#task-state', '');
      await operator.fill('#task-workstream', paged.workstreamId);
      await operator.click('#task-filter button[type=submit]');
      const ids = () => operator.locator('#tasks tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-task')));
      await operator.locator(`tr[data-task="${created[20]}"]`).waitFor();
      expect(await ids()).toEqual([...created].reverse().slice(0, 20));
      await operator.click('#tasks-next');
      await operator.locator(`tr[data-task="${created[0]}"]`).waitFor();
      expect(await ids()).toEqual([created[0]]);
      expect(await operator.textContent('#tasks-page')).toBe('page 2 (oldest)');
      expect(await operator.isDisabled('#tasks-next')).toBe(true);
      await operator.click('#tasks-first');
      await operator.locator(`tr[data-task="${created[20]}"]`).waitFor();
      expect(await operator.textContent('#tasks-page')).toBe('page 1');

      // Leave no queued tasks behind for the test files that lease tasks oldest first.
      for (const id of created) {
        const assignment = await lease(id);
        await flagTask(worker, assignment.assignment_id, 'paging fixture');
      }
    });
  });

  it('draws the quality and throughput charts of the picked workstream and dates from the submitted records', async () => {
    const quality = (at: string, score: number) =>
      postRecord(
        'task_reviewed',
        tenant.workstreamId,
        {
          workstream_id: tenant.workstreamId,
          use_case_id: 'uc-1',
          task_definition_id: 'td-1',
          worker_id: 'ann@example.com',
          review_completed_at: at,
          review_score: score,
        },
        tenant.key,
      );
    const throughput = (at: string, tasks: number) =>
      postRecord(
        'task_completed',
        tenant.workstreamId,
        { worker_id: 'ann@example.com', task_completed_at: at, task_count: tasks, duration_seconds: 3600 },
        tenant.key,
      );
    const answers = await Promise.all([
      quality('2026-03-01T09:00:00Z', 0.5),
      quality('2026-03-01T17:00:00Z', 1),
      quality('2026-03-03T23:59:00Z', 0.25),
      quality('2026-03-04T00:00:00Z', 0.9), // the day after the range
      throughput('2026-03-01T10:00:00Z', 3),
      throughput('2026-03-02T10:00:00Z', 2),
      throughput('2026-03-02T11:00:00Z', 4),
      throughput('2026-02-28T23:59:59Z', 10), // the day before the range
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));

    await operator.fill('#report-workstream', tenant.workstreamId);
    await operator.fill('#report-from', '2026-03-01');
    await operator.fill('#report-to', '2026-03-03');
    await operator.click('#report-form button[type=submit]');
    await operator.waitForSelector('#quality svg');
    await operator.waitForSelector('#throughput svg');

    const bars = (chart: string) =>
      operator.locator(`#${chart} rect.bar`).evaluateAll((rects) =>
        rects.map((r) => ({
          key: r.getAttribute('data-key'),
          value: Number(r.getAttribute('data-value')),
          height: Number(r.getAttribute('height')),
        })),
      );
    const quality3 = await bars('quality');
    expect(quality3.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: '2026-03-01', value: 0.75 },
      { key: '2026-03-03', value: 0.25 },
    ]);
    expect(quality3[0].height / quality3[1].height).toBeCloseTo(3, 5);
    expect(await operator.locator('#quality .value-label').allTextContents()).toEqual(['0.75', '0.25']);
    expect(await operator.locator('#quality .x-label').allTextContents()).toEqual(['03-01', '03-03']);
    expect(await operator.locator('#quality .y-label').allTextContents()).toEqual(['0', '0.25', '0.50', '0.75', '1']);
    expect(await operator.locator('#quality .axis').count()).toBe(2);
    expect(await operator.locator('#quality .axis-title').allTextContents()).toEqual(['day (UTC)', 'mean score']);

    const throughput3 = await bars('throughput');
    expect(throughput3.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: '2026-03-01', value: 3 },
      { key: '2026-03-02', value: 6 },
    ]);
    expect(throughput3[1].height / throughput3[0].height).toBeCloseTo(2, 5);
    expect(await operator.locator('#throughput .value-label').allTextContents()).toEqual(['3', '6']);
    expect(await operator.textContent('#throughput figcaption')).toBe('Throughput: tasks completed per day, 2026-03-01 to 2026-03-03');
    expect(await operator.locator('#throughput rect.bar title').allTextContents()).toEqual([
      '2026-03-01: 3 tasks in 1 record, 3 tasks/hour',
      '2026-03-02: 6 tasks in 2 records, 3 tasks/hour',
    ]);
    await browser.screenshotOf(operator.locator('#reports-section'), 'console-operator-reports');

    // A range with no records: a message, no chart.
    await operator.fill('#report-from', '2025-01-01');
    await operator.fill('#report-to', '2025-01-31');
    await operator.click('#report-form button[type=submit]');
    await operator.waitForSelector('#quality .empty');
    expect(await operator.textContent('#quality .empty')).toBe('No quality records from 2025-01-01 to 2025-01-31.');
    expect(await operator.textContent('#throughput .empty')).toBe('No throughput records from 2025-01-01 to 2025-01-31.');
    expect(await operator.locator('.chart svg').count()).toBe(0);

    // An unknown workstream: the API's answer in the status line.
    await operator.fill('#report-workstream', 'no-such-workstream');
    await operator.click('#report-form button[type=submit]');
    await operator.waitForSelector('#status.error:has-text("404")');
  });

  it('logged no errors in the browser console', () => {
    // The unknown-workstream check above expects the browser's own "Failed to load resource" lines for its 404s.
    expect(browser.errors.filter((line) => !line.includes('the server responded with a status of 404'))).toEqual([]);
  });
});
