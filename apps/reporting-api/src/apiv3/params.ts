/** Parameters of /Apiv3/json: PHP-style nesting read with `qs`, bounded so no input can blow up. */
import qs from 'qs';

import { Apiv3Error, type Params } from '@cw/conversions';

export { Apiv3Error, type Params };

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
