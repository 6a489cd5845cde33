/**
 * The answers of the portal API (docs/portal.md), as the pages read them: aliases of the types
 * generated from the portal's OpenAPI document (answers.ts). The interfaces left are answers whose
 * response schema is a free object (it names no members), written by hand until it does.
 */
import type { Maybe, RequestBody, SentAnswer } from './answers';

export type Role = 'owner' | 'developer' | 'analyst';
export const ROLES: readonly Role[] = ['owner', 'developer', 'analyst'];

/**
 * GET /session (and sign-in); accepting an invitation answers the same with `joined`, the account
 * joined. `operator`: the person's operator role (the Operations pages), or null: not an operator.
 */
export type Session = Maybe<SentAnswer<'/portal/api/invitations/accept/', 'post'>, 'operator' | 'joined'>;

export type SessionAccount = Session['accounts'][number];

export const CHANNELS = ['coupon', 'content', 'social'] as const;
export const PAYOUT_METHOD_TYPES = ['bank_account', 'paypal', 'none'] as const;

export interface Account {
  account_id: string;
  name: string;
  website: string | null;
  channels: string[];
  markets: string[];
  timezone: string | null;
  payout_method_type: string | null;
  /** Product links fall back to the same GTIN at another program (decision 0063); false: off for every link. */
  link_fallback?: boolean;
  status: string;
  role: Role;
}

export type MoneyAmount = SentAnswer<'/portal/api/accounts/{account}/payment-status/'>['approved_unpaid']['by_currency'][number];

export interface PaymentStatus {
  account_id: string;
  currency_note?: string;
  approved_unpaid: { by_currency: MoneyAmount[]; total_usd: string };
  pending_review: { window_days: number; by_currency: MoneyAmount[]; total_usd: string };
  next_payment: { estimated_date: string | null; estimated_amount: string; currency: string; threshold: string; threshold_reached: boolean };
  payment_method: { type: string; last4?: string | null };
}

/** Who did something: the API may give an e-mail, or a person object. */
export type Actor = string | { email?: string | null; name?: string | null } | null;

export interface Credential {
  id: string;
  type: string;
  key_kind: string | null;
  prefix: string;
  label: string | null;
  status: string;
  created_at: string;
  created_by: Actor;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface IssuedCredential {
  credential: Credential;
  secret: string;
}

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

export interface CursorPage<T> {
  data: T[];
  has_more?: boolean;
  next_cursor: string | null;
}

export interface Member {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invited_by: Actor;
  expires_at: string;
}

export interface MembersAnswer {
  data: Member[];
  invitations: Invitation[];
}

export interface SecurityEvent {
  id: string;
  type: string;
  at: string;
  /** A person (e-mail) or a credential (its prefix). */
  actor: { email?: string; credential?: string } | null;
  detail: unknown;
  address: string | null;
  user_agent: string | null;
}

export interface SessionRow {
  id: string;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  user_agent: string | null;
  address: string | null;
}

export interface InvitationInfo {
  account_name: string;
  email: string;
  role: Role;
  invited_by?: string | null;
  expires_at: string;
}

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
