/**
 * A link's A/B test result in a real browser (issue 43): Debian's chromium against `src/main.ts`.
 * A link splits between two destinations; 260 visitors go through the real redirect (each pinned
 * to a variant by the test cookie, so the split is exact), a third of variant B's visitors and a
 * fifteenth of A's become leads through `/track/lead`. The owner opens the links page, follows
 * "A/B test" and reads the verdict, the variant table and the chart, then stores the test's
 * settings (metric, what an inconclusive test does) with the page's form; axe finds no serious or
 * critical violation. Each step waits on elements and responses, never on time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeViolations, startDashboardRun, DESKTOP_CHROME, type DashboardRun } from './support.js';
import { hit } from '../../src/redirect/testing.js';

const OWNER = { email: 'abby@example.com', name: 'Abby Tester', password: 'correct horse battery' };
const A = 'https://shop.example.com/spring-a';
const B = 'https://shop.example.com/spring-b';
const PER_VARIANT = 130;

async function waitForClicks(run: DashboardRun, linkId: string, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { status, json } = await run.api('GET', `/analytics?event=clicks&interval=24h&linkId=${encodeURIComponent(linkId)}`);
    if (status === 200 && json.clicks >= n) return;
    if (Date.now() > deadline) throw new Error(`the clicks were not recorded: ${status} ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a link's A/B test in chromium: the verdict, the variant table and the chart (issue 43)", { timeout: 150_000 }, async (t) => {
  const run = await startDashboardRun({ CLICK_FLUSH_INTERVAL_MS: '10' });
  t.after(() => run.close());
  t.diagnostic(`screenshots: ${run.shotDir}`);
  const owner = await run.newContext();
  const page = await owner.newPage();
  const ws = await run.setUpOwner(page, OWNER);

  const made = await run.api('POST', '/links', {
    url: A,
    key: 'spring-ab',
    trackConversion: true,
    testVariants: [{ url: A, percentage: 50 }, { url: B, percentage: 50 }],
    testCompletedAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
  });
  assert.equal(made.status, 200, JSON.stringify(made.json));
  const link = made.json as { id: string; domain: string; key: string; shortLink: string };

  // Visitors through the redirect, each from its own address, pinned to a variant by the cookie.
  const leadsOf = { [A]: 0, [B]: 0 };
  let n = 0;
  for (const variant of [A, B]) {
    for (let i = 0; i < PER_VARIANT; i++, n++) {
      const res = await hit(run.base, `/${link.key}`, {
        host: link.domain,
        headers: { 'user-agent': DESKTOP_CHROME, 'x-forwarded-for': `10.${(n >> 8) & 255}.${n & 255}.7`, cookie: `waymark_test_url=${encodeURIComponent(variant)}` },
      });
      assert.equal(res.status, 302);
      assert.ok(res.location!.startsWith(variant), `${res.location} is the pinned variant ${variant}`);
      const clickId = new URL(res.location!).searchParams.get('waymark_id');
      assert.ok(clickId);
      if (i % (variant === B ? 3 : 15) === 0) {
        // A lead needs its click stored: the click writer flushes every 10 ms.
        await waitForClicks(run, link.id, n + 1);
        const lead = await run.api('POST', '/track/lead', { clickId, eventName: 'Sign up', customerExternalId: `visitor-${n}` });
        assert.equal(lead.status, 200, JSON.stringify(lead.json));
        leadsOf[variant]++;
      }
    }
  }
  await waitForClicks(run, link.id, 2 * PER_VARIANT);

  const api = await run.api('GET', `/links/${link.id}/ab-test`);
  assert.equal(api.status, 200, JSON.stringify(api.json));
  assert.deepEqual(api.json.variants.map((v: { clicks: number; leads: number }) => [v.clicks, v.leads]), [
    [PER_VARIANT, leadsOf[A]],
    [PER_VARIANT, leadsOf[B]],
  ]);

  // The owner finds the test from the links page.
  await page.goto(`${ws}/links`);
  await page.locator(`tr[data-link-id="${link.id}"]`).getByRole('link', { name: 'A/B test' }).click();
  await page.waitForURL(/\/ab-test$/);
  const verdict = page.locator('#ab-verdict');
  await assert.doesNotReject(verdict.waitFor());
  assert.equal(await verdict.getAttribute('data-status'), 'significant');
  assert.match((await verdict.textContent()) ?? '', /Significant/);
  assert.match((await verdict.textContent()) ?? '', /spring-b/);
  // The table: one row per variant with its clicks and leads, the leader marked.
  const rows = page.locator('#ab-variants tbody tr');
  assert.equal(await rows.count(), 2);
  const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).map((s) => s.trim());
  const [a, b] = [await cells(0), await cells(1)];
  assert.deepEqual([a[2], a[3]], [String(PER_VARIANT), String(leadsOf[A])]);
  assert.deepEqual([b[2], b[3]], [String(PER_VARIANT), String(leadsOf[B])]);
  assert.equal(await rows.nth(1).getAttribute('class'), 'leader');
  assert.equal(b[8], '—', 'the leader has no p-value against itself');
  assert.match(a[8]!, /^(< 0\.0001|0\.\d{4})$/);
  // The chart: uPlot drew one line per variant (its legend names them).
  await assert.doesNotReject(page.locator('#analytics-chart canvas').waitFor());
  const legend = await page.locator('#analytics-chart .u-legend').textContent();
  assert.match(legend ?? '', /Variant 1/);
  assert.match(legend ?? '', /Variant 2/);
  await run.shot(page, 'ab-test');

  // Another metric from the page's select: sales, of which there are none yet.
  await page.getByLabel('Show as decided on').selectOption('sales');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/metric=sales/);
  assert.equal(await page.locator('#ab-verdict').getAttribute('data-status'), 'insufficient_data');

  // The stored settings: the owner changes them on the page; the API reads them back, and the
  // page then shows the result on the stored metric without asking for one.
  await page.getByLabel('Decide the winner on').selectOption('sales');
  await page.getByLabel('Without a significant winner').selectOption('stop');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.waitForURL(/saved=1/);
  assert.equal(await page.getByLabel('Decide the winner on').inputValue(), 'sales');
  assert.equal(await page.getByLabel('Without a significant winner').inputValue(), 'stop');
  assert.equal(await page.locator('#ab-verdict').getAttribute('data-status'), 'insufficient_data', 'decided on sales now');
  const stored = await run.api('GET', `/links/${link.id}/ab-test/settings`);
  assert.deepEqual(stored.json, { linkId: link.id, metric: 'sales', onInconclusive: 'stop' });

  const all = await run.audit(`${ws}/links/${encodeURIComponent(link.id)}/ab-test`, owner);
  const serious = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious.length, 0, `axe on the A/B test page:\n${describeViolations(serious)}`);
});
