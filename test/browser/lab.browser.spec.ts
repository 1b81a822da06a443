import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { LabModule } from '../../apps/storefront-lab/src/lab.module.js';

const CHROMIUM = process.env.VERDICT_TEST_CHROMIUM ?? '/usr/bin/chromium';
const required = ['1', 'true'].includes(process.env.VERDICT_TEST_REQUIRE_BROWSER ?? '');
if (required && !existsSync(CHROMIUM)) {
  throw new Error(
    `VERDICT_TEST_REQUIRE_BROWSER is set but ${CHROMIUM} does not exist: apt-get install -y chromium (never download a browser).`,
  );
}
const describeWithBrowser = existsSync(CHROMIUM) ? describe : describe.skip;

describeWithBrowser('storefront lab in Chromium', () => {
  let app: INestApplication;
  let browser: Browser;
  let directory: string;
  let url: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'verdict-lab-browser-'));
    const moduleRef = await Test.createTestingModule({
      imports: [LabModule.forRoot({ database: join(directory, 'lab.sqlite') })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('shows the naive tool leaking order 1001, both secured tools denying it, and both permitting 1002', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.click('#run-cross-customer');
    const outcomes = async (path: string) => page.locator(`tr[data-path="${path}"] [data-outcome]`).allTextContents();
    await page.locator('tr[data-path="verdict"]').waitFor();
    expect(await outcomes('naive')).toEqual(['leaked', 'permitted']);
    expect(await outcomes('manual')).toEqual(['denied', 'permitted']);
    expect(await outcomes('verdict')).toEqual(['denied', 'permitted']);
    expect(await page.locator('#evidence').textContent()).toContain('"disposition": "deny"');
  });

  it('walks through the confirmation, budget and duplicate-delivery labs', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    const outcomesOf = async (button: string, list: string, count: number) => {
      await page.click(button);
      await page
        .locator(`${list} li`)
        .nth(count - 1)
        .waitFor();
      return page.locator(`${list} li`).evaluateAll((items) => items.map((item) => item.getAttribute('data-outcome')));
    };
    expect(await outcomesOf('#run-confirmation', '#confirmation-steps', 5)).toEqual([
      'require_confirmation',
      'approved',
      'require_confirmation',
      'executed',
      'deny',
    ]);
    expect(await outcomesOf('#run-budget', '#budget-calls', 3)).toEqual(['executed', 'executed', 'throttle']);
    expect(await outcomesOf('#run-duplicate-delivery', '#duplicate-delivery-calls', 2)).toEqual(['executed', 'deny']);
    expect(await page.locator('#duplicate-delivery-summary').textContent()).toBe('Support tickets for order 1002: 1');
  });

  it('walks through the release lab: the local connection gets the redacted profile, the remote one nothing', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.click('#run-release');
    await page.locator('#release-results tr[data-row="evidence"]').waitFor();
    expect(await page.locator('#release-results thead th[data-destination]').allTextContents()).toEqual([
      'ollama@local-machine',
      'ollama@remote-endpoint',
    ]);
    expect(await page.locator('#release-results [data-outcome]').allTextContents()).toEqual(['permitted', 'denied']);
    const [local, remote] = await page.locator('#release-results tr[data-row="payload"] pre').allTextContents();
    expect(JSON.parse(local)).toMatchObject({ email: '[REDACTED]' });
    expect(local).not.toContain('customer72@acme.example');
    expect(remote).toBe('{}');
    expect(await page.locator('#release-results tr[data-row="reason"] pre').allTextContents()).toEqual([
      'released',
      'route_not_registered',
    ]);
  });
});
