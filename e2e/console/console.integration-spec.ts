import {
  apiClient,
  createImageTask,
  createOversightTenant,
  createPlatformAccount,
  eventually,
  http,
  LoopbackReceiver,
  newRun,
  newWorkerToken,
  ok,
  type PlatformAccount,
  runOf,
  TestBrowser,
  testStack,
  takesTurnOnInThisBlock,
} from '@workline/testing';
import type { Page } from 'playwright-core';

/**
 * The console (docs/console.md) in headless Chromium against the whole stack: a worker finishes a unit and
 * an annotation task through the UI, an operator watches the run and its callback, and redelivers it.
 */
describe('console in a browser', () => {
  const receiver = new LoopbackReceiver();
  let browser: TestBrowser;
  let acme: PlatformAccount;
  let workerToken: string;
  let runId: string;
  const consoleUrl = () => `${testStack().gatewayUrl}/console`;

  beforeAll(async () => {
    await receiver.start();
    browser = await TestBrowser.launch();
    acme = await createPlatformAccount('Console');
    workerToken = await newWorkerToken();
  });

  afterAll(async () => {
    await browser?.close();
    await receiver.stop();
  });

  async function signInWorker(page: Page, lineId?: string): Promise<void> {
    await page.goto(consoleUrl());
    await page.fill('#worker-token', workerToken);
    if (lineId) await page.fill('#worker-line', lineId);
    await page.click('#worker-signin button[type=submit]');
    await page.waitForSelector('#worker-panel:not([hidden])');
  }

  it('serves the console files with their types, and 404 for anything else', async () => {
    const anonymous = apiClient();
    const page = await anonymous.GET('/console', { parseAs: 'text' });
    expect(page.response.status).toBe(200);
    expect(page.response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.data).toContain('<script src="/console/console.js">');
    const script = await anonymous.GET('/console/console.js', { parseAs: 'text' });
    expect(script.response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const style = await anonymous.GET('/console/console.css', { parseAs: 'text' });
    expect(style.response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    // Paths of no operation: raw http().
    const missing = await http<{ message: string }>('GET', '/console/secret.txt');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Not found: no route GET /console/secret.txt');
    expect((await http('GET', '/console/..%2Fconsole.controller.ts')).status).toBe(404);
  });

  it('a worker completes a unit through the UI while an operator watches the run become Processed and its callback delivered', async () => {
    runId = await newRun(acme, [{ identifier: 'u1', text: 'Is this a cat?', nested: { size: 3 } }], receiver.url('/console-run'));

    const operator = await browser.page();
    await operator.goto(consoleUrl());
    await operator.click('#tab-operator');
    await operator.fill('#op-username', acme.username);
    await operator.fill('#op-password', acme.password);
    await operator.click('#operator-signin button[type=submit]');
    await operator.fill('#run-id', runId);
    await operator.click('#watch-run button[type=submit]');
    await operator.waitForSelector(`tr[data-run="${runId}"] .run-status:text-is("Processing")`);
    expect(await operator.textContent(`tr[data-run="${runId}"] .progress`)).toContain('Processing 1');

    const worker = await browser.page();
    await signInWorker(worker, acme.lineId);
    await worker.keyboard.press('n');
    await worker.waitForSelector('#input-fields');
    expect(await worker.textContent('#input-fields')).toContain('Is this a cat?');
    expect(await worker.textContent('#input-fields')).toContain('"size": 3');
    await browser.screenshot(worker, 'console-worker-unit');
    await worker.fill('#fields .field-key', 'answer');
    await worker.fill('#fields .field-value', 'yes');
    await worker.keyboard.press('Control+Enter');
    await worker.waitForSelector('#status:has-text("Completed")');

    // Live refresh (polling): the operator's page shows the change without a reload.
    await operator.waitForSelector(`tr[data-run="${runId}"] .run-status:text-is("Processed")`, { timeout: 30_000 });
    expect(await operator.textContent(`tr[data-run="${runId}"] .progress`)).toContain('Completed 1');
    await browser.screenshotOf(operator.locator('#runs-section'), 'console-operator-runs');
    const row = operator.locator('tr[data-delivery]', { hasText: runId });
    await row.locator('.delivery-status:text-is("delivered")').waitFor({ timeout: 30_000 });
    expect(await row.locator('.delivery-attempts').textContent()).toBe('1');

    const run = await runOf(acme, runId);
    expect(run.units[0].output).toEqual({ answer: 'yes' });
    const [callback] = await eventually(() => (receiver.on('/console-run').length ? receiver.on('/console-run') : undefined), {
      what: 'the run callback',
    });
    expect(JSON.parse(callback.rawBody.toString('utf8'))).toMatchObject({ id: runId, status: 'Processed' });

    // Redeliver from the UI: the same delivery reaches the receiver a second time.
    await row.locator('button.redeliver').click();
    await eventually(() => receiver.on('/console-run').length >= 2 || undefined, { what: 'the redelivered callback' });
    const [first, second] = receiver.on('/console-run');
    expect(second.headers['x-svc-delivery-id']).toBe(first.headers['x-svc-delivery-id']);
    expect(second.rawBody.equals(first.rawBody)).toBe(true);
    await row.locator('.delivery-attempts:text-is("2")').waitFor({ timeout: 30_000 });
    await row.locator('button.show-attempts').click();
    await operator.locator('#attempts tbody tr').nth(1).waitFor({ timeout: 30_000 });
    expect(await operator.locator('#attempts .attempt-status').allTextContents()).toEqual(['HTTP 200', 'HTTP 200']);
    expect(await operator.textContent('#attempts-title')).toContain(receiver.url('/console-run'));
    await browser.screenshotOf(operator.locator('#deliveries-section'), 'console-operator-deliveries');
    await browser.screenshot(operator, 'console-operator');
  });

  describe('an annotation task', () => {
    // The one test here that leases oversight tasks (flagging what other files left queued): the rest of the
    // file works on units and shares the task queue with other files.
    takesTurnOnInThisBlock('oversight task queue');

    it(
      'a worker flags leftovers and tags an annotation task whose image is rendered with its existing tags and the ' + "client's notes",
      async () => {
        const tenant = await createOversightTenant('Console oversight');
        const { taskId } = await createImageTask(tenant, {
          callbackUrl: receiver.url('/console-task'),
          existingTags: [{ value: 'animal', confidence_score: 0.5 }],
          metadata: [{ key: 'shelf', value: 'B-3' }],
        });

        const worker = await browser.page();
        await signInWorker(worker);
        // Tasks are offered oldest first across test files: flag (through the UI) any left over before ours.
        await worker.keyboard.press('t');
        for (let i = 0; i < 100; i++) {
          await worker.waitForSelector('#task-media h3');
          if ((await worker.textContent('#task-media h3')) === `Task ${taskId}`) break;
          const leftover = await worker.textContent('#assignment-id');
          await worker.keyboard.press('f');
          await worker.keyboard.type('left over by another test');
          await worker.keyboard.press('Enter');
          // The flag's answer brings the next task (ours is still waiting): the page shows it without a `t`.
          await worker.waitForFunction(
            (id) =>
              (globalThis as unknown as { document: { getElementById(s: string): { textContent: string } } }).document.getElementById(
                'assignment-id',
              ).textContent !== id,
            leftover,
          );
        }
        expect(await worker.textContent('#task-media h3')).toBe(`Task ${taskId}`);
        // The image has loaded and decoded (the page script runs in the browser, typed loosely here).
        await worker.waitForFunction(
          () =>
            (
              globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } } }
            ).document.querySelector('#media').complete,
        );
        const size = await worker.$eval('#media', (img) => {
          const image = img as unknown as { naturalWidth: number; naturalHeight: number };
          return [image.naturalWidth, image.naturalHeight];
        });
        expect(size).toEqual([64, 48]);
        expect(await worker.textContent('#existing-tags')).toContain('animal');
        expect(await worker.textContent('#existing-tags')).toContain('Client notes: shelf: B-3');
        await browser.screenshot(worker, 'console-worker-task');
        await worker.fill('#tags', 'cat, pet');
        // The status line names the assignment it is about: wait for ours, not for any earlier line with the word.
        const ours = await worker.textContent('#assignment-id');
        await worker.click('#submit');
        await worker.waitForSelector(`#status:has-text("${ours}: COMPLETED")`);

        const status = await ok(apiClient({ apiKey: tenant.key }).GET('/v1/tasks/{id}', { params: { path: { id: taskId } } }), 200);
        expect(status.state).toBe('COMPLETED');
        const webhook = await eventually(() => receiver.on('/console-task')[0], { what: 'the task webhook' });
        expect(JSON.parse(webhook.rawBody.toString('utf8')).task_details.updated_tags).toEqual([
          { value: 'cat', confidence_score: 1 },
          { value: 'pet', confidence_score: 1 },
        ]);
      },
    );
  });

  it('a worker who keeps going gets the next unit in the answer of each complete (one request per unit)', async () => {
    const line = await createPlatformAccount('Console next');
    const runIdOfLine = await newRun(line, [{ identifier: 'first' }, { identifier: 'second' }]);
    const worker = await browser.page();
    const requests: string[] = [];
    worker.on('request', (request) => {
      if (request.url().includes('/workforce/v1/assignments/')) requests.push(new URL(request.url()).pathname.split('/').pop()!);
    });
    await signInWorker(worker, line.lineId);
    await worker.keyboard.press('n');
    await worker.waitForSelector('#input-fields:has-text("first")');
    await worker.fill('#fields .field-key', 'answer');
    await worker.fill('#fields .field-value', 'one');
    await worker.keyboard.press('Control+Enter');
    await worker.waitForSelector('#input-fields:has-text("second")');
    expect(await worker.textContent('#status')).toMatch(/Completed\. Leased asgu_/);
    await worker.fill('#fields .field-key', 'answer');
    await worker.fill('#fields .field-value', 'two');
    await worker.keyboard.press('Control+Enter');
    await worker.waitForSelector('#status:has-text("Completed. No unit waiting.")');
    expect(await worker.isHidden('#work')).toBe(true);
    expect(requests).toEqual(['next', 'complete', 'complete']);
    const run = await runOf(line, runIdOfLine);
    expect([run.status, run.units.map((unit) => unit.output)]).toEqual(['Processed', [{ answer: 'one' }, { answer: 'two' }]]);
  });

  it('shows refusals in the page instead of failing silently', async () => {
    const worker = await browser.page();
    await signInWorker(worker, acme.lineId);
    await worker.click('#next-unit');
    await worker.waitForSelector('#status:text-is("No unit waiting.")');
    await newRun(acme, [{ identifier: 'bad' }]);
    await worker.click('#next-unit');
    await worker.waitForSelector('#input-fields');
    await worker.fill('#output-json', '{not json');
    await worker.click('#submit');
    await worker.waitForSelector('#status.error:has-text("Invalid JSON")');
    await worker.fill('#output-json', '[1, 2]');
    await worker.click('#submit');
    await worker.waitForSelector('#status.error:has-text("422")');
    expect(await worker.textContent('#status')).toContain('output must be an object');
    await worker.fill('#output-json', '');
    await worker.click('#flag');
    await worker.waitForSelector('#status.error:has-text("reason")');
  });

  it('logged no errors in the browser console', () => {
    // The refusal test above expects the browser's own "Failed to load resource" lines for its 422s.
    expect(browser.errors.filter((line) => !line.includes('the server responded with a status of 422'))).toEqual([]);
  });
});
