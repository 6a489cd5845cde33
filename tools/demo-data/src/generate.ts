/**
 * The deterministic demo dataset: merchants, programs in several markets and currencies,
 * publishers with every credential kind, program memberships in every state, a realistic GTIN
 * catalog (variant groups, every availability, stale and expired rows), links, clicks (some
 * bots) and conversions in every status over the last 90 days.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlatformConfig } from '@cw/config';
import { migrateLedger } from '@cw/ledger';
import { operatorImportFx, setPayoutProfile } from '@cw/payouts';
import { Decimal128 } from 'bson';
import { createPublishers } from '@cw/account';
import { formatDecimal } from '@cw/money';
import { issueCredential, issueMerchantToken, revokeCredential } from '@cw/auth';
import { bookLedgerEntry, commissionFor, conversionId, saleEvent } from '@cw/conversions';
import { appendAccountEvents, moveCheckpoint } from '@cw/events-feed';
import { storeCountedClicks } from '@cw/stats';
import { productId, withCheckDigit } from '@cw/catalog';
import { linkCode } from '@cw/links';
import type { ApiKeyKind } from '@cw/auth';
import { APPROVER_EMAIL, createOperatorLogin, createPortalLogin, OPERATOR_EMAIL } from './portal-logins';
import type { ProductRow } from '@cw/catalog';
import type { ConversionRow } from '@cw/conversions';
import type { ClickRow, LinkRow } from '@cw/links';
import type { AssignmentRow } from '@cw/programs';
import type { Models, PlatformData } from '@cw/runtime';
import { Prng } from './prng';
import { CATEGORIES, COLORS, MARKET_CURRENCY, MERCHANTS, MODEL_WORDS, type CategorySpec } from './vocabulary';

export interface SeedOptions {
  products: number;
  /** The platform key tracked-link codes derive from (config.secretKey). */
  linkKey: Buffer;
  seed?: number;
  now?: Date;
  onProgress?: (done: number, total: number) => void;
}

export interface PublisherCredentials {
  account_id: string;
  keys: Record<ApiKeyKind | 'revoked', string>;
  reporting_token: string;
  offers_credential: string;
  portal_token: string;
  /** The account's owner in the portal (DESIGN.md "People"). */
  portal_login: PortalLogin;
}

export interface PortalLogin {
  email: string;
  password: string;
}

export interface DemoDataset {
  publishers: PublisherCredentials[];
  special_keys: { inactive_account: string; no_feed_access: string; no_markets: string };
  fixtures: {
    country: string;
    gtin_leading_zero: string;
    gtin_out_of_stock: string;
    gtin_preorder: string;
    gtin_stale: string;
    gtin_unapproved_program: string;
    approved_program_id: number;
    approved_program_landing_url: string;
    joinable_program_id: number;
    unapproved_merchant_id: number;
    group_query: string;
    /** A merchant token of the merchant of approved_program_id (conversion intake). */
    merchant_token: string;
    /** An analyst of publishers[0] in the portal (read-only: no keys, no postback changes). */
    analyst_login: PortalLogin;
    /** An admin operator of the network in the portal's operator area (Operations), member of no account. */
    operator_login: PortalLogin;
    /** A second admin operator: approves the payout runs `operator_login` creates (four eyes). */
    approver_login: PortalLogin;
  };
  counts: Record<string, number>;
}

interface ProgramPlan {
  id: number;
  merchant: number;
  country: string;
  joinable: boolean;
  autoApprove: boolean;
  rate: string;
  /** Publisher channels the merchant accepts; absent: all. */
  channels?: string[];
  status?: 'active' | 'paused';
}

const MERCHANT_CATEGORIES: Record<number, number[]> = {
  501: [0, 1, 6],
  502: [2],
  503: [4, 9],
  504: [6, 1, 0],
  505: [3, 2],
  506: [7],
  507: [8],
  508: [5, 9],
  509: [9],
  510: [1],
  511: [2, 3],
};

const PROGRAMS: ProgramPlan[] = [
  { id: 1001, merchant: 501, country: 'DE', joinable: true, autoApprove: false, rate: '0.08' },
  { id: 1002, merchant: 501, country: 'GB', joinable: true, autoApprove: false, rate: '0.08' },
  { id: 1003, merchant: 502, country: 'DE', joinable: true, autoApprove: false, rate: '0.06', channels: ['content', 'social'] },
  { id: 1004, merchant: 503, country: 'DE', joinable: true, autoApprove: true, rate: '0.10' },
  { id: 1005, merchant: 504, country: 'GB', joinable: true, autoApprove: false, rate: '0.07' },
  { id: 1006, merchant: 505, country: 'DE', joinable: true, autoApprove: false, rate: '0.04' },
  { id: 1007, merchant: 506, country: 'FR', joinable: true, autoApprove: false, rate: '0.12' },
  { id: 1008, merchant: 507, country: 'DE', joinable: true, autoApprove: true, rate: '0.09' },
  { id: 1009, merchant: 508, country: 'DE', joinable: true, autoApprove: false, rate: '0.07' },
  { id: 1010, merchant: 509, country: 'NL', joinable: true, autoApprove: false, rate: '0.10' },
  { id: 1011, merchant: 510, country: 'GB', joinable: true, autoApprove: false, rate: '0.09' },
  { id: 1012, merchant: 511, country: 'DE', joinable: false, autoApprove: false, rate: '0.05' },
  { id: 1013, merchant: 502, country: 'GB', joinable: true, autoApprove: false, rate: '0.06', channels: ['content', 'social'] },
  { id: 1014, merchant: 505, country: 'US', joinable: true, autoApprove: false, rate: '0.04' },
  { id: 1015, merchant: 504, country: 'DE', joinable: false, autoApprove: false, rate: '0.07', status: 'paused' },
];

const MEMBERSHIPS: Record<string, Record<number, 'approved' | 'pending' | 'rejected'>> = {
  full: {
    1001: 'approved',
    1002: 'approved',
    1003: 'approved',
    1004: 'approved',
    1005: 'approved',
    1006: 'pending',
    1007: 'rejected',
    1010: 'approved',
    1011: 'approved',
    1013: 'approved',
    1014: 'approved',
    1015: 'approved',
  },
  second: { 1001: 'approved', 1003: 'approved', 1005: 'approved', 1006: 'approved', 1011: 'approved', 1013: 'approved', 1004: 'pending' },
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** An amount in cents as a stored decimal (random prices are drawn as whole cents: no float reaches money). */
const money = (cents: number) => Decimal128.fromString(formatDecimal({ units: BigInt(cents), scale: 2 }));

/**
 * Seeds through the same domain data and use cases as the API and the operator CLI (their bulk
 * paths), so seeded documents have the shape, defaults and rules of real ones.
 */
export async function generateDemoData(store: { models: Models; data: PlatformData; config?: PlatformConfig }, opts: SeedOptions): Promise<DemoDataset> {
  const { models, data } = store;
  const rng = new Prng(opts.seed ?? 20261122);
  const now = opts.now ?? new Date();
  const t = now.getTime();
  const stamps = { created_at: now, updated_at: now };

  // Merchants and programs.
  await data.programs.createMerchants(MERCHANTS.map((m) => ({ _id: m.id, name: m.name, domains: [m.domain], ...stamps })));
  const merchantOf = new Map<number, (typeof MERCHANTS)[number]>(MERCHANTS.map((m) => [m.id, m]));
  await data.programs.create(
    PROGRAMS.map((p) => {
      const m = merchantOf.get(p.merchant)!;
      return {
        _id: p.id,
        name: `${m.name} ${p.country}`,
        merchant_id: p.merchant,
        description: `${m.name}'s affiliate program for the ${p.country} market.`,
        category: CATEGORIES[MERCHANT_CATEGORIES[p.merchant][0]].path.split(' > ')[0],
        countries: [p.country],
        currency: MARKET_CURRENCY[p.country],
        commission_description: `${(Number(p.rate) * 100).toFixed(0)}% per sale`,
        commission_rate: p.rate as never,
        cookie_days: 30,
        status: p.status ?? ('active' as const),
        joinable: p.joinable,
        auto_approve: p.autoApprove,
        allowed_channels: p.channels ?? [],
        allowed_domains: [m.domain],
        default_landing_url: `https://www.${m.domain}/`,
        click_id_param: 'cw_click_id',
        // Codes at the approved program (fixtures.approved_program_id) are active at once; elsewhere an operator reviews them.
        ...(p.id === 1001 ? { code_rules: { prefix: '', min_length: 6, max_length: 20, review: 'auto' as const } } : {}),
        ...stamps,
      };
    }),
  );

  // Publishers, memberships and credentials.
  const publishers: PublisherCredentials[] = [];
  const accounts = [
    {
      id: 'pub_trailhead',
      name: 'Trailhead Reviews',
      website: 'https://trailhead-reviews.example',
      markets: ['DE', 'GB', 'FR', 'NL'],
      plan: 'full',
      channels: ['content', 'coupon'],
      trending: true,
      last4: '4417',
    },
    {
      id: 'pub_dealradar',
      name: 'Deal Radar',
      website: 'https://dealradar.example',
      markets: ['GB', 'DE'],
      plan: 'second',
      channels: ['coupon', 'social'],
      trending: false,
      last4: '9021',
    },
  ];
  const specials = [
    { key: 'inactive_account', id: 'pub_inactive', name: 'Dormant Blog', status: 'inactive', feed: true, markets: ['DE'] },
    { key: 'no_feed_access', id: 'pub_nofeed', name: 'Coupon Corner', status: 'active', feed: false, markets: ['DE'] },
    { key: 'no_markets', id: 'pub_nomarkets', name: 'Fresh Start Media', status: 'active', feed: true, markets: [] as string[] },
  ] as const;
  await createPublishers({ data }, [
    ...accounts.map((a) => ({
      _id: a.id,
      name: a.name,
      website: a.website,
      status: 'active' as const,
      is_demo: false,
      feed_access: true,
      markets: a.markets,
      channels: a.channels,
      trending_subscribed: a.trending,
      trending_channels: a.trending ? a.channels : [],
      payout: { method_type: 'bank_account' as const, last4: a.last4, threshold: '50.00' as never, currency: 'EUR' },
      ...stamps,
    })),
    ...specials.map((s) => ({
      _id: s.id,
      name: s.name,
      status: s.status,
      is_demo: false,
      feed_access: s.feed,
      markets: [...s.markets],
      channels: ['content'],
      trending_subscribed: false,
      payout: { method_type: 'none' as const, currency: 'EUR' },
      ...stamps,
    })),
  ]);
  const memberships: AssignmentRow[] = [];
  for (const [pub, plan] of [[accounts[0].id, 'full'], [accounts[1].id, 'second'], ...specials.map((s) => [s.id, 'second'])] as const) {
    for (const [program, status] of Object.entries(MEMBERSHIPS[plan])) {
      memberships.push({
        publisher_id: pub,
        program_id: Number(program),
        status,
        applied_at: new Date(t - 120 * DAY),
        decided_at: status === 'pending' ? undefined : new Date(t - 118 * DAY),
      });
    }
  }
  await data.programs.saveAssignments(memberships, now);

  for (const a of accounts) {
    const keys = {} as PublisherCredentials['keys'];
    for (const kind of ['live', 'demo', 'test', 'sandbox', 'read_only'] as const)
      keys[kind] = (await issueCredential(data.auth, a.id, 'api_key', kind, `demo ${kind}`)).secret;
    const revoked = await issueCredential(data.auth, a.id, 'api_key', 'live', 'revoked demo key');
    await revokeCredential(data.auth, revoked.id);
    keys.revoked = revoked.secret;
    publishers.push({
      account_id: a.id,
      keys,
      reporting_token: (await issueCredential(data.auth, a.id, 'reporting_token')).secret,
      offers_credential: (await issueCredential(data.auth, a.id, 'offers_credential')).secret,
      portal_token: (await issueCredential(data.auth, a.id, 'portal_token')).secret,
      portal_login: await createPortalLogin(data, a.id, 'owner', `owner@${new URL(a.website).hostname}`, now),
    });
  }
  const analyst_login = await createPortalLogin(data, accounts[0].id, 'analyst', `analyst@${new URL(accounts[0].website).hostname}`, now);
  const operator_login = await createOperatorLogin(data, OPERATOR_EMAIL, now);
  const approver_login = await createOperatorLogin(data, APPROVER_EMAIL, now);
  const special_keys = {} as DemoDataset['special_keys'];
  for (const s of specials) special_keys[s.key] = (await issueCredential(data.auth, s.id, 'api_key', 'live')).secret;

  // Catalog.
  const programsByCategory = new Map<number, ProgramPlan[]>();
  // A paused program has no catalog (and the catalog does not change with it).
  const CATALOG_PROGRAMS = PROGRAMS.filter((p) => p.status !== 'paused');
  for (const p of CATALOG_PROGRAMS) for (const c of MERCHANT_CATEGORIES[p.merchant]) programsByCategory.set(c, [...(programsByCategory.get(c) ?? []), p]);
  let gtinCounter = 0;
  const newGtin = (leadingZero = false): string => {
    gtinCounter++;
    if (leadingZero) return withCheckDigit(`00${String(40000000 + gtinCounter).padStart(10, '0')}`.slice(0, 12));
    return withCheckDigit(`40${String(gtinCounter).padStart(10, '0')}`);
  };

  let batch: ProductRow[] = [];
  let written = 0;
  const target = Math.max(opts.products, 200);
  const flush = async () => {
    if (!batch.length) return;
    await data.catalog.insertRows(batch);
    written += batch.length;
    batch = [];
    opts.onProgress?.(written, target);
  };
  type Offer = { program: ProgramPlan; availability: string; lastSeen: Date; freshUntil: Date; removed?: boolean; /** cents */ price: number };
  const freshOffer = (program: ProgramPlan, price: number, availability = 'in_stock'): Offer => ({
    program,
    availability,
    price,
    lastSeen: new Date(t - rng.int(1, 30) * HOUR),
    freshUntil: new Date(t + rng.int(3, 7) * DAY),
  });
  const addProduct = async (
    item: { gtin: string; title: string; brand: string; category: string; groupId?: string; size?: string; color: string },
    offer: Offer,
  ) => {
    const p = offer.program;
    const m = merchantOf.get(p.merchant)!;
    const id = productId(item.gtin, p.id, p.country);
    const slug = item.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/(^-|-$)/g, '');
    batch.push({
      _id: id,
      gtin: item.gtin,
      gtin14: item.gtin.padStart(14, '0'),
      title: item.title,
      title_lc: item.title.toLowerCase(),
      description: `${item.title} from ${item.brand}. ${item.category.split(' > ').pop()} in ${item.color.toLowerCase()}.`,
      brand: item.brand,
      brand_lc: item.brand.toLowerCase(),
      category: item.category,
      category_lc: item.category.toLowerCase(),
      price: money(offer.price),
      ...(rng.chance(0.15) ? { sale_price: money(Math.round((offer.price * 85) / 100)) } : {}),
      currency: MARKET_CURRENCY[p.country],
      image: rng.chance(0.95) ? `https://img.${m.domain}/p/${item.gtin}.jpg` : '',
      source_url: `https://www.${m.domain}/p/${slug}-${item.gtin}?src=feed`,
      merchant_id: p.merchant,
      program_id: p.id,
      country: p.country,
      availability: offer.availability,
      ...(item.groupId ? { group_id: item.groupId, size: item.size } : {}),
      mpn: `${item.brand.slice(0, 3).toUpperCase()}-${item.gtin.slice(-6)}`,
      condition: 'new',
      last_seen_at: offer.lastSeen,
      fresh_until: offer.freshUntil,
      removed: offer.removed ?? false,
      ...stamps,
    } as unknown as ProductRow);
    if (batch.length >= 5000) await flush();
  };
  const byId = (id: number) => PROGRAMS.find((p) => p.id === id)!;

  // Fixture rows first, so their GTINs are known and stable.
  const fx = {
    leadingZero: newGtin(true),
    outOfStock: newGtin(),
    preorder: newGtin(),
    stale: newGtin(),
    unapproved: newGtin(),
  };
  const shoe = CATEGORIES[0];
  await addProduct(
    { gtin: fx.leadingZero, title: 'Kestrel Pace Road Running Shoe, Ocean Blue', brand: 'Kestrel', category: shoe.path, color: 'Ocean Blue' },
    freshOffer(byId(1001), 12995),
  );
  await addProduct(
    { gtin: fx.leadingZero, title: 'Kestrel Pace Road Running Shoe, Ocean Blue', brand: 'Kestrel', category: shoe.path, color: 'Ocean Blue' },
    freshOffer(byId(1002), 11400),
  );
  await addProduct(
    { gtin: fx.outOfStock, title: 'Klangwerk KW-700 Noise Cancelling Headphones, Black', brand: 'Klangwerk', category: CATEGORIES[2].path, color: 'Black' },
    freshOffer(byId(1003), 27900, 'out_of_stock'),
  );
  await addProduct(
    { gtin: fx.preorder, title: 'Crema Duo Espresso Machine, Slate Grey', brand: 'Crema', category: CATEGORIES[4].path, color: 'Slate Grey' },
    freshOffer(byId(1004), 64900, 'preorder'),
  );
  await addProduct(
    { gtin: fx.stale, title: 'Altura Storm Trail Running Shoe, Red', brand: 'Altura', category: shoe.path, color: 'Red' },
    { ...freshOffer(byId(1001), 9900), lastSeen: new Date(t - 5 * DAY) },
  );
  await addProduct(
    { gtin: fx.unapproved, title: 'Zentrix Nova Gaming Laptop 16", Black', brand: 'Zentrix', category: CATEGORIES[3].path, color: 'Black' },
    freshOffer(byId(1012), 189900),
  );
  const groupSizes = shoe.sizes!;
  for (let i = 0; i < groupSizes.length; i++) {
    const availability = i === 0 ? 'out_of_stock' : 'in_stock';
    await addProduct(
      {
        gtin: newGtin(),
        title: `Nordlicht Summit Trail Running Shoe, Forest Green, Size ${groupSizes[i]}`,
        brand: 'Nordlicht',
        category: shoe.path,
        color: 'Forest Green',
        groupId: 'grp_summit_trail',
        size: groupSizes[i],
      },
      freshOffer(byId(1001), [8900, 9995, 10450, 9995, 11900, 12400][i], availability),
    );
  }

  // The generated catalog.
  let itemNo = 0;
  while (written + batch.length < target) {
    itemNo++;
    const catIndex = rng.int(0, CATEGORIES.length - 1);
    const cat: CategorySpec = CATEGORIES[catIndex];
    const brand = rng.pick(cat.brands);
    const noun = rng.pick(cat.nouns);
    const color = rng.pick(COLORS);
    const model = `${rng.pick(MODEL_WORDS)} ${rng.int(2, 9)}${rng.pick(['00', '10', '50', ''])}`.trim();
    const baseTitle = `${brand} ${model} ${noun}, ${color}`;
    const base = rng.int(cat.priceRange[0], cat.priceRange[1]) * 100 + rng.pick([0, 49, 95, 99]);
    const candidates = programsByCategory.get(catIndex) ?? CATALOG_PROGRAMS;
    const offers = Math.min(candidates.length, rng.int(1, 3));
    const chosen = [...candidates].sort(() => rng.next() - 0.5).slice(0, offers);
    const sizes = cat.sizes && rng.chance(0.6) ? cat.sizes : [undefined];
    const groupId = sizes[0] !== undefined ? `grp_${String(itemNo).padStart(7, '0')}` : undefined;
    for (const size of sizes) {
      const gtin = newGtin(rng.chance(0.05));
      const title = size ? `${baseTitle}, Size ${size}` : baseTitle;
      for (const program of chosen) {
        const r = rng.next();
        const availability = r < 0.72 ? 'in_stock' : r < 0.84 ? 'out_of_stock' : r < 0.92 ? 'preorder' : 'backorder';
        const offer = freshOffer(program, Math.round(base * (0.9 + rng.next() * 0.25)), availability);
        const q = rng.next();
        if (q < 0.03) offer.lastSeen = new Date(t - rng.int(49, 400) * HOUR);
        else if (q < 0.05) offer.freshUntil = new Date(t - rng.int(1, 48) * HOUR);
        else if (q < 0.06) offer.removed = true;
        await addProduct({ gtin, title, brand, category: cat.path, groupId, size, color }, offer);
        if (written + batch.length >= target) break;
      }
      if (written + batch.length >= target) break;
    }
  }
  await flush();

  // Links, clicks and conversions for the two full publishers.
  const counts = { products: written, links: 0, clicks: 0, conversions: 0 };
  for (const [pi, a] of accounts.entries()) {
    const approved = Object.entries(MEMBERSHIPS[a.plan])
      .filter(([, s]) => s === 'approved')
      .map(([id]) => byId(Number(id)))
      .filter((p) => p.status !== 'paused');
    const links: LinkRow[] = [];
    for (let i = 0; i < 12; i++) {
      const program = approved[i % approved.length];
      const m = merchantOf.get(program.merchant)!;
      const landingUrl = i % 3 === 0 ? `https://www.${m.domain}/` : `https://www.${m.domain}/sale/${i}`;
      const subid = ['blog-header', 'newsletter', 'sidebar', ''][i % 4];
      links.push({
        _id: linkCode(opts.linkKey, { publisherId: a.id, programId: program.id, landingUrl, subid }),
        publisher_id: a.id,
        program_id: program.id,
        campaign_id: program.merchant,
        landing_url: landingUrl,
        subid,
        source: 'api',
        listed: true,
        created_at: new Date(t - 100 * DAY),
        updated_at: new Date(t - 100 * DAY),
      });
    }
    await data.links.insertNew(links);
    counts.links += links.length;
    const clicks: ClickRow[] = [];
    const conversions: ConversionRow[] = [];
    for (let day = 89; day >= 0; day--) {
      const perDay = rng.int(pi === 0 ? 20 : 8, pi === 0 ? 60 : 25);
      for (let c = 0; c < perDay; c++) {
        const link = rng.pick(links);
        const at = new Date(t - day * DAY - rng.int(0, DAY - 1000));
        if (at.getTime() > t) continue;
        const bot = rng.chance(0.05);
        const clickId = `clk_${pi}${day.toString(36)}${c.toString(36)}${rng.digits(10)}`;
        clicks.push({
          _id: clickId,
          link_id: link._id,
          publisher_id: a.id,
          program_id: link.program_id,
          campaign_id: link.campaign_id,
          subid: link.subid,
          created_at: at,
          user_agent: bot
            ? 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
            : 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
          ip_hash: rng.digits(16),
          referrer: a.website,
          is_bot: bot,
          ...(bot ? { bot_reason: 'user_agent' } : {}),
        } as ClickRow);
        if (!bot && rng.chance(0.04)) {
          // The lifecycle's own rules: id per (merchant, order), commission from the terms,
          // one event per status change in the outbox.
          const program = byId(link.program_id);
          const currency = MARKET_CURRENCY[program.country];
          const sale = formatDecimal({ units: BigInt(rng.int(20, 400) * 100 + rng.pick([0, 50, 99])), scale: 2 });
          const occurred = new Date(at.getTime() + rng.int(60_000, 2 * HOUR));
          const age = (t - occurred.getTime()) / DAY;
          const r = rng.next();
          let status: 'pending' | 'approved' | 'declined';
          if (age > 30) status = r < 0.72 ? 'approved' : r < 0.88 ? 'declined' : 'pending';
          else status = r < 0.7 ? 'pending' : r < 0.9 ? 'approved' : 'declined';
          const reversed = status === 'declined' && age > 30 && rng.chance(0.3);
          // Decided after the sale (a sale younger than half a day: a millisecond after it).
          const decidedAt = new Date(occurred.getTime() + Math.max(Math.min(age - 0.5, 20) * DAY, 1));
          const events = [saleEvent('sale.created', occurred)];
          if (status === 'approved' || reversed) events.push(saleEvent('sale.approved', decidedAt));
          if (status === 'declined')
            events.push(saleEvent(reversed ? 'sale.reversed' : 'sale.declined', new Date(decidedAt.getTime() + (reversed ? 5 * DAY : 0))));
          for (const e of events) e.published_at = e.created_at as never;
          const orderId = `ORD-${program.id}-${rng.digits(8)}`;
          conversions.push({
            _id: conversionId(program.merchant, orderId),
            publisher_id: a.id,
            program_id: program.id,
            campaign_id: program.merchant,
            click_id: clickId,
            link_id: link._id,
            subid: link.subid,
            order_ref: orderId,
            status,
            sale_amount: Decimal128.fromString(sale),
            commission: Decimal128.fromString(commissionFor({ commission_rate: program.rate }, sale, currency)),
            currency,
            occurred_at: occurred,
            reversed,
            paid: status === 'approved' && age > 45,
            ...(status === 'approved' && age > 45 ? { paid_at: new Date(occurred.getTime() + 40 * DAY) } : {}),
            source: 'v1',
            events,
            log_pending: true,
            created_at: occurred,
            updated_at: events[events.length - 1].created_at,
          } as unknown as ConversionRow);
        }
      }
    }
    await storeCountedClicks({ data }, clicks, (rows, txn) => data.links.insertClickRows(rows, txn));
    await data.conversions.insertRows(conversions);
    // Bookings by the network, through the lifecycle (approved, no sale event).
    await bookLedgerEntry({ data }, { publisherId: a.id, amount: '25.00', currency: 'EUR', reason: 'Welcome bonus', now: new Date(t - 60 * DAY) });
    await bookLedgerEntry(
      { data },
      {
        publisherId: a.id,
        amount: '-4.50',
        currency: 'EUR',
        reason: 'Correction: duplicate order',
        programId: 1001,
        merchantId: 501,
        now: new Date(t - 12 * DAY),
      },
    );
    // The history's postbacks went out at the time (its events are published): the postbacks'
    // checkpoint starts after them, as it stood when they were made.
    await appendAccountEvents({ data }, a.id);
    const head = (await models.EventLogHead.findById(a.id, { last_seq: 1 }).lean<{ last_seq?: number }>())?.last_seq ?? 0;
    await moveCheckpoint({ data }, 'postbacks', a.id, head, true);
    counts.clicks += clicks.length;
    counts.conversions += conversions.length + 2;
  }
  const merchantToken = (await issueMerchantToken(data.auth, 501, 'demo merchant token')).secret;

  // Offers (pilot) in every state: running (a voucher and a deal), future, expired, ended early, and
  // running on a program publishers[0] is not approved for (1012). Only the running ones of approved programs list.
  const offer = (id: string, programId: number, over: Record<string, unknown>) => ({
    _id: id,
    program_id: programId,
    type: 'voucher',
    title: '10% off running shoes',
    description: 'On full-price items.',
    code: 'TRAIL10',
    landing_url: `https://www.${merchantOf.get(byId(programId).merchant)!.domain}/`,
    country: 'DE',
    starts_at: new Date(t - 7 * DAY),
    ends_at: new Date(t + 30 * DAY),
    terms: 'Minimum order EUR 50; one use per customer.',
    ...over,
  });
  await models.Offer.insertMany([
    offer('ofr_demo_running', 1001, {}),
    offer('ofr_demo_deal', 1001, { type: 'deal', code: null, title: 'Free shipping weekend' }),
    offer('ofr_demo_future', 1001, { title: 'Winter sale', starts_at: new Date(t + 10 * DAY), ends_at: new Date(t + 40 * DAY) }),
    offer('ofr_demo_expired', 1001, { title: 'Summer sale', starts_at: new Date(t - 60 * DAY), ends_at: new Date(t - 30 * DAY) }),
    offer('ofr_demo_ended', 1001, { title: 'Flash sale', ended_at: new Date(t - DAY) }),
    offer('ofr_demo_unapproved', 1012, { title: 'Laptop deal', code: 'NOVA50' }),
  ]);

  // Trending opportunities: publishers[0] subscribes to content and coupon. Released plans hold an
  // available item and one of each unavailable reason; an unreleased plan and a social plan (not
  // subscribed) never show.
  await models.Membership.updateOne({ publisher_id: accounts[0].id, program_id: 1003 }, { $set: { eligibility_checked_at: new Date(t - 60 * DAY) } });
  const item = (id: string, program_id: number, title: string, score: number) => ({ _id: `trd_demo_${id}`, program_id, title, score });
  await models.TrendingPlan.insertMany([
    {
      _id: 'tpl_demo_de_content',
      title: 'Outdoor season, Germany',
      country: 'DE',
      channel: 'content',
      released_at: new Date(t - DAY),
      created_at: new Date(t - 2 * DAY),
      items: [
        item('shoes', 1001, 'Trail running shoes', 0.94),
        item('headphones', 1003, 'Noise-cancelling headphones', 0.81),
        item('smarthome', 1006, 'Smart home hubs', 0.77),
        item('stoves', 1015, 'Camping stoves', 0.7),
      ],
    },
    {
      _id: 'tpl_demo_gb_coupon',
      title: 'Spring vouchers, UK',
      country: 'GB',
      channel: 'coupon',
      released_at: new Date(t - DAY),
      created_at: new Date(t - 2 * DAY),
      items: [item('gb_running', 1002, 'Running sale codes', 0.88)],
    },
    {
      _id: 'tpl_demo_unreleased',
      title: 'Kitchen week (draft)',
      country: 'DE',
      channel: 'content',
      released_at: null,
      created_at: new Date(t - DAY),
      items: [item('pasta', 1004, 'Pasta makers', 0.99)],
    },
    {
      _id: 'tpl_demo_de_social',
      title: 'Gadgets on social',
      country: 'DE',
      channel: 'social',
      released_at: new Date(t - DAY),
      created_at: new Date(t - DAY),
      items: [item('gadgets', 1008, 'Phone gimbals', 0.9)],
    },
  ]);

  // The ledger books the history (approved, reversed, corrections, what was paid before) as a migrated database would.
  await migrateLedger({ data });
  if (store.config) {
    // Money out: ECB rates of a day, and publishers[0] paid by bank transfer (its method set a month ago: no hold).
    const seedOperator = { type: 'operator', email: 'seed@network.example', role: 'admin' } as const;
    await operatorImportFx(
      { data, config: store.config },
      seedOperator,
      readFileSync(fileURLToPath(new URL('../fixtures/eurofxref-daily.xml', import.meta.url)), 'utf8'),
    );
    await setPayoutProfile({ data, config: store.config }, accounts[0].id, {
      method: { type: 'iban', holder_name: 'Trailhead Reviews GmbH', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
      threshold: '50.00',
      methodChangedAt: new Date(t - 30 * DAY),
    });
  }

  const landing = merchantOf.get(501)!;
  return {
    publishers,
    special_keys,
    fixtures: {
      country: 'DE',
      gtin_leading_zero: fx.leadingZero,
      gtin_out_of_stock: fx.outOfStock,
      gtin_preorder: fx.preorder,
      gtin_stale: fx.stale,
      gtin_unapproved_program: fx.unapproved,
      approved_program_id: 1001,
      approved_program_landing_url: `https://www.${landing.domain}/`,
      joinable_program_id: 1008,
      unapproved_merchant_id: 511,
      group_query: 'summit trail',
      merchant_token: merchantToken,
      analyst_login,
      operator_login,
      approver_login,
    },
    counts,
  };
}
