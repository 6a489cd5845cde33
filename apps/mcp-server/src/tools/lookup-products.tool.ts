import { LOOKUP_INPUT, lookupProductsPage, PRODUCT_PAGE_SCHEMA, type ProductPageBody } from '@cw/catalog';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { productSummary } from './summaries';

export const lookupProductsTool = defineTool<InputOf<typeof LOOKUP_INPUT>>({
  name: 'lookup_products',
  title: 'Look up products',
  description:
    "Current price and stock of products you already know, by `ids` (comma-separated product ids from search_products) or `gtins` (comma-separated GTIN-8/12/13/14). Use it before quoting a price that may have changed. Each `url` is your tracked link, and each product's `affiliate_attribution` the token to pass at the merchant's checkout when you buy for the user. Paging as in search_products (`limit`, `offset`, `next_offset`).",
  input: LOOKUP_INPUT,
  output: PRODUCT_PAGE_SCHEMA,
  policy: lookupProductsPage.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    // The page's bytes as HTTP sends them (every product with its agent attribution token); the structured content is parsed from them.
    const json = await lookupProductsPage(call.deps, principal, { ...input, attribution: 'token' });
    const page = JSON.parse(json) as ProductPageBody;
    return { json, data: page, summary: productSummary(page) };
  },
});
