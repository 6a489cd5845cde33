/**
 * Products: search with the API's filters (kept in the URL, so a search can be bookmarked and
 * shared), each result with the account's tracked link, a Copy button and its QR code; and a
 * lookup of GTINs pasted in a box, each bad line named.
 */
import { useId, useMemo, useState, type FormEvent } from 'react';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { productLookupQuery, productSearchQuery, type Product, type ProductPage, type ProductSearch } from '../api/catalog';
import { accountQuery } from '../api/endpoints';
import { ErrorNotice, Loading, StatusPill, type PillTone } from '../components/feedback';
import { Form, SelectField, SubmitButton, TextField, Toggle, useFormState } from '../components/form';
import { CopyLinkButton, QrToggle } from '../components/link-tools';
import { Page, Section } from '../components/page';
import { validateProductSearch } from '../generated/validators.js';
import { countries } from '../lib/countries';
import { useFormat } from '../lib/format';
import { MAX_GTINS, parseGtins, type GtinParse } from '../lib/gtin';
import { useAccount } from '../session';
import { AccountGate } from './account-gate';
import { hasCriteria, newSearchOf, noCriteria, searchOf, searchParamsOf, typed } from './product-search';

const TITLE = 'Products';

export function ProductsPage() {
  return (
    <AccountGate title={TITLE}>
      <Products />
    </AccountGate>
  );
}

function Products() {
  return (
    <Page
      title={TITLE}
      description="Fresh products of the programs you are approved for, each with your own tracked link. Copy a link, or show its QR code for print and posters."
    >
      <Search />
      <Lookup />
    </Page>
  );
}

// ---------------------------------------------------------------------------------------------
// Search

const LABELS: Record<string, string> = {
  q: 'Search',
  brand: 'Brand',
  category: 'Category',
  country: 'Country',
  merchant: 'Merchant id',
  group: 'One result per product group',
  min_price: 'Lowest price',
  max_price: 'Highest price',
  currency: 'Currency',
  limit: 'Results per page',
  offset: 'Offset',
};

const PAGE_SIZES = [10, 20, 50, 100].map((n) => ({ value: String(n), label: String(n) }));

function Search() {
  const account = useAccount();
  const [params, setParams] = useSearchParams();
  const search = useMemo(() => searchOf(params), [params]);
  const markets = useQuery(accountQuery(account.account_id)).data?.markets ?? [];

  const [draft, setDraft] = useState<ProductSearch>(search);
  const set = (k: keyof ProductSearch) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const form = useFormState(validateProductSearch, LABELS);

  const submit = () => {
    const next = newSearchOf(draft);
    if (!form.check(typed(next))) return;
    if (!hasCriteria(next)) {
      form.fail(noCriteria());
      return;
    }
    setParams(searchParamsOf(next));
  };

  const countryOptions = useMemo(() => {
    const all = countries();
    const mine = all.filter((c) => markets.includes(c.code));
    const rest = all.filter((c) => !markets.includes(c.code));
    return [
      { value: '', label: markets.length ? `Your markets (${markets.join(', ')})` : 'Choose a country' },
      ...[...mine, ...rest].map((c) => ({ value: c.code, label: `${c.name} (${c.code})` })),
    ];
  }, [markets]);

  return (
    <Section title="Search the catalog" description="Every filter of the API. Only fresh, in-stock products are listed, in a stable order.">
      <Form form={form} onSubmit={submit} className="form form-inline" label="Product search">
        <TextField form={form} name="q" type="search" optional hint="Words in the title, 3 to 200 characters." value={draft.q ?? ''} onChange={set('q')} />
        <TextField form={form} name="brand" optional value={draft.brand ?? ''} onChange={set('brand')} />
        <TextField form={form} name="category" optional value={draft.category ?? ''} onChange={set('category')} />
        <SelectField form={form} name="country" optional value={draft.country ?? ''} onChange={set('country')} options={countryOptions} />
        <TextField
          form={form}
          name="merchant"
          optional
          inputMode="numeric"
          hint="The merchant's id, as results show it."
          value={draft.merchant ?? ''}
          onChange={set('merchant')}
        />
        <TextField form={form} name="min_price" optional inputMode="decimal" placeholder="e.g. 10" value={draft.min_price ?? ''} onChange={set('min_price')} />
        <TextField
          form={form}
          name="max_price"
          optional
          inputMode="decimal"
          placeholder="e.g. 99.90"
          value={draft.max_price ?? ''}
          onChange={set('max_price')}
        />
        <TextField
          form={form}
          name="currency"
          optional
          maxLength={3}
          hint="Three letters, e.g. EUR: only prices in it."
          value={draft.currency ?? ''}
          onChange={(v) => set('currency')(v.toUpperCase())}
        />
        <SelectField form={form} name="limit" value={draft.limit ?? '20'} onChange={set('limit')} options={PAGE_SIZES} />
        <Toggle
          form={form}
          name="group"
          label={LABELS.group!}
          hint="The cheapest in-stock variant of each product, with its sizes."
          checked={draft.group === '1'}
          onChange={(on) => set('group')(on ? '1' : '')}
        />
        <div className="form-actions">
          <SubmitButton pending={false}>Search</SubmitButton>
        </div>
      </Form>
      <Results search={search} onPage={(offset) => setParams({ ...Object.fromEntries(params), offset: String(offset) })} />
    </Section>
  );
}

function Results({ search, onPage }: { search: ProductSearch; onPage: (offset: number) => void }) {
  const account = useAccount();
  const enabled = hasCriteria(search);
  const result = useQuery({ ...productSearchQuery(account.account_id, search), enabled, placeholderData: keepPreviousData });
  const fmt = useFormat();
  const headingId = useId();

  if (!enabled)
    return (
      <p className="empty">
        Search by words in the title, a brand or a category, or choose a country to list its products. Only products of{' '}
        <Link to="/programs">programs you are approved for</Link> appear.
      </p>
    );
  if (result.isPending) return <Loading label="Searching…" />;
  if (result.isError) return <ErrorNotice error={result.error} onRetry={() => void result.refetch()} />;
  const page: ProductPage = result.data;
  const first = page.offset + 1;
  return (
    <div className="results" aria-busy={result.isFetching || undefined}>
      <h3 id={headingId} className="section-title">
        {page.count === 0
          ? 'No products'
          : `Products ${fmt.number(first)}–${fmt.number(page.offset + page.count)}${page.total !== undefined ? ` of ${fmt.number(page.total)} groups` : ''}`}
      </h3>
      {page.count === 0 ? (
        <p className="empty">
          {page.offset > 0 ? 'No more products on this page. ' : 'No fresh, in-stock product matches. '}
          Try fewer words, another country, or a wider price range; or <Link to="/programs">join more programs</Link> to see their products.
        </p>
      ) : (
        <ProductTable products={page.products} label="Table of search results" />
      )}
      <nav className="offset-pager" aria-label="Pages of results">
        <button
          type="button"
          className="button button-secondary button-small"
          disabled={page.offset === 0}
          onClick={() => onPage(Math.max(0, page.offset - page.limit))}
        >
          Previous page
        </button>
        <button type="button" className="button button-secondary button-small" disabled={page.next_offset === null} onClick={() => onPage(page.next_offset!)}>
          Next page
        </button>
      </nav>
      <p className="muted small">
        Prices and stock as last seen within the last {page.freshness_hours} hours. Results may move between pages as the catalog changes.
      </p>
    </div>
  );
}

const AVAILABILITY: Record<string, { label: string; tone: PillTone }> = {
  in_stock: { label: 'In stock', tone: 'success' },
  out_of_stock: { label: 'Out of stock', tone: 'danger' },
  preorder: { label: 'Pre-order', tone: 'info' },
  backorder: { label: 'Back-order', tone: 'warning' },
};

export function ProductTable({ products, label }: { products: Product[]; label: string }) {
  const fmt = useFormat();
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Price</th>
            <th scope="col">Availability</th>
            <th scope="col">Merchant</th>
            <th scope="col">Your tracked link</th>
          </tr>
        </thead>
        <tbody>
          {products.map((p) => {
            const availability = AVAILABILITY[p.availability] ?? { label: p.availability, tone: 'neutral' as const };
            return (
              <tr key={p.id}>
                <td>
                  <span className="strong">{p.title}</span>
                  <p className="muted small">
                    GTIN <span className="mono">{p.gtin}</span> · {p.country} · updated {fmt.dateTime(p.updated_at)}
                  </p>
                  {p.sizes && p.sizes.length > 0 && <p className="muted small">Sizes: {p.sizes.map((s) => s.size).join(', ')}</p>}
                </td>
                <td className="nowrap">{fmt.money(p.price, p.currency)}</td>
                <td>
                  <StatusPill tone={availability.tone}>{availability.label}</StatusPill>
                </td>
                <td>
                  {p.merchant.name || '—'}
                  <p className="muted small">id {p.merchant.id}</p>
                </td>
                <td className="link-cell">
                  <code className="mono break">{p.url}</code>
                  <div className="row-actions">
                    <CopyLinkButton url={p.url} what={p.title} />
                    <QrToggle url={p.url} what={p.title} />
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Lookup by GTIN

function Lookup() {
  const account = useAccount();
  const id = useId();
  const [text, setText] = useState('');
  const [country, setCountry] = useState('');
  const [checked, setChecked] = useState<GtinParse | null>(null);
  const [asked, setAsked] = useState<{ gtins: string[]; country: string } | null>(null);
  const lookup = useInfiniteQuery(productLookupQuery(account.account_id, asked?.gtins ?? [], asked?.country ?? ''));
  const countryOptions = useMemo(
    () => [{ value: '', label: 'Every market of the products' }, ...countries().map((c) => ({ value: c.code, label: `${c.name} (${c.code})` }))],
    [],
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseGtins(text);
    setChecked(parsed);
    if (parsed.problems.length || !parsed.gtins.length) {
      window.setTimeout(() => document.getElementById(`${id}-problems`)?.focus(), 0);
      return;
    }
    setAsked({ gtins: parsed.gtins, country });
  };

  const problems = checked?.problems ?? [];
  const empty = checked !== null && !problems.length && !checked.gtins.length;
  const invalid = problems.length > 0 || empty;
  const products = lookup.data?.pages.flatMap((p) => p.products) ?? [];
  const found = new Set(products.map((p) => p.gtin));
  const missing = asked && !lookup.hasNextPage && !lookup.isPending ? asked.gtins.filter((g) => !found.has(g)) : [];

  return (
    <Section
      title="Look up by GTIN"
      description="Paste up to 100 GTINs (EAN, UPC): the current price and stock of each, out-of-stock and pre-order included, with your tracked link."
    >
      <form noValidate onSubmit={submit} className="form" aria-label="GTIN lookup">
        <div id={`${id}-problems`} tabIndex={-1} role="alert" className={invalid ? 'error-summary' : 'error-summary-empty'}>
          {invalid && (
            <>
              <p className="notice-title">
                {empty ? 'There is a problem' : problems.length === 1 ? 'There is a problem' : `There are ${problems.length} problems`}
              </p>
              <ul>
                {empty && <li>Paste at least one GTIN.</li>}
                {problems.map((p, i) => (
                  <li key={i}>{p.line ? `Line ${p.line}: ${p.message}` : p.message}</li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div className={`field${invalid ? ' field-invalid' : ''}`}>
          <label htmlFor={`${id}-gtins`}>GTINs</label>
          <p className="hint" id={`${id}-hint`}>
            One per line, or separated by commas. Up to {MAX_GTINS}; leading zeroes are kept.
          </p>
          <textarea
            id={`${id}-gtins`}
            name="gtins"
            rows={5}
            spellCheck={false}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={invalid || undefined}
            aria-describedby={`${id}-hint${invalid ? ` ${id}-problems` : ''}`}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-country`}>
            Country <span className="optional">(optional)</span>
          </label>
          <select id={`${id}-country`} name="country" value={country} onChange={(e) => setCountry(e.target.value)}>
            {countryOptions.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className="form-actions">
          <SubmitButton pending={lookup.isFetching}>Look up</SubmitButton>
        </div>
      </form>
      {asked &&
        (lookup.isPending ? (
          <Loading label="Looking up…" />
        ) : lookup.isError && !products.length ? (
          <ErrorNotice error={lookup.error} onRetry={() => void lookup.refetch()} />
        ) : (
          <div className="results">
            <h3 className="section-title">{products.length ? `${products.length} products for ${asked.gtins.length} GTINs` : 'No products found'}</h3>
            {products.length > 0 && <ProductTable products={products} label="Table of lookup results" />}
            {lookup.isFetchNextPageError && <ErrorNotice error={lookup.error} onRetry={() => void lookup.fetchNextPage()} />}
            {lookup.hasNextPage && (
              <div className="load-more">
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => !lookup.isFetchingNextPage && void lookup.fetchNextPage()}
                  aria-disabled={lookup.isFetchingNextPage || undefined}
                >
                  {lookup.isFetchingNextPage ? 'Loading…' : 'Load more'}
                </button>
              </div>
            )}
            {missing.length > 0 && (
              <div className="notice notice-info">
                <p className="notice-title">Not found: {missing.length}</p>
                <p>
                  No fresh product of your approved programs has {missing.length === 1 ? 'this GTIN' : 'these GTINs'}
                  {asked.country ? ` in ${asked.country}` : ''}. That says nothing about stock or existence elsewhere:{' '}
                  <Link to="/programs">join more programs</Link> to see more.
                </p>
                <ul className="plain-list mono">
                  {missing.map((g) => (
                    <li key={g}>{g}</li>
                  ))}
                </ul>
              </div>
            )}
          </div>
        ))}
    </Section>
  );
}
