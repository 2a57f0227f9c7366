// Generate src/generated/api.ts (the types) and src/generated/limits.ts (the request
// fields' limits, so forms check what the server checks) from the committed OpenAPI
// document (../docs/openapi.json, written by `python -m jupyter_accel.openapi`).
//   node scripts/gen-types.mjs          write the file
//   node scripts/gen-types.mjs --check  fail when the committed file is stale
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const spec = resolve(root, '..', 'docs', 'openapi.json');
const check = process.argv.includes('--check');

const ast = await openapiTS(pathToFileURL(spec), { alphabetize: true });
const types = `${COMMENT_HEADER}${astToString(ast)}`;

// Every constraint of a schema's properties (a nullable field's from its non-null branch).
const KEYS = ['pattern', 'maxLength', 'minLength', 'minimum', 'maximum'];
function limitsOf(schema) {
  const out = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const branch = (prop.anyOf ?? [prop]).find(b => b.type !== 'null') ?? prop;
    const found = Object.fromEntries(
      KEYS.filter(k => k in branch).map(k => [k, branch[k]])
    );
    if (Object.keys(found).length) {
      out[name] = found;
    }
  }
  return out;
}
const schemas = JSON.parse(await readFile(spec, 'utf8')).components.schemas;
const limits =
  `${COMMENT_HEADER}\n/** Limits of JobRequest fields, as the server validates them. */\n` +
  `export const JOB_REQUEST_LIMITS = ${JSON.stringify(limitsOf(schemas.JobRequest), null, 2)} as const;\n\n` +
  `/** Limits of AcceleratorRequest fields. */\n` +
  `export const ACCELERATOR_REQUEST_LIMITS = ${JSON.stringify(limitsOf(schemas.AcceleratorRequest), null, 2)} as const;\n`;

let stale = false;
for (const [file, source] of [
  ['api.ts', types],
  ['limits.ts', limits]
]) {
  const target = resolve(root, 'src', 'generated', file);
  if (check) {
    const committed = await readFile(target, 'utf8').catch(() => '');
    if (committed !== source) {
      console.error(
        `${relative(process.cwd(), target)} is stale: it does not match ` +
          `${relative(process.cwd(), spec)}. Run \`npm run gen:types\` in labextension/ ` +
          '(after `python -m jupyter_accel.openapi` if the server models changed).'
      );
      stale = true;
    } else {
      console.log(`${relative(process.cwd(), target)} is up to date.`);
    }
  } else {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, source);
    console.log(`wrote ${relative(process.cwd(), target)}`);
  }
}
if (stale) {
  process.exit(1);
}
