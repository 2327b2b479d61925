// vendor/ (committed, served to browsers) is exactly the locked npm packages' ES modules.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';

import { JS_ROOT } from '../testing/hub.js';

it('vendor/ matches node_modules', () => {
  const out = execFileSync(process.execPath, [join(JS_ROOT, 'scripts', 'vendor.js'), '--check'], { encoding: 'utf8' });
  assert.equal(out, '');
});
