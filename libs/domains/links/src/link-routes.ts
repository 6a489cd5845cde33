/**
 * Smart link routes (DESIGN.md "Smart links", docs/decisions/0062-smart-link-routes.md): a link's
 * ordered `routes`, each `{countries?, devices?, landing_url}`; the first whose countries hold the
 * visitor's country and whose devices hold the visitor's device answers, else the link's own
 * landing URL. A rule without countries (or devices) matches every country (or device). Each
 * route's landing URL passes the same rule as the link's own (link-requests.ts: on the program's
 * domains), checked when the link is written.
 */
import { ApiError } from '@cw/errors';

export const DEVICES = ['ios', 'android', 'desktop'] as const;
export type Device = (typeof DEVICES)[number];

/** At most this many rules per link: the redirect tries them in order on every click. */
export const MAX_ROUTES = 10;
/** At most this many countries per rule. */
export const MAX_ROUTE_COUNTRIES = 50;

export interface LinkRoute {
  countries?: string[];
  devices?: Device[];
  landing_url: string;
}

/** One rule of the request body (`routes[]` of LinkRequest). */
export const ROUTE_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['landing_url'],
  properties: {
    countries: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_ROUTE_COUNTRIES,
      items: { type: 'string', pattern: '^[A-Za-z]{2}$' },
      description: "Visitors' countries (ISO 3166-1 alpha-2, any case; stored upper case). Absent: every country.",
    },
    devices: {
      type: 'array',
      minItems: 1,
      maxItems: DEVICES.length,
      items: { type: 'string', enum: DEVICES },
      description: "Visitors' devices (ios, android, desktop). Absent: every device.",
    },
    landing_url: {
      type: 'string',
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
      description: "Where a matching visitor goes: an http(s) URL on the program's allowed domains, as the link's own landing_url.",
    },
  },
} as const;

export const ROUTES_INPUT = {
  type: 'array',
  maxItems: MAX_ROUTES,
  items: ROUTE_INPUT,
  description: `Routing rules, tried in order (at most ${MAX_ROUTES}): the first whose countries and devices match the visitor answers, else landing_url. Sent on an existing link, they replace its rules ([] removes them); absent, the link keeps its rules.`,
} as const;

/** A link's routes as the API shows them (and the stored shape). */
export const ROUTES_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['landing_url'],
    properties: {
      countries: { type: 'array', items: { type: 'string' } },
      devices: { type: 'array', items: { type: 'string', enum: [...DEVICES] } },
      landing_url: { type: 'string' },
    },
  },
} as const;

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/**
 * Codes ICU names that are not countries (the EU, the eurozone, the UN, "unknown", "outlying
 * Oceania"), and UK (reserved, never assigned: the United Kingdom is GB, which is what the country
 * database answers, so a rule naming UK would never match).
 */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'UK']);

/** An ISO 3166-1 alpha-2 country that ICU knows, upper case (the rule of @cw/payouts' tax profiles). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !NOT_COUNTRIES.has(code) && regionNames.of(code) !== code;
}

function invalid(param: string, detail: string): ApiError {
  return new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });
}

/**
 * Routes as stored: countries upper case, known and each once; devices each once; each landing URL
 * as `landingUrl(raw, param)` answers it (the program's rule, which throws naming `param`).
 */
export function normalRoutes(routes: readonly LinkRoute[], landingUrl: (raw: string, param: string) => string): LinkRoute[] {
  if (routes.length > MAX_ROUTES) throw invalid('routes', `must hold at most ${MAX_ROUTES} rules`);
  return routes.map((r, i) => {
    const out: LinkRoute = { landing_url: landingUrl(r.landing_url, `routes[${i}].landing_url`) };
    if (r.countries) {
      const countries = [...new Set(r.countries.map((c) => c.toUpperCase()))];
      const bad = countries.find((c) => !isCountryCode(c));
      if (bad !== undefined) throw invalid(`routes[${i}].countries`, `${bad} is not an ISO 3166-1 alpha-2 country code (US, DE, FR …)`);
      out.countries = countries;
    }
    if (r.devices) out.devices = [...new Set(r.devices)];
    return out;
  });
}

/** A route as the redirect tries it: sets, not arrays (one lookup per rule). */
export interface CompiledRoute {
  countries?: ReadonlySet<string>;
  devices?: ReadonlySet<Device>;
}

export function compileRoutes(routes: readonly LinkRoute[]): CompiledRoute[] {
  return routes.map((r) => ({
    ...(r.countries?.length ? { countries: new Set(r.countries) } : {}),
    ...(r.devices?.length ? { devices: new Set(r.devices) } : {}),
  }));
}

/**
 * The index of the first route matching the visitor, else -1. An unknown country (no address, a
 * private one, or one the database does not place) matches only rules without countries.
 */
export function matchRoute(routes: readonly CompiledRoute[], country: string | undefined, device: Device): number {
  for (let i = 0; i < routes.length; i++) {
    const r = routes[i]!;
    if (r.countries && (country === undefined || !r.countries.has(country))) continue;
    if (r.devices && !r.devices.has(device)) continue;
    return i;
  }
  return -1;
}

/**
 * The visitor's device from the User-Agent: `ios` for iPhone, iPad and iPod agents, `android` for
 * Android ones, else `desktop`. Deliberately two substring tests, not a parser (the redirect pays
 * this per click of a routed link): iPadOS 13+ Safari presents itself as a Mac by default and is
 * `desktop` here, as to every server-side check; Windows Phone, KaiOS and the like are `desktop`.
 */
export function deviceOf(userAgent: string): Device {
  if (/iPhone|iPad|iPod/.test(userAgent)) return 'ios';
  if (userAgent.includes('Android')) return 'android';
  return 'desktop';
}
