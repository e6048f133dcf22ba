// The suite's vectors read straight into Node's own test runner, with no doublecheck process:
// every chess `moves` case of a tree written by `doublecheck export`, answered by engine.js.
//
//   doublecheck export vectors --variant chess
//   DOUBLECHECK_VECTORS=vectors node --test
//
// Moves compare as sets of coordinate text (e1g1 for castling, e7e8q for a promotion); a case
// that expects an error compares its code only. `doublecheck docs vectors` says how the other
// operations compare (a FEN, for one, compares as a position, never as a string).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { answer } from './engine.js';

const tree = process.env.DOUBLECHECK_VECTORS;
const folder = tree ? join(tree, 'cases', 'chess') : null;

function movesCases() {
  const found = [];
  for (const name of readdirSync(folder).filter(n => n.endsWith('.json')).sort()) {
    const file = JSON.parse(readFileSync(join(folder, name), 'utf8'));
    for (const c of file.cases) {
      if (c.request.op === 'moves') found.push({ ...c, variant: file.variant });
    }
  }
  return found;
}

if (!folder || !existsSync(folder)) {
  test('chess moves cases', t => t.skip('set DOUBLECHECK_VECTORS to a folder written by doublecheck export'));
} else {
  for (const c of movesCases()) {
    test(c.id, () => {
      const got = answer(JSON.stringify({ id: 1, variant: c.variant, ...c.request }));
      if (c.expect.error) {
        assert.equal(got.ok, false, `expected the error ${c.expect.error.code}`);
        assert.equal(got.error.code, c.expect.error.code);
        return;
      }
      assert.equal(got.ok, true, got.error && got.error.message);
      assert.deepEqual([...got.moves].sort(), [...c.expect.moves].sort());
    });
  }
}
