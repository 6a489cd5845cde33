/**
 * The answers of the portal API (docs/portal.md), as the pages read them: aliases of the types
 * generated from the portal's OpenAPI document (answers.ts). The interfaces left are answers whose
 * response schema is a free object (it names no members), written by hand until it does.
 */
import type { Answer, Maybe, RequestBody, SentAnswer } from './answers';

export type Role = SessionAccount['role'];
export const ROLES: readonly Role[] = ['owner', 'developer', 'analyst'];

/**
 * GET /session (and sign-in); accepting an invitation answers the same with `joined`, the account
 * joined. `operator`: the person's operator role (the Operations pages), or null: not an operator.
 */
export type Session = Maybe<SentAnswer<'/portal/api/invitations/accept/', 'post'>, 'operator' | 'joined'>;

export type SessionAccount = Session['accounts'][number];

export const CHANNELS = ['coupon', 'content', 'social'] as const;
export const PAYOUT_METHOD_TYPES = ['bank_account', 'paypal', 'none'] as const;

/** `link_fallback`: product links fall back to the same GTIN at another program (decision 0063); false: off for every link. */
export type Account = Answer<'/portal/api/accounts/{account}/'>;

export type MoneyAmount = SentAnswer<'/portal/api/accounts/{account}/payment-status/'>['approved_unpaid']['by_currency'][number];

type PaymentStatusAnswer = SentAnswer<'/portal/api/accounts/{account}/payment-status/'>;

/**
 * `next_payment`: its schema (@cw/account's) is a free object, so its members are written here by
 * hand until it names them; `currency_note` and `as_of` are not always written.
 */
export type PaymentStatus = Maybe<Omit<PaymentStatusAnswer, 'next_payment'>, 'currency_note' | 'as_of'> & {
  next_payment: { estimated_date: string | null; estimated_amount: string; currency: string; threshold: string; threshold_reached: boolean };
};

/** `created_by`: who issued it (an e-mail, or the issuing credential's prefix). */
export type Credential = Answer<'/portal/api/accounts/{account}/keys/'>['data'][number];

export type KeyIssueInput = RequestBody<'/portal/api/accounts/{account}/keys/', 'post'>;

/** A credential and its secret, shown in this answer only. */
export type IssuedCredential = Answer<'/portal/api/accounts/{account}/keys/', 'post'>;

export const SALE_EVENT_TYPES = ['sale.created', 'sale.approved', 'sale.declined', 'sale.reversed'] as const;
/** Opt-in postback types (a configuration gets the sale events unless it asks for these). */
export const OPT_IN_EVENT_TYPES = ['payout.paid', 'payout.failed', 'inquiry.accepted', 'inquiry.rejected'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead'] as const;

/** `secret`: only in the answer that created it (PUT 201, rotation). */
export type PostbackConfig = Maybe<SentAnswer<'/portal/api/accounts/{account}/postback/'>, 'secret'>;

export type PostbackInput = RequestBody<'/portal/api/accounts/{account}/postback/', 'put'>;

/** `last_duration_ms`: how long the last attempt took (absent before the first). */
export type Delivery = Maybe<SentAnswer<'/portal/api/accounts/{account}/postback/deliveries/'>['data'][number], 'last_duration_ms'>;

export type TestDelivery = SentAnswer<'/portal/api/accounts/{account}/postback/test/', 'post'>;

export type MembersAnswer = Answer<'/portal/api/accounts/{account}/members/'>;

export type Member = MembersAnswer['data'][number];

export type Invitation = MembersAnswer['invitations'][number];

export type SecurityLogPage = Answer<'/portal/api/accounts/{account}/security-log/'>;

/** `actor`: a person (e-mail; `operator` when an operator acted) or a credential (its prefix); null: the system. */
export type SecurityEvent = SecurityLogPage['data'][number];

export type SessionRow = Answer<'/portal/api/sessions/'>['data'][number];

export type InvitationInfo = Answer<'/portal/api/invitations/preview/'>;

/** The claim preview: the monetize application's profile (its schema, @cw/monetize's, is a free object: written by hand). */
export interface ClaimApplication {
  application_id: string;
  status: string;
  display_name: string | null;
  website: string | null;
  channels: string[];
  country: string | null;
  links: number | unknown[] | null;
  clicks: number | unknown[] | null;
  conversions?: number | null;
  claim_deadline: string | null;
}

export type ClaimInput = RequestBody<'/portal/api/claim/', 'post'>;
