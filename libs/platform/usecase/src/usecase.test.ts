import { describe, expect, it } from 'vitest';
import type { Principal } from '@cw/auth';
import { ApiError } from '@cw/errors';
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

  it('refuses to bind a use case without a policy (one imported through a cycle)', () => {
    expect(() => useCase(undefined as never, async () => 1)).toThrow(/no policy/);
  });
});
