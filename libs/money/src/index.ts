export { addDecimals, compareDecimals, formatDecimal, money, multiplyDecimals, parseDecimal, roundDecimal } from './decimal';
export type { Dec } from './decimal';
