// Test support: a solo Termite Towers path that meets given night (or day) choices,
// planned offline by termite_path.py with the hub's own engine and bot (see there).

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';

import { JS_ROOT, tablehubBin } from './hub.js';

/**
 * {seed, actions, met: {kind: index}} for a solo game with option `seed`: actions[index]
 * answers the first pending choice of that kind.
 */
export function termitePath(seed, kinds) {
  const python = join(dirname(tablehubBin()), 'python');
  const run = spawnSync(python, [join(JS_ROOT, 'testing', 'termite_path.py'), String(seed), ...kinds], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`termite_path.py failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
