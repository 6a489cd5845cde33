/** The short text each tool answers next to its structured content. */

export function productSummary(page: { products: Array<{ title: string; price: string; currency: string }>; next_offset: number | null }): string {
  if (!page.products.length) return 'No products matched.';
  const first = page.products.slice(0, 3).map((p) => `${p.title} (${p.price} ${p.currency})`);
  const more = page.next_offset === null ? 'No more results.' : `More results: call again with offset=${page.next_offset}.`;
  return `${page.products.length} products, e.g. ${first.join('; ')}. ${more}`;
}

export function pageSummary(noun: string, page: { data: unknown[]; page: number; next_page: number | null; next_cursor: string | null }): string {
  const more = page.next_cursor === null ? 'This is the last page.' : `More: call again with the same filters and cursor=${page.next_cursor}.`;
  return `${page.data.length} ${noun} on page ${page.page}. ${more}`;
}
