/** Tax: the year-end exports (1099-NEC for US payees, payouts per country), written into a folder. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operatorTaxYearEnd } from '@cw/payouts';
import { str, UsageError, type CommandSpec } from './shared';

export const TAX_COMMANDS: Record<string, CommandSpec> = {
  'tax:year-end': {
    summary:
      "Write a tax year's exports into a folder: 1099-nec-Y.csv (each US payee: TIN in the clear, address, box 1 in USD, the threshold flag; a sensitive file) and payouts-by-country-Y.csv",
    options: {
      year: { type: 'string', required: true, doc: 'the tax year (payouts paid in it, UTC)' },
      out: { type: 'string', required: true, doc: 'folder to write into (made if missing)' },
    },
    run: async (deps, o) => {
      const raw = str(o, 'year')!;
      if (!/^\d{4}$/.test(raw)) throw new UsageError(`--year must be a year like 2026, got "${raw}"`);
      const { files, ...summary } = await operatorTaxYearEnd(deps, deps.operator, { year: Number(raw) });
      const dir = str(o, 'out')!;
      mkdirSync(dir, { recursive: true });
      const written = files.map((f) => {
        const path = join(dir, f.name);
        // Taxpayer ids in the clear: readable by the operator's user only.
        writeFileSync(path, f.content, { mode: 0o600 });
        chmodSync(path, 0o600);
        return path;
      });
      return { ...summary, files: written };
    },
  },
};
