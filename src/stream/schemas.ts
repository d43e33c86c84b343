/**
 * The feed's query and event shapes as TypeBox schemas, for the OpenAPI description of
 * GET /api/stream (docs/streaming.md is the prose). The types live in domain/stream-events.ts.
 */
import { Type, type TSchema } from 'typebox';
import { TOPICS } from '../domain/stream-events.ts';
import { MAX_TAGS } from './subscription.ts';

export const StreamQuery = Type.Object(
  {
    topics: Type.Optional(
      Type.String({
        description: `comma-separated topics (default all but \`alert\`): ${TOPICS.join(', ')}. \`alert\` is the account's own alerts (a LIVE_FEED target, docs/alerts.md): it needs an account token (401 without) and is sent only when named`,
      }),
    ),
    tags: Type.Optional(Type.String({ description: `comma-separated item tags or bazaar product ids (aliases such as NEU ids accepted), at most ${MAX_TAGS}; default all` })),
    minPrice: Type.Optional(Type.String({ description: 'lowest price (coins) of auction events (their price; lbin.changed: the new lowest BIN) and bazaar events (instant-buy price)' })),
    maxPrice: Type.Optional(Type.String({ description: 'highest price, as minPrice' })),
    lastEventId: Type.Optional(Type.String({ description: 'resume after this event id (the `Last-Event-ID` header wins); for clients that cannot set the header' })),
  },
  {
    additionalProperties: Type.String(),
    description:
      'Every other parameter is a variant filter in the syntax of /api/auctions/tag/{itemTag}/active (e.g. `Rarity=LEGENDARY`, `PetLevel=100`), applied to the auction topics (not to bazaar.changed).',
  },
);

const Item = Type.Object({
  itemName: Type.String(),
  count: Type.Integer(),
  tier: Type.Union([Type.String(), Type.Null()]),
  reforge: Type.Union([Type.String(), Type.Null()]),
  itemUid: Type.Union([Type.String(), Type.Null()]),
  itemCreatedAt: Type.Union([Type.Integer(), Type.Null()]),
  enchantments: Type.Record(Type.String(), Type.Integer()),
  flatNbt: Type.Record(Type.String(), Type.String()),
});

const common = (topic: string) => ({
  id: Type.String({ description: '`<ms>-<seq>-<index>`, increasing; the same in every process' }),
  topic: Type.Literal(topic),
  time: Type.Integer({ description: 'when the change was applied (epoch ms)' }),
});

const auctionFacts = {
  uuid: Type.String(),
  tag: Type.String(),
  variant: Type.Union([Type.String(), Type.Null()], { description: "the lowest-BIN variant: a pet's rarity (`LEGENDARY:LVL100` at level 100+), a rune's level (`L3`), else null" }),
  price: Type.Integer(),
  bin: Type.Boolean(),
  startingBid: Type.Integer(),
  highestBid: Type.Integer(),
  seller: Type.String(),
  start: Type.Union([Type.Integer(), Type.Null()]),
  end: Type.Integer(),
  item: Item,
};

const BookLevel = Type.Object({ amount: Type.Integer(), pricePerUnit: Type.Number(), orders: Type.Integer() });

export const StreamEventSchema: TSchema = Type.Union(
  [
    Type.Object({ ...common('auction.new'), ...auctionFacts }, { title: 'auction.new' }),
    Type.Object(
      {
        ...common('auction.sold'),
        uuid: Type.String(),
        tag: Type.Union([Type.String(), Type.Null()]),
        variant: Type.Union([Type.String(), Type.Null()]),
        price: Type.Integer(),
        bin: Type.Union([Type.Boolean(), Type.Null()]),
        buyer: Type.String(),
        seller: Type.Union([Type.String(), Type.Null()]),
        soldAt: Type.Integer(),
        item: Type.Union([Item, Type.Null()]),
      },
      { title: 'auction.sold' },
    ),
    Type.Object(
      {
        ...common('auction.underpriced'),
        ...auctionFacts,
        value: Type.Number({ description: "the stack's value (docs/valuation.md)" }),
        valueAfterFees: Type.Number(),
        profit: Type.Number({ description: 'valueAfterFees − price' }),
        percentBelow: Type.Number(),
        confidence: Type.Number(),
        comparables: Type.Integer(),
        medianKey: Type.String(),
      },
      { title: 'auction.underpriced' },
    ),
    Type.Object({ ...common('auction.ended'), ...auctionFacts, reason: Type.Union([Type.Literal('expired'), Type.Literal('cancelled')]) }, { title: 'auction.ended' }),
    Type.Object(
      {
        ...common('lbin.changed'),
        tag: Type.String(),
        variant: Type.Union([Type.String(), Type.Null()]),
        oldPrice: Type.Union([Type.Integer(), Type.Null()]),
        newPrice: Type.Union([Type.Integer(), Type.Null()]),
        listing: Type.Union([Type.Object({ uuid: Type.String(), price: Type.Integer(), seller: Type.String(), end: Type.Integer(), item: Item }), Type.Null()]),
      },
      { title: 'lbin.changed' },
    ),
    Type.Object(
      {
        ...common('bazaar.changed'),
        product: Type.String(),
        buyPrice: Type.Number(),
        sellPrice: Type.Number(),
        buyVolume: Type.Integer(),
        sellVolume: Type.Integer(),
        buyMovingWeek: Type.Integer(),
        sellMovingWeek: Type.Integer(),
        buyOrders: Type.Integer(),
        sellOrders: Type.Integer(),
        topBuyOrders: Type.Union([Type.Array(BookLevel), Type.Null()]),
        topSellOffers: Type.Union([Type.Array(BookLevel), Type.Null()]),
      },
      { title: 'bazaar.changed' },
    ),
    Type.Object(
      {
        ...common('generation'),
        feed: Type.Union([Type.Literal('auctions'), Type.Literal('auctions_ended'), Type.Literal('bazaar')]),
        lastUpdated: Type.Integer(),
        counts: Type.Record(Type.String(), Type.Integer()),
      },
      { title: 'generation' },
    ),
    Type.Object(
      {
        ...common('alert'),
        accountId: Type.Integer({ description: 'the account the alert is for: the one the connection authenticated as' }),
        alert: Type.Object(
          {
            id: Type.String({ description: 'the idempotency key: the same in every channel and on every retry' }),
            subscriptionId: Type.Integer(),
            kind: Type.String(),
            at: Type.String({ format: 'date-time' }),
            title: Type.String(),
            tag: Type.String(),
            itemName: Type.Union([Type.String(), Type.Null()]),
            price: Type.Number(),
            reference: Type.Union([Type.Number(), Type.Null()]),
            auctionUuid: Type.Union([Type.String(), Type.Null()]),
            link: Type.Union([Type.String(), Type.Null()]),
            test: Type.Optional(Type.Literal(true)),
          },
          { description: 'the alert, as a webhook receives it (docs/alerts.md)' },
        ),
      },
      { title: 'alert: one of the account’s alerts (topic `alert`, an account token; docs/alerts.md)' },
    ),
    Type.Object(
      {
        topic: Type.Literal('gap'),
        time: Type.Integer(),
        lastEventId: Type.String(),
        oldestEventId: Type.Union([Type.String(), Type.Null()]),
        detail: Type.String(),
      },
      { title: 'gap (no id): the Last-Event-ID is older than the retention window; events were missed, reload state' },
    ),
    Type.Object({ topic: Type.Literal('closed'), time: Type.Integer(), reason: Type.String() }, { title: 'closed (no id): the server closes the connection (too slow, shutting down); resume with Last-Event-ID' }),
  ],
  { description: 'One event: each SSE `data:` line (with `id:` the event id) or WebSocket text message is one of these, as JSON.' },
);
