export { createOffer, endOffer, listOffers, OFFERS_INPUT } from './offers.service';
export type { NewOffer } from './offers.service';
