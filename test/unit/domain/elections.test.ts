import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { electionLeader } from '../../../src/domain/elections.ts';

describe('flip engine helpers', () => {
  it('the next mayor is the leading candidate of an open election', () => {
    assert.equal(electionLeader({ current: { candidates: [{ name: 'Paul', votes: 3 }, { name: 'Diana', votes: 9 }] } }), 'Diana');
    assert.equal(electionLeader({}), null);
    assert.equal(electionLeader({ current: { candidates: [] } }), null);
  });
});
