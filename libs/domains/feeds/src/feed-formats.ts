/**
 * Feed items in the spec's field order and their four encodings, each a stream of chunks pulled
 * one item at a time (backpressure is the consumer's pace): Google Merchant Center RSS 2.0 with
 * the `g:` namespace (xmlbuilder's callback writer: xmlbuilder2's built DOM nodes per item and was
 * far slower, bench/README.md), CSV and TSV (csv-stringify), and one JSON document.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import xmlbuilder from 'xmlbuilder';
import { neutralizeFormula } from '@cw/http';
import { priceWithCurrency } from '@cw/money';
import type { FeedRecord } from './feed-source';

export const FEED_FORMATS = ['xml', 'csv', 'tsv', 'json'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

export const FEED_FIELDS = [
  'id',
  'title',
  'description',
  'link',
  'image_link',
  'availability',
  'price',
  'sale_price',
  'brand',
  'gtin',
  'mpn',
  'identifier_exists',
  'condition',
  'product_type',
  'catalog_product_category',
  'seller_name',
  'ads_redirect',
  'service_link',
] as const;

export type FeedItem = Record<(typeof FEED_FIELDS)[number], string>;

const money = (amount: string, currency: string) => (amount ? priceWithCurrency(amount, currency) : '');

/** One product as the feed shows it; `link` is the caller's tracked link (or, in samples, the merchant's page). */
export function feedItem(r: FeedRecord, link: string, sellerName: string, tracked: boolean): FeedItem {
  return {
    id: r.id,
    title: r.title,
    description: r.description || r.title,
    link,
    image_link: r.image,
    // The catalog keeps Google's own words: in_stock, out_of_stock, preorder, backorder.
    availability: r.availability,
    price: money(r.price, r.currency),
    sale_price: r.sale_price ? money(r.sale_price, r.currency) : '',
    brand: r.brand,
    gtin: r.gtin,
    mpn: r.mpn,
    identifier_exists: r.gtin || (r.brand && r.mpn) ? 'yes' : 'no',
    condition: r.condition || 'new',
    product_type: r.category,
    catalog_product_category: r.category.split(' > ')[0] ?? '',
    seller_name: sellerName,
    ads_redirect: tracked ? link : '',
    service_link: '',
  };
}

export const CONTENT_TYPES: Record<FeedFormat, string> = {
  xml: 'application/rss+xml; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

// Characters XML 1.0 cannot carry (control characters, lone surrogates, U+FFFE/FFFF).
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const xmlText = (s: string) => s.replace(NOT_XML, '');

export interface FeedMeta {
  title: string;
  link: string;
  description: string;
}

async function* xmlChunks(items: AsyncIterable<FeedItem>, meta: FeedMeta): AsyncGenerator<string> {
  let buf: string[] = [];
  const take = () => {
    const out = buf.join('');
    buf = [];
    return out;
  };
  const xml = xmlbuilder.begin({}, (chunk: string) => void buf.push(chunk));
  xml.dec('1.0', 'UTF-8').ele('rss', { version: '2.0', 'xmlns:g': 'http://base.google.com/ns/1.0' }).ele('channel');
  xml.ele('title', xmlText(meta.title)).up().ele('link', meta.link).up().ele('description', xmlText(meta.description)).up();
  for await (const item of items) {
    xml.ele('item');
    for (const f of FEED_FIELDS) {
      const v = item[f];
      if (!v) continue;
      // RSS's own title, link and description; every other attribute in Google's namespace.
      xml.ele(f === 'title' || f === 'link' || f === 'description' ? f : `g:${f}`, xmlText(v)).up();
    }
    xml.up();
    yield take();
  }
  xml.up().up().end();
  yield take();
}

async function* jsonChunks(items: AsyncIterable<FeedItem>, head: Record<string, unknown>): AsyncGenerator<string> {
  const open = JSON.stringify(head);
  yield `${open.slice(0, -1)}${open.length > 2 ? ',' : ''}"products":[`;
  let first = true;
  for await (const item of items) {
    yield `${first ? '' : ','}${JSON.stringify(item)}`;
    first = false;
  }
  yield ']}';
}

/** The encoded feed as a stream; destroying it stops pulling items. */
export function encodeFeed(format: FeedFormat, items: AsyncIterable<FeedItem>, meta: FeedMeta & { head: Record<string, unknown> }): Readable {
  if (format === 'xml') return Readable.from(xmlChunks(items, meta));
  if (format === 'json') return Readable.from(jsonChunks(items, meta.head));
  const source = Readable.from(items);
  const tsv = format === 'tsv';
  // TSV has no quoting convention readers agree on: tabs and line breaks inside a value become spaces.
  const cell = tsv ? (v: string) => neutralizeFormula(v.replace(/[\t\r\n]+/g, ' ')) : neutralizeFormula;
  const out = stringify({
    header: true,
    columns: [...FEED_FIELDS],
    delimiter: tsv ? '\t' : ',',
    cast: { string: cell },
    record_delimiter: tsv ? '\n' : '\r\n',
  });
  source.on('error', (e) => out.destroy(e));
  out.on('close', () => source.destroy());
  return source.pipe(out);
}
