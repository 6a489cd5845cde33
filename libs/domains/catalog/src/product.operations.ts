/**
 * The product operations, declared once for every surface (the API key's `/products`, the
 * portal's `/accounts/:account/products`): docs/decisions/0071-one-declaration-per-operation.md.
 * A page is answered as the bytes the use case wrote (with PRODUCT_PAGE_SCHEMA's serializer), as
 * the page cache keeps them.
 */
import { operation } from '@cw/http';
import { PRODUCT_PAGE_SCHEMA } from './products.schemas';
import { lookupProductsPage, searchProductsPage } from './products.service';

const PAGE = { 200: { description: 'A page of products', schema: PRODUCT_PAGE_SCHEMA } };
const API_ONLY = { 405: { description: 'Only GET is allowed: the API does not accept product writes' } };
const json = (page: string) => ({ type: 'application/json', body: page });

export const SEARCH_PRODUCTS = operation({
  method: 'GET',
  path: '/products',
  operationId: 'searchProducts',
  summary: 'Search fresh, in-stock products of approved programs in authorized markets',
  tags: ['Products'],
  useCase: searchProductsPage,
  input: 'query',
  responses: { ...PAGE, 400: { description: 'Country required' } },
  result: json,
  wording: {
    apiKey: { responses: API_ONLY },
    portal: { summary: 'Product search with the API’s filters, each product with the account’s tracked link (as GET /api/v1/publisher/products/)' },
  },
});

export const LOOKUP_PRODUCTS = operation({
  method: 'GET',
  path: '/products/lookup',
  operationId: 'lookupProducts',
  summary: 'Refresh price and stock by product id or GTIN',
  tags: ['Products'],
  useCase: lookupProductsPage,
  input: 'query',
  responses: { ...PAGE, 400: { description: 'Invalid GTIN' } },
  result: json,
  wording: {
    apiKey: { responses: API_ONLY },
    portal: { summary: 'Products by id or GTIN (as GET /api/v1/publisher/products/lookup/)' },
  },
});
