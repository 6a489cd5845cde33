export { addDecimals, compareDecimals, divideDecimals, formatDecimal, money, multiplyDecimals, parseDecimal, roundDecimal } from './decimal';
export type { Dec } from './decimal';
