export { listOffers, OFFERS_INPUT, OFFERS_POLICY } from './offers.service';
