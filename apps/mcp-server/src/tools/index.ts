/** Every MCP tool, in the order tools/list shows them. */
import type { Tool } from '../tool';
import { applyToProgramTool } from './apply-to-program.tool';
import { createTrackingLinkTool } from './create-tracking-link.tool';
import { getPaymentStatusTool } from './get-payment-status.tool';
import { getReportTool } from './get-report.tool';
import { listBalanceTransactionsTool } from './list-balance-transactions.tool';
import { listClicksTool } from './list-clicks.tool';
import { listConversionsTool } from './list-conversions.tool';
import { listEventsTool } from './list-events.tool';
import { listLinksTool } from './list-links.tool';
import { listPayoutsTool } from './list-payouts.tool';
import { getPayoutStatementTool } from './get-payout-statement.tool';
import { fileInquiryTool } from './file-inquiry.tool';
import { listInquiriesTool } from './list-inquiries.tool';
import { listCodesTool } from './list-codes.tool';
import { requestCodeTool } from './request-code.tool';
import { listProgramsTool } from './list-programs.tool';
import { lookupProductsTool } from './lookup-products.tool';
import { networkStatsTool } from './network-stats.tool';
import { searchProductsTool } from './search-products.tool';

export const TOOLS: readonly Tool[] = [
  networkStatsTool,
  searchProductsTool,
  lookupProductsTool,
  listProgramsTool,
  applyToProgramTool,
  createTrackingLinkTool,
  listLinksTool,
  listConversionsTool,
  listEventsTool,
  getReportTool,
  listClicksTool,
  getPaymentStatusTool,
  listBalanceTransactionsTool,
  listPayoutsTool,
  getPayoutStatementTool,
  fileInquiryTool,
  listInquiriesTool,
  listCodesTool,
  requestCodeTool,
];
