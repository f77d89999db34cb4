// Writes types/sandbox-spec.d.ts and types/egress-log.d.ts from the contracts'
// JSON Schemas, so that the API's spec and log-line types are the contract's.
// Run by a developer when a schema changes (tests/integration/test_typescript_api.py
// fails while the committed files differ from what this prints):
//   node packaging/npm/sandbox-kubernetes/generate-types.mjs [--check]
// json-schema-to-typescript comes from tests/tools/typescript (its lock file).
import {readFile, writeFile} from 'node:fs/promises';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const require = createRequire(path.join(repo, 'tests/tools/typescript/package.json'));
const {compile} = require('json-schema-to-typescript');

const outputs = [
  ['contracts/sandbox-spec.schema.json', 'SandboxSpec', 'types/sandbox-spec.d.ts'],
  ['contracts/egress-log.schema.json', 'EgressLogLine', 'types/egress-log.d.ts'],
];
const banner = '// Generated from %s by generate-types.mjs: do not edit.';

let stale = [];
for (const [schemaFile, name, out] of outputs) {
  const schema = JSON.parse(await readFile(path.join(repo, schemaFile), 'utf8'));
  schema.title = name;
  const text = await compile(schema, name, {
    bannerComment: banner.replace('%s', schemaFile),
    additionalProperties: false,
    strictIndexSignatures: true,
    format: false,
    unknownAny: true,
  });
  const target = path.join(here, out);
  if (process.argv.includes('--check')) {
    const current = await readFile(target, 'utf8').catch(() => '');
    if (current !== text) stale.push(out);
  } else {
    await writeFile(target, text);
  }
}
if (stale.length) {
  console.error(`stale: ${stale.join(', ')} (run node packaging/npm/sandbox-kubernetes/generate-types.mjs)`);
  process.exit(1);
}
