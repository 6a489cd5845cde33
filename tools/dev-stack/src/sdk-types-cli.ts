/** `npm run sdk:generate`: writes the TypeScript SDK's types and the portal front end's from the apps' OpenAPI documents. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generatePortalTypes, generateSdkTypes, PORTAL_TYPES_FILE, SDK_TYPES_DIR } from './sdk-types';

mkdirSync(SDK_TYPES_DIR, { recursive: true });
for (const [name, text] of Object.entries(await generateSdkTypes())) {
  writeFileSync(join(SDK_TYPES_DIR, name), text);
  console.log(`wrote ${join(SDK_TYPES_DIR, name)}`);
}
mkdirSync(dirname(PORTAL_TYPES_FILE), { recursive: true });
writeFileSync(PORTAL_TYPES_FILE, await generatePortalTypes());
console.log(`wrote ${PORTAL_TYPES_FILE}`);
