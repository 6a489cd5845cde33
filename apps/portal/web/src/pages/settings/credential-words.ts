/** Credentials in words (apart from the Keys page): their types and kinds, in a title and in a sentence, and who issued them. */
import { words } from '../../lib/words';

export const CREDENTIAL_TYPES = [
  { value: 'api_key', label: 'API key' },
  { value: 'reporting_token', label: 'Reporting token' },
  { value: 'offers_credential', label: 'Offers credential' },
  { value: 'portal_token', label: 'Portal API token' },
] as const;

export const KEY_KINDS = [
  { value: 'live', label: 'Live' },
  { value: 'test', label: 'Test' },
  { value: 'sandbox', label: 'Sandbox' },
  { value: 'demo', label: 'Demo' },
  { value: 'read_only', label: 'Read only' },
] as const;

/** A credential type's name ("API key"), an unknown one readably. */
export const typeLabel = (type: string) => CREDENTIAL_TYPES.find((t) => t.value === type)?.label ?? words(type);
/** A label inside a sentence: its first letter lower-cased unless it starts an acronym ("API key", "reporting token"). */
export const inSentence = (label: string) => label.replace(/^[A-Z](?![A-Z])/, (c) => c.toLowerCase());
/** An API key's kind ("Read only"); null for credentials without one. */
export const kindLabel = (kind: string | null) => (kind ? (KEY_KINDS.find((k) => k.value === kind)?.label ?? words(kind)) : null);

/** Who issued or invited: an e-mail (or a credential's prefix), or nobody recorded. */
export const actorName = (a: string | null): string => a || '—';
