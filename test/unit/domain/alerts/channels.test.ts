/**
 * The alert targets' pure parts (issue 47): target types and NotifyWhen as the established client
 * sends them (integers or names), the mod's chat line, and who receives an `alert` event of the
 * live feed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatLine, notifyWhenOf, TARGET_TYPES, targetProblem, targetTypeOf, type AlertBody } from '../../../../src/domain/alerts/targets.ts';
import { EVERYTHING, keyOf, matches, type DraftEvent, type Subscription } from '../../../../src/domain/stream-events.ts';

const body: AlertBody = {
  id: '7:listing:abc',
  subscriptionId: 7,
  kind: 'listing',
  at: '2026-11-29T12:00:00.000Z',
  title: 'Hyperion §clisted\nfor 1,000 coins',
  tag: 'HYPERION',
  itemName: 'Hyperion',
  price: 1000,
  reference: 1500,
  auctionUuid: 'abc',
  link: null,
};

describe('alert target types', () => {
  it('reads the established integers and the names its client sends', () => {
    assert.equal(targetTypeOf(3), 3);
    assert.equal(targetTypeOf('DiscordWebhook'), TARGET_TYPES.DISCORD_WEBHOOK);
    assert.equal(targetTypeOf('InGame'), TARGET_TYPES.IN_GAME);
    assert.equal(targetTypeOf('WEBHOOK'), TARGET_TYPES.WEBHOOK);
    assert.equal(targetTypeOf('FIREBASE'), 4);
    assert.equal(targetTypeOf('live_feed'), 100);
    assert.equal(targetTypeOf('6'), 6);
    assert.equal(targetTypeOf('Pigeon'), undefined);
    assert.equal(targetTypeOf(1.5), undefined);
    assert.equal(notifyWhenOf('NEVER'), 0);
    assert.equal(notifyWhenOf('AfterFail'), 1);
    assert.equal(notifyWhenOf('ALWAYS'), 2);
    assert.equal(notifyWhenOf('Sometimes'), undefined);
  });

  it('stores IN_GAME and LIVE_FEED targets without an address; still refuses e-mail and push', () => {
    const blocked = () => false;
    assert.equal(targetProblem(TARGET_TYPES.IN_GAME, '', [], false, blocked), null);
    assert.equal(targetProblem(TARGET_TYPES.LIVE_FEED, '', [], false, blocked), null);
    assert.match(String(targetProblem(TARGET_TYPES.EMAIL, 'me@example.org', [], false, blocked)), /not delivered/);
    assert.match(String(targetProblem(TARGET_TYPES.FIREBASE, 'token', [], false, blocked)), /not delivered/);
  });

  it('writes the chat line without the sender’s colour codes or line breaks, clicking through to the auction', () => {
    const line = chatLine(body);
    assert.equal(line.text, '§6[skymarket]§r Hyperion clistedfor 1,000 coins');
    assert.equal(line.onClick, '/viewauction abc');
    assert.equal(line.hover, 'Hyperion (HYPERION)\nPrice: 1,000\nCompared with: 1,500');
    assert.equal(chatLine({ ...body, auctionUuid: null, link: 'https://sky.example.org/item/HYPERION' }).onClick, 'https://sky.example.org/item/HYPERION');
  });
});

describe('the alert topic', () => {
  const event: DraftEvent = { topic: 'alert', time: 1, accountId: 7, alert: body };
  const sub = (topics: string[], accountId?: number): Subscription => ({ ...EVERYTHING, topics: new Set(topics) as Subscription['topics'], accountId });

  it('reaches the account that named the topic, and no one else', () => {
    assert.equal(keyOf(event).account, 7);
    assert.equal(matches(sub(['alert'], 7), event), true);
    assert.equal(matches(sub(['alert'], 8), event), false, 'another account');
    assert.equal(matches(sub(['alert']), event), false, 'no account');
    assert.equal(matches(sub([], 7), event), false, 'all topics: not the personal one');
    assert.equal(matches(sub(['auction.new'], 7), event), false);
  });
});
