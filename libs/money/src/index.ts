export { addDecimals, compareDecimals, divideDecimals, formatDecimal, multiplyDecimals, parseDecimal, roundDecimal } from './decimal';
export type { Dec } from './decimal';
export { CURRENCY_CODES, isCurrency, minorUnits, moneyIn, priceWithCurrency } from './currency';
