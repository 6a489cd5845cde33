/**
 * GTINs pasted in a box (one per line, or separated by commas, semicolons or spaces): each read
 * as the API reads it (8, 12, 13 or 14 digits with a valid check digit; kept as a string, leading
 * zeroes and all), with a clear error per line for the ones it would refuse.
 */

export const MAX_GTINS = 100;
const LENGTHS = new Set([8, 12, 13, 14]);

/** The check digit GS1 computes for the digits before it (weights 3 and 1 from the right). */
export function checkDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = w === 3 ? 1 : 3) sum += Number(body[i]) * w;
  return (10 - (sum % 10)) % 10;
}

/** Why `gtin` is not one the API takes, or null. */
export function gtinProblem(gtin: string): string | null {
  if (!/^[0-9]+$/.test(gtin)) return 'has characters other than digits';
  if (!LENGTHS.has(gtin.length)) return `has ${gtin.length} digits; a GTIN has 8, 12, 13 or 14`;
  const want = checkDigit(gtin.slice(0, -1));
  if (Number(gtin.slice(-1)) !== want) return `has a wrong check digit (the last digit should be ${want})`;
  return null;
}

export interface GtinParse {
  /** Valid GTINs, each once, in the order pasted. */
  gtins: string[];
  /** One message per problem, naming its line. */
  problems: Array<{ line: number; value: string; message: string }>;
}

export function parseGtins(text: string): GtinParse {
  const gtins: string[] = [];
  const problems: GtinParse['problems'] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    for (const value of raw.split(/[,;\s]+/).filter(Boolean)) {
      const problem = gtinProblem(value);
      if (problem) problems.push({ line: i + 1, value, message: `“${value.slice(0, 40)}” ${problem}.` });
      else if (!gtins.includes(value)) gtins.push(value);
    }
  });
  if (gtins.length > MAX_GTINS) problems.push({ line: 0, value: '', message: `${gtins.length} GTINs: look up at most ${MAX_GTINS} at once.` });
  return { gtins, problems };
}
