// RFC 6902 JSON Patch application (fast-json-patch), never mutating the input view.

import { applyPatch as applyJsonPatch } from '../vendor/fast-json-patch/index.mjs';

/** The document after `ops`; throws when an op does not apply (e.g. a missing path). */
export function applyPatch(doc, ops) {
  if (ops.length === 0) return doc;
  return applyJsonPatch(doc, ops, /* validate */ true, /* mutateDocument */ false).newDocument;
}
