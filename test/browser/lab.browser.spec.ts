import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  type ChatCompletionHandler,
  type ChatCompletionsServer,
  followingInjections,
  scriptedConversation,
  startChatCompletionsServer,
} from '@verdict/testing-kit';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { createLabServer } from '../../apps/storefront-lab/src/server/lab-server.js';
import { labCli } from '../lab/lab-app.fixture.js';

const CHROMIUM = process.env.VERDICT_TEST_CHROMIUM ?? '/usr/bin/chromium';
const required = ['1', 'true'].includes(process.env.VERDICT_TEST_REQUIRE_BROWSER ?? '');
if (required && !existsSync(CHROMIUM)) {
  throw new Error(
    `VERDICT_TEST_REQUIRE_BROWSER is set but ${CHROMIUM} does not exist: apt-get install -y chromium (never download a browser).`,
  );
}
const describeWithBrowser = existsSync(CHROMIUM) ? describe : describe.skip;

const ROOT = resolve(import.meta.dirname, '../..');
const WEB = join(ROOT, 'apps/storefront-lab/web');
/** Where the screenshots go, for a person to look at: one desktop and one 390 px shot per lab. */
const SCREENSHOTS = join(ROOT, 'test-results/lab-browser');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DESKTOP = { width: 1280, height: 900 };
const MOBILE = { width: 390, height: 844 };
const LIVE_KEY = 'sk-lab-browser-test-key';
/**
 * Budgets sized for a loaded two-core machine, never used to synchronize: one lab per test, each with its own
 * Jest timeout (an agent loop or the attack pack gets more), and any single wait of the page at most a minute.
 */
const LAB_TIMEOUT = 120_000;
const SLOW_LAB_TIMEOUT = 240_000;
const STEP_TIMEOUT = 60_000;

describeWithBrowser(`storefront lab in Chromium (screenshots in ${SCREENSHOTS})`, () => {
  let app: NestExpressApplication;
  let browser: Browser;
  let url: string;
  /** The live lab's model: a scripted OpenAI-compatible server on loopback, scripted per test through `liveModel`. */
  let chat: ChatCompletionsServer;
  let liveModel: ChatCompletionHandler = () => ({ status: 500 });
  /** Where the lab keeps each browser session's SQLite database, as `npm start` does. */
  let sessions: string;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];
  /**
   * The lab's clock: the real time, held just before the end of the UTC hour the current test began in. The lab's
   * windows (a rate limit per hour, budgets per UTC day) cannot roll over in the middle of a test; unlike one fixed
   * instant, the records of a test keep their real order (all but those held at the end of the hour).
   */
  let hourEnds = Number.POSITIVE_INFINITY;
  const labClock = () => new Date(Math.min(Date.now(), hourEnds - 1));
  beforeEach(() => {
    const now = Date.now();
    hourEnds = now - (now % 3_600_000) + 3_600_000;
  });

  beforeAll(async () => {
    // The test builds the web app itself (a real Vite build in its own process), so it never tests a stale bundle.
    await promisify(execFile)(process.execPath, [
      join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      join(WEB, 'vite.config.ts'),
    ]);
    await mkdir(SCREENSHOTS, { recursive: true });
    chat = await startChatCompletionsServer((request, index) => liveModel(request, index));
    sessions = await mkdtemp(join(tmpdir(), 'verdict-lab-browser-sessions-'));
    app = await createLabServer({
      webRoot: join(WEB, 'dist'),
      docsRoot: join(ROOT, 'docs'),
      sessionsDirectory: sessions,
      clock: labClock,
      env: {
        VERDICT_LIVE_PROVIDER: 'openai',
        VERDICT_LIVE_MODEL: 'scripted-lab-model',
        VERDICT_LIVE_BASE_URL: chat.baseUrl,
        VERDICT_LIVE_API_KEY: LIVE_KEY,
        VERDICT_LIVE_MAX_RETRIES: '0',
      },
    });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
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
  }, 120_000);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await chat?.close();
    if (sessions !== undefined) await rm(sessions, { recursive: true, force: true });
  });

  /** A page in a new browser session (its own cookie), failing the test on any console error or page error. */
  async function open(lab: string, viewport = DESKTOP, expectedErrors: RegExp[] = []): Promise<Page> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    context.setDefaultTimeout(STEP_TIMEOUT);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !expectedErrors.some((expected) => expected.test(message.text())))
        problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.goto(`${url}#/${lab}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return page;
  }

  /** The outcome code of every call row in `scope` (the badge says it in words; the row keeps the code). */
  const outcomes = (page: Page, scope: string) =>
    page
      .locator(`${scope} [data-testid="outcome"]`)
      .evaluateAll((badges) => badges.map((badge) => badge.closest('article')?.getAttribute('data-outcome')));

  /**
   * What a person would see cut off: the page wider than the window, or a code panel, an argument value, a side
   * effect or a command wider than its box (each must wrap: its whole text is in the box).
   */
  const clipped = (page: Page) =>
    page.evaluate(() => {
      const doc = (globalThis as any).document;
      const cut: string[] = [];
      if (doc.documentElement.scrollWidth > (globalThis as any).innerWidth) cut.push('the page');
      const boxes = doc.querySelectorAll(
        'figure.code pre, code.value, [data-testid="side-effect"], [data-testid="cli-command"], .columns p',
      );
      for (const box of boxes)
        if (box.scrollWidth > box.clientWidth + 1)
          cut.push(`${box.tagName.toLowerCase()}.${box.className}: ${box.textContent.slice(0, 40)}`);
      return cut;
    });

  /** Where the text of each of these elements breaks a line other than after a separator or a space (mid-word). */
  const midWordBreaks = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((elements) => {
      const doc = (globalThis as any).document;
      const breaks: string[] = [];
      for (const element of elements) {
        const text = element.textContent as string;
        const range = doc.createRange();
        const walker = doc.createTreeWalker(element, 4);
        let previous: { char: string; top: number } | null = null;
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode())
          for (let index = 0; index < node.textContent.length; index++) {
            range.setStart(node, index);
            range.setEnd(node, index + 1);
            const top = range.getBoundingClientRect().top;
            if (previous !== null && top > previous.top + 2 && !/[._/\s-]/.test(previous.char))
              breaks.push(`${text} after "${previous.char}"`);
            previous = { char: node.textContent[index], top };
          }
      }
      return breaks;
    });

  /** The stage labels of every call's timeline on the page, per call. */
  const stageLabels = (page: Page, scope = 'body') =>
    page
      .locator(`${scope} ol.timeline`)
      .evaluateAll((lists) =>
        lists.map((list) => [...list.querySelectorAll('.stage-name')].map((name) => name.textContent)),
      );

  /** Axe's serious and critical violations, and any heading that skips a level (`heading-order`, moderate). */
  async function seriousAxeViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } }
      ).axe;
      return (await axe.run()).violations.map(({ id, impact }) => ({ id, impact }));
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'heading-order')
      .map((v) => v.id);
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  it(
    'the first screen says what Verdict is and walks one guided case; the labs fit one row of groups at 1280 px',
    async () => {
      const page = await open('why-verdict');
      const labs = page.getByRole('navigation', { name: 'Labs' });
      expect(await labs.getByRole('link').allTextContents()).toEqual([
        'Why Verdict',
        'Live model',
        'Cross-customer',
        'Release',
        'MCP',
        'Confirmation',
        'Review lane',
        'Budget',
        'Spend & tokens',
        'Duplicate delivery',
        'Forbidden states',
        'Provenance',
        'Quarantine',
        'Claims',
        'Evaluation',
      ]);
      const groupTops = await labs
        .locator('li.group')
        .evaluateAll((groups) => groups.map((group) => Math.round(group.getBoundingClientRect().top)));
      expect(new Set(groupTops).size).toBe(1);
      expect(await labs.evaluate((nav) => nav.scrollWidth <= nav.clientWidth)).toBe(true);

      expect(await page.locator('.hero .what').textContent()).toBe(
        'Verdict is a NestJS module that decides, in your application, whether each tool call an LLM agent proposes may run — and records why.',
      );
      await page.getByRole('button', { name: 'Run the guided case' }).click();
      const steps = page.locator('#guided-steps > li');
      await steps.nth(2).waitFor();
      expect(await steps.allTextContents()).toEqual([
        expect.stringContaining("customer 91's order"),
        expect.stringContaining("cancelled 91's order"),
        expect.stringContaining('denied at Proposal'),
      ]);
      expect(await clipped(page)).toEqual([]);
      await shoot(page, 'first-screen-desktop');

      const favicon = await page.request.get(`${url}favicon.svg`);
      expect(favicon.status()).toBe(200);
      expect(favicon.headers()['content-type']).toContain('image/svg+xml');
      const docs = await page.request.get(
        new URL((await page.getByRole('link', { name: 'Options' }).getAttribute('href'))!, url).href,
      );
      expect(docs.status()).toBe(200);
      expect(await docs.text()).toContain('#');
      const first = await page.request.get(`${url}api/claims`);
      const second = await page.request.get(`${url}api/claims`);
      expect(await first.json()).toEqual(await second.json());
    },
    LAB_TIMEOUT,
  );

  it(
    'why Verdict: the hand-secured tools fail all four cases, Verdict holds, with the source beside each result, nothing clipped',
    async () => {
      const page = await open('why-verdict');
      const expected = {
        'forgotten-tool': ["cancelled 91's order", 'denied'],
        'swapped-resource': ["cancelled 91's order", 'denied'],
        'replayed-approval': ['refunded 2 times', 'deny (refunded 1 time)'],
        'injected-review': ['paid the injected account', 'denied'],
      };
      for (const [which, paths] of Object.entries(expected)) {
        await page.click(`#run-${which}`);
        const result = page.locator(`[data-case="${which}"]`);
        await result.waitFor();
        expect(await result.locator('[data-testid="path-outcome"]').allTextContents()).toEqual(paths);
        expect(await result.locator('.added').textContent()).toContain('What Verdict added here');
      }
      // The swap is denied where Verdict re-authorizes the refreshed order, after the check had permitted it.
      const swapped = page.locator('[data-case="swapped-resource"] [data-path="verdict"]').first();
      expect(await swapped.textContent()).toContain('safe');
      const stages = page.locator('[data-case="swapped-resource"] article[data-outcome="deny"] ol.timeline li');
      expect(
        await stages.evaluateAll((items) =>
          items.map((i) => `${i.getAttribute('data-stage')}:${i.getAttribute('data-disposition')}`),
        ),
      ).toEqual(['proposal:permit', 'target_refresh:permit', 'execution:deny']);
      expect(await page.locator('figure.code figcaption').allTextContents()).toContain('The hand-secured cancel_order');
      expect(await page.locator('figure.code').first().textContent()).toContain('findOneBy({ id: orderId })');
      // Every code panel shows its whole lines (they wrap), and no timeline says "permit permitted".
      expect(await clipped(page)).toEqual([]);
      expect(await page.locator('ol.timeline .reason', { hasText: /^permitted$/ }).count()).toBe(0);
      expect(await page.locator('ol.timeline .badge').allTextContents()).not.toContain('permit');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'why-verdict-desktop');
    },
    SLOW_LAB_TIMEOUT,
  );

  it(
    'cross-customer: the naive tool leaks 1001, both secured tools deny it; the actor and the proposal are editable; hashes short with their meaning on hover',
    async () => {
      const page = await open('cross-customer');
      await page.click('#run-cross-customer');
      await page.locator('[data-path="verdict"]').first().waitFor();
      expect(await page.locator('[data-testid="path-outcome"]').allTextContents()).toEqual([
        'leaked',
        'denied',
        'denied',
      ]);
      const verdict = page.locator('article[data-outcome="deny"]');
      await verdict.locator('ol.timeline summary').first().click();
      const hash = verdict.locator('[data-argument], dd').locator('button.hash').first();
      expect(await hash.textContent()).toMatch(/^[0-9a-f]{10}…$/);
      expect(await hash.getAttribute('title')).toMatch(/^SHA-256 of the canonical arguments.*\n[0-9a-f]{64}$/s);
      await hash.click();
      expect(await hash.textContent()).toMatch(/^[0-9a-f]{64}$/);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'cross-customer-desktop');

      await page.getByLabel('Proposed orderId').fill('1002');
      await page.click('#run-cross-customer');
      await page.getByRole('heading', { name: /asks for order 1002/ }).waitFor();
      expect(await page.locator('[data-testid="path-outcome"]').allTextContents()).toEqual([
        'permitted',
        'permitted',
        'permitted',
      ]);

      await page.locator('#xc-tenant').selectOption('globex');
      await page.click('#run-cross-customer');
      await page.getByRole('heading', { name: /Customer 72 at globex asks for order 1002/ }).waitFor();
      expect(await page.locator('[data-testid="path-outcome"]').allTextContents()).toEqual([
        'leaked',
        'denied',
        'denied',
      ]);
    },
    LAB_TIMEOUT,
  );

  it(
    'confirmation: another tenant and another customer are shown refused, with the rule; the owner approves; changed arguments ask again; the approved call runs once; a rejection never runs',
    async () => {
      const page = await open('confirmation', DESKTOP, [/403/]);
      await page.click('#propose-refund');
      await page.locator('#confirmation-calls article').first().waitFor();
      expect(await outcomes(page, '#confirmation-calls')).toEqual(['require_confirmation']);
      expect(await page.locator('#confirmation-calls [data-testid="outcome"]').textContent()).toBe(
        'needs confirmation',
      );
      const pending = page.locator('[data-pending]');
      await pending.waitFor();
      expect(await pending.textContent()).toContain('Refund 500 cents on order 1002');

      const refusal = page.locator('.inbox [data-testid="refusal"]');
      for (const [other, rule] of [
        ['customer:73', 'an approver at globex cannot see that conversation'],
        ['customer:91', 'CASL lets a customer approve only their own orders'],
      ]) {
        await page.locator('#approver').selectOption(other);
        await pending.getByRole('button', { name: 'Approve' }).click();
        await refusal.filter({ hasText: rule }).waitFor();
        expect(await refusal.textContent()).toContain('The guarded approval endpoint refused');
        expect(await page.getByRole('alert').count()).toBe(0);
      }
      await shoot(page, 'confirmation-refused-desktop');
      await page.locator('#approver').selectOption('customer:72');
      await pending.getByRole('button', { name: 'Approve' }).click();
      await page.locator('#approval-answer').waitFor();
      expect(await page.locator('#approval-answer').textContent()).toContain('approved');
      await page.getByText('Nothing waits for an approval.').waitFor();

      const resume = async (amount: string, count: number) => {
        await page.locator('#refund-amount').fill(amount);
        await page.click('#resume-refund');
        await page
          .locator('#confirmation-calls article')
          .nth(count - 1)
          .waitFor();
      };
      await resume('50000', 2);
      await resume('500', 3);
      await resume('500', 4);
      expect(await outcomes(page, '#confirmation-calls')).toEqual([
        'require_confirmation',
        'require_confirmation',
        'executed',
        'deny',
      ]);
      expect(await page.locator('#confirmation-calls [data-testid="side-effect"]').allTextContents()).toEqual([
        '0 refund(s) made by this call; 0 in this lab',
        '0 refund(s) made by this call; 0 in this lab',
        '1 refund(s) made by this call; 1 in this lab',
        '0 refund(s) made by this call; 1 in this lab',
      ]);
      // The changed arguments asked again: that new approval waits in the inbox.
      expect(await page.locator('[data-pending]').allTextContents()).toEqual([
        expect.stringContaining('Refund 50000 cents on order 1002'),
      ]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'confirmation-desktop');

      await page.locator('#refund-amount').fill('700');
      await page.click('#propose-refund');
      await page.locator('#confirmation-calls article').nth(4).waitFor();
      const rejected = await page.locator('#confirmation-calls article').nth(4).getAttribute('data-tool-call');
      await page.locator(`[data-pending="${rejected}"]`).getByRole('button', { name: 'Reject' }).click();
      await page.locator('#approval-answer', { hasText: 'rejected' }).waitFor();
      await page.click('#resume-refund');
      await page.locator('#confirmation-calls article').nth(5).waitFor();
      expect((await outcomes(page, '#confirmation-calls')).slice(4)).toEqual(['require_confirmation', 'deny']);
    },
    LAB_TIMEOUT,
  );

  it(
    'batch approvals: three refunds of one turn are shown together; another customer sees nothing; approve, reject and edit each; the edit asks again on its own and then runs',
    async () => {
      const page = await open('confirmation');
      await page.click('#propose-batch');
      const items = page.locator('#batch-items [data-batch-item]');
      await items.nth(2).waitFor();
      expect(await items.allTextContents()).toEqual([
        expect.stringContaining('Refund 500 cents on order 1002'),
        expect.stringContaining('Refund 300 cents on order 1004'),
        expect.stringContaining('Refund 200 cents on order 1002'),
      ]);
      expect(await outcomes(page, '#batch-calls')).toEqual(Array(3).fill('require_confirmation'));

      await page.locator('#batch-approver').selectOption('customer:91');
      await page.locator('#batch-refusal').waitFor();
      expect(await page.locator('#batch-refusal').textContent()).toContain('forbidden');
      await page.locator('#batch-approver').selectOption('customer:72');
      await items.nth(2).waitFor();

      const ids = await items.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-batch-item')!));
      await page.getByLabel(`Decision for ${ids[1]}`).selectOption('reject');
      await page.getByLabel(`Decision for ${ids[2]}`).selectOption('edit');
      await page.getByLabel(`Edited amount for ${ids[2]}`).fill('150');
      await page.click('#decide-batch');
      await page.locator('#batch-answer', { hasText: 'batch decided' }).waitFor();
      await page.locator('#batch-calls article').nth(5).waitFor();
      expect((await outcomes(page, '#batch-calls')).slice(3)).toEqual(['executed', 'deny', 'require_confirmation']);
      // The edited refund waits alone, in a batch of its own, with the edited amount.
      await items.filter({ hasText: 'Refund 150 cents on order 1002' }).waitFor();
      expect(await items.count()).toBe(1);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'batch-approvals-desktop');

      await page.click('#decide-batch');
      await page.locator('#batch-calls article').nth(6).waitFor();
      expect((await outcomes(page, '#batch-calls')).slice(6)).toEqual(['executed']);
    },
    LAB_TIMEOUT,
  );

  it(
    'budget: two refreshes executed, the third throttled, each call credited with its own carrier request; the budget stays spent, is per browser session, and reset restores it',
    async () => {
      const page = await open('budget');
      const run = async () => {
        await page.click('#run-budget');
        await page.locator('[data-testid="summary"]').waitFor();
        await page.locator('#run-budget:enabled').waitFor();
        return outcomes(page, '.run');
      };
      expect(await run()).toEqual(['executed', 'executed', 'throttle']);
      expect(await page.locator('.run [data-testid="side-effect"]').allTextContents()).toEqual([
        '1 carrier request',
        '1 carrier request',
        'no carrier request',
      ]);
      expect(await page.locator('[data-testid="summary"]').textContent()).toContain('2 carrier request(s)');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'budget-desktop');
      expect(await run()).toEqual(['throttle', 'throttle', 'throttle']);

      const other = await open('budget');
      await other.click('#run-budget');
      await other.locator('[data-testid="summary"]').waitFor();
      expect(await outcomes(other, '.run')).toEqual(['executed', 'executed', 'throttle']);

      await page.click('#reset-session');
      await page.locator('#reset-done').waitFor();
      expect(await page.locator('[data-testid="summary"]').count()).toBe(0);
      expect(await run()).toEqual(['executed', 'executed', 'throttle']);
    },
    LAB_TIMEOUT,
  );

  it(
    'spend and tokens: every budget of the customer with what is left; goodwill credit past €20 is throttled, and the assistant is stopped before the model call once its tokens run out',
    async () => {
      const page = await open('spend-and-tokens');
      const rows = page.locator('#budgets tbody tr');
      const remaining = () =>
        rows.evaluateAll((list) =>
          list.map((row) => [row.getAttribute('data-budget'), row.getAttribute('data-remaining')]),
        );
      await rows.first().waitFor();
      expect(await remaining()).toEqual([
        ['orders.goodwill_credit', '2000'],
        ['assistant tokens', '4000'],
        ['assistant cost', '10000'],
      ]);
      expect(await rows.first().locator('td').last().textContent()).toContain('refused before the capability runs');

      await page.click('#run-goodwill');
      await page.locator('[data-testid="summary"]').waitFor();
      await page.locator('#run-goodwill:enabled').waitFor();
      expect(await outcomes(page, '.run')).toEqual(['executed', 'executed', 'throttle']);
      expect(await page.locator('[data-testid="summary"]').textContent()).toBe(
        '€16.00 of credit granted for 3 proposal(s) of €8.00',
      );
      const goodwill = page.locator('tr[data-budget="orders.goodwill_credit"]');
      expect(await goodwill.locator('[data-testid="used"]').textContent()).toBe('€16.00');
      expect(await goodwill.locator('[data-testid="remaining"]').textContent()).toBe('€4.00');

      await page.fill('#assistant-times', '10');
      await page.click('#run-assistant');
      await page.locator('#assistant-runs li').first().waitFor();
      await page.locator('#run-assistant:enabled').waitFor();
      const runs = await page
        .locator('#assistant-runs li')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-outcome')));
      expect(runs).toHaveLength(10);
      const answered = runs.indexOf('stopped');
      expect(answered).toBeGreaterThan(0);
      expect(runs).toEqual([...Array(answered).fill('answered'), ...Array(10 - answered).fill('stopped')]);
      expect(await page.locator('#assistant-runs li[data-outcome="stopped"]').first().textContent()).toContain(
        'VERDICT_MODEL_BUDGET_EXCEEDED',
      );
      expect(await page.locator('#assistant-runs li[data-outcome="answered"]').first().textContent()).toMatch(
        /reserved \d+ tokens, the provider reported \d+: \d+ spent, \d+ released/,
      );
      const tokens = page.locator('tr[data-budget="assistant tokens"]');
      expect(Number(await tokens.getAttribute('data-remaining'))).toBeLessThan(4_000);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'spend-and-tokens-desktop');

      // Another browser session is another lab: its budgets are untouched.
      const other = await open('spend-and-tokens');
      await other.locator('#budgets tbody tr').first().waitFor();
      expect(await other.locator('tr[data-budget="orders.goodwill_credit"]').getAttribute('data-remaining')).toBe(
        '2000',
      );
    },
    LAB_TIMEOUT,
  );

  it(
    'duplicate delivery: one escalation, one ticket; the claims panel shows its completed claim',
    async () => {
      const page = await open('duplicate-delivery');
      await page.click('#run-duplicate-delivery');
      await page.locator('[data-testid="summary"]').waitFor();
      expect(await outcomes(page, '.run')).toEqual(['executed', 'deny']);
      expect(await page.locator('.run [data-testid="side-effect"]').allTextContents()).toEqual([
        'opened a ticket; support tickets for order 1002: 1',
        'no new ticket; support tickets for order 1002: 1',
      ]);
      expect(await page.locator('[data-testid="summary"]').textContent()).toBe('Support tickets for order 1002: 1');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'duplicate-delivery-desktop');
      await page.getByRole('link', { name: 'Claims' }).click();
      await page.locator('#claims tbody tr').waitFor();
      expect(
        await page.locator('#claims tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))),
      ).toEqual(['completed']);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'claims-desktop');
    },
    LAB_TIMEOUT,
  );

  it(
    'release: the local connection gets the profile with the e-mail redacted and highlighted, the remote one nothing, the reason in words',
    async () => {
      const page = await open('release');
      await page.click('#run-release');
      await page.locator('article.release').nth(1).waitFor();
      expect(
        await page
          .locator('article.release')
          .evaluateAll((a) => a.map((e) => `${e.getAttribute('data-destination')}:${e.getAttribute('data-outcome')}`)),
      ).toEqual(['ollama@local-machine:permitted', 'ollama@remote-endpoint:denied']);
      const [local, remote] = await page.locator('[data-testid="payload"]').allTextContents();
      expect(JSON.parse(local)).toMatchObject({ email: '[REDACTED]' });
      expect(local).not.toContain('customer72@acme.example');
      expect(remote).toBe('{}');
      expect(await page.locator('mark.redacted').count()).toBe(1);
      for (const heading of await page.locator('article.release h3').allTextContents())
        expect(heading).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'release-desktop');
    },
    LAB_TIMEOUT,
  );

  it(
    'MCP: one client session per user lists the tools; a customer sees the order tools, a staff member none',
    async () => {
      const page = await open('mcp');
      await page.selectOption('#mcp-second', 'staff:ana');
      await page.click('#run-mcp');
      await page.locator('section.mcp-listing').nth(1).waitFor();
      const listed = await page
        .locator('section.mcp-listing')
        .evaluateAll((sections) =>
          sections.map((section) => [
            section.getAttribute('data-user'),
            [...section.querySelectorAll('li code')].map((code) => code.textContent),
          ]),
        );
      expect(listed).toEqual([
        ['customer:72', ['orders.view', 'orders.cancel', 'refund_order']],
        ['staff:ana', []],
      ]);
      expect(await clipped(page)).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'mcp-desktop');
    },
    LAB_TIMEOUT,
  );

  it(
    'forbidden states: every step permitted alone, the external upload and the outside link refused at their own step, each call credited with what it shared, every host, recipient and link whole',
    async () => {
      const page = await open('forbidden-states');
      await page.click('#run-forbidden-states');
      await page.locator('#chain-steps > li').nth(4).waitFor();
      expect(await outcomes(page, '#chain-steps')).toEqual(['executed', 'executed', 'deny', 'executed', 'deny']);
      const states = (await page.locator('#chain-steps .state pre').allTextContents()).map((s) => JSON.parse(s));
      expect(states[1]).toMatchObject({ records_read: true, exports_holding_records: 1 });
      expect(states[3]).toMatchObject({ records_in_tenant_storage: true, external_copies: 0 });
      expect(states[4]).toEqual(states[3]);
      expect(await page.locator('#chain-steps [data-testid="side-effect"]').allTextContents()).toEqual([
        'nothing shared',
        'nothing shared',
        'nothing shared',
        'shared: internal:files.acme.example',
        'nothing shared',
      ]);
      // One label per stage: the forbidden-state check is its own step, not a second "Execution".
      const labels = await stageLabels(page, '#chain-steps');
      for (const call of labels) expect(new Set(call).size).toBe(call.length);
      expect(labels[2]).toEqual(['Proposal', 'Target refresh', 'Execution check', 'Forbidden states']);
      expect(await page.locator('#chain-steps > li').nth(2).locator('.reason').textContent()).toBe(
        'reaches the forbidden state “customer records exfiltrated”',
      );
      const values = page.locator('#chain-steps [data-testid="argument-value"]');
      expect(await values.allTextContents()).toEqual([
        'files.example.net',
        'files.acme.example',
        'collector@example.net',
        'https://files.acme.example/shared/records-72-1.zip',
      ]);
      expect(await clipped(page)).toEqual([]);
      expect(await midWordBreaks(page, '#chain-steps code.name')).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'forbidden-states-desktop');
    },
    LAB_TIMEOUT,
  );

  it(
    'provenance: the injected review steers the refund, Verdict stops it at provenance with the IBAN highlighted, whole and copyable, and iban marked derived; the typed IBAN is paid',
    async () => {
      const page = await open('provenance');
      await page.click('#run-provenance');
      await page.locator('[data-testid="summary"]').waitFor();
      expect(await outcomes(page, '.run')).toEqual(['executed', 'deny']);
      expect(await page.locator('[data-testid="summary"]').textContent()).toBe('No refund was paid.');
      const injected = page.locator('article[data-tool-call="injected-1"]');
      expect(await injected.locator('[data-testid="injected-text"]').allTextContents()).toEqual([
        'DE89370400440532013000',
      ]);
      expect(await injected.locator('[data-testid="derived-argument"]').allTextContents()).toEqual([
        'iban derived from external:product-reviews (untrusted)',
      ]);
      expect(
        await injected
          .locator('ol.timeline li')
          .evaluateAll((items) =>
            items.map((i) => `${i.getAttribute('data-stage')}:${i.getAttribute('data-disposition')}`),
          ),
      ).toContain('provenance:deny');
      const iban = injected.locator('[data-argument="iban"]');
      expect(await iban.locator('[data-testid="argument-value"]').textContent()).toBe('DE89370400440532013000');
      await iban.getByRole('button', { name: 'Copy iban' }).click();
      await iban.getByRole('button', { name: 'Copied iban' }).waitFor();
      expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(
        'DE89370400440532013000',
      );
      expect(await clipped(page)).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'provenance-desktop');

      await page.getByRole('button', { name: "Use the customer's IBAN" }).click();
      await page.click('#run-provenance');
      await page.locator('[data-testid="summary"]', { hasText: 'Paid 500 cents' }).waitFor();
      expect(await outcomes(page, '.run')).toEqual(['executed', 'deny', 'executed']);
      expect(await page.locator('[data-testid="summary"]').textContent()).toBe(
        'Paid 500 cents to GB82 WEST 1234 5698 7654 32.',
      );
      expect(await page.locator('.run [data-testid="derived-argument"]').count()).toBe(1);
    },
    SLOW_LAB_TIMEOUT,
  );

  it(
    'quarantine: without it the assistant reads the file and proposes the injected IBAN, which the customer rejects; with it the assistant reads a handle, and the customer approves the bill once next to its passage',
    async () => {
      const page = await open('quarantine');
      await page.click('#run-pay-bill');
      await page.locator('[data-testid="bill-summary-with"]').waitFor();
      const without = page.locator('[data-testid="bill-run-without"]');
      const quarantined = page.locator('[data-testid="bill-run-with"]');
      expect(await without.locator('[data-testid="bill-read-without"]').textContent()).toContain(
        "held the file's text",
      );
      expect(await without.textContent()).toContain(
        "(the model obeyed the file's instruction): rejected by the customer",
      );
      expect(await without.locator('[data-testid="bill-confirmation-without"]').count()).toBe(2);
      expect(await quarantined.locator('[data-testid="bill-read-with"]').textContent()).toContain(
        'held no line of the file',
      );
      const confirmations = quarantined.locator('[data-testid="bill-confirmation-with"]');
      expect(await confirmations.count()).toBe(1);
      expect(await confirmations.locator('pre.passage').first().textContent()).toContain(
        'IBAN: GB33BUKB20201555555555',
      );
      expect(await confirmations.textContent()).toContain('The customer approved');
      expect(await page.locator('[data-testid="bill-summary-with"]').textContent()).toContain(
        'Paid 4850 cents to Northwind Repairs Ltd (GB33BUKB20201555555555).',
      );
      expect(await page.locator('[data-testid="bill-summary-with"]').textContent()).not.toContain('DE89');
      expect(await clipped(page)).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'quarantine-desktop');
    },
    SLOW_LAB_TIMEOUT,
  );

  it(
    'review lane: the requester, a customer and another tenant are shown refused with the rule; staff approve, the worker refunds once and the refund is credited to the parked call; a rejected one never runs',
    async () => {
      const page = await open('review-lane', DESKTOP, [/403/, /404/]);
      await page.click('#propose-staff-refund');
      await page.locator('#review-calls article').first().waitFor();
      expect(await outcomes(page, '#review-calls')).toEqual(['require_review']);
      const item = page.locator('[data-review-item]').first();
      await item.locator('[data-testid="review-status"]', { hasText: 'pending' }).waitFor();
      expect(await item.textContent()).toContain('Refund 25000 cents on order 1002');
      expect(await item.locator('ol.review-history li').first().textContent()).toContain('parked for staff review');

      const refusal = page.locator('.inbox [data-testid="refusal"]');
      for (const [refused, status, rule] of [
        ['customer:72', '403', 'nobody reviews their own request'],
        ['customer:91', '403', "Only staff of the order's tenant may review a refund"],
        ['staff:gus', '404', "No review item of that id is in this person's tenant"],
      ]) {
        await page.locator('#reviewer').selectOption(refused);
        await item.getByRole('button', { name: 'Approve' }).click();
        await refusal.filter({ hasText: rule }).waitFor();
        expect(await refusal.getAttribute('data-status')).toBe(status);
        expect(await page.getByRole('alert').count()).toBe(0);
      }
      await page.locator('#reviewer').selectOption('staff:ana');
      await item.getByRole('button', { name: 'Approve' }).click();
      await page.locator('#review-answer', { hasText: 'approved' }).waitFor();
      expect(await page.locator('#review-answer').textContent()).toBe(
        'approved: executed — refunded 25000 cents on order 1002',
      );
      await item.locator('[data-testid="review-status"]', { hasText: 'executed' }).waitFor();
      expect(
        await item.locator('ol.review-history li').evaluateAll((l) => l.map((e) => e.getAttribute('data-phase'))),
      ).toEqual(expect.arrayContaining(['review_park', 'review_decision', 'review_execution']));
      expect(await item.locator('ol.review-history').textContent()).not.toMatch(/review_/);
      expect(await item.getByRole('button').count()).toBe(0);
      expect(await page.locator('#review-calls [data-testid="side-effect"]').textContent()).toBe(
        'refunded 25000 cents on order 1002 (by the worker, after staff approved)',
      );
      expect(await midWordBreaks(page, '#review-calls code.name')).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'review-lane-desktop');

      await page.locator('#staff-refund-amount').fill('30000');
      await page.click('#propose-staff-refund');
      await page.locator('#review-calls article').nth(1).waitFor();
      const second = page.locator('[data-review-item][data-status="pending"]');
      await second.getByRole('button', { name: 'Reject' }).click();
      await page.locator('#review-answer', { hasText: 'rejected' }).waitFor();
      expect(await page.locator('#review-answer').textContent()).toBe('rejected: rejected — no refund made');
      // Each call keeps what it caused: the first its refund, the second (rejected) nothing.
      expect(await page.locator('#review-calls [data-testid="side-effect"]').allTextContents()).toEqual([
        'refunded 25000 cents on order 1002 (by the worker, after staff approved)',
        'no refund made (staff rejected it)',
      ]);
    },
    LAB_TIMEOUT,
  );

  it(
    'evaluation: the attack pack runs from the page, every case passes, no change against the baseline, the report downloads',
    async () => {
      const page = await open('evaluation');
      await page.click('#run-evaluation');
      await page.locator('#scores').waitFor();
      expect(
        await page
          .locator('#scores tbody tr')
          .evaluateAll((rows) =>
            rows.map(
              (r) => `${r.getAttribute('data-purpose')}:${r.querySelector('[data-testid="passed"]')?.textContent}`,
            ),
          ),
      ).toEqual(['attack:19', 'utility:14']);
      expect(await page.locator('[data-testid="summary"]').textContent()).toContain('no blocking change');
      expect(await page.locator('#baseline-diff').textContent()).toContain('0 change(s)');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-report')]);
      expect(download.suggestedFilename()).toBe('storefront-attack-pack.report.json');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'evaluation-desktop');
    },
    SLOW_LAB_TIMEOUT,
  );

  it(
    'claims: a carrier timeout leaves an indeterminate claim the operator CLI lists from the command the page shows; the retry is denied; resolving it retryable lets the label be booked once',
    async () => {
      const page = await open('claims');
      await page.click('#send-label');
      await page.locator('#claims tbody tr[data-status="indeterminate"]').waitFor();
      expect(await outcomes(page, '.call')).toEqual(['executor threw']);

      // The page names this session's database; the real CLI, in its own process, lists the claim it shows.
      const command = await page.locator('[data-testid="cli-command"]').textContent();
      const database = /^LAB_DATABASE=(\S+) npm run verdict -- claims list$/.exec(command ?? '')?.[1];
      expect(database).toBeDefined();
      const claimId = await page.locator('#claims tbody tr td').first().textContent();
      const listed = await promisify(execFile)(process.execPath, [labCli(), 'claims', 'list'], {
        cwd: process.cwd(),
        env: { ...process.env, NODE_ENV: 'production', LAB_DATABASE: database },
      });
      expect(listed.stdout).toContain(claimId);
      expect(listed.stdout).toContain('indeterminate');

      await page.click('#send-label');
      await page.locator('.call [data-testid="outcome"]', { hasText: 'denied' }).waitFor();
      await page.locator('#resolve-choice').selectOption('retryable');
      await page.click('#resolve-submit');
      await page.locator('#resolve-answer').waitFor();
      expect(await page.locator('#resolve-answer').textContent()).toMatch(
        /: indeterminate -> released \(by ops:ana\)$/,
      );
      await page.click('#send-label');
      await page.locator('.call [data-testid="outcome"]', { hasText: 'executed' }).waitFor();
      expect(await page.locator('.call [data-testid="side-effect"]').textContent()).toBe(
        'labels booked for order 1002: 1',
      );
      expect(await clipped(page)).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'claims-resolve-desktop');
    },
    LAB_TIMEOUT,
  );

  it(
    'live model: the scripted model follows the injected review — naive pays, Verdict denies; a provider 500 is a provider error',
    async () => {
      liveModel = followingInjections(
        scriptedConversation([{ toolCalls: [{ name: 'view_order_reviews', arguments: { orderId: 1002 } }] }]),
      );
      const page = await open('live');
      await page.locator('#live-provider', { hasText: 'scripted-lab-model' }).waitFor();
      await page.click('#run-live-injected-review');
      const review = page.locator('[data-live="injected-review"]');
      await review.locator('[data-case="injected-review"]').waitFor();
      expect(await review.locator('[data-testid="path-outcome"]').allTextContents()).toEqual([
        'paid the injected account',
        'paid the injected account',
        'denied',
      ]);
      expect(await review.locator('article [data-testid="side-effect"]').allTextContents()).toEqual([
        'paid 500 cents of order 1002 to DE89370400440532013000',
        'paid 500 cents of order 1002 to DE89370400440532013000',
        'nothing paid',
      ]);
      expect(await page.content()).not.toContain(LIVE_KEY);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await shoot(page, 'live-desktop');

      liveModel = () => ({ status: 500, error: 'scripted outage' });
      await page.click('#run-live-cross-customer');
      const failure = page.locator('[data-live="cross-customer"] [data-testid="provider-error"]');
      await failure.waitFor();
      expect(await failure.getAttribute('data-error-class')).toBe('server_error');
      expect(await failure.textContent()).toContain('neither a pass nor a failure');
      expect(await page.locator('[data-live="cross-customer"] [data-testid="path-outcome"]').count()).toBe(0);
      await page.setViewportSize(MOBILE);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        MOBILE.width,
      );
      await shoot(page, 'live-mobile');
    },
    SLOW_LAB_TIMEOUT,
  );

  it(
    'live model through a chosen runtime: OpenAI Agents runs the request, Verdict denies another customer’s order in it',
    async () => {
      liveModel = scriptedConversation([
        { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 1001 } }] },
        { text: 'I cannot show you that order.' },
      ]);
      const page = await open('live');
      await page.locator('#live-provider', { hasText: 'scripted-lab-model' }).waitFor();
      await page.selectOption('#live-runtime', 'openai-agents');
      await page.click('#run-live-runtime');
      const run = page.locator('[data-live="runtime"] [data-runtime="openai-agents"]');
      await run.waitFor();
      expect(
        await run.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-decision'))),
      ).toEqual(['deny']);
      expect(await run.locator('[data-testid="live-runtime-answer"]').textContent()).toContain(
        'I cannot show you that order.',
      );
      expect(await page.content()).not.toContain(LIVE_KEY);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.setViewportSize(MOBILE);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        MOBILE.width,
      );
      await shoot(page, 'live-runtime-mobile');
    },
    SLOW_LAB_TIMEOUT,
  );

  it(
    'live model without a provider: the page says so and how to configure one, with no run button',
    async () => {
      const unconfigured = await createLabServer({ webRoot: join(WEB, 'dist'), env: {} });
      await unconfigured.listen(0, '127.0.0.1');
      try {
        const context = await browser.newContext({ viewport: DESKTOP });
        contexts.push(context);
        const page = await context.newPage();
        page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
        await page.goto(`http://127.0.0.1:${(unconfigured.getHttpServer().address() as AddressInfo).port}/#/live`);
        const off = page.locator('#live-off');
        await off.waitFor();
        expect(await off.getByRole('heading').textContent()).toBe('Live mode is off: no model provider is configured');
        expect(await off.locator('[data-testid="live-problem"]').textContent()).toContain('VERDICT_LIVE_PROVIDER');
        expect(await off.locator('pre').first().textContent()).toContain(
          'VERDICT_LIVE_BASE_URL=http://127.0.0.1:11434/v1',
        );
        expect(await page.locator('main button').count()).toBe(0);
        expect(await seriousAxeViolations(page)).toEqual([]);
        await shoot(page, 'live-unconfigured-desktop');
      } finally {
        await unconfigured.close();
      }
    },
    LAB_TIMEOUT,
  );

  it(
    'shows a server error as an error, not a silent page',
    async () => {
      const page = await open('budget', DESKTOP, [/500/]);
      await page.route('**/api/labs/budget/runs', (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: '{"statusCode":500,"message":"Internal server error"}',
        }),
      );
      await page.click('#run-budget');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toBe('Something went wrong: 500: Internal server error');
      await shoot(page, 'error-desktop');
    },
    LAB_TIMEOUT,
  );

  /** Each lab at 390 px, driven from the keyboard: its run button, then what a person waits to see. */
  const MOBILE_WALK: readonly {
    lab: string;
    button: string;
    shows: string;
    timeout?: number;
    /** Sets up what the lab's run needs before the page opens (the live lab's scripted model). */
    arrange?: () => void;
  }[] = [
    {
      lab: 'why-verdict',
      button: '#run-forgotten-tool',
      shows: '[data-case="forgotten-tool"] [data-testid="outcome"]',
    },
    {
      lab: 'cross-customer',
      button: '#run-cross-customer',
      shows: '[data-path="verdict"] [data-testid="path-outcome"]',
    },
    { lab: 'confirmation', button: '#propose-refund', shows: '#confirmation-calls [data-testid="outcome"]' },
    { lab: 'budget', button: '#run-budget', shows: '[data-testid="summary"]' },
    { lab: 'spend-and-tokens', button: '#run-assistant', shows: '#assistant-runs li' },
    { lab: 'duplicate-delivery', button: '#run-duplicate-delivery', shows: '[data-testid="summary"]' },
    { lab: 'release', button: '#run-release', shows: 'article.release >> nth=1' },
    { lab: 'forbidden-states', button: '#run-forbidden-states', shows: '#chain-steps > li >> nth=4' },
    {
      lab: 'provenance',
      button: '#run-provenance',
      shows: '[data-testid="summary"]',
      timeout: SLOW_LAB_TIMEOUT,
    },
    {
      lab: 'quarantine',
      button: '#run-pay-bill',
      shows: '[data-testid="bill-summary-with"]',
      timeout: SLOW_LAB_TIMEOUT,
    },
    { lab: 'review-lane', button: '#propose-staff-refund', shows: '[data-review-item]' },
    { lab: 'evaluation', button: '#run-evaluation', shows: '#scores', timeout: SLOW_LAB_TIMEOUT },
    { lab: 'claims', button: '#send-label', shows: '#claims tbody tr' },
    {
      lab: 'live',
      button: '#run-live-injected-review',
      shows: '[data-live="injected-review"] [data-case="injected-review"]',
      timeout: SLOW_LAB_TIMEOUT,
      arrange: () => {
        liveModel = followingInjections(
          scriptedConversation([{ toolCalls: [{ name: 'view_order_reviews', arguments: { orderId: 1002 } }] }]),
        );
      },
    },
  ];

  for (const { lab, button, shows, timeout, arrange } of MOBILE_WALK)
    it(
      `${lab} at 390 px: driven from the keyboard, nothing wider than the screen, no value clipped, no name broken mid-word`,
      async () => {
        arrange?.();
        const page = await open(lab, MOBILE);
        // A lab loads its first view with its buttons disabled: Enter on a disabled button submits nothing.
        await page.locator(`${button}:enabled`).waitFor();
        await page.focus(button);
        await page.keyboard.press('Enter');
        await page.locator(shows).first().waitFor();
        await page.locator(`${button}:enabled`).waitFor();
        expect(await clipped(page)).toEqual([]);
        expect(await midWordBreaks(page, 'main code.name')).toEqual([]);
        await shoot(page, `${lab}-mobile`);
      },
      timeout ?? LAB_TIMEOUT,
    );
});
