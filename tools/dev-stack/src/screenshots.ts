/**
 * `npm run screenshots`: the portal's pictures in the README, retaken by driving the same
 * journeys as the browser test (portal-journeys.ts) on a fresh in-memory platform, in headless
 * Chromium at 1280×800. Writes docs/screenshots/<name>.png for the moments listed in SHOTS.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { REPO_ROOT, startPlatform } from './platform';
import {
  CHROMIUM_ARGS,
  chromiumPath,
  claimJourney,
  inviteAnalystJourney,
  keyJourney,
  portalEnv,
  postbackJourney,
  signIn,
  signUpJourney,
  startReceiver,
  tourJourney,
  type Shoot,
} from './portal-journeys';

const OUT_DIR = resolve(REPO_ROOT, 'docs/screenshots');
/** The moments kept (a journey may shoot more); a later shot of the same name replaces an earlier one. */
const SHOTS = new Set([
  'signin',
  'signup',
  'claim',
  'dashboard',
  'dashboard-under-review',
  'postback',
  'postback-test',
  'keys',
  'team',
  'invitation',
  'security',
  'account',
]);
const VIEWPORT = { width: 1280, height: 800 };

const mailDir = mkdtempSync(join(tmpdir(), 'portal-screenshots-mail-'));
const platform = await startPlatform({
  env: { PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'silent' },
  seedProducts: 200,
  credentialsPath: null,
  mailDir,
  say: (m) => console.log(m),
});
const env = portalEnv(platform, mailDir);
const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
const receiver = await startReceiver();
mkdirSync(OUT_DIR, { recursive: true });
const written = new Set<string>();
const shoot: Shoot = async (name: string, page: Page) => {
  if (!SHOTS.has(name)) return;
  const path = join(OUT_DIR, `${name}.png`);
  // The caret and the transitions would differ between runs.
  await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  written.add(path);
};
const newPage = async () =>
  (await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light', locale: 'en-US', timezoneId: 'UTC' })).newPage();

let failed = false;
try {
  await signUpJourney(await newPage(), env, {
    shoot,
    person: { email: 'maya@trail-notes.example', accountName: 'Trail Notes', name: 'Maya Brandt', website: 'https://trail-notes.example/' },
  });
  await claimJourney(await newPage(), env, { shoot, email: 'jonas@gear-diary.example' });
  const owner = env.credentials.publishers[0]!.portal_login;
  const page = await newPage();
  await signIn(page, env, owner, { shoot });
  await postbackJourney(page, env, receiver, { shoot, password: owner.password });
  await keyJourney(page, env, { shoot, password: owner.password, label: 'Production server' });
  await inviteAnalystJourney(page, await newPage(), env, { shoot, password: owner.password, email: 'lena@trailhead-reviews.example' });
  await tourJourney(page, { shoot });
  for (const path of [...written].sort()) console.log(`${relative(REPO_ROOT, path)} (${Math.round(statSync(path).size / 1024)} KB)`);
  const missing = [...SHOTS].filter((n) => ![...written].some((p) => p.endsWith(`/${n}.png`)));
  if (missing.length) {
    console.error(`not taken: ${missing.join(', ')}`);
    failed = true;
  }
} catch (e) {
  console.error(e);
  failed = true;
} finally {
  await browser.close();
  await receiver.close();
  await platform.stop();
  rmSync(mailDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
