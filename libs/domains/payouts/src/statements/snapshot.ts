/**
 * What a statement says (its snapshot, stored with it and served as its JSON form): both parties,
 * the payout, one line per program, month and currency from the ledger entries the payout netted,
 * per-currency totals with the rate used, the total paid and the VAT treatment
 * (docs/decisions/0058-statements-and-vat.md).
 */
import { earningsBetween, type Earning } from '@cw/ledger';
import { addDecimals, compareDecimals, formatDecimal, minorUnits, parseDecimal } from '@cw/money';
import { own, type PayoutsDeps } from '../deps';
import { statementTaxParty, type TaxParty } from './tax-party';
import { VAT_TREATMENTS, vatTreatment, type VatTreatment } from './vat';

/** What a statement reads of its payout (a payout row as stored). */
export interface PayoutRow {
  _id: string;
  publisher_id: string;
  status: string;
  amount: { toString(): string };
  currency: string;
  method: { type: string; last4: string };
  sources: Array<{ currency: string; amount: string }>;
  converted: Array<{ currency: string; amount: string }>;
  fx: Array<{ from: string; to: string; rate: string; date: string }>;
  statement: { number: string } | null;
  created_at: Date;
  paid_at?: Date;
}

export interface StatementLine {
  program_id: number | null;
  program: string;
  /** The month of the sales (YYYY-MM, UTC). */
  month: string;
  currency: string;
  commission: string;
  reversals: string;
  corrections: string;
  /** commission + reversals + corrections (reversals are negative). */
  amount: string;
}

export interface StatementCurrency {
  currency: string;
  /** The sum of this currency's lines. */
  lines: string;
  /** What the payout paid of this currency beyond its lines (see the decision record). */
  brought_forward: string;
  /** What the payout took of this currency's balance. */
  paid: string;
  /** The rate to the payout's currency (null: the payout's own currency). */
  fx: { to: string; rate: string; date: string } | null;
  /** `paid` in the payout's currency. */
  converted: string;
}

export interface StatementSnapshot {
  number: string;
  document: 'self_billing_statement';
  issued_at: string;
  supersedes: string | null;
  payout: { id: string; amount: string; currency: string; paid_at: string; method: { type: string; last4: string } };
  /** The network: receives the services and issues the statement on the supplier's behalf. */
  issuer: { legal_name: string; address: string[]; country: string; vat_id: string; tax_id: string };
  /** The publisher: supplies the services. Without a tax profile, the account's name only. */
  supplier: {
    account_id: string;
    name: string;
    tax_profile: boolean;
    kind: 'individual' | 'company' | null;
    address: string[];
    country: string | null;
    vat_id: string | null;
    tin_kind: string | null;
    tin_masked: string | null;
  };
  /** The entries listed: booked after `from` (null: the first) up to `to`. */
  period: { from: string | null; to: string };
  lines: StatementLine[];
  currencies: StatementCurrency[];
  total: { amount: string; currency: string };
  vat: { treatment: VatTreatment; text: string };
}

const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const obj = (required: readonly string[], properties: Record<string, unknown>) =>
  ({ type: 'object', additionalProperties: false, required, properties }) as const;

/** The JSON form of a statement (`GET /payouts/{id}/statement` with `Accept: application/json`, MCP). */
export const STATEMENT_SCHEMA = obj(
  ['number', 'document', 'issued_at', 'supersedes', 'payout', 'issuer', 'supplier', 'period', 'lines', 'currencies', 'total', 'vat'],
  {
    number: { type: 'string', description: '`YYYY-NNNNNN`: numbered without gaps per account and calendar year.' },
    document: { type: 'string', enum: ['self_billing_statement'] },
    issued_at: { type: 'string', format: 'date-time', description: 'The payment date.' },
    supersedes: { type: ['string', 'null'], description: 'The number of the statement this one corrects.' },
    payout: obj(['id', 'amount', 'currency', 'paid_at', 'method'], {
      id: str,
      amount: str,
      currency: str,
      paid_at: { type: 'string', format: 'date-time' },
      method: obj(['type', 'last4'], { type: str, last4: str }),
    }),
    issuer: obj(['legal_name', 'address', 'country', 'vat_id', 'tax_id'], {
      legal_name: str,
      address: { type: 'array', items: str },
      country: str,
      vat_id: str,
      tax_id: str,
    }),
    supplier: obj(['account_id', 'name', 'tax_profile', 'kind', 'address', 'country', 'vat_id', 'tin_kind', 'tin_masked'], {
      account_id: str,
      name: { type: 'string', description: "The tax profile's legal name, else the account's name." },
      tax_profile: { type: 'boolean' },
      kind: { type: ['string', 'null'], enum: ['individual', 'company', null] },
      address: { type: 'array', items: str },
      country: strOrNull,
      vat_id: strOrNull,
      tin_kind: strOrNull,
      tin_masked: { type: ['string', 'null'], description: 'The taxpayer id, masked.' },
    }),
    period: obj(['from', 'to'], { from: { type: ['string', 'null'], format: 'date-time' }, to: { type: 'string', format: 'date-time' } }),
    lines: {
      type: 'array',
      description: 'One line per program, month of the sales and currency.',
      items: obj(['program_id', 'program', 'month', 'currency', 'commission', 'reversals', 'corrections', 'amount'], {
        program_id: { type: ['integer', 'null'] },
        program: str,
        month: str,
        currency: str,
        commission: str,
        reversals: str,
        corrections: str,
        amount: str,
      }),
    },
    currencies: {
      type: 'array',
      items: obj(['currency', 'lines', 'brought_forward', 'paid', 'fx', 'converted'], {
        currency: str,
        lines: str,
        brought_forward: str,
        paid: str,
        fx: { type: ['object', 'null'], additionalProperties: false, required: ['to', 'rate', 'date'], properties: { to: str, rate: str, date: str } },
        converted: str,
      }),
    },
    total: obj(['amount', 'currency'], { amount: str, currency: str }),
    vat: obj(['treatment', 'text'], { treatment: { type: 'string', enum: VAT_TREATMENTS }, text: str }),
  },
);

/** How many entries' sales are looked up at once. */
const BATCH = 1000;

const money = (amounts: string[], currency: string) => {
  const d = addDecimals(amounts.length ? amounts : ['0']);
  return formatDecimal(d, Math.max(d.scale, minorUnits(currency)));
};

/**
 * The ledger entries the payout netted, by program, month and currency: entries booked after the
 * publisher's previous payout that was sent up to this payout's creation, in the currencies it paid.
 */
async function linesOf(deps: PayoutsDeps, p: PayoutRow): Promise<{ lines: StatementLine[]; from: Date | null }> {
  const previous = await own(deps)
    .Payout.findOne({ publisher_id: p.publisher_id, status: { $in: ['in_transit', 'paid'] }, created_at: { $lt: p.created_at } }, { created_at: 1 })
    .sort({ created_at: -1, _id: -1 })
    .lean<{ created_at: Date }>();
  const from = previous?.created_at ?? null;
  const paidCurrencies = new Set(p.sources.map((s) => s.currency));
  type Acc = { program_id: number | null; month: string; currency: string; commission: string[]; reversals: string[]; corrections: string[] };
  const groups = new Map<string, Acc>();
  let batch: Earning[] = [];
  const flush = async () => {
    const facts = await deps.data.conversions.programsAndDates(
      p.publisher_id,
      batch.flatMap((e) => (e.conversion_id ? [e.conversion_id] : [])),
    );
    for (const e of batch) {
      const f = e.conversion_id ? facts.get(e.conversion_id) : undefined;
      const program_id = f?.program_id ?? null;
      const month = (f?.occurred_at ?? e.created_at).toISOString().slice(0, 7);
      const k = `${program_id ?? ''}|${month}|${e.currency}`;
      const g = groups.get(k) ?? { program_id, month, currency: e.currency, commission: [], reversals: [], corrections: [] };
      (e.type === 'commission' ? g.commission : e.type === 'reversal' ? g.reversals : g.corrections).push(e.amount);
      groups.set(k, g);
    }
    batch = [];
  };
  for await (const e of earningsBetween(deps, p.publisher_id, { after: from, until: p.created_at })) {
    if (!paidCurrencies.has(e.currency)) continue;
    batch.push(e);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  const ids = [...new Set([...groups.values()].flatMap((g) => (g.program_id === null ? [] : [g.program_id])))];
  const names = ids.length ? await deps.data.programs.namesOf(ids) : new Map<number, string>();
  const lines = [...groups.values()]
    .map((g) => ({
      program_id: g.program_id,
      program: g.program_id === null ? 'Network bookings' : (names.get(g.program_id) ?? `Program ${g.program_id}`),
      month: g.month,
      currency: g.currency,
      commission: money(g.commission, g.currency),
      reversals: money(g.reversals, g.currency),
      corrections: money(g.corrections, g.currency),
      amount: money([...g.commission, ...g.reversals, ...g.corrections], g.currency),
    }))
    .sort(
      (a, b) =>
        a.currency.localeCompare(b.currency) ||
        a.month.localeCompare(b.month) ||
        a.program.localeCompare(b.program) ||
        (a.program_id ?? -1) - (b.program_id ?? -1),
    );
  return { lines, from };
}

/** Per currency paid: its lines' sum, what they do not explain, the rate and the converted amount. */
export function currencyTotals(p: Pick<PayoutRow, 'currency' | 'sources' | 'converted' | 'fx'>, lines: StatementLine[]): StatementCurrency[] {
  return p.sources.map((s, i) => {
    const mine = lines.filter((l) => l.currency === s.currency).map((l) => l.amount);
    const linesSum = money(mine, s.currency);
    const rest = addDecimals([s.amount, linesSum.startsWith('-') ? linesSum.slice(1) : `-${linesSum}`]);
    const fx = p.fx.find((f) => f.from === s.currency);
    return {
      currency: s.currency,
      lines: linesSum,
      brought_forward: formatDecimal(rest, Math.max(rest.scale, minorUnits(s.currency))),
      paid: s.amount,
      fx: fx ? { to: fx.to, rate: fx.rate, date: fx.date } : null,
      converted: p.converted[i]?.amount ?? s.amount,
    };
  });
}

/** Everything a statement of this paid payout says but its number. */
export async function statementContent(
  deps: PayoutsDeps,
  p: PayoutRow,
  opts: { taxParty?: TaxParty | null } = {},
): Promise<Omit<StatementSnapshot, 'number' | 'supersedes'>> {
  const paidAt = p.paid_at ?? p.created_at;
  const network = deps.config.payouts.network;
  const account = await deps.data.auth.publisherById(p.publisher_id);
  const tax = opts.taxParty !== undefined ? opts.taxParty : await statementTaxParty(deps, p.publisher_id);
  const { lines, from } = await linesOf(deps, p);
  return {
    document: 'self_billing_statement',
    issued_at: paidAt.toISOString(),
    payout: {
      id: p._id,
      amount: p.amount.toString(),
      currency: p.currency,
      paid_at: paidAt.toISOString(),
      method: { type: p.method.type, last4: p.method.last4 },
    },
    issuer: { legal_name: network.legalName, address: [...network.address], country: network.country, vat_id: network.vatId, tax_id: network.taxId },
    supplier: {
      account_id: p.publisher_id,
      name: tax?.legal_name ?? account?.name ?? p.publisher_id,
      tax_profile: !!tax,
      kind: tax?.kind ?? null,
      address: tax?.address ?? [],
      country: tax?.country ?? null,
      vat_id: tax?.vat_id ?? null,
      tin_kind: tax?.tin_kind ?? null,
      tin_masked: tax?.tin_masked ?? null,
    },
    period: { from: from?.toISOString() ?? null, to: p.created_at.toISOString() },
    lines,
    currencies: currencyTotals(p, lines),
    total: { amount: p.amount.toString(), currency: p.currency },
    vat: vatTreatment(network, tax ? { kind: tax.kind, country: tax.country, vat_id: tax.vat_id } : null),
  };
}

/** Whether the lines and brought-forward figures of each currency add up to what was paid (a check for tests and the renderer). */
export const adds = (c: StatementCurrency): boolean => compareDecimals(addDecimals([c.lines, c.brought_forward]), parseDecimal(c.paid)) === 0;
