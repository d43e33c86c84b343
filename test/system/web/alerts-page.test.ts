/**
 * The /alerts page in Chromium (issue 47): with an account token it lists the account's targets
 * (a failing one with its reason), subscriptions and deliveries, and its forms create a target and
 * a subscription and delete one through the existing /api/notifications routes; without the token
 * it shows only the form. Nothing leaves the machine, and the console stays clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { browserUnavailable, launchChromium, watchedPage, type Chromium, type WatchedPage } from '../../helpers/browser.ts';

const skip = browserUnavailable();

describe('the alerts page in Chromium', { skip }, () => {
  let t: TestApp;
  let origin: string;
  let chrome: Chromium;
  let w: WatchedPage;
  let token: string;
  let accountId: number;
  let failingId: number;

  before(async () => {
    t = await createTestApp({ env: { ALERT_WEBHOOK_PRIVATE_OK: 'true' } });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const created = await t.store.accounts.create({ tier: 'premium', now: t.clock.now() });
    token = created.token;
    accountId = created.account.id;
    // A webhook whose delivery failed for good: the page shows the target failing, and why.
    const target = await t.store.alerts.createTarget({ accountId, type: 1, target: 'http://127.0.0.1:9/hook', name: 'broken hook', when: 2, secret: 's', now: t.clock.now() });
    failingId = target.id;
    const body = { id: 'k1', subscriptionId: 0, kind: 'listing', at: new Date(t.clock.now()).toISOString(), title: 'Hyperion listed for 1 coin', tag: 'HYPERION', itemName: null, price: 1, reference: null, auctionUuid: null, link: null };
    await t.store.alerts.enqueue([{ alertKey: 'k1', targetId: target.id, accountId, subscriptionId: null, body: JSON.stringify(body) }], t.clock.now());
    const [due] = await t.store.alerts.due(t.clock.now(), 10);
    await t.store.alerts.attemptFailed(due!, 'the receiver answered 410', null, t.clock.now());
    chrome = await launchChromium();
    w = await watchedPage(chrome);
  });
  after(async () => {
    await w?.page.close();
    await chrome?.close();
    await t?.close();
  });

  const rows = (table: string) => w.page.locator(`#${table} tbody tr[data-id]`);
  /** Waits until the table lists `n` rows (the page's script wrote them). */
  // The page's own globals: the server's tsconfig has no DOM types.
  const rowCount = (table: string, n: number) =>
    w.page.waitForFunction(([selector, count]) => (globalThis as any).document.querySelectorAll(selector).length === count, [`#${table} tbody tr[data-id]`, n] as const);

  it('without a token shows the token form only', async () => {
    const res = await w.page.goto(`${origin}/alerts`, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    assert.match(await w.page.title(), /Alerts · skymarket/);
    assert.equal(await w.page.locator('#token-form').isVisible(), true);
    assert.equal(await w.page.locator('#alerts-account').isVisible(), false);
  });

  it('with the token lists the targets, the failing one with its reason, and the failed delivery', async () => {
    await w.page.fill('#token', token);
    await w.page.click('#token-form button[type="submit"]');
    await w.page.waitForSelector('#alerts-account:not([hidden])');
    await rowCount('targets', 1);
    const row = w.page.locator(`#targets tbody tr[data-id="${failingId}"]`);
    assert.match((await row.textContent()) ?? '', /broken hook.*Webhook.*Failing since .*the receiver answered 410/);
    const delivery = w.page.locator('#deliveries tbody tr').first();
    assert.match((await delivery.textContent()) ?? '', /Hyperion listed for 1 coin.*broken hook.*failed.*the receiver answered 410/);
    // The token is not in the URL, and stays in this tab only.
    assert.ok(!w.page.url().includes(token));
  });

  it('creates an in-game target and a subscription through the forms, and deletes the subscription', async () => {
    await w.page.selectOption('#target-type', '6');
    await w.page.fill('#target-name', 'my mod');
    await w.page.click('#target-form button[type="submit"]');
    await rowCount('targets', 2);
    const targets = await t.store.alerts.targets(accountId);
    const inGame = targets.find((x) => x.type === 6);
    assert.equal(inGame?.name, 'my mod');
    assert.match((await w.page.locator(`#targets tbody tr[data-id="${inGame!.id}"]`).textContent()) ?? '', /my mod.*In game.*\(your account\).*Always.*OK/);

    await w.page.fill('#alert-spec', '{"kind":"listing","tag":"HYPERION","maxPrice":900000000}');
    await w.page.fill('#alert-targets', String(inGame!.id));
    await w.page.click('#alert-form button[type="submit"]');
    await rowCount('subscriptions', 1);
    const [sub] = await t.store.alerts.subscriptions(accountId);
    assert.deepEqual(sub?.targetIds, [inGame!.id]);
    assert.match((await rows('subscriptions').first().textContent()) ?? '', /HYPERION.*60 s.*my mod/);

    await rows('subscriptions').first().locator('button', { hasText: 'Delete' }).click();
    await rowCount('subscriptions', 0);
    assert.deepEqual(await t.store.alerts.subscriptions(accountId), []);
  });

  it('shows the API’s refusal of a bad spec, and nothing went off the machine or to the console', async () => {
    await w.page.fill('#alert-spec', '{"kind":"listing"}');
    await w.page.click('#alert-form button[type="submit"]');
    await w.page.waitForSelector('#alerts-status.error');
    assert.notEqual(((await w.page.locator('#alerts-status').textContent()) ?? '').trim(), '');
    // The refused request is the one 400 the page saw.
    assert.deepEqual(w.errors.filter((e) => !/HTTP 400 .*\/api\/notifications\/alerts|status of 400/.test(e)), []);
    assert.deepEqual(w.offsite, []);
  });
});
