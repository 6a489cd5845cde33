/**
 * The sign-in guard (ASVS 2.2.1): how many wrong passwords the portal takes, and from whom.
 *
 * - Failed sign-ins and re-authentications are counted per e-mail address (its keyed hash, whether
 *   or not it has an account) and per client address (an IPv6 address by its /64) in windows of
 *   `config.signin.windowSeconds` named by the clock. An attempt is let through only while this
 *   window's count and the last one's together stay within the budget, and it reserves its point
 *   before the password is checked (a right password gives it back): so no span of one window,
 *   wherever it falls, ever holds more failures than the budget, parallel attempts included.
 * - Attempts per e-mail address are also limited per minute the same way (bursts), right password
 *   or not.
 * - Beyond a budget an attempt answers 429 `rate_limited` with Retry-After; the failure that spends
 *   an account's budget mails its owner a one-time link that unlocks sign-in on the device that
 *   opens it.
 * - A device that signed in (or opened an unlock link) carries a cookie: a random id, the time it
 *   ends, and an HMAC binding both to the person, under the platform's secret key. For that
 *   person, from that device, the budgets above do not apply, so nobody can lock a known address
 *   out by guessing at it; its own failures are counted, and after `deviceFailures` in a row it is
 *   trusted no more (a right password afterwards counts as from a new device).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@cw/errors';
import { RateLimitStoreError, STORE_RETRY_SECONDS, type RateLimiter, type Tally } from '@cw/ratelimit';
import type { UserRow } from './data/people.data';
import type { MailTokenDoc } from './data/people.schemas.data';
import { own, type PeopleDeps, type RequestOrigin } from './deps';
import { mintLink } from './mails';
import { tokenHash } from './tokens';

/** What the guard uses: the config (its budgets, the secret key), the limiter's store, and for unlock links the people's data and mail. */
export type SigninGuardDeps = Pick<PeopleDeps, 'config'> & { limiter: RateLimiter };

/** A device cookie to set: its value and when it ends. */
export interface DeviceCookie {
  value: string;
  expires: Date;
}

/** One attempt let through: what to do once the password is checked. */
export interface SigninAttempt {
  /** From a device this person signed in with: the e-mail's and the address's budgets did not apply. */
  trusted: boolean;
  /** The password was wrong; `locked`: this failure spent the e-mail's budget (its owner is mailed the unlock link). */
  failed(): Promise<{ locked: boolean }>;
  /** The password was right: the reserved points are given back; answers the device cookie to set for the person. */
  succeeded(userId: string): Promise<DeviceCookie>;
}

const BURST_SECONDS = 60;
/** How long the trust an unlock link gives lasts before a sign-in (which renews it for the usual days). */
export const UNLOCK_TRUST_MS = 86_400_000;
const DEVICE_PREFIX = 'd1';

const keyed = (deps: SigninGuardDeps, label: string, value: string) =>
  createHmac('sha256', deps.config.secretKey).update(`${label}:${value}`).digest('base64url').slice(0, 22);

/** The key the budgets count an e-mail address under (never the address itself). */
export const accountKey = (deps: SigninGuardDeps, email: string) => keyed(deps, 'signin-account/v1', email.trim().toLowerCase());

/** A device cookie for the person, trusted until `expires`. */
export function issueDevice(deps: SigninGuardDeps, userId: string, now: Date, lifetimeMs = deps.config.signin.deviceTrustDays * 86_400_000): DeviceCookie {
  const id = randomBytes(16).toString('base64url');
  const expires = new Date(now.getTime() + lifetimeMs);
  const until = Math.floor(expires.getTime() / 1000);
  return { value: `${DEVICE_PREFIX}.${id}.${until}.${deviceMac(deps, id, until, userId)}`, expires };
}

function deviceMac(deps: SigninGuardDeps, id: string, until: number, userId: string): string {
  return createHmac('sha256', deps.config.secretKey).update(`signin-device/v1:${id}:${until}:${userId}`).digest('base64url');
}

/** The device id of a cookie that is this person's and has not ended, or null. */
export function deviceOf(deps: SigninGuardDeps, cookie: string | undefined, userId: string | undefined, now: Date): string | null {
  if (!cookie || !userId || cookie.length > 200) return null;
  const [prefix, id, until, mac, ...rest] = cookie.split('.');
  if (prefix !== DEVICE_PREFIX || !id || !until || !mac || rest.length || !/^\d{1,12}$/.test(until)) return null;
  if (Number(until) * 1000 <= now.getTime()) return null;
  const want = Buffer.from(deviceMac(deps, id, Number(until), userId));
  const got = Buffer.from(mac);
  return got.length === want.length && timingSafeEqual(got, want) ? id : null;
}

/** A store failure: 503, never an unlimited pass. */
async function store<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (!(e instanceof RateLimitStoreError)) throw e;
    throw new ApiError({
      code: 'service_unavailable',
      detail: 'Sign-in is temporarily unavailable. Retry with backoff.',
      headers: { 'Retry-After': String(STORE_RETRY_SECONDS) },
    });
  }
}

/** A budget over two windows of the clock: this one and the one before. */
class WindowBudget {
  private readonly tally: Tally;

  constructor(
    limiter: RateLimiter,
    name: string,
    private readonly seconds: number,
    private readonly limit: number,
  ) {
    this.tally = limiter.tally(name, 2 * seconds);
  }

  private windowOf(now: Date): number {
    return Math.floor(now.getTime() / 1000 / this.seconds);
  }

  /**
   * Reserves a point: `last` when it is the budget's last one (the next attempt is refused), or,
   * beyond the budget, `wait`: the seconds until there is one again (and the point is given back).
   */
  async reserve(key: string, now: Date): Promise<{ wait: number } | { wait: null; last: boolean }> {
    const w = this.windowOf(now);
    const [current, previous] = await Promise.all([this.tally.add(`${key}:${w}`), this.tally.get(`${key}:${w - 1}`)]);
    if (current + previous <= this.limit) return { wait: null, last: current + previous === this.limit };
    await this.tally.add(`${key}:${w}`, -1);
    // This window's points still count through the next one: free at its end if they alone fill the budget.
    const ends = (w + (current - 1 >= this.limit ? 2 : 1)) * this.seconds;
    return { wait: Math.max(1, Math.ceil(ends - now.getTime() / 1000)) };
  }

  /** Gives a reserved point back (the window it was reserved in). */
  async release(key: string, at: Date): Promise<void> {
    await this.tally.add(`${key}:${this.windowOf(at)}`, -1);
  }

  /** Counts a point without asking (failures of trusted devices). */
  async count(key: string, now: Date): Promise<void> {
    await this.tally.add(`${key}:${this.windowOf(now)}`);
  }
}

const limited = (detail: string, retryAfter: number) =>
  new ApiError({ code: 'rate_limited', detail: `${detail} Retry after ${retryAfter} seconds.`, headers: { 'Retry-After': String(retryAfter) } });

const LOCKED_DETAIL =
  'Too many failed sign-ins for this e-mail address. Sign in from a device you have signed in with before, or open the link we have mailed to the address (if it has an account).';

/**
 * Lets one sign-in or re-authentication through, or refuses it (429): `email` is the address being
 * signed in to, `userId` its person when there is one, `origin.client` the client's address and
 * `origin.device` the device cookie it sent.
 */
export async function beginAttempt(
  deps: SigninGuardDeps,
  who: { email: string; userId?: string },
  origin: Pick<RequestOrigin, 'client' | 'device'>,
  now = new Date(),
): Promise<SigninAttempt> {
  const limits = deps.config.signin;
  const account = accountKey(deps, who.email);
  const address = keyed(deps, 'signin-address/v1', origin.client ?? 'unknown');
  const accounts = new WindowBudget(deps.limiter, 'signinAccountFailures', limits.windowSeconds, limits.accountFailures);
  const addresses = new WindowBudget(deps.limiter, 'signinAddressFailures', limits.windowSeconds, limits.addressFailures);
  const devices = deps.limiter.tally('signinDeviceFailures', limits.deviceTrustDays * 86_400);
  return store(async () => {
    const deviceId = deviceOf(deps, origin.device, who.userId, now);
    if (deviceId !== null && (await devices.get(deviceId)) < limits.deviceFailures) {
      return {
        trusted: true,
        failed: () =>
          store(async () => {
            await Promise.all([devices.add(deviceId), accounts.count(account, now), addresses.count(address, now)]);
            return { locked: false };
          }),
        succeeded: (userId) =>
          store(async () => {
            await devices.delete(deviceId);
            return issueDevice(deps, userId, now);
          }),
      };
    }
    const bursts = new WindowBudget(deps.limiter, 'signinBurst', BURST_SECONDS, deps.config.rateLimits.signinEmail);
    const burst = await bursts.reserve(account, now);
    if (burst.wait !== null) throw limited('Too many sign-in attempts for this e-mail address in a short time.', burst.wait);
    const byAccount = await accounts.reserve(account, now);
    if (byAccount.wait !== null) throw limited(LOCKED_DETAIL, byAccount.wait);
    const byAddress = await addresses.reserve(address, now);
    if (byAddress.wait !== null) {
      await accounts.release(account, now);
      throw limited('Too many failed sign-ins from your network.', byAddress.wait);
    }
    return {
      trusted: false,
      failed: async () => ({ locked: byAccount.last }),
      succeeded: (userId) =>
        store(async () => {
          await Promise.all([accounts.release(account, now), addresses.release(address, now)]);
          return issueDevice(deps, userId, now);
        }),
    };
  });
}

/**
 * Mails the person a one-time link that unlocks sign-in on the device that opens it (their
 * address's budget was spent); in the background, as all the people's mail: the failing answer
 * does not wait for it, so its time does not tell that the address has an account.
 */
export function sendSigninUnlock(deps: PeopleDeps, user: Pick<UserRow, '_id' | 'email'>, now = new Date()): void {
  deps.mailer.later(async () => {
    const { token } = await mintLink(deps, 'unlock_signin', { email: user.email, user_id: user._id }, now);
    return {
      to: user.email,
      subject: 'Sign-in to your account is paused',
      text: `Someone (you, perhaps) gave a wrong password for this address too many times, so the publisher portal has paused signing in with it, except from devices you have signed in with before.\n\nTo sign in from this device now, open:\n\n${deps.config.portalUrl}/signin?unlock=${encodeURIComponent(token)}\n\nThe link works once, for 24 hours, and only on the device that opens it. If it was not you, nobody got in; consider choosing a new password: ${deps.config.portalUrl}/forgot-password\n`,
    };
  });
}

/** Uses an unlock link (once): the device that opened it is trusted for the person for a day, so their right password is taken. */
export async function unlockSignin(
  deps: SigninGuardDeps & Pick<PeopleDeps, 'data'>,
  token: string,
  now = new Date(),
): Promise<{ email: string; device: DeviceCookie }> {
  const link = await own(deps)
    .MailToken.findOneAndDelete({ _id: tokenHash(token), kind: 'unlock_signin' })
    .lean<MailTokenDoc>();
  if (!link || link.expires_at <= now || !link.user_id)
    throw new ApiError({ code: 'not_found', detail: 'This link is not valid any more: it was used, or it expired.' });
  return { email: link.email, device: issueDevice(deps, link.user_id, now, UNLOCK_TRUST_MS) };
}
