/**
 * The product search as the URL holds it (apart from its form): read back with only the API's
 * parameters, typed as the API's schema types them, and a new search from the form's strings.
 */
import { ApiError } from '../api/client';
import { SEARCH_FIELDS, type ProductSearch } from '../api/catalog';

/** The search in the URL (only the API's parameters). */
export function searchOf(params: URLSearchParams): ProductSearch {
  const out: ProductSearch = {};
  for (const k of SEARCH_FIELDS) {
    const v = params.get(k);
    if (v !== null && v !== '') out[k] = v;
  }
  return out;
}

export const hasCriteria = (s: ProductSearch) => !!(s.q || s.brand || s.category || s.country);

/** The form's strings as the API's schema types them (integers where it says integer). */
export function typed(s: ProductSearch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined || v === '') continue;
    out[k] = ['merchant', 'group', 'limit', 'offset'].includes(k) && /^-?[0-9]+$/.test(v) ? Number(v) : v;
  }
  return out;
}

/** A new search from the form: words trimmed, from the first page again. */
export const newSearchOf = (draft: ProductSearch): ProductSearch => ({
  ...draft,
  q: draft.q?.trim(),
  brand: draft.brand?.trim(),
  category: draft.category?.trim(),
  offset: undefined,
});

/** The refusal of a search without words, brand, category or country (said on the search field). */
export function noCriteria(): ApiError {
  const detail = 'Enter words to search for, or choose a brand, a category or a country.';
  return new ApiError({ status: 400, code: 'invalid_parameter', detail, errors: [{ param: 'q', detail }] });
}

/** The URL's search params of a search (empty members left out). */
export function searchParamsOf(search: ProductSearch): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(typed(search))) p.set(k, String(v));
  return p;
}
