import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

/** Debian's Chromium (tools/stack/deps.ts installs it); never a browser downloaded by Playwright. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Screenshots of browser tests (git-ignored). */
export const ARTIFACTS_DIR = join(__dirname, '..', '..', '..', 'test-artifacts');

/**
 * One headless Chromium for a test file, with no background traffic, and every console error and uncaught
 * page error of every page collected so that a test can assert there were none. Playwright's launch gives
 * each browser a fresh temporary profile of its own (and refuses a --user-data-dir argument).
 */
export class TestBrowser {
  readonly errors: string[] = [];
  private constructor(
    private readonly browser: Browser,
    private readonly contexts: BrowserContext[] = [],
  ) {}

  static async launch(): Promise<TestBrowser> {
    // Loaded here, not with libs/testing: a third of a second of every integration file's start, for the console suites only.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    return new TestBrowser(browser);
  }

  /** A page in a context of its own (no shared storage between a worker and an operator). */
  async page(): Promise<Page> {
    const context = await this.browser.newContext({ viewport: { width: 1200, height: 800 } });
    this.contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') this.errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.errors.push(`pageerror: ${error.message}`));
    return page;
  }

  async screenshot(page: Page, name: string): Promise<void> {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
  }

  /** A screenshot of one part of a page (a view's section, for the README). */
  async screenshotOf(locator: Locator, name: string): Promise<void> {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await locator.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`) });
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close();
    await this.browser.close();
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGB PNG of one colour (a browser renders it, unlike random bytes after a PNG signature). */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => [r, g, b][i % 3])]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
