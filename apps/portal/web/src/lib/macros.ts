/** The postback URL's macros and the preview of the URL a sample sale would call. */
export const MACROS = ['subid', 'commission', 'currency', 'status', 'event', 'conversion_id', 'program_id', 'campaign_id', 'click_id'] as const;
export type Macro = (typeof MACROS)[number];

export const SAMPLE_SALE: Record<Macro, string> = {
  subid: 'summer-sale',
  commission: '12.50',
  currency: 'EUR',
  status: 'approved',
  event: 'sale.approved',
  conversion_id: 'cnv_sample',
  program_id: '1001',
  campaign_id: '2001',
  click_id: 'clk_sample',
};

export interface Preview {
  url: string;
  /** Macros in the URL that are not in the list (the server refuses them). */
  unknown: string[];
}

/** Each known macro replaced by its URL-encoded sample value; unknown ones left as typed. */
export function previewUrl(template: string, sample: Record<string, string> = SAMPLE_SALE): Preview {
  const unknown: string[] = [];
  const url = template.replace(/\{([^{}]*)\}/g, (whole, name: string) => {
    if (Object.hasOwn(sample, name)) return encodeURIComponent(sample[name] ?? '');
    if (!unknown.includes(name)) unknown.push(name);
    return whole;
  });
  return { url, unknown };
}

/** Inserts text at the selection of an input's value: the new value and where the caret goes. */
export function insertAt(value: string, text: string, start: number | null, end: number | null): { value: string; caret: number } {
  const s = start ?? value.length;
  const e = end ?? s;
  return { value: value.slice(0, s) + text + value.slice(e), caret: s + text.length };
}
