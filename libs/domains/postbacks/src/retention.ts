/**
 * How long a delivery is kept (a TTL index on `expires_at` removes it): a succeeded one
 * POSTBACK_SUCCEEDED_RETENTION_DAYS (7) after it succeeded, and its body is dropped then (nothing
 * will send it again); a pending, failed or dead one POSTBACK_FAILED_RETENTION_DAYS (30) after its
 * last change, with its body, so a failed or dead delivery can be redelivered all that time.
 */
import type { UseCaseDeps } from '@cw/usecase';

const DAY_MS = 86_400_000;

export function expiresAt(deps: Pick<UseCaseDeps, 'config'>, status: string, at: Date): Date {
  const days = status === 'succeeded' ? deps.config.postbackSucceededRetentionDays : deps.config.postbackFailedRetentionDays;
  return new Date(at.getTime() + days * DAY_MS);
}
