export { createOffer, endOffer, listOffers, OFFERS_INPUT, OFFERS_POLICY } from './offers.service';
export type { NewOffer } from './offers.service';
