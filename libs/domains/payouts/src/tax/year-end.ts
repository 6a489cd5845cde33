/**
 * Year-end exports for operators (`tax:year-end --year Y`, `/operations/payouts`): what a 1099-NEC
 * filing needs for every US payee (`1099-nec-Y.csv`), and the payouts per payee country and
 * currency (`payouts-by-country-Y.csv`). A payout counts in the calendar year (UTC) it was paid
 * (`paid_at`: the bank's or PayPal's confirmation). The 1099 file holds taxpayer ids in the clear:
 * it is the filing itself, for the operator's filing software, never kept by the platform.
 */
import { stringify } from 'csv-stringify/sync';
import { recordOperatorAct } from '@cw/audit';
import { ApiError } from '@cw/errors';
import { addDecimals, compareDecimals, formatDecimal, minorUnits } from '@cw/money';
import { operatorUseCase } from '@cw/usecase';
import { convert } from '../fx/convert';
import { ratesOn, type EcbRates } from '../fx/ecb-rates';
import type { ProfileRow } from '../settings.service';
import { own, type PayoutsDeps } from '../deps';
import { openTaxProfile, type StoredTaxProfile } from './seal-tax-profile';
import { payeeCountryOf } from './tax.service';

export const FORM_1099_NEC_COLUMNS = [
  'tax_year',
  'payer_name',
  'payer_tin',
  'payer_address',
  'publisher_id',
  'recipient_name',
  'recipient_tin_kind',
  'recipient_tin',
  'recipient_address',
  'recipient_city',
  'recipient_state',
  'recipient_zip',
  'box1_nonemployee_compensation_usd',
  'payouts',
  'currencies',
  'paid_through_paypal_usd',
  'threshold_usd',
  'at_or_above_threshold',
  'missing_tin',
] as const;
export const PAYOUTS_BY_COUNTRY_COLUMNS = ['country', 'currency', 'payees', 'payouts', 'total'] as const;

/** The 1099-NEC threshold of a tax year: the figure of the latest year listed at or before it (the earliest listed for a year before them all). */
export function form1099Threshold(thresholds: Record<string, string>, year: number): string {
  const years = Object.keys(thresholds)
    .map(Number)
    .sort((a, b) => a - b);
  if (!years.length) throw new Error('no 1099-NEC threshold configured (TAX_1099_NEC_THRESHOLDS)');
  const y = years.filter((x) => x <= year).at(-1) ?? years[0]!;
  return thresholds[String(y)]!;
}

export interface Form1099Row {
  publisherId: string;
  name: string;
  tinKind: 'ssn' | 'ein' | '';
  tin: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  usd: string;
  payouts: number;
  currencies: string[];
  paypalUsd: string;
}

export interface Payer {
  name: string;
  tin: string;
  address: string;
}

const csv = (rows: unknown[][], columns: readonly string[]) =>
  stringify(rows, { header: true, columns: [...columns], record_delimiter: 'windows', escape_formulas: true });

/** `1099-nec-Y.csv`: one row per US payee paid in the year, box 1 in USD, flagged at or above the year's threshold. */
export function form1099NecCsv(year: number, payer: Payer, threshold: string, rows: readonly Form1099Row[]): string {
  return csv(
    rows.map((r) => [
      year,
      payer.name,
      payer.tin,
      payer.address,
      r.publisherId,
      r.name,
      r.tinKind,
      r.tin,
      r.address,
      r.city,
      r.state,
      r.zip,
      r.usd,
      r.payouts,
      r.currencies.join(' '),
      r.paypalUsd,
      threshold,
      compareDecimals(r.usd, threshold) >= 0 ? 'yes' : 'no',
      r.tin ? 'no' : 'yes',
    ]),
    FORM_1099_NEC_COLUMNS,
  );
}

export interface CountryTotal {
  country: string;
  currency: string;
  payees: number;
  payouts: number;
  total: string;
}

/** `payouts-by-country-Y.csv`: payees, payouts and the total paid, per payee country and payout currency. */
export function payoutsByCountryCsv(rows: readonly CountryTotal[]): string {
  return csv(
    rows.map((r) => [r.country, r.currency, r.payees, r.payouts, r.total]),
    PAYOUTS_BY_COUNTRY_COLUMNS,
  );
}

interface PaidRow {
  _id: string;
  publisher_id: string;
  amount: { toString(): string };
  currency: string;
  rail: string;
  fx: Array<{ date: string }>;
  paid_at: Date;
}

export interface YearEndFile {
  name: string;
  content: string;
}

/**
 * An amount in USD: as it is when in USD; otherwise converted through the ECB's euro rates of the
 * day the payout's own conversion used (its first `fx` entry), else of the day it was paid (or the
 * last published before it).
 */
function toUsd(p: PaidRow, days: readonly EcbRates[]): string {
  const amount = p.amount.toString();
  if (p.currency === 'USD') return amount;
  const day = p.fx[0]?.date ?? p.paid_at.toISOString().slice(0, 10);
  const rates = ratesOn(days, day);
  if (!rates) throw new ApiError({ code: 'invalid_parameter', detail: `No ECB rates on or before ${day} for payout ${p._id}: import them (fx:import) first.` });
  return convert(amount, p.currency, 'USD', rates).amount;
}

/** Both files of a tax year, with how many payees and payouts they hold (never a taxpayer id in the summary). */
export async function yearEndExports(deps: Pick<PayoutsDeps, 'data' | 'config'>, year: number) {
  const from = new Date(Date.UTC(year, 0, 1));
  const to = new Date(Date.UTC(year + 1, 0, 1));
  const days = (
    await own(deps)
      .FxRates.find({ _id: { $gte: `${year - 1}-12-01`, $lt: `${year + 1}-01-01` } })
      .lean<Array<{ _id: string; rates: Record<string, string> }>>()
  ).map((d) => ({ date: d._id, base: 'EUR' as const, rates: d.rates }));
  // Per publisher: its payouts of the year (a year's payouts of 10,000 payees fit in memory; the query reads paid payouts once a year).
  const byPublisher = new Map<string, PaidRow[]>();
  const paid = own(deps)
    .Payout.find({ status: 'paid', paid_at: { $gte: from, $lt: to } }, { publisher_id: 1, amount: 1, currency: 1, rail: 1, fx: 1, paid_at: 1 })
    .sort({ _id: 1 })
    .lean<PaidRow[]>()
    .cursor();
  for await (const p of paid) {
    const list = byPublisher.get(p.publisher_id) ?? [];
    list.push(p);
    byPublisher.set(p.publisher_id, list);
  }
  const form1099: Form1099Row[] = [];
  const countries = new Map<string, { country: string; currency: string; payees: Set<string>; amounts: string[] }>();
  for (const publisherId of [...byPublisher.keys()].sort()) {
    const payouts = byPublisher.get(publisherId)!;
    const row = await own(deps).PayoutProfile.findById(publisherId, { method: 1, tax: 1 }).lean<Pick<ProfileRow, 'method'> & { tax?: StoredTaxProfile }>();
    const country = payeeCountryOf(row) ?? 'unknown';
    for (const p of payouts) {
      const k = `${country}|${p.currency}`;
      const t = countries.get(k) ?? { country, currency: p.currency, payees: new Set<string>(), amounts: [] };
      t.payees.add(publisherId);
      t.amounts.push(p.amount.toString());
      countries.set(k, t);
    }
    if (country !== 'US') continue;
    const usd = payouts.map((p) => toUsd(p, days));
    const paypal = payouts.map((p, i) => (p.rail === 'paypal' ? usd[i]! : '0'));
    const base = {
      publisherId,
      usd: formatDecimal(addDecimals(usd), 2),
      payouts: payouts.length,
      currencies: [...new Set(payouts.map((p) => p.currency))].sort(),
      paypalUsd: formatDecimal(addDecimals(paypal), 2),
    };
    const tax = row?.tax ? openTaxProfile(deps.config.keys, row.tax) : null;
    if (tax?.w9) {
      const a = tax.address;
      form1099.push({
        ...base,
        name: tax.legal_name,
        tinKind: tax.w9.tin_kind,
        tin: tax.w9.tin,
        address: a.lines.join(', '),
        city: a.city,
        state: a.region ?? '',
        zip: a.postal_code,
      });
    } else {
      // Paid before the profile was required (or released by hand): listed so the filer chases the W-9.
      const publisher = await deps.data.auth.publisherById(publisherId);
      form1099.push({ ...base, name: publisher?.name ?? '', tinKind: '', tin: '', address: '', city: '', state: '', zip: '' });
    }
  }
  const threshold = form1099Threshold(deps.config.payouts.form1099NecThresholds, year);
  const payer = { name: deps.config.payouts.payerName, tin: deps.config.payouts.payerTin, address: deps.config.payouts.payerAddress };
  const byCountry: CountryTotal[] = [...countries.values()]
    .sort((a, b) => a.country.localeCompare(b.country) || a.currency.localeCompare(b.currency))
    .map((t) => ({
      country: t.country,
      currency: t.currency,
      payees: t.payees.size,
      payouts: t.amounts.length,
      total: formatDecimal(addDecimals(t.amounts), minorUnits(t.currency)),
    }));
  const files: YearEndFile[] = [
    { name: `1099-nec-${year}.csv`, content: form1099NecCsv(year, payer, threshold, form1099) },
    { name: `payouts-by-country-${year}.csv`, content: payoutsByCountryCsv(byCountry) },
  ];
  return {
    year,
    threshold_usd: threshold,
    us_payees: form1099.length,
    at_or_above_threshold: form1099.filter((r) => compareDecimals(r.usd, threshold) >= 0).length,
    missing_tin: form1099.filter((r) => !r.tin).length,
    payouts: [...byPublisher.values()].reduce((n, l) => n + l.length, 0),
    files,
  };
}

export const YEAR_END_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['year'],
  properties: { year: { type: 'integer', minimum: 2000, maximum: 2100, description: 'The tax year (calendar year, UTC).' } },
} as const;

/** The year-end files (admin: the 1099 file holds taxpayer ids in the clear). Audited as `tax_year_end_exported`, with counts only. */
export const operatorTaxYearEnd = operatorUseCase(
  'admin',
  async function operatorTaxYearEnd(deps: PayoutsDeps, operator, input: { year: number }) {
    const result = await yearEndExports(deps, input.year);
    const { files, ...summary } = result;
    await recordOperatorAct(deps.data.audit, operator, 'tax_year_end_exported', { ...summary, files: files.map((f) => f.name) });
    return result;
  },
  YEAR_END_INPUT,
);
