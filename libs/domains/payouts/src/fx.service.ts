/** Exchange rates: the ECB's reference rates imported by operators (`fx:import FILE`), the latest used by payouts. */
import { recordOperatorAct } from '@cw/audit';
import type { AuditData } from '@cw/audit';
import { operatorUseCase } from '@cw/usecase';
import { parseEcbRateDays, type EcbRates } from './fx/ecb-rates';
import { own, type PayoutsDeps } from './deps';

/** Stores every day of an ECB reference-rates file (a day imported again is replaced by the same figures). */
export const operatorImportFx = operatorUseCase(
  'admin',
  async function operatorImportFx(deps: PayoutsDeps & { data: { audit: AuditData } }, operator, xml: string) {
    const days = parseEcbRateDays(xml);
    const now = new Date();
    for (const d of days) await own(deps).FxRates.updateOne({ _id: d.date }, { $set: { base: 'EUR', rates: d.rates, imported_at: now } }, { upsert: true });
    const dates = days.map((d) => d.date).sort();
    await recordOperatorAct(deps.data.audit, operator, 'fx_rates_imported', { days: days.length, from: dates[0], to: dates.at(-1) });
    return { days: days.length, from: dates[0] ?? null, to: dates.at(-1) ?? null };
  },
);

/** The newest rates imported (null: none yet). */
export async function latestRates(deps: Pick<PayoutsDeps, 'data'>): Promise<EcbRates | null> {
  const row = await own(deps).FxRates.findOne({}).sort({ _id: -1 }).lean<{ _id: string; rates: Record<string, string> }>();
  return row ? { date: row._id, base: 'EUR', rates: row.rates } : null;
}
