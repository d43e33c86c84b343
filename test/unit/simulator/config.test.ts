import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SIMULATOR_OPTIONS, parseDuration, simulatorOptionsFromEnv } from '../../../src/simulator/config.ts';
import { parseFaultSpec } from '../../../src/simulator/faults.ts';

test('defaults from an empty environment', () => {
  const o = simulatorOptionsFromEnv({});
  assert.equal(o.seed, 1);
  assert.equal(o.auctions, 2000);
  assert.equal(o.products, undefined);
  assert.equal(o.generationSeconds, 60);
  assert.equal(o.bazaarSeconds, 20);
  assert.equal(o.backfillMs, 86_400_000);
  assert.deepEqual(o.faults, {});
  assert.equal(o.port, DEFAULT_SIMULATOR_OPTIONS.port);
  assert.equal(o.salesPerDay, undefined);
});

test('reads every variable', () => {
  const o = simulatorOptionsFromEnv({
    SIM_SEED: '42',
    SIM_AUCTIONS: '100000',
    SIM_PRODUCTS: '50',
    SIM_GENERATION_SECONDS: '5',
    SIM_BAZAAR_SECONDS: '2.5',
    SIM_BACKFILL: '7d',
    SIM_FAULTS: 'error=0.05,slow=0.1,truncate=0.02,corruptNbt=0.01,mixed=0.05',
    SIM_PORT: '8090',
    SIM_YEAR_HOURS: '2',
    SIM_SALES_PER_DAY: '500000',
  });
  assert.equal(o.seed, 42);
  assert.equal(o.auctions, 100_000);
  assert.equal(o.products, 50);
  assert.equal(o.generationSeconds, 5);
  assert.equal(o.bazaarSeconds, 2.5);
  assert.equal(o.backfillMs, 7 * 86_400_000);
  assert.deepEqual(o.faults, { error: 0.05, slow: 0.1, truncate: 0.02, corruptNbt: 0.01, mixed: 0.05 });
  assert.equal(o.port, 8090);
  assert.equal(o.yearMs, 7_200_000);
  assert.equal(o.salesPerDay, 500_000);
});

test('durations', () => {
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('12h'), 43_200_000);
  assert.equal(parseDuration('30m'), 1_800_000);
  assert.equal(parseDuration('1.5d'), 129_600_000);
  assert.throws(() => parseDuration('12'), /needs a unit/);
});

test('invalid values throw one-line errors naming the variable', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SIM_SEED: 'x' }, /^SIM_SEED /],
    [{ SIM_SEED: '-1' }, /^SIM_SEED /],
    [{ SIM_AUCTIONS: '1e9' }, /^SIM_AUCTIONS /],
    [{ SIM_AUCTIONS: '12.5' }, /^SIM_AUCTIONS /],
    [{ SIM_PRODUCTS: '0' }, /^SIM_PRODUCTS /],
    [{ SIM_GENERATION_SECONDS: '0' }, /^SIM_GENERATION_SECONDS /],
    [{ SIM_BAZAAR_SECONDS: 'fast' }, /^SIM_BAZAAR_SECONDS /],
    [{ SIM_BACKFILL: 'forever' }, /^SIM_BACKFILL /],
    [{ SIM_BACKFILL: '365d' }, /^SIM_BACKFILL /],
    [{ SIM_FAULTS: 'error=2' }, /^SIM_FAULTS: "error"/],
    [{ SIM_FAULTS: 'explode=0.1' }, /^SIM_FAULTS: unknown fault "explode"/],
    [{ SIM_FAULTS: 'slowMs=abc' }, /^SIM_FAULTS: "slowMs"/],
    [{ SIM_PORT: '70000' }, /^SIM_PORT /],
    [{ SIM_SALES_PER_DAY: '0' }, /^SIM_SALES_PER_DAY /],
    [{ SIM_SALES_PER_DAY: '1e7' }, /^SIM_SALES_PER_DAY /],
    [{ SIM_HOST: 'bad host!' }, /^SIM_HOST /],
  ];
  for (const [env, re] of cases) {
    assert.throws(
      () => simulatorOptionsFromEnv(env),
      (e: unknown) => e instanceof Error && re.test(e.message) && !e.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

test('fault spec parsing', () => {
  assert.deepEqual(parseFaultSpec(''), {});
  assert.deepEqual(parseFaultSpec(' swap404=0.5 , notReady '), { swap404: 0.5, notReady: true });
  assert.deepEqual(parseFaultSpec('slowMs=100,notReady=false'), { slowMs: 100, notReady: false });
});
