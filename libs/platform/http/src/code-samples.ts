/**
 * The API reference's code samples (`x-codeSamples`, shown by Redoc beside each operation): curl,
 * and the same call through the TypeScript SDK (`@cw-platform/sdk`) and the Python SDK
 * (`cw-platform-sdk`). Built with the documents from each route's method, path and security, so
 * a sample cannot name another path; a test compiles every TypeScript sample against the SDK and
 * resolves every Python call on the SDK's client (tools/dev-stack/test/sdk-code-samples.test.ts).
 */

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

interface SdkCall {
  /** Query string of the curl sample (without `?`). */
  query?: string;
  /** JSON body of the curl sample. */
  body?: Record<string, unknown>;
  /** curl's credential header when it is not the route's first scheme's. */
  auth?: string;
  /** Path parameters of the curl sample. */
  path?: Record<string, string>;
  /** The call through each SDK, after `cw` is made; absent: no SDK method (curl only). */
  ts?: string;
  py?: string;
}

const LINK = { program_id: 1001, subid: 'newsletter' };

/** Per operation id: what the samples do. */
const CALLS: Record<string, SdkCall> = {
  getAccount: { ts: 'const me = await cw.me();\nconsole.log(me.account_id, me.status);', py: 'me = cw.me()\nprint(me["account_id"], me["status"])' },
  getPaymentStatus: { ts: 'const status = await cw.paymentStatus();', py: 'status = cw.payment_status()' },
  searchProducts: {
    query: 'q=running%20shoe&country=DE&limit=20',
    ts: "// Iterating follows next_offset to the last page; `await` alone gives the first page.\nfor await (const product of cw.products.search({ q: 'running shoe', country: 'DE', limit: 20 })) {\n  console.log(product.title, product.price, product.currency, product.url);\n}",
    py: '# Iterating follows next_offset to the last page; .first_page() is one request.\nfor product in cw.products.search(q="running shoe", country="DE", limit=20):\n    print(product["title"], product["price"], product["currency"], product["url"])',
  },
  lookupProducts: {
    query: 'gtins=4006381333931',
    ts: "const page = await cw.products.lookup({ gtins: '4006381333931' });",
    py: 'page = cw.products.lookup(gtins="4006381333931").first_page()',
  },
  listPrograms: {
    query: 'include_available=true',
    ts: 'for await (const program of cw.programs.list({ include_available: true })) console.log(program);',
    py: 'for program in cw.programs.list(include_available=True):\n    print(program)',
  },
  listJoinablePrograms: {
    ts: 'for await (const program of cw.programs.joinable()) console.log(program);',
    py: 'for program in cw.programs.joinable():\n    print(program)',
  },
  applyToProgram: {
    body: { program_id: 1002 },
    ts: '// An Idempotency-Key is sent for you (pass { idempotencyKey } to choose it): retries are safe.\nconst application = await cw.programs.apply({ program_id: 1002 });',
    py: '# An Idempotency-Key is sent for you (idempotency_key="..." to choose it): retries are safe.\napplication = cw.programs.apply(program_id=1002)',
  },
  listLinks: {
    query: 'subid=newsletter',
    ts: "for await (const link of cw.links.list({ subid: 'newsletter' })) console.log(link.url);",
    py: 'for link in cw.links.list(subid="newsletter"):\n    print(link["url"])',
  },
  createLink: {
    body: LINK,
    ts: "// An Idempotency-Key is sent for you (pass { idempotencyKey } to choose it): retries are safe.\nconst link = await cw.links.create({ program_id: 1001, subid: 'newsletter' });\nconsole.log(link.url);\n// Smart link routes: visitors from Austria or Switzerland on an iPhone get another page of the program.\nawait cw.links.create({\n  program_id: 1001,\n  subid: 'newsletter',\n  routes: [{ countries: ['AT', 'CH'], devices: ['ios'], landing_url: 'https://www.nordlicht-sports.example/app' }],\n});",
    py: '# An Idempotency-Key is sent for you (idempotency_key="..." to choose it): retries are safe.\nlink = cw.links.create(program_id=1001, subid="newsletter")\nprint(link["url"])\n# Smart link routes: visitors from Austria or Switzerland on an iPhone get another page of the program.\ncw.links.create(program_id=1001, subid="newsletter", routes=[{"countries": ["AT", "CH"], "devices": ["ios"], "landing_url": "https://www.nordlicht-sports.example/app"}])',
  },
  createLinkBatch: {
    body: { links: [LINK, { program_id: 1001, subid: 'sidebar' }] },
    ts: "const result = await cw.links.createBatch([\n  { program_id: 1001, subid: 'newsletter' },\n  { program_id: 1001, subid: 'sidebar' },\n]);",
    py: 'result = cw.links.create_batch([{"program_id": 1001, "subid": "newsletter"}, {"program_id": 1001, "subid": "sidebar"}])',
  },
  listEvents: {
    ts: "// Walks until caught up; keep the last next_cursor and pass it as { cursor } next time.\nfor await (const event of cw.events.list()) console.log(event.type, 'conversion' in event ? event.conversion.id : event.id);",
    py: '# Walks until caught up; keep the last next_cursor and pass it as cursor= next time.\nfor event in cw.events.list():\n    print(event["type"], (event.get("conversion") or event)["id"])',
  },
  streamEvents: {
    ts: "// Reconnects with backoff after a cut and resumes after the last event (Last-Event-ID).\nfor await (const { cursor, type, event } of cw.events.stream({ cursor: await cw.events.latestCursor() })) {\n  console.log(type, 'conversion' in event ? event.conversion.id : event.id, cursor);\n}",
    py: '# Reconnects with backoff after a cut and resumes after the last event (Last-Event-ID).\nfor e in cw.events.stream(cw.events.latest_cursor()):\n    print(e.type, (e.event.get("conversion") or e.event)["id"], e.cursor)',
  },
  listConversions: {
    query: 'status=approved&date_from=2026-01-01',
    ts: "for await (const conversion of cw.conversions.list({ status: 'approved', date_from: '2026-01-01' })) {\n  console.log(conversion.id, conversion.commission, conversion.currency);\n}",
    py: 'for conversion in cw.conversions.list(status="approved", date_from="2026-01-01"):\n    print(conversion["id"], conversion["commission"], conversion["currency"])',
  },
  getReport: { query: 'group_by=week', ts: "const report = await cw.report({ group_by: 'week' });", py: 'report = cw.report(group_by="week")' },
  listClicks: {
    query: 'sub_id=newsletter',
    ts: "for await (const click of cw.clicks.list({ sub_id: 'newsletter' })) console.log(click);",
    py: 'for click in cw.clicks.list(sub_id="newsletter"):\n    print(click)',
  },
  listBalanceTransactions: {
    query: 'currency=EUR',
    ts: "for await (const entry of cw.balance.transactions({ currency: 'EUR' })) console.log(entry.type, entry.amount);",
    py: 'for entry in cw.balance.transactions(currency="EUR"):\n    print(entry["type"], entry["amount"])',
  },
  listPayouts: {
    ts: 'for await (const payout of cw.payouts.list()) console.log(payout.id, payout.status, payout.amount, payout.currency);',
    py: 'for payout in cw.payouts.list():\n    print(payout["id"], payout["status"], payout["amount"], payout["currency"])',
  },
  getPayout: { ts: "const payout = await cw.payouts.get('po_0123456789abcdef01234567');", py: 'payout = cw.payouts.get("po_0123456789abcdef01234567")' },
  getPayoutStatement: {
    ts: "const pdf = await cw.payouts.statement('po_0123456789abcdef01234567'); // Uint8Array; 'json' as 2nd argument for its content",
    py: 'pdf = cw.payouts.statement("po_0123456789abcdef01234567")  # bytes; statement_json() for its content',
  },
  requestPayout: {
    ts: 'const payout = await cw.payouts.request(); // Idempotency-Key sent for you',
    py: 'payout = cw.payouts.request()  # Idempotency-Key sent for you',
  },
  fileInquiry: {
    body: { program_id: 1001, order_id: 'A-1001', occurred_at: '2026-05-04T18:20:00Z', amount: '89.90', currency: 'EUR' },
    ts: "const inquiry = await cw.inquiries.file({ program_id: 1001, order_id: 'A-1001', occurred_at: '2026-05-04T18:20:00Z', amount: '89.90', currency: 'EUR' });\nconsole.log(inquiry.id, inquiry.evidence.clicks);",
    py: 'inquiry = cw.inquiries.file({"program_id": 1001, "order_id": "A-1001", "occurred_at": "2026-05-04T18:20:00Z", "amount": "89.90", "currency": "EUR"})\nprint(inquiry["id"], inquiry["evidence"]["clicks"])',
  },
  listInquiries: {
    query: 'status=open',
    ts: "for await (const inquiry of cw.inquiries.list({ status: 'open' })) console.log(inquiry.id, inquiry.respond_by);",
    py: 'for inquiry in cw.inquiries.list(status="open"):\n    print(inquiry["id"], inquiry["respond_by"])',
  },
  getInquiry: { path: { id: 'inq_…' }, ts: "const inquiry = await cw.inquiries.get('inq_…');", py: 'inquiry = cw.inquiries.get("inq_…")' },
  listCodes: {
    query: 'program_id=1001',
    ts: 'for await (const code of cw.codes.list({ program_id: 1001 })) console.log(code.code, code.status);',
    py: 'for code in cw.codes.list(program_id=1001):\n    print(code["code"], code["status"])',
  },
  requestCode: {
    body: { program_id: 1001, code: 'TRAILNOTES10' },
    ts: "const code = await cw.codes.request({ program_id: 1001, code: 'TRAILNOTES10' });\nconsole.log(code.code, code.status); // active or pending_review",
    py: 'code = cw.codes.request({"program_id": 1001, "code": "TRAILNOTES10"})\nprint(code["code"], code["status"])  # active or pending_review',
  },
  getPostback: { ts: 'const postback = await cw.postback.get();', py: 'postback = cw.postback.get()' },
  // Postback changes take the portal API token only (no SDK method: a leaked key cannot redirect conversions).
  putPostback: { auth: '-H "Authorization: Bearer $PTL"', body: { url: 'https://example.com/postback?subid={subid}', http_method: 'POST' } },
  rotatePostbackSecret: { auth: '-H "Authorization: Bearer $PTL"' },
  testPostback: { ts: 'const delivery = await cw.postback.test();', py: 'delivery = cw.postback.test()' },
  listPostbackDeliveries: {
    query: 'status=failed',
    ts: "for await (const delivery of cw.postback.deliveries({ status: 'failed' })) console.log(delivery);",
    py: 'for delivery in cw.postback.deliveries(status="failed"):\n    print(delivery)',
  },
  redeliverPostback: { path: { id: 'dlv_…' }, ts: "await cw.postback.redeliver('dlv_…');", py: 'cw.postback.redeliver("dlv_…")' },
  listOffers: {
    query: 'country=DE',
    ts: "const cw = new CwClient({ offersCredential: process.env.CW_OFFERS_CREDENTIAL });\nfor await (const offer of cw.offers({ country: 'DE' })) console.log(offer);",
    py: 'cw = CwClient(offers_credential=os.environ["CW_OFFERS_CREDENTIAL"])\nfor offer in cw.offers(country="DE"):\n    print(offer)',
  },
  listTrendingOpportunities: {
    query: 'country=DE',
    ts: "const trending = await cw.trendingOpportunities({ country: 'DE' });",
    py: 'trending = cw.trending_opportunities(country="DE")',
  },
  listReportingEvents: {
    ts: "for await (const event of cw.reporting.events.list()) console.log(event.type, 'conversion' in event ? event.conversion.id : event.id);",
    py: 'for event in cw.reporting.events.list():\n    print(event["type"], (event.get("conversion") or event)["id"])',
  },
  streamReportingEvents: {
    ts: "for await (const { type, event } of cw.reporting.events.stream()) console.log(type, 'conversion' in event ? event.conversion.id : event.id);",
    py: 'for e in cw.reporting.events.stream():\n    print(e.type, (e.event.get("conversion") or e.event)["id"])',
  },
  listSales: {
    query: 'status=approved',
    ts: "for await (const sale of cw.reporting.sales({ status: 'approved' })) console.log(sale);",
    py: 'for sale in cw.reporting.sales(status="approved"):\n    print(sale)',
  },
  exportSales: { ts: 'const csv = await cw.reporting.exportSales();', py: 'csv_text = cw.reporting.export_sales()' },
  listSubidSales: {
    ts: 'for await (const row of cw.reporting.subidSales()) console.log(row);',
    py: 'for row in cw.reporting.subid_sales():\n    print(row)',
  },
  salesSummary: {
    query: 'group_by=subid',
    ts: "const summary = await cw.reporting.summary({ group_by: 'subid' });",
    py: 'summary = cw.reporting.summary(group_by="subid")',
  },
  listInstantPrograms: {
    query: 'publisher_url=https%3A%2F%2Fmy-blog.example',
    ts: "const programs = await cw.monetize.programs({ publisher_url: 'https://my-blog.example' });",
    py: 'programs = cw.monetize.programs(publisher_url="https://my-blog.example").first_page()',
  },
  requestInstantLinks: {
    body: { publisher_url: 'https://my-blog.example', placement_description: 'gear list in my running blog' },
    ts: "const application = await cw.monetize.createLinks({ publisher_url: 'https://my-blog.example', placement_description: 'gear list in my running blog' });",
    py: 'application = cw.monetize.create_links("https://my-blog.example", "gear list in my running blog")',
  },
  rewriteSocialPost: {
    body: { post_text: 'My favourite trail shoes: https://www.nordlicht-sports.example/', channel: 'social' },
    ts: "const post = await cw.monetize.socialPost({ post_text: 'My favourite trail shoes: https://www.nordlicht-sports.example/', channel: 'social' });",
    py: 'post = cw.monetize.social_post("My favourite trail shoes: https://www.nordlicht-sports.example/", "social")',
  },
  getInstantApplication: {
    path: { id: 'app_…' },
    query: 'access_secret=…',
    ts: "const application = await cw.monetize.request('app_…', accessSecret);",
    py: 'application = cw.monetize.request("app_…", access_secret)',
  },
  getInstantProfile: {
    path: { id: 'app_…' },
    query: 'access_secret=…',
    ts: "const profile = await cw.monetize.profile('app_…', accessSecret);",
    py: 'profile = cw.monetize.profile("app_…", access_secret)',
  },
  updateInstantProfile: {
    path: { id: 'app_…' },
    query: 'access_secret=…',
    body: { display_name: 'My running blog' },
    ts: "const profile = await cw.monetize.updateProfile('app_…', accessSecret, { display_name: 'My running blog' });",
    py: 'profile = cw.monetize.update_profile("app_…", access_secret, display_name="My running blog")',
  },
  getFeedUrl: {
    query: 'country=DE&format=csv',
    ts: "const feed = await cw.feeds.url({ country: 'DE', format: 'csv' });\n// The signed URL needs no key.\nif (feed.url) console.log(await cw.feeds.download(feed.url));",
    py: 'feed = cw.feeds.url(country="DE", format="csv")\ncsv_text = cw.feeds.download(feed["url"])  # the signed URL needs no key',
  },
};

/** The credential header of curl for an operation's first security scheme. */
const CURL_AUTH: Record<string, string> = {
  ApiKeyHeader: '-H "X-API-Key: $KEY"',
  BearerAuth: '-H "Authorization: Bearer $KEY"',
  ReportingToken: '-H "Authorization: Bearer $RPT"',
  OffersCredential: '-H "Authorization: Bearer $OFFERS"',
  MerchantToken: '-H "Authorization: Bearer $MRC"',
};

/** How each SDK's client is made for an operation of this security. */
function clients(security: string[]): { ts: string; py: string } {
  if (security.includes('ReportingToken'))
    return {
      ts: 'const cw = new CwClient({ reportingToken: process.env.CW_REPORTING_TOKEN });',
      py: 'cw = CwClient(reporting_token=os.environ["CW_REPORTING_TOKEN"])',
    };
  if (!security.length)
    return { ts: 'const cw = new CwClient(); // CW_BASE_URL; no credential needed', py: 'cw = CwClient()  # CW_BASE_URL; no credential needed' };
  return {
    ts: 'const cw = new CwClient(); // CW_API_KEY and CW_BASE_URL from the environment',
    py: 'cw = CwClient()  # CW_API_KEY and CW_BASE_URL from the environment',
  };
}

/** The samples of one operation: undefined for operations the publisher SDKs do not cover. */
export function codeSamples(op: { operationId: string; method: string; path: string; security: string[]; serverUrl: string }): CodeSample[] | undefined {
  const call = CALLS[op.operationId];
  if (!call) return undefined;
  const path = op.path.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => call.path?.[name] ?? `{${name}}`);
  const url = `${op.serverUrl}${path}${call.query ? `?${call.query}` : ''}`;
  const auth = call.auth ?? op.security.map((s) => CURL_AUTH[s]).find(Boolean);
  const curl = [
    `curl -s${op.method === 'GET' ? '' : ` -X ${op.method}`} "${url}"`,
    ...(auth ? [auth] : []),
    ...(call.body ? ['-H "Content-Type: application/json"', `-d '${JSON.stringify(call.body)}'`] : []),
  ].join(' \\\n  ');
  const samples: CodeSample[] = [{ lang: 'Shell', label: 'curl', source: curl }];
  if (call.ts && call.py) {
    const made = clients(op.security);
    const tsClient = call.ts.includes('new CwClient(') ? '' : `${made.ts}\n`;
    const pyClient = call.py.includes('CwClient(') ? '' : `${made.py}\n`;
    samples.push(
      { lang: 'TypeScript', label: 'TypeScript', source: `import { CwClient } from '@cw-platform/sdk';\n\n${tsClient}${call.ts}` },
      {
        lang: 'Python',
        label: 'Python',
        source: `${`${pyClient}${call.py}`.includes('os.') ? 'import os\n' : ''}from cw_sdk import CwClient\n\n${pyClient}${call.py}`,
      },
    );
  }
  return samples;
}

/** Operation ids with samples (tests compare them with the documents' operations). */
export const CODE_SAMPLE_OPERATIONS = Object.keys(CALLS);
