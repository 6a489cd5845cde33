export { createOffer, endOffer, listOffers, OFFERS_INPUT } from './offers.service';
export type { NewOffer } from './offers.service';
export { OffersData, offersDomain } from './data/offers.data';
export { OFFER_TYPES } from './data/offer.schema';
export type { OfferDoc } from './data/offer.schema';
export type { OffersDeps } from './deps';
export { operatorCreateOffer, operatorEndOffer, operatorListOffers } from './operator.service';
export type { OperatorOffersDeps } from './operator.service';
