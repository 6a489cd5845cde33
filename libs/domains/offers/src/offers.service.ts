/**
 * Offers as the offers credential reads them: running now, of the account's approved programs, in
 * one country of the account's markets; each url the caller's own tracked link to the offer's page.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '@cw/errors';
import type { Policy, Principal } from '@cw/auth';
import type { OfferDoc } from './data/offer.schema';
import { ensureLinks, trackedUrl } from '@cw/links';
import { useCase, PAGE_INPUT, skipFor, type InputOf } from '@cw/usecase';
import { own, type OffersDeps } from './deps';

/** The dedicated offers credential only, with its own per-account budget. */
const OFFERS_POLICY: Policy = { budget: 'offers', credentials: ['offers_credential'] };

export const OFFERS_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['country'],
  properties: {
    country: { type: 'string', pattern: '^[A-Z]{2}$', description: "ISO alpha-2, within the account's markets; UK is accepted as GB." },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
    page: PAGE_INPUT,
  },
} as const;

type OfferRow = OfferDoc & { _id: string };

export const listOffers = useCase(
  OFFERS_POLICY,
  async function listOffers(deps: OffersDeps, principal: Principal, input: InputOf<typeof OFFERS_INPUT>, now: Date = new Date()) {
    const country = input.country === 'UK' ? 'GB' : input.country;
    if (!(principal.publisher.markets ?? []).includes(country)) {
      throw new ApiError({
        code: 'forbidden',
        detail: `Country ${country} is outside this credential's markets.`,
        errors: [{ param: 'country', detail: 'is outside the credential scope' }],
      });
    }
    const approved = await deps.data.programs.activeApprovedIds(principal.publisher._id);
    const rows = await own(deps)
      .Offer.find({ country, program_id: { $in: approved }, starts_at: { $lte: now }, ends_at: { $gt: now }, ended_at: null })
      .sort({ _id: 1 })
      .skip(skipFor(input.page, input.limit))
      .limit(input.limit + 1)
      .lean<OfferRow[]>();
    const page = rows.slice(0, input.limit);
    const programs = new Map([...(await deps.data.programs.byIds(page.map((o) => o.program_id))).values()].map((p) => [p._id, p]));
    const names = await deps.data.programs.merchantNames([...programs.values()].map((p) => p.merchant_id));
    const links = await ensureLinks(
      deps.data.links,
      deps.config.secretKey,
      page.map((o) => ({
        publisherId: principal.publisher._id,
        programId: o.program_id,
        merchantId: programs.get(o.program_id)!.merchant_id,
        landingUrl: o.landing_url,
        subid: '',
      })),
      { source: 'api' },
    );
    return {
      data: page.map((o, i) => {
        const merchant = programs.get(o.program_id)!.merchant_id;
        return {
          id: o._id,
          program_id: o.program_id,
          merchant: { id: merchant, name: names.get(merchant) ?? '' },
          type: o.type,
          title: o.title,
          description: o.description,
          code: o.code ?? null,
          url: trackedUrl(deps.config.trackingUrl, links[i]!.code), // one link per offer, in order
          country: o.country,
          starts_at: o.starts_at,
          ends_at: o.ended_at ?? o.ends_at,
          terms: o.terms,
        };
      }),
      page: input.page,
      limit: input.limit,
      has_more: rows.length > input.limit,
    };
  },
  OFFERS_INPUT,
);

export interface NewOffer {
  programId: number;
  type: 'voucher' | 'deal';
  title: string;
  description?: string;
  code?: string;
  landingUrl: string;
  country: string;
  startsAt: Date;
  endsAt: Date;
  terms?: string;
}

/** Operators: a new offer (a voucher needs a code; a deal has none). */
export async function createOffer(deps: Pick<OffersDeps, 'data'>, o: NewOffer) {
  if (o.type === 'voucher' && !o.code)
    throw new ApiError({ code: 'invalid_parameter', detail: 'A voucher needs a code.', errors: [{ param: 'code', detail: 'is required for a voucher' }] });
  if (!(o.endsAt > o.startsAt))
    throw new ApiError({
      code: 'invalid_parameter',
      detail: 'ends_at must be after starts_at.',
      errors: [{ param: 'ends_at', detail: 'must be after starts_at' }],
    });
  const doc = await own(deps).Offer.create({
    _id: `ofr_${randomBytes(9).toString('base64url')}`,
    program_id: o.programId,
    type: o.type,
    title: o.title,
    description: o.description ?? '',
    code: o.type === 'deal' ? null : o.code,
    landing_url: o.landingUrl,
    country: o.country,
    starts_at: o.startsAt,
    ends_at: o.endsAt,
    terms: o.terms ?? '',
  });
  return doc.toObject();
}

/** Operators: ends a running or future offer now; false when there is no such offer or it has ended. */
export async function endOffer(deps: Pick<OffersDeps, 'data'>, id: string, now = new Date()): Promise<boolean> {
  const r = await own(deps).Offer.updateOne({ _id: id, ended_at: null, ends_at: { $gt: now } }, { $set: { ended_at: now } });
  return r.modifiedCount === 1;
}
