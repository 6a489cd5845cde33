/** Currencies and their minor units, from the runtime's ICU data (ISO 4217). */
import { formatDecimal, parseDecimal, type Dec } from './decimal';

/** Every ISO 4217 code the platform takes, as JSON schemas list them. */
export const CURRENCY_CODES: readonly string[] = Intl.supportedValuesOf('currency');
const CURRENCIES = new Set(CURRENCY_CODES);

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code);
}

const minorUnitsOf = new Map<string, number>();

/** Decimals of the currency's minor unit (EUR 2, JPY 0, BHD 3); remembered per currency (an Intl formatter is costly to build). */
export function minorUnits(currency: string): number {
  let units = minorUnitsOf.get(currency);
  if (units === undefined) {
    units = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    if (minorUnitsOf.size < 1000) minorUnitsOf.set(currency, units);
  }
  return units;
}

/**
 * The one money formatter: an amount as every view shows it (API answers, feeds, `/Apiv3/json`,
 * MCP), a decimal string at the currency's minor unit (EUR "12.90", JPY "1290", BHD "1.250"),
 * rounded half to even when the value has more decimals. Never a float.
 */
export function moneyIn(value: { toString(): string } | Dec, currency: string): string {
  const d = typeof value === 'object' && 'units' in value ? value : parseDecimal(value.toString());
  return formatDecimal(d, minorUnits(currency));
}

/** Google Shopping's price attribute: the amount at the currency's minor unit, a space, the code ("12.90 EUR", "1290 JPY"). */
export function priceWithCurrency(value: string, currency: string): string {
  return `${moneyIn(value, currency)} ${currency}`;
}
