import { describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
import { queryValidator } from '@cw/validation';
import { useCase } from './usecase';

function principal(overrides: { keyKind?: Principal['keyKind']; feed?: boolean; demo?: boolean } = {}): Principal {
  return {
    publisher: { _id: 'pub_1', feed_access: overrides.feed ?? true, is_demo: overrides.demo ?? false } as Principal['publisher'],
    credentialId: 'cred_1',
    prefix: 'pk_live_x',
    type: 'api_key',
    keyKind: overrides.keyKind ?? 'live',
  };
}

describe('useCase', () => {
  it('authorizes every call under its own policy before running, whichever surface calls it', async () => {
    const ran: string[] = [];
    const write = useCase({ budget: 'links', refuseDemoAccounts: true }, async (_deps: null, p: Principal, subid: string) => {
      ran.push(`${p.publisher._id}:${subid}`);
      return subid.length;
    });
    expect(await write(null, principal(), 'abc')).toBe(3);
    for (const caller of [principal({ keyKind: 'demo' }), principal({ demo: true })]) {
      const refused = await write(null, caller, 'x').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).code).toBe('credential_not_allowed');
    }
    expect(ran).toEqual(['pub_1:abc']); // refused calls never ran
    expect(write.policy).toEqual({ budget: 'links', refuseDemoAccounts: true });
  });

  it('validates its input against its own schema after authorizing, whichever surface calls it', async () => {
    const INPUT = {
      type: 'object',
      additionalProperties: false,
      properties: { subid: { type: 'string', maxLength: 5 }, page_size: { type: 'integer', minimum: 1, default: 50 } },
    } as const;
    const seen: unknown[] = [];
    const list = useCase(
      { budget: 'links' },
      async (_deps: null, _p: Principal, input: { subid?: string; page_size?: number }) => {
        seen.push(input);
        return input.page_size;
      },
      INPUT,
    );
    expect(await list(null, principal(), { subid: 'abc' })).toBe(50); // defaults applied
    for (const bad of [{ subid: 'toolong' }, { page_size: 0 }, { page_size: '2' }, { other: 1 }]) {
      const refused = await list(null, principal(), bad as never).catch((e: unknown) => e);
      expect(refused, JSON.stringify(bad)).toBeInstanceOf(ApiError);
      expect((refused as ApiError).status).toBe(400);
    }
    // A caller it may not serve is refused before its input is looked at.
    const refused = await list(null, principal({ keyKind: 'demo' }), { other: 1 } as never).catch((e: unknown) => e);
    expect((refused as ApiError).code).toBe('credential_not_allowed');
    expect(seen).toHaveLength(1);
    expect(list.input).toBe(INPUT);
  });

  it('validates once per call: the input its surface validated against its own schema is used as it is, any other input is checked', async () => {
    const INPUT = { type: 'object', additionalProperties: false, properties: { page_size: { type: 'integer', minimum: 1, default: 50 } } } as const;
    const list = useCase({ budget: 'links' }, async (_deps: null, _p: Principal, input: { page_size?: number }) => input.page_size, INPUT);
    // A route's query: strings coerced and defaults applied by the route, against the use case's own schema.
    const query = queryValidator<{ page_size?: number }>(INPUT)({ page_size: '7' });
    expect(await list(null, principal(), query)).toBe(7);
    const fromRoute = queryValidator<{ page_size?: number }>(INPUT)({});
    expect(await list(null, principal(), fromRoute)).toBe(50);
    // That very object is trusted (the surface hands it on untouched); a copy, or what another schema passed, is checked.
    for (const other of [{ ...query, page_size: 0 }, queryValidator({ properties: { page_size: { type: 'integer' } } })({ page_size: '0' })]) {
      const refused = await list(null, principal(), other as never).catch((e: unknown) => e);
      expect((refused as ApiError).status).toBe(400);
    }
  });

  it('refuses to bind a use case without a policy (one imported through a cycle)', () => {
    expect(() => useCase(undefined as never, async () => 1)).toThrow(/no policy/);
  });
});
