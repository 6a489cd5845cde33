/** Parameters of HasOffers' API as parsed (PHP-style nesting), and its error answer. */
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
