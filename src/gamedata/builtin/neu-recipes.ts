/**
 * Real forge and Kat recipes for the built-in catalog, so the demo's Forge and Kat flips have
 * data: copied verbatim (NEU's own JSON) from the NotEnoughUpdates item repository
 * (https://github.com/NotEnoughUpdates/NotEnoughUpdates-REPO, commit 1afa195358d35f66106a135965e22d2948af04e7,
 * the snapshot in test/fixtures/neu-repo; the file each comes from above it), MIT licence: the
 * notice is in LICENSE-NotEnoughUpdates-REPO beside this file. Taken: every forge and katgrade
 * recipe of that snapshot whose item, both pet rarities and materials the simulator already trades
 * (test/unit/gamedata/builtin-neu.test.ts checks each against the fixture). Read by the NEU
 * loader's own parsers (gamedata/neu.ts), as a synced repository would be.
 */

/** NEU `forge` recipes, each of the item file named above it. */
export const NEU_FORGE_RECIPES: ReadonlyArray<{ output: string; recipe: Readonly<Record<string, unknown>> }> = [
  // items/REFINED_MITHRIL.json
  { output: 'REFINED_MITHRIL', recipe: {"type":"forge","inputs":["ENCHANTED_MITHRIL:160"],"count":1,"overrideOutputId":"REFINED_MITHRIL","duration":21600} },
  // items/REFINED_TITANIUM.json
  { output: 'REFINED_TITANIUM', recipe: {"type":"forge","inputs":["ENCHANTED_TITANIUM:16"],"count":1,"overrideOutputId":"REFINED_TITANIUM","duration":43200} },
];

/** NEU `katgrade` recipes (pet rarity upgrades at Kat). */
export const NEU_KAT_UPGRADES: ReadonlyArray<Readonly<Record<string, unknown>>> = [
  // items/ARMADILLO;3.json
  {"type":"katgrade","coins":250000,"time":172800,"input":"ARMADILLO;2","output":"ARMADILLO;3","items":[]},
  // items/ARMADILLO;4.json
  {"type":"katgrade","coins":1000000,"time":432000,"input":"ARMADILLO;3","output":"ARMADILLO;4","items":[]},
  // items/BAT;3.json
  {"type":"katgrade","coins":25000,"time":900,"input":"BAT;2","output":"BAT;3","items":["ENCHANTED_RED_MUSHROOM:8","ENCHANTED_BROWN_MUSHROOM:8"]},
  // items/BAT;4.json
  {"type":"katgrade","coins":50000,"time":1800,"input":"BAT;3","output":"BAT;4","items":["ENCHANTED_RED_MUSHROOM:16","ENCHANTED_BROWN_MUSHROOM:16"]},
  // items/BLAZE;4.json
  {"type":"katgrade","coins":2500000,"time":432000,"input":"BLAZE;3","output":"BLAZE;4","items":["ENCHANTED_BLAZE_ROD:8"]},
  // items/BLUE_WHALE;3.json
  {"type":"katgrade","coins":900000,"time":604800,"input":"BLUE_WHALE;2","output":"BLUE_WHALE;3","items":["ENCHANTED_COOKED_FISH:1"]},
  // items/BLUE_WHALE;4.json
  {"type":"katgrade","coins":9000000,"time":1036800,"input":"BLUE_WHALE;3","output":"BLUE_WHALE;4","items":["ENCHANTED_COOKED_FISH:8"]},
  // items/DOLPHIN;3.json
  {"type":"katgrade","coins":10000000,"time":604800,"input":"DOLPHIN;2","output":"DOLPHIN;3","items":[]},
  // items/DOLPHIN;4.json
  {"type":"katgrade","coins":50000000,"time":1209600,"input":"DOLPHIN;3","output":"DOLPHIN;4","items":["ENCHANTED_RAW_FISH:16"]},
  // items/ELEPHANT;3.json
  {"type":"katgrade","coins":900000,"time":432000,"input":"ELEPHANT;2","output":"ELEPHANT;3","items":[]},
  // items/ELEPHANT;4.json
  {"type":"katgrade","coins":14000000,"time":864000,"input":"ELEPHANT;3","output":"ELEPHANT;4","items":[]},
  // items/ENDERMAN;3.json
  {"type":"katgrade","coins":10000,"time":518400,"input":"ENDERMAN;2","output":"ENDERMAN;3","items":[]},
  // items/ENDERMAN;4.json
  {"type":"katgrade","coins":40000000,"time":1036800,"input":"ENDERMAN;3","output":"ENDERMAN;4","items":["ENCHANTED_EYE_OF_ENDER:8"]},
  // items/ENDER_DRAGON;4.json
  {"type":"katgrade","coins":400000000,"time":1728000,"input":"ENDER_DRAGON;3","output":"ENDER_DRAGON;4","items":["SUMMONING_EYE:8"]},
  // items/FLYING_FISH;3.json
  {"type":"katgrade","coins":250000,"time":432000,"input":"FLYING_FISH;2","output":"FLYING_FISH;3","items":[]},
  // items/FLYING_FISH;4.json
  {"type":"katgrade","coins":1000000,"time":864000,"input":"FLYING_FISH;3","output":"FLYING_FISH;4","items":["ENCHANTED_RAW_FISH:64"]},
  // items/GHOUL;4.json
  {"type":"katgrade","coins":5000000,"time":864000,"input":"GHOUL;3","output":"GHOUL;4","items":["REVENANT_FLESH:512"]},
  // items/GIRAFFE;4.json
  {"type":"katgrade","coins":9000000,"time":1036800,"input":"GIRAFFE;3","output":"GIRAFFE;4","items":["ENCHANTED_ACACIA_LOG:512"]},
  // items/HOUND;4.json
  {"type":"katgrade","coins":5000000,"time":864000,"input":"HOUND;3","output":"HOUND;4","items":["WOLF_TOOTH:512"]},
  // items/JELLYFISH;4.json
  {"type":"katgrade","coins":15000000,"time":864000,"input":"JELLYFISH;3","output":"JELLYFISH;4","items":["ENCHANTED_SLIME_BALL:16"]},
  // items/LION;3.json
  {"type":"katgrade","coins":900000,"time":604800,"input":"LION;2","output":"LION;3","items":[]},
  // items/LION;4.json
  {"type":"katgrade","coins":14000000,"time":1036800,"input":"LION;3","output":"LION;4","items":["ENCHANTED_RAW_BEEF:1024"]},
  // items/MEGALODON;4.json
  {"type":"katgrade","coins":10000000,"time":1728000,"input":"MEGALODON;3","output":"MEGALODON;4","items":[]},
  // items/MITHRIL_GOLEM;3.json
  {"type":"katgrade","coins":25000,"time":900,"input":"MITHRIL_GOLEM;2","output":"MITHRIL_GOLEM;3","items":["ENCHANTED_MITHRIL:16"]},
  // items/MITHRIL_GOLEM;4.json
  {"type":"katgrade","coins":50000,"time":1800,"input":"MITHRIL_GOLEM;3","output":"MITHRIL_GOLEM;4","items":["ENCHANTED_MITHRIL:32"]},
  // items/MONKEY;3.json
  {"type":"katgrade","coins":900000,"time":604800,"input":"MONKEY;2","output":"MONKEY;3","items":[]},
  // items/MONKEY;4.json
  {"type":"katgrade","coins":17000000,"time":1036800,"input":"MONKEY;3","output":"MONKEY;4","items":[]},
  // items/OCELOT;4.json
  {"type":"katgrade","coins":50000,"time":1800,"input":"OCELOT;3","output":"OCELOT;4","items":["ENCHANTED_JUNGLE_LOG:32"]},
  // items/PARROT;4.json
  {"type":"katgrade","coins":15000000,"time":864000,"input":"PARROT;3","output":"PARROT;4","items":["ENCHANTED_FEATHER:16"]},
  // items/PHOENIX;4.json
  {"type":"katgrade","coins":100000000,"time":1728000,"input":"PHOENIX;3","output":"PHOENIX;4","items":["ENCHANTED_BLAZE_POWDER:1024"]},
  // items/ROCK;3.json
  {"type":"katgrade","coins":10000000,"time":604800,"input":"ROCK;2","output":"ROCK;3","items":[]},
  // items/ROCK;4.json
  {"type":"katgrade","coins":50000000,"time":1209600,"input":"ROCK;3","output":"ROCK;4","items":["ENCHANTED_COBBLESTONE:64"]},
  // items/SCATHA;3.json
  {"type":"katgrade","coins":125000000,"time":604800,"input":"SCATHA;2","output":"SCATHA;3","items":["ENCHANTED_HARD_STONE:64"]},
  // items/SCATHA;4.json
  {"type":"katgrade","coins":250000000,"time":1209600,"input":"SCATHA;3","output":"SCATHA;4","items":["ENCHANTED_HARD_STONE:256"]},
  // items/SILVERFISH;3.json
  {"type":"katgrade","coins":5000,"time":30,"input":"SILVERFISH;2","output":"SILVERFISH;3","items":["COBBLESTONE:512"]},
  // items/SILVERFISH;4.json
  {"type":"katgrade","coins":10000,"time":45,"input":"SILVERFISH;3","output":"SILVERFISH;4","items":["ENCHANTED_COBBLESTONE:8"]},
  // items/SPIDER;3.json
  {"type":"katgrade","coins":25000,"time":900,"input":"SPIDER;2","output":"SPIDER;3","items":["ENCHANTED_STRING:16","ENCHANTED_SPIDER_EYE:8"]},
  // items/SPIDER;4.json
  {"type":"katgrade","coins":50000,"time":1800,"input":"SPIDER;3","output":"SPIDER;4","items":["ENCHANTED_STRING:32","ENCHANTED_SPIDER_EYE:16"]},
  // items/SQUID;3.json
  {"type":"katgrade","coins":500000,"time":172800,"input":"SQUID;2","output":"SQUID;3","items":[]},
  // items/SQUID;4.json
  {"type":"katgrade","coins":3000000,"time":432000,"input":"SQUID;3","output":"SQUID;4","items":["ENCHANTED_INK_SACK:64"]},
  // items/TARANTULA;4.json
  {"type":"katgrade","coins":5000000,"time":864000,"input":"TARANTULA;3","output":"TARANTULA;4","items":["TARANTULA_WEB:512"]},
  // items/TIGER;3.json
  {"type":"katgrade","coins":900000,"time":604800,"input":"TIGER;2","output":"TIGER;3","items":[]},
  // items/TIGER;4.json
  {"type":"katgrade","coins":14000000,"time":1036800,"input":"TIGER;3","output":"TIGER;4","items":["ENCHANTED_RAW_CHICKEN:1024"]},
  // items/TURTLE;4.json
  {"type":"katgrade","coins":15000000,"time":864000,"input":"TURTLE;3","output":"TURTLE;4","items":["ENCHANTED_RAW_FISH:16"]},
  // items/WITHER_SKELETON;4.json
  {"type":"katgrade","coins":250000,"time":43200,"input":"WITHER_SKELETON;3","output":"WITHER_SKELETON;4","items":["ENCHANTED_COAL:128"]},
  // items/WOLF;3.json
  {"type":"katgrade","coins":25000,"time":900,"input":"WOLF;2","output":"WOLF;3","items":["ENCHANTED_SPRUCE_LOG:16"]},
  // items/WOLF;4.json
  {"type":"katgrade","coins":50000,"time":1800,"input":"WOLF;3","output":"WOLF;4","items":["ENCHANTED_SPRUCE_LOG:32"]},
];
