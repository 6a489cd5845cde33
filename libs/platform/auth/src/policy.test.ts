import { describe, expect, it } from 'vitest';
import type { Principal } from './credentials.service';
import { authorizeOnce, noteAuthorized, type Policy } from './policy';

function principal(keyKind: Principal['keyKind'] = 'live'): Principal {
  return {
    publisher: { _id: 'pub_1', feed_access: true, is_demo: false } as Principal['publisher'],
    credentialId: 'cred_1',
    prefix: 'pk_x',
    type: 'api_key',
    keyKind,
  };
}

describe('authorizeOnce', () => {
  it('authorizes a principal no edge authorized, as authorize does', () => {
    const search: Policy = { budget: 'products', allowDemo: true };
    const links: Policy = { budget: 'links' };
    expect(() => authorizeOnce(principal('demo'), search)).not.toThrow();
    expect(() => authorizeOnce(principal('demo'), links)).toThrow(expect.objectContaining({ status: 403, code: 'credential_not_allowed' }));
  });

  it('does not authorize again what the edge authorized for this principal under this very policy, and still checks any other policy', () => {
    const links: Policy = { budget: 'links' };
    const demo = principal('demo');
    // Only the edge notes a principal (after `authorize` passed); a demo key never passes `links`,
    // so noting it here shows that the second check is skipped, and only for that policy object.
    noteAuthorized(demo, links);
    expect(() => authorizeOnce(demo, links)).not.toThrow();
    expect(() => authorizeOnce(demo, { ...links })).toThrow(expect.objectContaining({ code: 'credential_not_allowed' }));
    expect(() => authorizeOnce(principal('demo'), links)).toThrow(expect.objectContaining({ code: 'credential_not_allowed' }));
  });

  it('checks again a policy that reads the clock (a recent password) every time', () => {
    const sensitive: Policy = { budget: 'links', reauthenticate: true };
    const person = { ...principal(), person: { role: 'owner' } } as unknown as Principal;
    noteAuthorized(person, sensitive);
    expect(() => authorizeOnce(person, sensitive)).toThrow(expect.objectContaining({ code: 'reauthentication_required' }));
  });
});
