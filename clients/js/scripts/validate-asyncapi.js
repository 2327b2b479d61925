// Validate protocol/asyncapi.yaml with the AsyncAPI parser (@asyncapi/parser, the
// reference implementation): the document against the AsyncAPI 3 specification and
// its rules, every $ref resolved (the payloads are the JSON Schemas of
// protocol/v1/), every payload schema checked.  Prints the diagnostics; exits 1 on
// any error or warning, 0 when the document is clean.
//
// Usage: node scripts/validate-asyncapi.js [path/to/asyncapi.yaml]

import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

import { DiagnosticSeverity, fromFile, Parser } from '@asyncapi/parser';

const here = dirname(fileURLToPath(import.meta.url));
const path = resolve(process.argv[2] ?? resolve(here, '../../../protocol/asyncapi.yaml'));

const { document, diagnostics } = await fromFile(new Parser(), path).parse();
const names = { [DiagnosticSeverity.Error]: 'error', [DiagnosticSeverity.Warning]: 'warning' };
const problems = diagnostics.filter((d) => d.severity in names);
for (const d of problems) {
  const where = d.path?.join('.') || '(document)';
  console.error(`${names[d.severity]}: ${where}: ${d.message} [${d.code}]`);
}
if (!document || problems.length) {
  console.error(`${path}: not a valid AsyncAPI document (${problems.length} problems)`);
  process.exit(1);
}
const counts = `${document.operations().length} operations, ${document.messages().length} messages`;
console.log(`${path}: valid AsyncAPI ${document.version()} (${counts})`);
