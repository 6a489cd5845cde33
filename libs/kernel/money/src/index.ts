export { addDecimals, compareDecimals, divideDecimals, formatDecimal, multiplyDecimals, parseDecimal, roundDecimal } from './decimal';
export type { Dec } from './decimal';
export { decimal128Dec, decimal128String } from './decimal128';
export type { Decimal128Like } from './decimal128';
export { CURRENCY_CODES, isCurrency, minorUnits, moneyIn, priceWithCurrency } from './currency';
