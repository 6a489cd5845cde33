/** Parameters of /Apiv3/json: PHP-style nesting read with `qs`, bounded so no input can blow up; and HasOffers' error answer. */
import qs from 'qs';

/** Parameters of HasOffers' API as parsed (PHP-style nesting). */
export type Params = Record<string, unknown>;

/** An answer in HasOffers' error envelope with this HTTP status in the body (the response is 200). */
export class Apiv3Error extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const QS_OPTIONS = { depth: 4, arrayLimit: 1000, parameterLimit: 2000, allowPrototypes: false, plainObjects: true, strictDepth: false } as const;

export function parseParams(query: string, body: string | undefined): Params {
  const q = qs.parse(query, QS_OPTIONS) as Params;
  const b = body ? (qs.parse(body, QS_OPTIONS) as Params) : {};
  return { ...q, ...b };
}

/** A single string parameter; arrays or objects where a string is expected are refused. */
export function str(p: Params, name: string): string | undefined {
  const v = p[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new Apiv3Error(400, `${name} must be a single value`);
  return v;
}
