/**
 * Merchant catalog import: rows of a Google Shopping feed (CSV/TSV or RSS 2.0 XML) validated and
 * upserted as offers of one program in one market. Product ids derive from (gtin, program,
 * country), so a re-import refreshes price and stock under the same ids.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { Decimal128 } from 'bson';
import type { CatalogDeps } from './deps';
import { own } from './deps';
import { isValidGtin } from './gtin';
import { productId } from './product-id';

export type CatalogImportRow = Record<string, string>;

export interface ImportOptions {
  programId: number;
  country: string;
  now?: Date;
  /** How long the imported rows stay fresh (the source freshness deadline). Default 72 h. */
  freshForHours?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ImportResult {
  imported: number;
  rejected: Array<{ row: number; reason: string }>;
}

const AVAILABILITY: Record<string, string> = {
  in_stock: 'in_stock',
  'in stock': 'in_stock',
  out_of_stock: 'out_of_stock',
  'out of stock': 'out_of_stock',
  preorder: 'preorder',
  backorder: 'backorder',
};

export function parseCatalogCsv(text: string, delimiter = ','): CatalogImportRow[] {
  return parseCsv(text, { columns: true, delimiter, skip_empty_lines: true, trim: true, bom: true }) as CatalogImportRow[];
}

export function parseCatalogXml(text: string): CatalogImportRow[] {
  const doc = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false }).parse(text) as {
    rss?: { channel?: { item?: CatalogImportRow | CatalogImportRow[] } };
    feed?: { entry?: CatalogImportRow | CatalogImportRow[] };
  };
  const items = doc.rss?.channel?.item ?? doc.feed?.entry ?? [];
  return (Array.isArray(items) ? items : [items]).map((i) => Object.fromEntries(Object.entries(i).map(([k, v]) => [k, String(v ?? '')])));
}

/** "129.95 EUR" or "129.95" -> amount and currency. */
function parsePrice(raw: string | undefined): { amount: string; currency?: string } | undefined {
  const m = /^\s*([0-9]{1,12}(?:\.[0-9]{1,4})?)\s*([A-Za-z]{3})?\s*$/.exec(raw ?? '');
  return m?.[1] ? { amount: m[1], currency: m[2]?.toUpperCase() } : undefined;
}

export async function importCatalogRows(deps: Pick<CatalogDeps, 'data'>, rows: CatalogImportRow[], opts: ImportOptions): Promise<ImportResult> {
  const program = await deps.data.programs.byId(opts.programId);
  if (!program) throw new Error(`program ${opts.programId} does not exist`);
  const now = opts.now ?? new Date();
  const freshUntil = new Date(now.getTime() + (opts.freshForHours ?? 72) * 3_600_000);
  const rejected: ImportResult['rejected'] = [];
  let imported = 0;
  let ops: unknown[] = [];
  const flush = async () => {
    if (!ops.length) return;
    await own(deps).Product.bulkWrite(ops as never[], { ordered: false });
    imported += ops.length;
    ops = [];
    opts.onProgress?.(imported + rejected.length, rows.length);
  };
  for (const [i, r] of rows.entries()) {
    const line = i + 1;
    const gtin = (r.gtin ?? '').trim();
    const price = parsePrice(r.price);
    const availability = AVAILABILITY[(r.availability ?? '').trim().toLowerCase()];
    const title = (r.title ?? '').trim();
    const link = (r.link ?? '').trim();
    const problem = !isValidGtin(gtin)
      ? `invalid gtin "${gtin}"`
      : !title
        ? 'missing title'
        : !price
          ? `invalid price "${r.price ?? ''}"`
          : !availability
            ? `invalid availability "${r.availability ?? ''}"`
            : !/^https?:\/\//.test(link)
              ? 'missing or invalid link'
              : undefined;
    if (problem) {
      rejected.push({ row: line, reason: problem });
      continue;
    }
    const sale = parsePrice(r.sale_price);
    const category = (r.product_type || r.google_product_category || '').trim();
    const brand = (r.brand ?? '').trim();
    ops.push({
      updateOne: {
        filter: { _id: productId(gtin, program._id, opts.country) },
        upsert: true,
        update: {
          $set: {
            gtin,
            gtin14: gtin.padStart(14, '0'),
            title,
            title_lc: title.toLowerCase(),
            description: (r.description ?? '').trim(),
            brand,
            brand_lc: brand.toLowerCase(),
            category,
            category_lc: category.toLowerCase(),
            price: Decimal128.fromString(price!.amount),
            ...(sale ? { sale_price: Decimal128.fromString(sale.amount) } : {}),
            currency: price!.currency ?? program.currency,
            image: (r.image_link ?? '').trim(),
            source_url: link,
            merchant_id: program.merchant_id,
            program_id: program._id,
            country: opts.country,
            availability,
            ...(r.item_group_id ? { group_id: r.item_group_id.trim(), size: (r.size ?? '').trim() || undefined } : {}),
            mpn: (r.mpn ?? '').trim() || undefined,
            condition: (r.condition ?? 'new').trim() || 'new',
            last_seen_at: now,
            fresh_until: freshUntil,
            removed: false,
          },
        },
      },
    });
    if (ops.length >= 1000) await flush();
  }
  await flush();
  // The market's prepared feed files are now behind the catalog: the next refresh pass rebuilds them.
  if (imported) await own(deps).MarketState.updateOne({ _id: opts.country }, { $set: { catalog_changed_at: now } }, { upsert: true });
  opts.onProgress?.(rows.length, rows.length);
  return { imported, rejected };
}
