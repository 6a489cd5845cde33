import { PRODUCT_PAGE_SCHEMA, SEARCH_INPUT, searchProductsPage, type ProductPageBody } from '@cw/catalog';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';
import { productSummary } from './summaries';

export const searchProductsTool = defineTool<InputOf<typeof SEARCH_INPUT>>({
  name: 'search_products',
  title: 'Search products',
  description:
    "Search the product catalog of the programs you are approved for, in your markets. Every product's `url` is your own tracked link: hand it to the user as is (never the merchant's page) so the sale is attributed to you. Give `q` (a phrase in the title, 3+ characters), `brand`, `category` or `country`; narrow with `min_price`/`max_price` (decimal strings), `currency`, `merchant`. `group=1` returns one row per variant group with its sizes. Paging: `limit` (max 100) and `offset`; call again with `offset` = `next_offset` while it is not null. Every product carries `affiliate_attribution` (a signed token for one order, Agentic Commerce Protocol): when you buy for the user, pass it as is to the merchant's checkout so the sale is credited to you without a click.",
  input: SEARCH_INPUT,
  output: PRODUCT_PAGE_SCHEMA,
  policy: searchProductsPage.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    // The page's bytes as HTTP sends them (every product with its agent attribution token); the structured content is parsed from them.
    const json = await searchProductsPage(call.deps, principal, { ...input, attribution: 'token' });
    const page = JSON.parse(json) as ProductPageBody;
    return { json, data: page, summary: productSummary(page) };
  },
});
