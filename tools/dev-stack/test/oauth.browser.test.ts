/**
 * Connecting an app through OAuth in a real headless Chromium on the local platform: the portal's
 * sign-in and consent pages (axe-core: no serious or critical violation), the code back at the
 * app's loopback redirect, Settings, Apps revoking it (src/oauth-journeys.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '@cw-tools/testing';
import { startPlatform, type Platform } from './support/test-platform';
import { CHROMIUM_ARGS, chromiumPath, portalEnv, signIn, type PortalEnv } from '../src/portal-journeys';
import { connectAppJourney, revokeAppJourney } from '../src/oauth-journeys';

let platform: Platform;
let env: PortalEnv;
let browser: Browser;
let mailDir: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  const problem = inject('chromiumProblem');
  if (problem) throw new Error(problem);
  mailDir = mkdtempSync(join(tmpdir(), 'oauth-browser-mail-'));
  // A real port: the issuer (the portal URL) carries it, as the tokens' `iss` and the redirects do.
  const port = String(await freePort());
  platform = await startPlatform({ env: { PORT: port, NODE_ENV: 'test', LOG_LEVEL: 'silent' }, seedProducts: 50, credentialsPath: null, mailDir });
  env = portalEnv(platform, mailDir);
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await platform?.stop();
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

async function newPage(): Promise<Page> {
  // The pages' CSP (script-src 'self') would block the injected axe script: this context bypasses it.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  contexts.push(context);
  return context.newPage();
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; html: string }>;
}

/** axe-core's serious and critical violations of each page the journeys pass, by page. */
const found: Record<string, Violation[]> = {};
async function audit(name: string, page: Page): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  const result = await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.axe.run(html.ownerDocument, { resultTypes: ['violations'] }));
  found[name] = (result as { violations: Violation[] }).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));
}

describe('connecting an app', () => {
  it('the owner signs in on the portal page, reads what the app asks for, allows it, and revokes it in Settings, Apps', async () => {
    const page = await newPage();
    const owner = env.credentials.publishers[0]!.portal_login;
    const app = await connectAppJourney(page, env, owner, 'Journey <i>Agent</i>', audit);
    // The name is text, never markup; the redirect host and each scope in words.
    expect(app.consentText).toContain('Journey <i>Agent</i>');
    expect(app.consentText).toContain(new URL(app.redirectUri).host);
    expect(app.consentText).toContain('Apply to programs and create tracking links');
    expect(app.consentText).toContain('MCP');
    expect(app.scopes.filter((s) => s.checked && !s.disabled)).toHaveLength(5);
    expect(app.tokens).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });

    const revoked = await revokeAppJourney(page, env, app, audit);
    expect(revoked.row).toContain(owner.email);
    expect(revoked.gone).toBe(true);
    expect(revoked.refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(Object.keys(found)).toEqual(['oauth-signin', 'oauth-consent', 'settings-apps']);
    expect(found).toEqual({ 'oauth-signin': [], 'oauth-consent': [], 'settings-apps': [] });
  });

  it('an analyst already signed in continues as themselves; links:write is shown but cannot be ticked', async () => {
    const page = await newPage();
    await signIn(page, env, env.credentials.fixtures.analyst_login);
    const app = await connectAppJourney(page, env, null, 'Analyst Agent');
    const links = app.scopes.find((s) => s.name.includes('links:write'));
    expect(links).toMatchObject({ checked: false, disabled: true });
    expect(app.consentText).toContain('cannot allow this');
    const payload = JSON.parse(Buffer.from(String(app.tokens.access_token).split('.')[1]!, 'base64url').toString()) as { scope: string };
    expect(payload.scope.split(' ')).not.toContain('links:write');
    expect(payload.scope.split(' ')).toContain('catalog:read');
  });
});
