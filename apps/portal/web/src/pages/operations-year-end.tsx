/**
 * Operations, Payouts, "Year-end": a tax year's exports for admins: how many US payees were paid,
 * how many at or above the year's 1099-NEC threshold, how many without a taxpayer id, and the two
 * CSV files to download (the 1099-NEC file holds taxpayer ids in the clear). Each listing and each
 * download is recorded in the audit log.
 */
import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { yearEndFileUrl, yearEndQuery } from '../api/tax';
import { ErrorNotice, Loading } from '../components/feedback';
import { Section } from '../components/page';
import { useFormat } from '../lib/format';

/** The last five calendar years, the current one first (a year's filings are made in January of the next). */
function recentYears(now = new Date()): number[] {
  const y = now.getUTCFullYear();
  return [y, y - 1, y - 2, y - 3, y - 4];
}

export function YearEnd() {
  const id = useId();
  const years = recentYears();
  const [year, setYear] = useState(years[1]!);
  const [shown, setShown] = useState<number | null>(null);
  return (
    <Section
      title="Year-end"
      description="For tax filings (admins): each US payee's payouts of the year in USD, in the shape a 1099-NEC filing needs, and the payouts per country. The 1099-NEC file holds taxpayer ids in the clear: keep it as you keep the filing."
    >
      <form
        className="form form-narrow"
        aria-label="Year-end exports"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setShown(year);
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-year`}>Tax year</label>
          <p className="hint" id={`${id}-year-hint`}>
            Payouts paid in that calendar year (UTC).
          </p>
          <select id={`${id}-year`} value={year} aria-describedby={`${id}-year-hint`} onChange={(e) => setYear(Number(e.target.value))}>
            {years.map((y) => (
              <option key={y} value={y}>
                {y}
              </option>
            ))}
          </select>
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary">
            Prepare the year-end files
          </button>
        </div>
      </form>
      {shown !== null && <YearEndFiles year={shown} />}
    </Section>
  );
}

function YearEndFiles({ year }: { year: number }) {
  const fmt = useFormat();
  const files = useQuery(yearEndQuery(year));
  if (files.isPending) return <Loading label={`Preparing the files of ${year}…`} lines={1} />;
  if (files.isError) return <ErrorNotice error={files.error} onRetry={() => void files.refetch()} />;
  const y = files.data;
  return (
    <div role="status">
      <p>
        {y.year}: {y.payouts} {y.payouts === 1 ? 'payout' : 'payouts'} paid; {y.us_payees} US {y.us_payees === 1 ? 'payee' : 'payees'},{' '}
        {y.at_or_above_threshold} at or above the 1099-NEC threshold of {fmt.money(y.threshold_usd, 'USD')}
        {y.missing_tin ? `, ${y.missing_tin} without a taxpayer id (ask them for a W-9)` : ''}.
      </p>
      <ul className="plain-list">
        {y.files.map((f) => (
          <li key={f.name}>
            <a href={yearEndFileUrl(y.year, f.name)} download={f.name}>
              Download {f.name}
            </a>{' '}
            <span className="muted small">({Math.max(1, Math.round(f.bytes / 1024))} KB)</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
