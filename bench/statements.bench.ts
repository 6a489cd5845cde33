/**
 * Self-billing statements: the PDF of a payout with L lines (default 1,000: programs x months x
 * currencies), rendered R times in a row (default 50) after a warm-up: p50/p99 of the render
 * (pdfkit, as `issueStatement` calls it), the PDF's bytes and pages, and the same for a statement
 * of 10 lines for scale. Renders are deterministic: every one of a size has the same bytes.
 * `npm run bench:statements [-- --lines 1000 --renders 50]`
 */
import { performance } from 'node:perf_hooks';
import { renderStatementPdf, REVERSE_CHARGE_TEXT, type StatementSnapshot } from '@cw/payouts';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';

const OPTIONS = {
  lines: { type: 'string', default: '1000' },
  renders: { type: 'string', default: '50' },
} as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:statements --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const L = Number(values.lines);
const R = Number(values.renders);

function snapshot(lines: number): StatementSnapshot {
  const currencies = ['EUR', 'GBP', 'USD'];
  return {
    number: '2026-000042',
    document: 'self_billing_statement',
    issued_at: '2026-03-02T09:30:00.000Z',
    supersedes: null,
    payout: {
      id: 'po_0123456789abcdef01234567',
      amount: '123456.78',
      currency: 'EUR',
      paid_at: '2026-03-02T09:30:00.000Z',
      method: { type: 'iban', last4: '3000' },
    },
    issuer: {
      legal_name: 'CW Affiliate Network GmbH',
      address: ['Musterstrasse 1', '10115 Berlin', 'Germany'],
      country: 'DE',
      vat_id: 'DE123456789',
      tax_id: '27/123/45678',
    },
    supplier: {
      account_id: 'pub_bench',
      name: 'Zoë Müller Médias SARL',
      tax_profile: true,
      kind: 'company',
      address: ['12 rue de la Paix', '75002 Paris', 'France'],
      country: 'FR',
      vat_id: 'FR40303265045',
      tin_kind: 'foreign',
      tin_masked: '•••5045',
    },
    period: { from: '2025-03-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
    lines: Array.from({ length: lines }, (_, i) => ({
      program_id: 1000 + (i % 400),
      program: `Outdoor & Trail Program ${1000 + (i % 400)}`,
      month: `2025-${String((i % 12) + 1).padStart(2, '0')}`,
      currency: currencies[i % 3]!,
      commission: `${(i * 7) % 9000}.${String(i % 100).padStart(2, '0')}`,
      reversals: i % 5 === 0 ? `-${i % 300}.00` : '0.00',
      corrections: i % 17 === 0 ? '25.00' : '0.00',
      amount: `${(i * 7) % 9000}.${String(i % 100).padStart(2, '0')}`,
    })),
    currencies: currencies.map((c) => ({
      currency: c,
      lines: '41152.26',
      brought_forward: '0.00',
      paid: '41152.26',
      fx: c === 'EUR' ? null : { to: 'EUR', rate: c === 'GBP' ? '1.19125' : '0.854555', date: '2026-02-27' },
      converted: '41152.26',
    })),
    total: { amount: '123456.78', currency: 'EUR' },
    vat: { treatment: 'reverse_charge', text: REVERSE_CHARGE_TEXT },
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function measure(lines: number) {
  const s = snapshot(lines);
  for (let i = 0; i < 3; i++) await renderStatementPdf(s); // warm-up
  const times: number[] = [];
  let bytes = 0;
  let first: Buffer | undefined;
  let same = true;
  for (let i = 0; i < R; i++) {
    const t0 = performance.now();
    const pdf = await renderStatementPdf(s);
    times.push(performance.now() - t0);
    bytes = pdf.length;
    first ??= pdf;
    same &&= pdf.equals(first);
  }
  times.sort((a, b) => a - b);
  const pages = (first!.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
  return { lines, renders: R, p50_ms: +quantile(times, 0.5).toFixed(1), p99_ms: +quantile(times, 0.99).toFixed(1), bytes, pages, identical: same };
}

const rows = [await measure(10), await measure(L)];
console.table(rows);
console.log(JSON.stringify({ node: process.version, rows }));
