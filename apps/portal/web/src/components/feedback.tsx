/** Loading, errors (with their detail, request id and a retry), notices and status pills. */
import type { ReactNode } from 'react';
import { isApiError } from '../api/client';

export function Loading({ label = 'Loading…', lines = 3 }: { label?: string; lines?: number }) {
  return (
    <div className="loading" role="status">
      <span className="visually-hidden">{label}</span>
      <div className="skeleton-lines" aria-hidden="true">
        {Array.from({ length: lines }, (_, i) => (
          <div key={i} className="skeleton" />
        ))}
      </div>
    </div>
  );
}

export function RequestId({ id }: { id: string | null | undefined }) {
  if (!id) return null;
  return (
    <p className="request-id">
      Request id <code>{id}</code>
    </p>
  );
}

/** A failed call: its detail, its request id in small print, and a retry when asked for. */
export function ErrorNotice({ error, onRetry, title }: { error: unknown; onRetry?: () => void; title?: string }) {
  const api = isApiError(error) ? error : null;
  const refused = api?.status === 403 && api.code === 'role_not_allowed';
  const heading = title ?? (refused ? 'Not available for your role' : api?.status === 404 ? 'Not found' : 'Something went wrong');
  const detail = api ? api.detail : error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <div className={`notice ${refused ? 'notice-warning' : 'notice-danger'}`} role="alert">
      <p className="notice-title">{heading}</p>
      <p>{detail}</p>
      <RequestId id={api?.request_id} />
      {onRetry && !refused && api?.status !== 404 && (
        <button type="button" className="button button-secondary button-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

type Tone = 'info' | 'success' | 'warning' | 'danger';

export function Notice({ tone = 'info', title, children, role }: { tone?: Tone; title?: string; children?: ReactNode; role?: 'status' | 'alert' }) {
  return (
    <div className={`notice notice-${tone}`} role={role}>
      {title && <p className="notice-title">{title}</p>}
      {children}
    </div>
  );
}

export type PillTone = 'neutral' | 'success' | 'warning' | 'danger' | 'info';

/** A status in words (the colour only repeats what the text says). */
export function StatusPill({ tone = 'neutral', children }: { tone?: PillTone; children: ReactNode }) {
  return <span className={`pill pill-${tone}`}>{children}</span>;
}

const DELIVERY_TONES: Record<string, PillTone> = { succeeded: 'success', pending: 'info', failed: 'warning', dead: 'danger' };
export const deliveryTone = (status: string): PillTone => DELIVERY_TONES[status] ?? 'neutral';

const CREDENTIAL_TONES: Record<string, PillTone> = { active: 'success', revoked: 'neutral', expired: 'neutral', rotating: 'warning' };
export const credentialTone = (status: string): PillTone => CREDENTIAL_TONES[status] ?? 'neutral';

/** Words for a snake_case value ("read_only" -> "Read only"). */
export { words } from '../lib/words';
