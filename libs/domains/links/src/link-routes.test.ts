import { describe, expect, it } from 'vitest';
import { ApiError } from '@cw/errors';
import { compileRoutes, deviceOf, isCountryCode, matchRoute, MAX_ROUTES, normalRoutes, type LinkRoute } from './link-routes';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const PIXEL = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

/** The program's rule as link-requests applies it: on shop.example, else 400 naming the field. */
const onShop = (raw: string, param: string) => {
  if (new URL(raw).hostname !== 'shop.example')
    throw new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}'`, errors: [{ param, detail: 'off domain' }] });
  return raw;
};

function rejection(f: () => unknown): { status: number; param?: string } {
  try {
    f();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { status: e.status, param: e.errors?.[0]?.param };
  }
  throw new Error('accepted');
}

describe('devices from the User-Agent', () => {
  it('tells iPhones and iPads, Android phones and the rest apart', () => {
    expect(deviceOf(IPHONE)).toBe('ios');
    expect(deviceOf(IPAD)).toBe('ios');
    expect(deviceOf(PIXEL)).toBe('android');
    expect(deviceOf(WINDOWS)).toBe('desktop');
    expect(deviceOf(MAC)).toBe('desktop');
    expect(deviceOf('')).toBe('desktop');
  });
});

describe('route matching', () => {
  const routes = compileRoutes([
    { countries: ['DE', 'AT'], devices: ['ios'], landing_url: 'https://shop.example/de-ios' },
    { countries: ['DE'], landing_url: 'https://shop.example/de' },
    { devices: ['android'], landing_url: 'https://shop.example/android' },
  ]);

  it('answers the first rule whose countries and devices both hold the visitor', () => {
    expect(matchRoute(routes, 'DE', 'ios')).toBe(0);
    expect(matchRoute(routes, 'AT', 'ios')).toBe(0);
    expect(matchRoute(routes, 'DE', 'desktop')).toBe(1);
    expect(matchRoute(routes, 'DE', 'android')).toBe(1);
    expect(matchRoute(routes, 'FR', 'android')).toBe(2);
  });

  it("answers -1 (the link's own target) when no rule matches", () => {
    expect(matchRoute(routes, 'FR', 'desktop')).toBe(-1);
    expect(matchRoute(routes, 'AT', 'desktop')).toBe(-1);
    expect(matchRoute([], 'DE', 'ios')).toBe(-1);
  });

  it('places an unknown country only in rules without countries', () => {
    expect(matchRoute(routes, undefined, 'ios')).toBe(-1);
    expect(matchRoute(routes, undefined, 'android')).toBe(2);
  });
});

describe('route validation', () => {
  it('upper-cases countries, keeps each once, and keeps the rule order', () => {
    const out = normalRoutes(
      [{ countries: ['de', 'DE', 'at'], devices: ['ios', 'ios'], landing_url: 'https://shop.example/a' }, { landing_url: 'https://shop.example/b' }],
      onShop,
    );
    expect(out).toEqual([{ countries: ['DE', 'AT'], devices: ['ios'], landing_url: 'https://shop.example/a' }, { landing_url: 'https://shop.example/b' }]);
  });

  it("refuses a rule's target the program does not allow, naming routes[i].landing_url", () => {
    const r = rejection(() => normalRoutes([{ landing_url: 'https://shop.example/ok' }, { landing_url: 'https://elsewhere.example/x' }], onShop));
    expect(r).toEqual({ status: 400, param: 'routes[1].landing_url' });
  });

  it('refuses codes that are not ISO 3166-1 alpha-2 countries, naming the field', () => {
    for (const bad of ['XX', 'EU', 'ZZ', 'UK']) {
      expect(rejection(() => normalRoutes([{ countries: [bad], landing_url: 'https://shop.example/a' }], onShop))).toEqual({
        status: 400,
        param: 'routes[0].countries',
      });
    }
    expect(isCountryCode('GB')).toBe(true);
    expect(isCountryCode('de')).toBe(false);
  });

  it(`refuses more than ${MAX_ROUTES} rules`, () => {
    const many: LinkRoute[] = Array.from({ length: MAX_ROUTES + 1 }, () => ({ landing_url: 'https://shop.example/a' }));
    expect(rejection(() => normalRoutes(many, onShop))).toEqual({ status: 400, param: 'routes' });
  });
});
