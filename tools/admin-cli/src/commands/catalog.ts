/** Catalog imports and prepared feeds: through the catalog and feeds libs. */
import { readFileSync } from 'node:fs';
import { importCatalogRows, parseCatalogCsv, parseCatalogXml } from '@cw/catalog';
import { regenerateMarket } from '@cw/feeds';
import { countries, int, mustProgram, str, UsageError, type CommandSpec } from './shared';

export const CATALOG_COMMANDS: Record<string, CommandSpec> = {
  'feed:regenerate': {
    summary: "Rewrite a market's prepared feed files now (the worker also does it after imports and every 6 hours)",
    options: { country: { type: 'string', required: true, doc: 'ISO alpha-2 market' } },
    run: async (deps, o) => {
      const country = str(o, 'country')!.toUpperCase();
      if (!/^[A-Z]{2}$/.test(country)) throw new UsageError(`--country: "${country}" is not an ISO alpha-2 country`);
      return regenerateMarket(deps.data, country);
    },
  },
  'catalog:import': {
    summary: "Import a merchant catalog file (Google Shopping CSV/TSV or XML) as a program's offers in one market",
    options: {
      file: { type: 'string', required: true, doc: 'path to the feed file' },
      program: { type: 'string', required: true, doc: 'program id' },
      country: { type: 'string', required: true, doc: 'market, e.g. DE' },
      format: { type: 'string', doc: 'csv, tsv or xml (default: from the file name)' },
      'fresh-hours': { type: 'string', doc: 'hours the rows stay fresh (default 72)' },
    },
    run: async (deps, o, progress) => {
      const file = str(o, 'file')!;
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        throw new UsageError(`cannot read ${file}`);
      }
      const format = (str(o, 'format') ?? file.split('.').pop() ?? '').toLowerCase();
      let rows;
      try {
        rows = format === 'xml' ? parseCatalogXml(text) : format === 'tsv' ? parseCatalogCsv(text, '\t') : format === 'csv' ? parseCatalogCsv(text) : undefined;
      } catch (e) {
        throw new UsageError(`cannot parse ${file} as ${format}: ${(e as Error).message}`);
      }
      if (!rows) throw new UsageError('--format must be csv, tsv or xml');
      const program = await mustProgram(deps, int(o, 'program')!);
      const [country] = countries(o, 'country') ?? [];
      const result = await importCatalogRows(deps, rows, { programId: program._id, country, freshForHours: int(o, 'fresh-hours'), onProgress: progress });
      return { rows: rows.length, imported: result.imported, rejected: result.rejected.length, rejections: result.rejected.slice(0, 50) };
    },
  },
};
