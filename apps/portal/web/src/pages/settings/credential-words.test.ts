import { describe, expect, it } from 'vitest';
import { actorName, inSentence, kindLabel, typeLabel } from './credential-words';

describe('credentials in words', () => {
  it('names each credential type, and an unknown one readably', () => {
    expect(typeLabel('api_key')).toBe('API key');
    expect(typeLabel('portal_token')).toBe('Portal API token');
    expect(typeLabel('webhook_signing_key')).toBe('Webhook signing key');
  });

  it('writes a name inside a sentence lower-case, an acronym as it is ("New API key", "New reporting token")', () => {
    expect(inSentence(typeLabel('api_key'))).toBe('API key');
    expect(inSentence(typeLabel('reporting_token'))).toBe('reporting token');
    expect(inSentence(typeLabel('offers_credential'))).toBe('offers credential');
  });

  it('names an API key’s kind, nothing for credentials without one', () => {
    expect(kindLabel('read_only')).toBe('Read only');
    expect(kindLabel('live')).toBe('Live');
    expect(kindLabel('staging')).toBe('Staging');
    expect(kindLabel(null)).toBeNull();
  });

  it('shows who issued a credential, a dash when nobody is recorded', () => {
    expect(actorName('ana@example.com')).toBe('ana@example.com');
    expect(actorName(null)).toBe('—');
  });
});
