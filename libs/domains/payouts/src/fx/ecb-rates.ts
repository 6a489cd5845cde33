/**
 * The ECB's euro foreign exchange reference rates, read from the XML it publishes: the daily file
 * (eurofxref-daily.xml, one day) and the 90-day and historical files (eurofxref-hist-90d.xml,
 * eurofxref-hist.xml: many days, newest first). A `gesmes:Envelope` holds one `Cube`, which holds a
 * `Cube time='YYYY-MM-DD'` per day, each holding `Cube currency='USD' rate='1.0812'`: units of the
 * currency per 1 EUR. Rates are kept as the decimal strings published (`'142.60'` stays
 * `'142.60'`), never numbers. Anything else (not XML, not this shape, a rate that is not a positive
 * decimal, an unknown currency, a day twice) is a 400 `invalid_parameter` naming `xml`.
 */
import { ApiError } from '@cw/errors';
import { isCurrency } from '@cw/money';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface EcbRates {
  /** The day the rates are for (YYYY-MM-DD, the ECB's `time`). */
  date: string;
  base: 'EUR';
  /** Units of each currency per 1 EUR, as published. */
  rates: Record<string, string>;
}

/** The whole historical file (every day since 1999) is about 7 MB; anything much larger is not one. */
export const MAX_ECB_XML_BYTES = 32 * 1024 * 1024;

/** A parsed `Cube`: attributes as strings, unless a hostile file made them elements (checked). */
interface CubeNode {
  time?: unknown;
  currency?: unknown;
  rate?: unknown;
  Cube?: CubeNode[];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  ignoreDeclaration: true,
  parseAttributeValue: false,
  parseTagValue: false,
  // No entity is ever expanded (the ECB's files have none; a DOCTYPE's cannot grow the input).
  processEntities: false,
  isArray: (name) => name === 'Cube',
});

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A positive decimal as the ECB writes it: digits, a point, digits; no sign, exponent or spaces. */
const RATE = /^\d{1,12}(?:\.\d{1,12})?$/;

function invalidXml(detail: string): ApiError {
  return new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter 'xml': ${detail}.`, errors: [{ param: 'xml', detail }] });
}

function isRealDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

function dayOf(node: CubeNode | string): EcbRates {
  const cube: CubeNode = typeof node === 'object' && node !== null ? node : {};
  const date = cube.time;
  if (typeof date !== 'string' || !isRealDate(date))
    throw invalidXml(`has a day whose time is not a date (YYYY-MM-DD)${typeof date === 'string' ? `: ${JSON.stringify(date.slice(0, 20))}` : ''}`);
  const rates: Record<string, string> = {};
  for (const entry of Array.isArray(cube.Cube) ? cube.Cube : []) {
    const { currency, rate } = entry;
    if (typeof currency !== 'string' || typeof rate !== 'string') throw invalidXml(`has an entry on ${date} without currency and rate`);
    if (!/^[A-Z]{3}$/.test(currency) || currency === 'EUR' || !isCurrency(currency))
      throw invalidXml(`has a currency on ${date} that is not an ISO 4217 code other than EUR: ${JSON.stringify(currency.slice(0, 10))}`);
    if (!RATE.test(rate) || /^[0.]+$/.test(rate))
      throw invalidXml(`has a rate for ${currency} on ${date} that is not a positive decimal: ${JSON.stringify(rate.slice(0, 20))}`);
    if (Object.hasOwn(rates, currency)) throw invalidXml(`gives ${currency} twice on ${date}`);
    rates[currency] = rate;
  }
  if (!Object.keys(rates).length) throw invalidXml(`has no rate on ${date}`);
  return { date, base: 'EUR', rates };
}

/** Every day of an ECB reference-rate file, newest first. */
export function parseEcbRateDays(xml: unknown): EcbRates[] {
  if (typeof xml !== 'string') throw invalidXml('must be the text of an ECB reference-rate file');
  if (Buffer.byteLength(xml) > MAX_ECB_XML_BYTES)
    throw invalidXml(`is larger than ${MAX_ECB_XML_BYTES / 1024 / 1024} MB, more than any ECB reference-rate file`);
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) throw invalidXml(`is not well-formed XML (line ${wellFormed.err.line}: ${wellFormed.err.msg})`);
  let doc: { Envelope?: { Cube?: CubeNode[] } };
  try {
    doc = parser.parse(xml) as typeof doc;
  } catch (err) {
    throw invalidXml(`could not be read as XML (${(err as Error).message.slice(0, 200)})`);
  }
  const outer = doc.Envelope?.Cube;
  if (!doc.Envelope || !Array.isArray(outer) || outer.length !== 1) throw invalidXml('is not ECB reference rates (a gesmes:Envelope holding one Cube of days)');
  const inner = outer[0]?.Cube;
  const days = (Array.isArray(inner) ? inner : []).map(dayOf);
  if (!days.length) throw invalidXml('holds no day of rates');
  const seen = new Set<string>();
  for (const { date } of days) {
    if (seen.has(date)) throw invalidXml(`gives the day ${date} twice`);
    seen.add(date);
  }
  return days.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

/** The newest day of an ECB file (the daily file's only day). */
export function parseEcbRates(xml: unknown): EcbRates {
  return parseEcbRateDays(xml)[0]!;
}

/**
 * The rates in force on `date` (YYYY-MM-DD): that day's, or the last published before it (the ECB
 * publishes on TARGET working days only; a Saturday uses Friday's). Undefined when every day is later.
 */
export function ratesOn(days: readonly EcbRates[], date: string): EcbRates | undefined {
  let best: EcbRates | undefined;
  for (const day of days) if (day.date <= date && (!best || day.date > best.date)) best = day;
  return best;
}
