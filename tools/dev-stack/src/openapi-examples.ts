/**
 * The OpenAPI documents' response examples, recorded from the demo data: one real request per
 * operation (and per status or media type it can answer with), in an order that gives each the
 * state it needs (a click before its sale, a failed delivery before its redelivery). Secrets in
 * the answers are masked. `npm run openapi:examples` writes them beside each app
 * (`apps/<app>/src/openapi.examples.json`); a test records them again and checks every one
 * against its schema, so a request here that stops answering 2xx fails the build.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenApiExamples } from '@cw/http';
import type { CredentialsFile } from './platform';

export interface Recorded {
  app: string;
  operationId: string;
  status: number;
  contentType: string;
  body: unknown;
}

type Auth = { 'X-API-Key': string } | { Authorization: string } | Record<string, never>;

/** A postback receiver that answers as told (the recorder needs one failure to redeliver). */
async function receiver(): Promise<{ url: string; failNext(): void; close(): Promise<void> }> {
  let fail = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(fail ? 500 : 204).end();
      fail = false;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/postback?subid={subid}`,
    failNext: () => (fail = true),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const SECRET_MEMBERS = new Set(['secret', 'previous_secret', 'access_secret']);

/** Masks secrets (shown once in real answers) so examples never carry one that worked anywhere; lists cut to 3 items. */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 3).map(masked);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      SECRET_MEMBERS.has(k) && typeof v === 'string' ? v.replace(/^([a-z]+_)(.*)$/, (_, p: string, rest: string) => p + 'x'.repeat(rest.length)) : masked(v),
    ]),
  );
}

/** A text answer cut to its first lines (feeds, CSV exports). */
const firstLines = (text: string, n: number) => `${text.split('\n').slice(0, n).join('\n')}\n`;

/** Records one answer of every documented operation of the platform at `base`. */
export async function recordExamples(base: string, creds: CredentialsFile): Promise<Recorded[]> {
  const out: Recorded[] = [];
  const [pub] = creds.publishers;
  const key: Auth = { 'X-API-Key': pub.keys.live };
  const bearer = (token: string): Auth => ({ Authorization: `Bearer ${token}` });
  const portal = bearer(pub.portal_token);

  async function call(app: string, operationId: string, method: string, path: string, auth: Auth, body?: unknown, accept?: (status: number) => boolean) {
    const res = await fetch(`${base}${path}`, {
      method,
      redirect: 'manual',
      headers: { ...auth, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    if (!(accept ?? ((s) => s >= 200 && s < 300))(res.status))
      throw new Error(`${operationId}: ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    const parsed: unknown =
      contentType === 'application/json' || contentType.endsWith('+json')
        ? JSON.parse(text)
        : contentType === 'application/pdf'
          ? `${bytes.subarray(0, 8).toString('latin1')}… (a PDF of ${bytes.length} bytes)`
          : firstLines(text, 4);
    out.push({ app, operationId, status: res.status, contentType, body: masked(parsed) });
    return parsed as Record<string, unknown> & { data?: Array<Record<string, unknown>> };
  }
  /** An event stream's opening (the retry hint and the first events), then hang up. */
  async function stream(app: string, operationId: string, path: string, auth: Auth) {
    const controller = new AbortController();
    const res = await fetch(`${base}${path}`, { headers: auth, signal: controller.signal });
    if (res.status !== 200) throw new Error(`${operationId}: GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const reader = res.body!.getReader();
    let text = '';
    // The retry hint, then two events (each ends with a blank line).
    while ((text.match(/\n\n/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const body = text.split('\n\n').slice(0, 3).join('\n\n') + '\n\n';
    out.push({ app, operationId, status: 200, contentType: 'text/event-stream', body: masked(body) });
  }
  /** The operator pays a requested payout in the portal: signs in, approves its run, settles it with the sandbox bank. */
  async function payInPortal(payoutId: string) {
    const origin = new URL(base).origin;
    const signin = await fetch(`${base}/portal/api/signin`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: origin },
      body: JSON.stringify(creds.fixtures.operator_login),
    });
    if (signin.status !== 200) throw new Error(`operator sign-in answered ${signin.status}`);
    const cookie = signin.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = ((await signin.json()) as { csrf_token: string }).csrf_token;
    const op = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/portal/api/operator${path}`, {
        method,
        headers: { Cookie: cookie, Origin: origin, 'X-CSRF-Token': csrf, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.status !== 200) throw new Error(`operator ${method} ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const runs = (await op('GET', '/payout-runs')) as unknown as { data: Array<{ _id?: string; id?: string }> } | Array<{ _id?: string; id?: string }>;
    for (const run of Array.isArray(runs) ? runs : runs.data) {
      const id = String(run.id ?? run._id);
      const detail = (await op('GET', `/payout-runs/${id}`)) as { payouts: Array<{ id?: string; _id?: string }> };
      if (!detail.payouts.some((p) => (p.id ?? p._id) === payoutId)) continue;
      await op('POST', `/payout-runs/${id}/approve`);
      await op('POST', `/payout-runs/${id}/settle`, { sandbox: true });
      return;
    }
    throw new Error(`no payout run holds ${payoutId}`);
  }
  const P = '/api/v1/publisher';
  const f = creds.fixtures;
  const pubCall = (op: string, method: string, path: string, auth: Auth = key, body?: unknown) => call('publisher-api', op, method, `${P}${path}`, auth, body);

  // Publisher API.
  await pubCall('getAccount', 'GET', '/me/');
  await pubCall('getPaymentStatus', 'GET', '/payment-status/');
  await pubCall('listBalanceTransactions', 'GET', '/balance/transactions/?page_size=2');
  // publishers[0] has a bank payout method and a balance above its threshold: a payout it requests waits for the network.
  const payout = await pubCall('requestPayout', 'POST', '/payouts/', key, {});
  await pubCall('listPayouts', 'GET', '/payouts/?page_size=2');
  await pubCall('getPayout', 'GET', `/payouts/${String(payout.id)}/`);
  // The network pays it (an admin approves its run, the sandbox bank settles it): its statement is issued.
  await payInPortal(String(payout.id));
  await pubCall('getPayoutStatement', 'GET', `/payouts/${String(payout.id)}/statement/`);
  await pubCall('getPayoutStatement', 'GET', `/payouts/${String(payout.id)}/statement/`, { ...key, Accept: 'application/json' } as Auth);
  await pubCall('searchProducts', 'GET', `/products/?q=${encodeURIComponent(f.group_query)}&country=${f.country}&limit=2`);
  await pubCall('lookupProducts', 'GET', `/products/lookup/?gtins=${f.gtin_leading_zero}&country=${f.country}`);
  await pubCall('listPrograms', 'GET', '/programs/?page_size=2');
  await pubCall('listJoinablePrograms', 'GET', '/programs/joinable/?page_size=2');
  await pubCall('applyToProgram', 'POST', '/programs/apply/', key, { program_id: f.joinable_program_id });
  await pubCall('applyToProgram', 'POST', '/programs/apply/', key, { program_id: f.joinable_program_id });
  // With smart link routes (one rule): the 201 and the 200 after it both show them.
  const link = await pubCall('createLink', 'POST', '/links/', key, {
    program_id: f.approved_program_id,
    subid: 'spring-sale',
    routes: [{ countries: ['AT', 'CH'], devices: ['ios'], landing_url: new URL('/app', f.approved_program_landing_url).toString() }],
  });
  await pubCall('createLink', 'POST', '/links/', key, { program_id: f.approved_program_id, subid: 'spring-sale' });
  await pubCall('createLinkBatch', 'POST', '/links/batch/', key, {
    links: [
      { program_id: f.approved_program_id, subid: 'newsletter' },
      { program_id: f.approved_program_id, landing_url: f.approved_program_landing_url, subid: 'sidebar' },
    ],
  });
  await pubCall('listLinks', 'GET', '/links/?page_size=2');
  await pubCall('listConversions', 'GET', '/conversions/?page_size=2');
  await pubCall('getReport', 'GET', '/reports/?group_by=week');
  await pubCall('listEvents', 'GET', '/events/?limit=2');
  await stream('publisher-api', 'streamEvents', `${P}/events/stream/`, key);
  await pubCall('listClicks', 'GET', '/clicks/?page_size=2');
  await pubCall('getPostback', 'GET', '/postback/');
  const sink = await receiver();
  try {
    await pubCall('putPostback', 'PUT', '/postback/', portal, { url: sink.url, http_method: 'POST' });
    await pubCall('putPostback', 'PUT', '/postback/', portal, { url: sink.url, http_method: 'POST', event_types: ['sale.approved', 'sale.reversed'] });
    await pubCall('rotatePostbackSecret', 'POST', '/postback/secret/', portal);
    await pubCall('testPostback', 'POST', '/postback/test/', portal);
    sink.failNext();
    const failed = (await (await fetch(`${base}${P}/postback/test/`, { method: 'POST', headers: portal })).json()) as { delivery_id: string };
    await pubCall('listPostbackDeliveries', 'GET', '/postback/deliveries/?page_size=2');
    await pubCall('redeliverPostback', 'POST', `/postback/deliveries/${failed.delivery_id}/redeliver/`, portal);
  } finally {
    await sink.close();
  }
  await pubCall('listOffers', 'GET', `/offers/?country=${f.country}&limit=2`, bearer(pub.offers_credential));
  await pubCall('listTrendingOpportunities', 'GET', '/trending-opportunities/');
  await pubCall('listTrendingOpportunities', 'GET', '/trending-opportunities/?format=csv');

  // Merchant intake (tracker), on a click of the link created above.
  const redirect = await fetch(String(link.url), {
    redirect: 'manual',
    headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0' },
  });
  const clickId = /clk_[A-Za-z0-9_-]+/.exec(redirect.headers.get('location') ?? '')?.[0];
  const merchant = bearer(f.merchant_token);
  const sale = { click_id: clickId, order_id: `ORD-${Date.now()}`, amount: '129.90', currency: 'EUR' };
  const conversion = await call('tracker', 'reportConversion', 'POST', '/api/v1/track/conversions/', merchant, sale);
  await call('tracker', 'reportConversion', 'POST', '/api/v1/track/conversions/', merchant, sale);
  await call('tracker', 'changeConversionStatus', 'PATCH', `/api/v1/track/conversions/${String(conversion.id)}/`, merchant, { status: 'approved' });

  // Missing-sale inquiries: the publisher files two orders (one on the click above), the merchant accepts one and rejects the other.
  const order = { program_id: f.approved_program_id, occurred_at: new Date().toISOString(), amount: '89.90', currency: 'EUR' };
  const inquiry = await pubCall('fileInquiry', 'POST', '/inquiries/', key, {
    ...order,
    order_id: `ORD-${Date.now()}-A`,
    click_id: clickId,
    note: 'Paid by invoice.',
  });
  const other = await pubCall('fileInquiry', 'POST', '/inquiries/', key, { ...order, order_id: `ORD-${Date.now()}-B` });
  // The same order filed again answers 200 with its inquiry.
  await pubCall('fileInquiry', 'POST', '/inquiries/', key, { ...order, order_id: String(other.order_id) });
  await pubCall('listInquiries', 'GET', '/inquiries/?page_size=2');
  await pubCall('getInquiry', 'GET', `/inquiries/${String(inquiry.id)}/`);
  await call('tracker', 'listMerchantInquiries', 'GET', '/api/v1/track/inquiries/?status=open&page_size=2', merchant);
  await call('tracker', 'getMerchantInquiry', 'GET', `/api/v1/track/inquiries/${String(inquiry.id)}/`, merchant);
  await call('tracker', 'acceptInquiry', 'POST', `/api/v1/track/inquiries/${String(inquiry.id)}/accept/`, merchant, {});
  await call('tracker', 'rejectInquiry', 'POST', `/api/v1/track/inquiries/${String(other.id)}/reject/`, merchant, { reason: 'no_order' });

  // Personal coupon codes: the demo program approves codes at once (201), asking again for the same code answers 200.
  await pubCall('requestCode', 'POST', '/codes/', key, { program_id: f.approved_program_id, code: 'TRAILNOTES10' });
  await pubCall('requestCode', 'POST', '/codes/', key, { program_id: f.approved_program_id, code: 'trailnotes10' });
  await pubCall('listCodes', 'GET', '/codes/?page_size=2');

  // Agent attribution: a product result carries a token on request; its merchant checks it without spending it.
  const programs = (await (await fetch(`${base}${P}/programs/?page_size=50`, { headers: key })).json()) as {
    data: Array<{ id: number; merchant: { id: number } }>;
  };
  const merchantId = programs.data.find((p) => p.id === f.approved_program_id)?.merchant.id;
  const tokened = await fetch(`${base}${P}/products/?country=${f.country}&merchant=${merchantId}&limit=2&attribution=token`, { headers: key });
  const [attributed] = ((await tokened.json()) as { products: Array<{ affiliate_attribution?: { token: string } }> }).products;
  if (!attributed?.affiliate_attribution) throw new Error('verifyAttribution: no product carried an attribution token');
  await call('tracker', 'verifyAttribution', 'POST', '/api/v1/track/attributions/verify/', merchant, { token: attributed.affiliate_attribution.token });

  // Reporting-token API.
  const R = '/api/v1/affiliate-reporting';
  const rpt = bearer(pub.reporting_token);
  await call('reporting-api', 'listSales', 'GET', `${R}/sales/?page_size=2`, rpt);
  await call('reporting-api', 'listReportingEvents', 'GET', `${R}/events/?limit=2`, rpt);
  await stream('reporting-api', 'streamReportingEvents', `${R}/events/stream/`, rpt);
  await call('reporting-api', 'exportSales', 'GET', `${R}/sales/export/`, rpt);
  await call('reporting-api', 'listSubidSales', 'GET', `${R}/subid-sales/?page_size=2`, rpt);
  await call('reporting-api', 'salesSummary', 'GET', `${R}/summary/?group_by=subid`, rpt);
  const stats = `Target=Affiliate_Report&Method=getStats&fields[]=Stat.date&fields[]=Stat.currency&fields[]=Stat.clicks&fields[]=Stat.conversions&fields[]=Stat.payout&groups[]=Stat.date&sort[Stat.date]=desc&limit=2`;
  await call('reporting-api', 'apiv3Get', 'GET', `/Apiv3/json?api_key=${pub.reporting_token}&${stats}`, {});
  await call(
    'reporting-api',
    'apiv3Post',
    'POST',
    `/Apiv3/json`,
    {},
    { api_key: pub.reporting_token, Target: 'Affiliate_Offer', Method: 'findMyApprovedOffers', limit: 1 },
  );

  // Instant monetization.
  const M = '/api/v1/monetize';
  await call('monetize-api', 'listInstantPrograms', 'GET', `${M}/programs/?country=${f.country}&page_size=2`, {});
  const application = await call(
    'monetize-api',
    'requestInstantLinks',
    'POST',
    `${M}/links/`,
    {},
    {
      publisher_url: 'https://trail-notes.example/gear',
      placement_description: 'gear list in my running blog',
    },
  );
  const social = { post_text: `New favourite trail shoes: ${f.approved_program_landing_url} #running`, channel: 'social' };
  await call('monetize-api', 'rewriteSocialPost', 'POST', `${M}/social-post/`, {}, social);
  const id = String(application.application_id);
  const secret = `access_secret=${encodeURIComponent(String(application.access_secret))}`;
  await call('monetize-api', 'getInstantApplication', 'GET', `${M}/requests/${id}/?${secret}`, {});
  await call('monetize-api', 'getInstantProfile', 'GET', `${M}/profile/${id}/?${secret}`, {});
  await call('monetize-api', 'updateInstantProfile', 'PATCH', `${M}/profile/${id}/?${secret}`, {}, { display_name: 'Trail Notes' });

  // Feeds.
  await call('feed-service', 'getFeedUrl', 'GET', `/api/v1/affiliates/feed/?country=${f.country}&format=csv`, key);
  for (const format of ['xml', 'csv', 'tsv', 'json']) {
    const answer = await fetch(`${base}/api/v1/affiliates/feed/?country=${f.country}&format=${format}`, { headers: key });
    const url = new URL(String(((await answer.json()) as { url: string }).url));
    await call('feed-service', 'getProductFeed', 'GET', `${url.pathname}${url.search}`, {});
  }
  return out;
}

/** Recorded answers as each app's examples: the first answer per operation, status and media type. */
export function examplesByApp(recorded: Recorded[], base: string): Record<string, OpenApiExamples> {
  const byApp: Record<string, OpenApiExamples> = {};
  const local = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll(base, 'http://127.0.0.1:8080'));
  for (const r of recorded) {
    const op = ((byApp[r.app] ??= {})[r.operationId] ??= {});
    const status = (op[String(r.status)] ??= {});
    status[r.contentType] ??= local(r.body);
  }
  return byApp;
}
