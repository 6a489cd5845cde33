/**
 * The TypeScript SDK's generated types, and the portal front end's, match the OpenAPI documents the
 * apps serve: a route, parameter or schema changed without `npm run sdk:generate` fails here (and in CI).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatePortalTypes, generateSdkTypes, PORTAL_TYPES_FILE, SDK_TYPES_DIR } from '../src/sdk-types';

describe('TypeScript SDK types', () => {
  it('are what openapi-typescript makes of the served documents today (run npm run sdk:generate when this fails)', async () => {
    const fresh = await generateSdkTypes();
    expect(readdirSync(SDK_TYPES_DIR).sort()).toEqual(Object.keys(fresh).sort());
    for (const [name, text] of Object.entries(fresh)) {
      expect(readFileSync(join(SDK_TYPES_DIR, name), 'utf8'), `${name} is stale: npm run sdk:generate`).toBe(text);
    }
  });

  it("the portal front end's are what openapi-typescript makes of the portal's served document today (run npm run sdk:generate when this fails)", async () => {
    expect(readFileSync(PORTAL_TYPES_FILE, 'utf8'), 'apps/portal/web/src/api/generated/portal.ts is stale: npm run sdk:generate').toBe(
      await generatePortalTypes(),
    );
  });
});
