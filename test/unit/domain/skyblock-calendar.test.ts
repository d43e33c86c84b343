import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ELECTION_OPEN_PROGRESS,
  SKYBLOCK_EPOCH_MS,
  SKYBLOCK_YEAR_MS,
  skyblockYear,
  termEnd,
  termProgress,
  termStart,
  termYearAt,
  yearStart,
} from '../../../src/domain/skyblock-calendar.ts';

test('year 1 began 2019-06-11 17:55 UTC and a year is 124 hours', () => {
  assert.equal(new Date(SKYBLOCK_EPOCH_MS).toISOString(), '2019-06-11T17:55:00.000Z');
  assert.equal(skyblockYear(SKYBLOCK_EPOCH_MS), 1);
  assert.equal(skyblockYear(SKYBLOCK_EPOCH_MS - 1), 0);
  assert.equal(skyblockYear(yearStart(400)), 400);
  assert.equal(yearStart(2) - yearStart(1), SKYBLOCK_YEAR_MS);
});

test('a term starts on Late Spring 27 (day 88 of 372, 29 h 20 min into the year) and lasts a year', () => {
  assert.equal(termStart(400) - yearStart(400), 88 * 20 * 60_000);
  assert.equal(termEnd(400), termStart(401));
  for (const year of [1, 2, 399, 400]) {
    for (const yearMs of [SKYBLOCK_YEAR_MS, 2 * 3_600_000]) {
      assert.equal(termYearAt(termStart(year, yearMs), yearMs), year);
      assert.equal(termYearAt(termStart(year, yearMs) - 1, yearMs), year - 1);
      assert.equal(termYearAt(termEnd(year, yearMs) - 1, yearMs), year);
    }
  }
  // Before Late Spring 27 the previous year's mayor is still in office.
  assert.equal(termYearAt(yearStart(400) + 3_600_000), 399);
});

test('the booth opens on Late Summer 27, 93 days into the term', () => {
  assert.equal(ELECTION_OPEN_PROGRESS, 93 / 372);
  const open = termStart(400) + 93 * 20 * 60_000;
  assert.ok(Math.abs(termProgress(open) - ELECTION_OPEN_PROGRESS) < 1e-12);
  assert.equal(termProgress(termStart(400)), 0);
});
