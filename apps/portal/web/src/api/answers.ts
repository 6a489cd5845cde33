/**
 * The portal API's answers as the pages read them, taken from the types openapi-typescript
 * generates from the portal's own OpenAPI document (generated/portal.ts, `npm run sdk:generate`;
 * tools/dev-stack/test/sdk-types.test.ts fails when it is stale). A field a page reads that the
 * server's response schema does not declare is a type error here, not a field that vanishes.
 *
 * Types only: nothing here or in generated/ reaches the bundle.
 */
import type { paths } from './generated/portal';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The members of an answer as the server writes them, for the response schemas that list every
 * member their views write but mark none `required` (the serializer does not read `required`, so
 * nothing forced it): openapi-typescript makes each one optional, the views always write them
 * (null where the schema says null), so they are read as present. A member that may be left out is
 * said so where it is aliased (`Maybe` below). Answers whose schemas declare `required` are used as
 * generated (`Answer`).
 */
export type Sent<T> = T extends readonly (infer U)[] ? Sent<U>[] : T extends object ? { [K in keyof T]-?: Sent<Exclude<T[K], undefined>> } : T;

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]> extends { responses: infer R } ? R : never;
type Body<R, S extends number> = S extends keyof R ? Json<R[S]> : never;

/** The JSON answer (200, 201 or 202) of `method path`, the path as the document writes it (`/portal/api/...{account}.../`). */
export type Answer<P extends keyof paths, M extends Method = 'get'> = Body<Responses<P, M>, 200 | 201 | 202>;

/** The same answer, its schema declaring no `required` members: read as present (`Sent`). */
export type SentAnswer<P extends keyof paths, M extends Method = 'get'> = Sent<Answer<P, M>>;

/** The JSON request body of `method path`. */
export type RequestBody<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

/** `T` with the members `K` optional again: the answers that leave them out (said where used). */
export type Maybe<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
