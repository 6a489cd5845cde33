/**
 * The network's operators acting on offers (the admin CLI): support lists, admin creates and ends;
 * every act is recorded in the audit log with the operator and what changed.
 */
import type { AuditData } from '@cw/audit';
import { recordOperatorAct } from '@cw/audit';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import { own, type OffersDeps } from './deps';
import { createOffer, endOffer, type NewOffer } from './offers.service';

/** The offers lib's deps and the audit log. */
export type OperatorOffersDeps = Pick<OffersDeps, 'data'> & UseCaseDeps<{ audit: AuditData }>;

export const operatorCreateOffer = operatorUseCase('admin', async function operatorCreateOffer(deps: OperatorOffersDeps, operator, input: NewOffer) {
  const offer = await createOffer(deps, input);
  await recordOperatorAct(deps.data.audit, operator, 'offer_created', {
    offer_id: offer._id,
    program_id: offer.program_id,
    type: offer.type,
    country: offer.country,
    starts_at: offer.starts_at.toISOString(),
    ends_at: offer.ends_at.toISOString(),
  });
  return offer;
});

/** Ends a running or future offer now; false when there is no such offer or it has ended (nothing audited then). */
export const operatorEndOffer = operatorUseCase('admin', async function operatorEndOffer(deps: OperatorOffersDeps, operator, input: { id: string }) {
  const ended = await endOffer(deps, input.id);
  if (ended) await recordOperatorAct(deps.data.audit, operator, 'offer_ended', { offer_id: input.id });
  return ended;
});

export const operatorListOffers = operatorUseCase(
  'support',
  async function operatorListOffers(deps: OperatorOffersDeps, _operator, input: { program?: number; country?: string; limit?: number }) {
    const now = new Date();
    const rows = await own(deps)
      .Offer.find({ ...(input.program !== undefined ? { program_id: input.program } : {}), ...(input.country ? { country: input.country } : {}) })
      .sort({ created_at: -1, _id: 1 })
      .limit(input.limit ?? 100)
      .lean();
    return rows.map((r) => ({ ...r, state: r.ended_at ? 'ended' : r.starts_at > now ? 'future' : r.ends_at <= now ? 'expired' : 'running' }));
  },
);
