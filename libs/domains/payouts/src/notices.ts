/** What a payout notice says (the composition root mails it to the account's owners). */
import type { PayoutNotice } from './deps';

export function payoutNoticeMail(notice: PayoutNotice, portalUrl: string): (accountName: string) => { subject: string; text: string } {
  const payments = `${portalUrl.replace(/\/+$/, '')}/payments`;
  switch (notice.kind) {
    case 'payout_paid':
      return (name) => ({
        subject: `Payout ${notice.payoutId} paid`,
        text: `The payout ${notice.payoutId} of ${name} was paid. Its amount, the exchange rates used and its ledger entries are on your payments page:\n\n${payments}\n`,
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
  }
}
