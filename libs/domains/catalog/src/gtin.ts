/** GTIN-8, -12, -13 and -14 with their GS1 mod-10 check digit. Strings throughout (leading zeroes). */
export const GTIN_LENGTHS = [8, 12, 13, 14] as const;

export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidGtin(s: string): boolean {
  if (!/^\d+$/.test(s) || !(GTIN_LENGTHS as readonly number[]).includes(s.length)) return false;
  return gtinCheckDigit(s.slice(0, -1)) === s.charCodeAt(s.length - 1) - 48;
}

/** Completes a body (length 7, 11, 12 or 13) with its check digit. */
export function withCheckDigit(body: string): string {
  return `${body}${gtinCheckDigit(body)}`;
}
