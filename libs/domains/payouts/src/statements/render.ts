/**
 * A statement's PDF, rendered on the server with pdfkit: A4, the standard Helvetica font (real,
 * selectable text; WinAnsi, so names go through `pdfText`), a table of lines that runs over as many
 * pages as it needs, "Page n of m" on each. The same snapshot gives the same bytes: the creation
 * date is the issue date and nothing else varies.
 */
import PDFDocument from 'pdfkit';
import { pdfText } from './pdf-text';
import type { StatementSnapshot } from './snapshot';

const MARGIN = 50;
const PAGE = { width: 595.28, height: 841.89 }; // A4 in points
const BOTTOM = PAGE.height - MARGIN - 20;

/** The table's columns: label, x, width, alignment. */
const COLUMNS = [
  { key: 'program', label: 'Program', x: MARGIN, width: 170, align: 'left' },
  { key: 'month', label: 'Month', x: 222, width: 45, align: 'left' },
  { key: 'currency', label: 'Cur.', x: 268, width: 28, align: 'left' },
  { key: 'commission', label: 'Commission', x: 297, width: 62, align: 'right' },
  { key: 'reversals', label: 'Reversals', x: 361, width: 62, align: 'right' },
  { key: 'corrections', label: 'Corrections', x: 425, width: 58, align: 'right' },
  { key: 'amount', label: 'Amount', x: 485, width: 60, align: 'right' },
] as const;

const METHOD_NAMES: Record<string, string> = { iban: 'Bank account (IBAN)', ach: 'US bank account (ACH)', paypal: 'PayPal' };

/** At most `n` characters (an ellipsis marks a cut). */
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export async function renderStatementPdf(s: StatementSnapshot): Promise<Buffer> {
  const issued = new Date(s.issued_at);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    compress: true,
    info: {
      Title: `Self-billing statement ${s.number}`,
      Author: pdfText(s.issuer.legal_name),
      Subject: `Payout ${s.payout.id}`,
      Creator: 'CW publisher platform',
      Producer: 'pdfkit',
      CreationDate: issued,
      ModDate: issued,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  const t = (text: string) => pdfText(text);

  // Heading.
  doc
    .font('Helvetica-Bold')
    .fontSize(16)
    .text(s.supersedes ? 'Self-billing statement (correction)' : 'Self-billing statement', MARGIN, MARGIN);
  doc.font('Helvetica').fontSize(9).fillColor('#333333');
  doc.text(`Statement number: ${s.number}`);
  doc.text(`Issue date: ${s.issued_at.slice(0, 10)}`);
  if (s.supersedes) doc.text(`Supersedes statement ${s.supersedes}`);
  doc.text(
    `Payout: ${s.payout.id}, paid ${s.payout.paid_at.slice(0, 10)} to ${METHOD_NAMES[s.payout.method.type] ?? s.payout.method.type} ending ${t(s.payout.method.last4)}`,
  );
  doc.moveDown(1);

  // Parties, side by side.
  const top = doc.y;
  const half = (PAGE.width - 2 * MARGIN) / 2 - 10;
  doc.fillColor('black').font('Helvetica-Bold').text('Recipient (issuer)', MARGIN, top, { width: half });
  doc.font('Helvetica');
  for (const line of [s.issuer.legal_name, ...s.issuer.address, `Country: ${s.issuer.country}`, `VAT id: ${s.issuer.vat_id}`, `Tax number: ${s.issuer.tax_id}`])
    doc.text(t(line), { width: half });
  const leftBottom = doc.y;
  const right = MARGIN + half + 20;
  doc.font('Helvetica-Bold').text('Supplier (publisher)', right, top, { width: half });
  doc.font('Helvetica');
  const supplier = [s.supplier.name, ...s.supplier.address];
  if (s.supplier.country) supplier.push(`Country: ${s.supplier.country}`);
  if (s.supplier.vat_id) supplier.push(`VAT id: ${s.supplier.vat_id}`);
  if (s.supplier.tin_masked) supplier.push(`Taxpayer id (${s.supplier.tin_kind ?? 'tin'}): ${s.supplier.tin_masked}`);
  if (!s.supplier.tax_profile) supplier.push('No tax profile on file');
  supplier.push(`Account: ${s.supplier.account_id}`);
  for (const line of supplier) doc.text(t(line), right, undefined, { width: half });
  doc.y = Math.max(leftBottom, doc.y) + 14;

  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor('#333333')
    .text(
      `Entries booked ${s.period.from ? `after ${s.period.from.slice(0, 10)} ` : ''}up to ${s.period.to.slice(0, 10)}, by program and month of the sales. Amounts in the currency of each line.`,
      MARGIN,
    );
  doc.moveDown(0.5);

  // The lines.
  const header = () => {
    doc.font('Helvetica-Bold').fontSize(8).fillColor('black');
    const y = doc.y;
    for (const c of COLUMNS) doc.text(c.label, c.x, y, { width: c.width, align: c.align, lineBreak: false });
    doc
      .moveTo(MARGIN, y + 11)
      .lineTo(PAGE.width - MARGIN, y + 11)
      .lineWidth(0.5)
      .stroke();
    doc.y = y + 14;
    doc.font('Helvetica');
  };
  header();
  for (const line of s.lines) {
    if (doc.y > BOTTOM) {
      doc.addPage();
      header();
    }
    const y = doc.y;
    const cells: Record<string, string> = { ...line, program_id: String(line.program_id ?? ''), program: cut(t(line.program), 38) };
    // Placed by hand (right-aligned by the string's width): pdfkit's line wrapper is most of a cell's cost.
    for (const c of COLUMNS) {
      const v = cells[c.key] ?? '';
      doc.text(v, c.align === 'right' ? c.x + c.width - doc.widthOfString(v) : c.x, y, { lineBreak: false });
    }
    doc.y = y + 11;
  }
  if (!s.lines.length) doc.text('No commission, reversal or correction entries in this period.', MARGIN);

  // Per currency, then the total.
  const block = (lines: Array<[string, string]>, bold = false) => {
    if (doc.y > BOTTOM - lines.length * 12) doc.addPage();
    for (const [label, value] of lines) {
      const y = doc.y;
      doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
      doc.text(t(label), MARGIN, y, { width: 330, lineBreak: false });
      doc.text(value, 385, y, { width: 160, align: 'right', lineBreak: false });
      doc.y = y + 12;
    }
  };
  doc.moveDown(1);
  for (const c of s.currencies) {
    const rows: Array<[string, string]> = [[`Subtotal of the lines in ${c.currency}`, `${c.lines} ${c.currency}`]];
    if (c.brought_forward !== '0' && !/^-?0(\.0+)?$/.test(c.brought_forward))
      rows.push([`Balance brought forward in ${c.currency}`, `${c.brought_forward} ${c.currency}`]);
    rows.push([`Paid from the ${c.currency} balance`, `${c.paid} ${c.currency}`]);
    if (c.fx) rows.push([`Converted at ${c.fx.rate} ${c.fx.to} per 1 ${c.currency} (ECB reference rate of ${c.fx.date})`, `${c.converted} ${c.fx.to}`]);
    block(rows);
    doc.y += 4;
  }
  block([[`Total paid`, `${s.total.amount} ${s.total.currency}`]], true);
  doc.moveDown(1);

  // VAT and the self-billing note.
  if (doc.y > BOTTOM - 60) doc.addPage();
  doc.font('Helvetica-Bold').fontSize(9).text('VAT', MARGIN);
  doc.font('Helvetica').text(t(s.vat.text), { width: PAGE.width - 2 * MARGIN });
  doc.moveDown(0.5);
  doc
    .fontSize(8)
    .fillColor('#333333')
    .text(
      t(
        `Self-billing: this statement is issued by ${s.issuer.legal_name} on behalf of the supplier under the self-billing agreement of the publisher terms (Art. 224 Directive 2006/112/EC). No VAT is added to the amounts above.`,
      ),
      { width: PAGE.width - 2 * MARGIN },
    );

  // Page numbers.
  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    doc.page.margins.bottom = 0; // the footer sits in the margin (no page is added for it)
    doc
      .font('Helvetica')
      .fontSize(7)
      .fillColor('#555555')
      .text(`Statement ${s.number} - page ${i + 1} of ${range.count}`, MARGIN, PAGE.height - MARGIN, {
        width: PAGE.width - 2 * MARGIN,
        align: 'right',
        lineBreak: false,
      });
  }
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
