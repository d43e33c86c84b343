/**
 * What an exact item is worth (docs/valuation.md): skymarket's `POST /api/item/value` and
 * `GET /api/auction/{uuid}/value`, and the established shapes `POST /api/price/nbt`
 * (InventoryData → PriceEstimate per slot) and `POST /api/mod/pricing/breakdown`
 * (ItemRepresent[] → PricingBreakdwon[]). Handlers parse, call services/valuation.ts, shape.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { depthWithin, MAX_JSON_DEPTH, plain, subjectOfJson, subjectOfRepresent, SubjectError } from '../domain/valuation/subject.ts';
import type { ValuationSubject } from '../domain/valuation/traits.ts';
import { EMPTY_ESTIMATE, itemValueWire, priceEstimateWire, pricingBreakdownWire, type ValuedFacts } from '../domain/valuation/wire.ts';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { MAX_VALUE_ITEMS, ValuationInputError, type ValuedItem } from '../services/valuation.ts';

/** Largest request body of the valuation routes (1,000 items of base64 NBT fit). */
export const VALUE_BODY_LIMIT = 4 * 1024 * 1024;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
/**
 * A nullable number or string as a type list (`["number", "null"]`), not an `anyOf`: the response
 * serialiser writes a type list directly, where an `anyOf` costs a schema validation per value.
 */
const NullableNumber = (description?: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], ...(description ? { description } : {}) });
const NullableString = () => Type.Unsafe<string | null>({ type: ['string', 'null'] });

const PartSchema = Type.Object(
  {
    kind: Type.String({ description: 'base, enchantment, recombobulator, hot_potato_book … (docs/valuation.md)' }),
    id: Type.String({ description: 'the priced item: bazaar product or auction tag' }),
    unitPrice: NullableNumber(),
    source: Type.String({ description: 'bazaar (lowest sell offer), lbin (cheapest BIN), sales (clean sales), face (a stored price), none' }),
    count: Type.Number(),
    factor: Type.Number({ description: 'share of the cost kept on resale (application worth)' }),
    value: Type.Number({ description: 'unitPrice × count × factor' }),
  },
  { $id: 'ValuationPart' },
);

const ItemValueSchema = Type.Object(
  {
    index: Type.Integer({ description: 'position among the request items (inventory slots count one each)' }),
    tag: Type.String(),
    count: Type.Integer(),
    known: Type.Boolean({ description: 'false: an id skymarket does not know; valued 0' }),
    value: NullableNumber('coins per item'),
    stackValue: NullableNumber(),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    method: Type.String({ description: 'comparables, parts, blend or none' }),
    comparablesWeight: Type.Number(),
    comparables: Type.Object({
      median: NullableNumber(),
      p25: NullableNumber(),
      p75: NullableNumber(),
      count: Type.Integer(),
      matchedOn: Type.Array(Type.String()),
      widenedBy: Type.Array(Type.String()),
      widened: Type.Boolean(),
      decidedFromSales: Type.Boolean(),
      cheapestBin: Nullable(Type.Object({ uuid: Type.String(), price: Type.Number() })),
      fastSell: NullableNumber(),
      itemKey: Type.String(),
      medianKey: Type.String(),
      lbinKey: Type.String(),
      windowDays: Type.Number(),
      volume24h: Type.Integer(),
    }),
    parts: Type.Object({ value: NullableNumber(), unpriced: Type.Integer(), breakdown: Type.Array(Type.Ref('ValuationPart')) }),
  },
  { $id: 'ItemValue' },
);

const ItemValueRequest = Type.Object(
  {
    items: Type.Optional(
      // No maxLength on the strings: the body limit bounds them, and the check counted every character of every item.
      Type.Array(Type.Union([Type.String({ minLength: 1 }), Type.Object({}, { additionalProperties: true })]), {
        maxItems: MAX_VALUE_ITEMS,
        description: "items as Hypixel's base64 gzip NBT (`item_bytes`, an inventory's `data`) or as NBT JSON (`{id, Count, tag: {display, ExtraAttributes}}`)",
      }),
    ),
    data: Type.Optional(Type.String({ minLength: 1, maxLength: VALUE_BODY_LIMIT, description: "an inventory's base64 gzip NBT (`data`): every slot is an item" })),
  },
  { additionalProperties: false },
);

const PriceEstimateSchema = Type.Object(
  {
    lbin: Type.Number(),
    median: Type.Number(),
    volume: Type.Number(),
    lbinLink: NullableString(),
    fastSell: Type.Number(),
    lbinKey: NullableString(),
    medianKey: NullableString(),
    itemKey: NullableString(),
  },
  { $id: 'PriceEstimate' },
);

const CraftPriceSchema = Type.Object(
  { price: Type.Number(), itemTag: NullableString(), attribute: NullableString(), formattedReson: NullableString(), count: Type.Number() },
  { $id: 'CraftPrice' },
);

const InventoryDataSchema = Type.Object(
  {
    chestName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    fullInventoryNbt: Type.Optional(Nullable(Type.String({ maxLength: VALUE_BODY_LIMIT }))),
    position: Type.Optional(Type.Unknown()),
    jsonNbt: Type.Optional(Type.Unknown()),
    senderContactId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    server: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: true },
);

const UuidParams = Type.Object({ uuid: Type.String({ minLength: 1, maxLength: 64 }) });
const AUCTION_UUID = /^[0-9a-f]{32}$/;

function inputProblem(err: unknown): never {
  if (err instanceof ValuationInputError) throw new HttpProblem(err.slug === 'too_large' ? 413 : 400, err.slug, err.message);
  if (err instanceof SubjectError) throw badRequest('bad_item', err.message);
  throw err;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function valuationRoutes(app: FastifyInstance) {
  const valuation = app.services.valuation;
  /** Each slot's valued item in its wire shape, `empty` for a slot that held no item. */
  const valuedSlots = async <T>(subjects: Array<ValuationSubject | null>, wire: (v: ValuedItem) => T, empty: T): Promise<T[]> => {
    const byIndex = new Map<number, ValuedItem>((await valuation.valueItems(subjects)).map((v) => [v.index, v]));
    return subjects.map((_, i) => {
      const v = byIndex.get(i);
      return v ? wire(v) : empty;
    });
  };
  app.addSchema(PartSchema);
  app.addSchema(ItemValueSchema);
  app.addSchema(PriceEstimateSchema);
  app.addSchema(CraftPriceSchema);

  app.post<{ Body: { items?: unknown[]; data?: string } }>(
    '/api/item/value',
    {
      bodyLimit: VALUE_BODY_LIMIT,
      schema: {
        tags: ['valuation'],
        summary: `What exact items are worth: comparable sales, parts, one value with a confidence (at most ${MAX_VALUE_ITEMS} items)`,
        description:
          'Items as base64 gzip NBT or NBT JSON (`items`), or one inventory (`data`). Every item is valued by its comparable sales (the median of recent sales matching on the ' +
          'traits that move its price, widened step by step when too few) and by its parts (base item plus each upgrade × its application worth); ' +
          `docs/valuation.md has the model and every factor. At most ${MAX_VALUE_ITEMS} items, ${VALUE_BODY_LIMIT} bytes, 8 MiB of inflated NBT per request. ` +
          'An id skymarket does not know is valued 0 and listed in `unknown`; an empty or unreadable slot is counted in `emptySlots`.',
        body: ItemValueRequest,
        response: {
          200: Type.Object({
            items: Type.Array(Type.Ref('ItemValue')),
            total: Type.Number({ description: 'sum of the items’ stack values' }),
            unknown: Type.Array(Type.Integer(), { description: 'indexes of items with an unknown id' }),
            emptySlots: Type.Integer(),
          }),
          ...problemResponses(400, 413),
        },
      },
      config: { cache: 'no-store' },
    },
    async (request, reply) => {
      const body = request.body;
      const inputs: unknown[] = [...(body.items ?? [])];
      if (body.data !== undefined) inputs.push(body.data);
      if (inputs.length === 0) throw badRequest('no_items', 'give `items` or `data`');
      let subjects;
      try {
        subjects = valuation.readItems(inputs);
      } catch (err) {
        inputProblem(err);
      }
      const valued = await valuation.valueItems(subjects);
      const items = valued.map(itemValueWire);
      let total = 0;
      for (const i of items) total += i.stackValue ?? 0;
      // The wire objects hold exactly the schema's fields, whole numbers where it says integer, in its order:
      // JSON.stringify writes the bytes the schema's serialiser would, at a third of its cost for 1,000 items.
      reply.serializer(JSON.stringify);
      return { items, total: Math.round(total), unknown: items.filter((i) => !i.known).map((i) => i.index), emptySlots: subjects.length - valued.length };
    },
  );

  app.get<{ Params: { uuid: string } }>(
    '/api/auction/:uuid/value',
    {
      schema: {
        tags: ['valuation'],
        summary: 'Whether an active listing is a good deal: its value, and how far its price is below or above it after auction fees',
        description:
          '`vsValueAfterFees` = (price − value × (1 − fee)) / (value × (1 − fee)): −0.2 is a listing 20 % below what reselling it at its value would net. ' +
          'The fee is the auction fee on the value (listing fee and tax: 2 % below 10 M, 3 % from 10 M, 3.5 % from 100 M).',
        params: UuidParams,
        response: {
          200: Type.Object({
            uuid: Type.String(),
            price: Type.Number(),
            value: NullableNumber(),
            feeRate: Type.Number(),
            vsValueAfterFees: NullableNumber(),
            profitAfterFees: NullableNumber(),
            item: Type.Ref('ItemValue'),
          }),
          ...problemResponses(400, 404),
        },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const uuid = request.params.uuid.replaceAll('-', '').toLowerCase();
      if (!AUCTION_UUID.test(uuid)) throw badRequest('invalid_uuid', 'an auction uuid is 32 hex digits (dashes allowed)');
      const listing = await valuation.valueListing(uuid);
      if (!listing) throw notFound('auction_not_found', `no active auction ${uuid}`);
      return {
        uuid,
        price: listing.price,
        value: listing.value === null ? null : Math.round(listing.value),
        feeRate: listing.feeRate,
        vsValueAfterFees: listing.vsValueAfterFees === null ? null : Math.round(listing.vsValueAfterFees * 10_000) / 10_000,
        profitAfterFees: listing.profitAfterFees === null ? null : Math.round(listing.profitAfterFees),
        item: itemValueWire(listing.valued),
      };
    },
  );

  app.post<{ Body: Record<string, unknown> }>(
    '/api/price/nbt',
    {
      bodyLimit: VALUE_BODY_LIMIT,
      schema: {
        tags: ['valuation'],
        summary: 'Price estimates of an inventory, one per slot (established shape: InventoryData → PriceEstimate[])',
        description:
          '`fullInventoryNbt`: base64 gzip NBT of the inventory; or `jsonNbt`: the inventory as NBT JSON (`{i: [...]}`). ' +
          '`median` is the value (docs/valuation.md), `lbin` the cheapest matching BIN, `volume` the tag’s sales in the last 24 hours. An empty slot has zeros.',
        body: InventoryDataSchema,
        response: { 200: Type.Array(Type.Ref('PriceEstimate')), ...problemResponses(400, 413) },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const { fullInventoryNbt, jsonNbt } = request.body as { fullInventoryNbt?: string | null; jsonNbt?: unknown };
      let subjects: Array<ValuationSubject | null>;
      try {
        if (typeof fullInventoryNbt === 'string' && fullInventoryNbt !== '') subjects = valuation.readItems([fullInventoryNbt]);
        else if (isRecord(jsonNbt) || Array.isArray(jsonNbt)) subjects = jsonSlots(jsonNbt);
        else throw badRequest('no_items', 'give `fullInventoryNbt` (base64 gzip NBT) or `jsonNbt`');
      } catch (err) {
        inputProblem(err);
      }
      return valuedSlots(subjects, (v) => priceEstimateWire(v as ValuedFacts), EMPTY_ESTIMATE);
    },
  );

  app.post<{ Body: unknown[] }>(
    '/api/mod/pricing/breakdown',
    {
      bodyLimit: VALUE_BODY_LIMIT,
      schema: {
        tags: ['valuation'],
        summary: 'Parts breakdown of items (established shape: ItemRepresent[] → PricingBreakdwon[])',
        description: 'One `craftPrice` entry per part: the base item first, then each upgrade (price = unit price × count × application worth; docs/valuation.md).',
        body: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: MAX_VALUE_ITEMS }),
        response: {
          200: Type.Array(Type.Object({ craftPrice: Nullable(Type.Array(Type.Ref('CraftPrice'))) })),
          ...problemResponses(400),
        },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      let subjects: Array<ValuationSubject | null>;
      try {
        subjects = request.body.map(subjectOfRepresent);
      } catch (err) {
        inputProblem(err);
      }
      return valuedSlots(subjects, pricingBreakdownWire, { craftPrice: null });
    },
  );
}

/** An inventory as NBT JSON: `{i: [slot…]}` or a list of slots; unreadable slots are empty. */
function jsonSlots(raw: unknown): Array<ValuationSubject | null> {
  if (!depthWithin(raw, MAX_JSON_DEPTH + 4)) throw badRequest('bad_item', `\`jsonNbt\` is nested deeper than ${MAX_JSON_DEPTH + 4}`);
  const json = plain(raw);
  const list = Array.isArray(json) ? json : isRecord(json) && Array.isArray(json['i']) ? json['i'] : null;
  if (list === null) throw badRequest('bad_item', '`jsonNbt` is an inventory: `{i: [...]}` or a list of items');
  if (list.length > MAX_VALUE_ITEMS) throw badRequest('too_many_items', `at most ${MAX_VALUE_ITEMS} items per request`);
  return list.map((slot) => {
    try {
      return subjectOfJson(slot);
    } catch (err) {
      if (err instanceof SubjectError && err.reason !== 'too_deep') return null;
      throw err;
    }
  });
}
