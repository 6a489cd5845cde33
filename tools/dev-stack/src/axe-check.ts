/** axe-core on a page as it is now, for the browser tests (the page's context must bypass its CSP to take the script). */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; html: string; failureSummary?: string }>;
}

export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.addScriptTag({ content: axe.source });
  const result = await page.locator('html').evaluate((html) => html.ownerDocument.defaultView.axe.run(html.ownerDocument, { resultTypes: ['violations'] }));
  return (result as { violations: Violation[] }).violations;
}

/** The serious and critical ones, short enough to read in a failed assertion. */
export const serious = (vs: Violation[]) =>
  vs
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 200) })) }));
