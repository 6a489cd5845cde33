export { GTIN_LENGTHS, gtinCheckDigit, isValidGtin, withCheckDigit } from './gtin';
export { productId } from './product-id';
