/** What a payout notice says (the composition root mails it to the account's owners). */
import type { NoticeAttachment, PayoutNotice } from './deps';

export function payoutNoticeMail(
  notice: PayoutNotice,
  portalUrl: string,
): (accountName: string) => { subject: string; text: string; attachments?: NoticeAttachment[] } {
  const payments = `${portalUrl.replace(/\/+$/, '')}/payments`;
  switch (notice.kind) {
    case 'payout_paid':
      return (name) => ({
        subject: `Payout ${notice.payoutId} paid`,
        text: `The payout ${notice.payoutId} of ${name} was paid.${notice.attachments?.length ? ' Its self-billing statement is attached (PDF).' : ''} Its amount, the exchange rates used, its ledger entries and its statement are on your payments page:\n\n${payments}\n`,
        ...(notice.attachments?.length ? { attachments: notice.attachments } : {}),
      });
    case 'payout_failed':
      return (name) => ({
        subject: `Payout ${notice.payoutId} was returned`,
        text: `The bank or PayPal did not pay the payout ${notice.payoutId} of ${name}. Its amount is back in your balance, and payouts wait until you set your payout method again (Settings, Payouts). Why it failed:\n\n${payments}\n`,
      });
    case 'payout_method_changed':
      return (name) => ({
        subject: 'Your payout method was changed',
        text: `The payout method of ${name} was changed. The next payout waits 72 hours. If you did not make this change, sign in, change your password and set the method again, and tell the network:\n\n${portalUrl.replace(/\/+$/, '')}/settings/payouts\n`,
      });
    case 'tax_profile_changed':
      return (name) => ({
        subject: 'Your tax details were changed',
        text: `The tax profile of ${name} (legal name, address, taxpayer and VAT ids, the signed W-9 or W-8 form) was changed. If you did not make this change, sign in, change your password and check your tax details, and tell the network:\n\n${portalUrl.replace(/\/+$/, '')}/settings/tax\n`,
      });
  }
}
