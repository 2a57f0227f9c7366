// Generate src/generated/api.ts from the committed OpenAPI document
// (../docs/openapi.json, written by `python -m jupyter_accel.openapi`).
//   node scripts/gen-types.mjs          write the file
//   node scripts/gen-types.mjs --check  fail when the committed file is stale
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const spec = resolve(root, '..', 'docs', 'openapi.json');
const target = resolve(root, 'src', 'generated', 'api.ts');
const check = process.argv.includes('--check');

const ast = await openapiTS(pathToFileURL(spec), { alphabetize: true });
const source = `${COMMENT_HEADER}${astToString(ast)}`;

if (check) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== source) {
    console.error(
      `${relative(process.cwd(), target)} is stale: it does not match ` +
        `${relative(process.cwd(), spec)}. Run \`npm run gen:types\` in labextension/ ` +
        '(after `python -m jupyter_accel.openapi` if the server models changed).'
    );
    process.exit(1);
  }
  console.log(`${relative(process.cwd(), target)} is up to date.`);
} else {
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, source);
  console.log(`wrote ${relative(process.cwd(), target)}`);
}
