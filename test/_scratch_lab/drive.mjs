import { chromium } from 'playwright-core';
import { createRequire } from 'node:module';
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const url = 'http://127.0.0.1:3917/';
const labs = (process.env.LABS ?? 'why-verdict,live,cross-customer,release,mcp,confirmation,review-lane,budget,spend-and-tokens,duplicate-delivery,forbidden-states,provenance,quarantine,claims,evaluation').split(',');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox','--disable-gpu'] });
const widths = (process.env.WIDTHS ?? '390,1280').split(',').map(Number);
for (const width of widths) for (const lab of labs) {
  const context = await browser.newContext({ viewport: { width, height: 844 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type()==='warning') problems.push(`console.${m.type()}: ${m.text().slice(0,200)}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => { if (r.status() >= 500) problems.push(`HTTP ${r.status()} ${r.url()}`); });
  await page.goto(`${url}#/${lab}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  // click all run-ish buttons
  const ids = await page.locator('button[id^="run-"], button[id^="propose-"], button#reload-claims').evaluateAll((bs) => bs.map((b) => b.id));
  for (const id of ids) {
    if (id === 'run-evaluation' && !process.env.EVAL) continue;
    try { await page.click(`#${id}`, { timeout: 10000 }); await page.waitForLoadState('networkidle', { timeout: 120000 }); await page.waitForTimeout(300); } catch (e) { problems.push(`click ${id}: ${e.message.split('\n')[0]}`); }
  }
  const layout = await page.evaluate(() => {
    const cut = [];
    if (document.documentElement.scrollWidth > innerWidth) cut.push(`page scrollWidth ${document.documentElement.scrollWidth} > ${innerWidth}`);
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > innerWidth + 1 && getComputedStyle(el).position !== 'fixed') {
        // is it inside a scroll container?
        let p = el.parentElement, scrolled = false;
        while (p) { const s = getComputedStyle(p); if (['auto','scroll','hidden'].includes(s.overflowX) && p.getBoundingClientRect().right <= innerWidth + 1) { scrolled = true; break; } p = p.parentElement; }
        if (!scrolled) cut.push(`${el.tagName.toLowerCase()}${el.id?'#'+el.id:''}.${el.className} right=${Math.round(r.right)} "${(el.textContent||'').slice(0,50)}"`);
      }
    }
    const unlabeled = [];
    for (const el of document.querySelectorAll('input, select, textarea, button')) {
      const name = el.getAttribute('aria-label') || el.labels?.[0]?.textContent?.trim() || (el.tagName === 'BUTTON' ? el.textContent.trim() : '') || el.getAttribute('title') || el.getAttribute('aria-labelledby');
      if (!name) unlabeled.push(`${el.tagName.toLowerCase()}#${el.id}`);
    }
    return { cut: cut.slice(0, 8), unlabeled };
  });
  await page.addScriptTag({ path: AXE });
  const axe = await page.evaluate(async () => (await axe.run()).violations.map((v) => `${v.impact}:${v.id} (${v.nodes.length}) ${v.nodes.slice(0,2).map(n=>n.target.join(' ')).join(' | ')}`));
  await page.screenshot({ path: `/tmp/scratch/lab/shots/${lab}-${width}.png`, fullPage: true });
  console.log(JSON.stringify({ width, lab, ids, problems, ...layout, axe }, null, 0));
  await context.close();
}
await browser.close();
