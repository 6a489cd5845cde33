import { REPORT_INPUT } from '@cw/conversions';
import { conversionReport, REPORT_SCHEMA } from '@cw/reports';
import type { InputOf } from '@cw/usecase';
import { defineTool } from '../tool';

export const getReportTool = defineTool<InputOf<typeof REPORT_INPUT>>({
  name: 'get_report',
  title: 'Conversion report',
  description:
    'Conversions and commission totals grouped by `group_by`: day (default), week, month, subid, campaign or status, between `date_from` and `date_to` (UTC days; default the last 30 days, at most 366), optionally for one `subid` or `status`. Amounts are per currency, as decimal strings. Not paged: one answer holds every row and the totals.',
  input: REPORT_INPUT,
  output: REPORT_SCHEMA,
  policy: conversionReport.policy,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (input, principal, call) => {
    const report = await conversionReport(call.deps, principal, input);
    const totals = report.totals as { conversions: number; commission: Record<string, string> };
    const commission =
      Object.entries(totals.commission)
        .map(([c, a]) => `${a} ${c}`)
        .join(', ') || 'none';
    return {
      data: report,
      summary: `${report.rows.length} rows by ${report.group_by} from ${report.date_from} to ${report.date_to}: ${totals.conversions} conversions, commission ${commission}.`,
    };
  },
});
