#!/usr/bin/env node
/**
 * Refreshes the string enums of test/medium/conformance/established-types.json from the established
 * service's generated client schema (hypixel-react `api/_generated/skyApi.schemas.ts`): every
 * `export const Name = { … } as const` of string values replaces the `enum` of the `$defs` entry
 * of the same name, in the client's order. The object types are kept by hand (they need the
 * nullability and required lists read from the interfaces); this keeps the enums, which change
 * most often (new reforges, renamed values), exactly as the client has them. Usage:
 *   node scripts/refresh-established-enums.mjs path/to/skyApi.schemas.ts [--add Name ...]
 * `--add` creates `$defs` entries for client enums the file does not hold yet. Prints what changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const [schemaPath, ...rest] = process.argv.slice(2);
if (!schemaPath) {
  console.error('usage: node scripts/refresh-established-enums.mjs path/to/skyApi.schemas.ts [--add Name ...]');
  process.exit(1);
}
const add = rest[0] === '--add' ? rest.slice(1) : [];
const typesUrl = new URL('../test/medium/conformance/established-types.json', import.meta.url);

/** The client's string enums by name (integer enums such as FilterType are left out). */
function clientEnums(source) {
  const out = new Map();
  for (const m of source.matchAll(/export const (\w+) = \{([\s\S]*?)\} as const/g)) {
    const values = [...m[2].matchAll(/^\s*[\w$]+:\s*'([^']*)',?\s*$/gm)].map((v) => v[1]);
    if (values.length > 0) out.set(m[1], values);
  }
  return out;
}

const enums = clientEnums(readFileSync(schemaPath, 'utf8'));
const types = JSON.parse(readFileSync(typesUrl, 'utf8'));
for (const name of add) {
  if (!enums.has(name)) throw new Error(`${name} is no string enum of the client`);
  types.$defs[name] ??= { type: 'string', enum: [] };
}
let changed = 0;
for (const [name, def] of Object.entries(types.$defs)) {
  const values = enums.get(name);
  if (!values || !Array.isArray(def.enum)) continue;
  const gone = def.enum.filter((v) => !values.includes(v));
  const added = values.filter((v) => !def.enum.includes(v));
  if (gone.length === 0 && added.length === 0 && def.enum.every((v, i) => v === values[i])) continue;
  console.log(`${name}: +[${added.join(', ')}] -[${gone.join(', ')}]`);
  def.enum = values;
  changed++;
}
// The file's own style: one-space indent, non-ASCII escaped.
const text = JSON.stringify(types, null, 1).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
writeFileSync(typesUrl, `${text}\n`);
console.log(`${changed} enum(s) refreshed`);
