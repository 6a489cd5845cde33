/**
 * Converting an amount between currencies with the ECB's reference rates, which are all against
 * the euro: `from` -> EUR -> `to`, as one exact fraction (amount x rate(to) / rate(from), BigInt
 * decimals of @cw/money, never a float), rounded once, half to even, to the minor unit of `to`
 * (EUR 2, JPY 0, BHD 3).
 */
import { ApiError } from '@cw/errors';
import { divideDecimals, formatDecimal, isCurrency, minorUnits, multiplyDecimals, parseDecimal, type Dec } from '@cw/money';
import type { EcbRates } from './ecb-rates';

export interface Conversion {
  /** The converted amount, a decimal string at the minor unit of `currency`. */
  amount: string;
  currency: string;
  /**
   * Units of `to` per 1 unit of `from`, the cross rate rounded half to even to 12 significant
   * digits, trailing zeros dropped ('1.1702' from EUR to USD is the ECB's own figure). The amount is
   * computed from the exact cross rate, not from this rounded figure: `ecb` holds what it is.
   */
  rate: string;
  /** The day of the ECB rates used. */
  date: string;
  /** The ECB's published rates used (units per 1 EUR), one per currency that is not EUR. */
  ecb: Record<string, string>;
}

/** Significant digits of the rate a conversion reports. */
export const RATE_SIGNIFICANT_DIGITS = 12;

const AMOUNT = /^-?\d{1,20}(?:\.\d{1,12})?$/;

function invalid(param: string, detail: string): ApiError {
  return new ApiError({ code: 'invalid_parameter', detail: `Invalid parameter '${param}': ${detail}.`, errors: [{ param, detail }] });
}

/** The ECB rate of `currency` (1 for EUR), or a 400 naming the parameter. */
function euroRate(rates: EcbRates, currency: string, param: 'from' | 'to'): string {
  if (!/^[A-Z]{3}$/.test(currency) || !isCurrency(currency)) throw invalid(param, 'must be an ISO 4217 currency code (EUR, USD, ...)');
  if (currency === 'EUR') return '1';
  if (!Object.hasOwn(rates.rates, currency)) throw invalid(param, `has no ECB reference rate on ${rates.date} (${currency} cannot be converted)`);
  const rate = rates.rates[currency]!;
  // The rates come from parseEcbRates (positive decimals); a hand-made rates object is checked too.
  if (!/^\d{1,12}(?:\.\d{1,12})?$/.test(rate) || /^[0.]+$/.test(rate)) throw new Error(`the ${currency} rate of ${rates.date} is not a positive decimal`);
  return rate;
}

/** The positive fraction `numerator / denominator` rounded half to even to `digits` significant digits, trailing zeros dropped. */
function significant(numerator: Dec, denominator: Dec, digits: number): string {
  const num = numerator.units * 10n ** BigInt(denominator.scale);
  const den = denominator.units * 10n ** BigInt(numerator.scale);
  // e: the place of the first significant digit (10^e <= num/den < 10^(e+1)).
  let e = (num / den).toString().length - 1;
  if (num < den) {
    e = -1;
    while (num * 10n ** BigInt(-e) < den) e -= 1;
  }
  const scale = Math.max(0, digits - 1 - e);
  const text = formatDecimal(divideDecimals(numerator, denominator, scale), scale);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** `amount` (a decimal string) of `from` in `to`, with the rate used. 400 `invalid_parameter` for an amount or currency it cannot convert. */
export function convert(amount: string, from: string, to: string, rates: EcbRates): Conversion {
  if (typeof amount !== 'string' || !AMOUNT.test(amount)) throw invalid('amount', 'must be a decimal string (digits, an optional point and decimals)');
  const fromRate = euroRate(rates, from, 'from');
  const toRate = euroRate(rates, to, 'to');
  const exact = divideDecimals(multiplyDecimals(parseDecimal(amount), toRate), fromRate, minorUnits(to));
  const ecb: Record<string, string> = {};
  if (from !== 'EUR') ecb[from] = fromRate;
  if (to !== 'EUR') ecb[to] = toRate;
  return {
    amount: formatDecimal(exact, minorUnits(to)),
    currency: to,
    rate: significant(parseDecimal(toRate), parseDecimal(fromRate), RATE_SIGNIFICANT_DIGITS),
    date: rates.date,
    ecb,
  };
}
