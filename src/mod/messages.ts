/**
 * The mod channel's messages (see docs/mod-protocol.md). Every client message is a JSON
 * object `{ type, id?, data? }`; `data` is validated against the command's schema before
 * anything else happens. Size bounds live here so the protocol doc and code agree.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { EXTRACTED_FIELDS } from '../domain/player-data.ts';
import { TAG_PATTERN_SOURCE } from '../domain/tags.ts';

export const LIMITS = {
  /** a message larger than this gets a `too_large` error (and is not parsed) */
  messageBytes: 256 * 1024,
  /** the socket is closed (1009) for a frame larger than this; ws never buffers more */
  frameBytes: 1024 * 1024,
  /** per-connection token bucket: burst and refill per second */
  burst: 20,
  perSecond: 5,
  /** a connection that keeps sending while limited is closed (1008) after this many refusals */
  maxRefusals: 50,
  /** messages queued while one is processed; past it reading from the socket pauses */
  queue: 8,
  /** outgoing bytes buffered before the session stops reading until they drain */
  bufferedBytes: 1024 * 1024,
  /** seconds to send `auth` after connecting without a token header */
  authSeconds: 10,
  orders: 100,
  names: 100,
  npcOffers: 60,
  itemBase64: 64 * 1024,
} as const;

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$' });
const Tag = Type.String({ pattern: TAG_PATTERN_SOURCE });
const Name = Type.String({ pattern: '^[A-Za-z0-9_]{1,16}$' });
const Time = Type.String({ format: 'date-time', maxLength: 40 });
const Coins = Type.Number({ minimum: 0, maximum: 1e15 });
const Count = Type.Integer({ minimum: 0, maximum: 2_000_000_000 });
const Text = (max: number) => Type.String({ maxLength: max });
const Opt = Type.Optional;
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const SmallMap = (value: TSchema) => Type.Record(Type.String({ maxLength: 64 }), value, { maxProperties: 200 });

/** name → level/tier, as the mod reads a menu */
const Levels = (max: number) => Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 0, maximum: max }), { maxProperties: 200 });
const HeartOf = Type.Object({ tier: Type.Integer({ minimum: 0, maximum: 100 }), perks: Nullable(SmallMap(Type.Integer({ minimum: 0, maximum: 100_000 }))) }, { additionalProperties: false });
const Composter = Type.Object(
  {
    nextCompostAt: Opt(Time),
    fuelStored: Opt(Coins),
    matterStored: Opt(Coins),
    lastCompostToClaim: Opt(Coins),
    speedPercentIncrease: Opt(Coins),
    multiDropChance: Opt(Coins),
    fuelCap: Opt(Coins),
    matterCap: Opt(Coins),
    costReductionPercent: Opt(Coins),
  },
  { additionalProperties: false },
);
const ItemState = Type.Object(
  {
    id: Opt(Nullable(Type.Integer())),
    itemName: Opt(Nullable(Text(200))),
    tag: Opt(Nullable(Text(64))),
    extraAttributes: Opt(Nullable(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 100 }))),
    enchantments: Opt(Nullable(SmallMap(Type.Integer()))),
    color: Opt(Nullable(Type.Integer())),
    description: Opt(Nullable(Text(4000))),
    count: Opt(Nullable(Type.Integer())),
  },
  { additionalProperties: false },
);
const Pet = Type.Object(
  {
    name: Opt(Nullable(Text(100))),
    type: Opt(Nullable(Text(64))),
    tier: Opt(Nullable(Text(32))),
    level: Opt(Type.Integer({ minimum: 0, maximum: 300 })),
    exp: Opt(Coins),
    isActive: Opt(Type.Boolean()),
    heldItem: Opt(Nullable(Text(64))),
    candyUsed: Opt(Type.Integer({ minimum: 0, maximum: 100 })),
    colorCode: Opt(Nullable(Text(8))),
    tag: Opt(Nullable(Text(64))),
    uuid: Opt(Nullable(Text(40))),
    progressPercent: Opt(Type.Number()),
    targetLevel: Opt(Type.Integer()),
    currentExp: Opt(Coins),
    expForLevel: Opt(Coins),
    lastUpdated: Opt(Time),
  },
  { additionalProperties: false },
);

/** One screen sync: any subset of ExtractedInfo's fields; each one given replaces the stored one. */
export const ExtractedPatch = Type.Object(
  {
    currentServer: Opt(Nullable(Text(64))),
    currentLocation: Opt(Nullable(Text(64))),
    lastLocationChange: Opt(Time),
    heartOfTheMountain: Opt(HeartOf),
    heartOfTheForest: Opt(HeartOf),
    agathaLevel: Opt(Count),
    shardCounts: Opt(Nullable(SmallMap(Count))),
    attributeLevel: Opt(Nullable(SmallMap(Count))),
    composter: Opt(Composter),
    activePet: Opt(
      Type.Object(
        { name: Nullable(Text(100)), colorCode: Opt(Nullable(Text(8))), progressPercent: Opt(Nullable(Type.Number())), targetLevel: Opt(Nullable(Type.Integer())), lastUpdated: Opt(Time) },
        { additionalProperties: false },
      ),
    ),
    pets: Opt(Nullable(Type.Array(Pet, { maxItems: 500 }))),
    weaponInHuntaxe: Opt(ItemState),
    huntingToolkitItems: Opt(Nullable(Type.Array(ItemState, { maxItems: 50 }))),
    playerElectionVote: Opt(Type.Object({ votedFor: Nullable(Text(64)), voteCount: Count }, { additionalProperties: false })),
    mithrilPowder: Opt(Coins),
    currentTask: Opt(Nullable(Text(200))),
    currentTaskSince: Opt(Time),
    claimedTask: Opt(Nullable(Text(200))),
    claimedAt: Opt(Time),
    currentSession: Opt(
      Type.Object(
        { detectedTask: Nullable(Text(200)), startTime: Time, lastItemTime: Time, server: Nullable(Text(64)), location: Nullable(Text(64)), items: Nullable(SmallMap(Count)) },
        { additionalProperties: false },
      ),
    ),
    purse: Opt(Type.Number({ minimum: -1, maximum: 1e15 })),
    bits: Opt(Count),
    boosterCookieExpires: Opt(Time),
    kuudraStart: Opt(Time),
    katStatus: Opt(Type.Object({ isKatActive: Type.Boolean(), katEnd: Time, itemName: Nullable(Text(200)) }, { additionalProperties: false })),
    forgeItems: Opt(Nullable(Type.Array(Type.Object({ itemName: Nullable(Text(200)), forgeEnd: Time, tag: Nullable(Text(64)) }, { additionalProperties: false }), { maxItems: 10 }))),
    /** unlocked tier per collection, by collection id (`WHEAT`, `INK_SACK:3`) or name ("Cocoa Beans") */
    collections: Opt(Levels(100)),
    /** level per skill (`farming`, `mining`, `hotm` …) */
    skills: Opt(Levels(100)),
    /** level per slayer (`zombie`, `spider`, `wolf`, `enderman`, `blaze`, `vampire`) */
    slayers: Opt(Levels(20)),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Fill = Type.Object({ playerName: Nullable(Name), amount: Count, timeStamp: Time }, { additionalProperties: false });
export const OrderUpload = Type.Object(
  {
    isSell: Type.Boolean(),
    itemTag: Tag,
    itemName: Opt(Nullable(Text(200))),
    amount: Type.Integer({ minimum: 1, maximum: 71_680 * 10 }),
    filled: Type.Integer({ minimum: 0, maximum: 71_680 * 10 }),
    pricePerUnit: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }),
    created: Time,
    customers: Opt(Nullable(Type.Array(Fill, { maxItems: 200 }))),
  },
  { additionalProperties: false },
);

export const COMMANDS = {
  auth: Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
  ping: Type.Object({}, { additionalProperties: false }),
  'link.start': Type.Object({ playerUuid: Uuid, playerName: Opt(Name) }, { additionalProperties: false }),
  'link.status': Type.Object({}, { additionalProperties: false }),
  'state.upload': Type.Object({ profileUuid: Opt(Nullable(Uuid)), state: ExtractedPatch }, { additionalProperties: false }),
  'orders.upload': Type.Object({ orders: Type.Array(OrderUpload, { maxItems: LIMITS.orders }) }, { additionalProperties: false }),
  'flip.report': Type.Object(
    { itemTag: Tag, itemName: Opt(Nullable(Text(200))), amount: Type.Integer({ minimum: 1, maximum: 10_000_000 }), buyPrice: Coins, sellPrice: Coins, soldAt: Time },
    { additionalProperties: false },
  ),
  'names.upload': Type.Object(
    { players: Type.Array(Type.Object({ uuid: Uuid, name: Name }, { additionalProperties: false }), { minItems: 1, maxItems: LIMITS.names }) },
    { additionalProperties: false },
  ),
  'lowball.create': Type.Object(
    {
      item: Type.String({ minLength: 4, maxLength: LIMITS.itemBase64, description: 'base64 of gzipped NBT, legacy (1.8) or 1.21 component layout' }),
      askingPrice: Type.Integer({ minimum: 1, maximum: 1e13 }),
    },
    { additionalProperties: false },
  ),
  'npcshop.upload': Type.Object(
    {
      npcName: Type.String({ minLength: 1, maxLength: 64 }),
      offers: Type.Array(
        Type.Object(
          {
            itemTag: Tag,
            count: Type.Integer({ minimum: 1, maximum: 2304 }),
            costs: Type.Array(Type.Object({ tag: Tag, amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e12 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 8 }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: LIMITS.npcOffers },
      ),
    },
    { additionalProperties: false },
  ),
  'apikey.create': Type.Object({ profileUuid: Opt(Nullable(Uuid)) }, { additionalProperties: false }),
  'apikey.list': Type.Object({}, { additionalProperties: false }),
  'apikey.revoke': Type.Object({ id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
} as const;

export type CommandName = keyof typeof COMMANDS;
export type CommandData<C extends CommandName> = Static<(typeof COMMANDS)[C]>;

export const Envelope = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 32 }),
    id: Opt(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()])),
    data: Opt(Type.Unknown()),
  },
  { additionalProperties: false },
);

export const envelope = Compile(Envelope);
export const validators = Object.fromEntries(Object.entries(COMMANDS).map(([name, schema]) => [name, Compile(schema)])) as {
  [C in CommandName]: Validator<{}, (typeof COMMANDS)[C]>;
};

export function isCommand(type: string): type is CommandName {
  return Object.hasOwn(COMMANDS, type);
}

/** Validation errors grouped by field path (`data.orders.3.amount`), like the HTTP problems. */
export function describeErrors(validator: Validator, value: unknown, prefix = 'data'): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of validator.Errors(value).slice(0, 20)) {
    const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const key = path ? `${prefix}.${path}` : prefix;
    (out[key] ??= []).push(e.message);
  }
  return out;
}

// Every ExtractedInfo field is uploadable: the patch schema and the domain list must agree.
const patchFields = Object.keys(ExtractedPatch.properties).sort().join(',');
if (patchFields !== [...EXTRACTED_FIELDS].sort().join(',')) throw new Error('ExtractedPatch and EXTRACTED_FIELDS disagree');
