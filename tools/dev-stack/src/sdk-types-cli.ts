/** `npm run sdk:generate`: writes the TypeScript SDK's types from the apps' OpenAPI documents. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSdkTypes, SDK_TYPES_DIR } from './sdk-types';

mkdirSync(SDK_TYPES_DIR, { recursive: true });
for (const [name, text] of Object.entries(await generateSdkTypes())) {
  writeFileSync(join(SDK_TYPES_DIR, name), text);
  console.log(`wrote ${join(SDK_TYPES_DIR, name)}`);
}
