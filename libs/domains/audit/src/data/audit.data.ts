/** The audit domain's data: the accounts' security logs, append-only. The model stays here. */
import { randomBytes } from 'node:crypto';
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { securityEventSchema, type SecurityEventDoc, type SecurityEventType } from './security-event.schema';

export interface AuditModels {
  SecurityEvent: Model<SecurityEventDoc>;
}

export interface SecurityEventInput {
  /** The account acted on (absent: an operator's act on the network as a whole). */
  account_id?: string;
  type: SecurityEventType;
  actor?: { user_id?: string; email?: string; credential_prefix?: string; operator_role?: 'support' | 'admin' };
  detail?: Record<string, unknown>;
  address?: string;
  address_hash?: string;
  user_agent?: string;
  request_id?: string;
  at?: Date;
}

export type SecurityEventRow = SecurityEventDoc & { _id: string };

const { DomainHandle, open } = modelVault<AuditModels>('audit');

/** Time-ordered ids: the hex of the time in ms, then randomness (ties within a millisecond order by chance, never collide). */
export function securityEventId(at: Date): string {
  return `sev_${at.getTime().toString(16).padStart(12, '0')}${randomBytes(6).toString('hex')}`;
}

/** The audit log's filters (audit:list): every one optional, combined with and. */
export interface AuditFilter {
  account?: string;
  /** An actor's e-mail (a person or an operator), or a credential's display prefix. */
  actor?: string;
  /** An event type (`credential_revoked`, `publisher_reviewed`, …). */
  action?: string;
  since?: Date;
  /** Entries older than this id (the previous page's last id). */
  before?: string;
}

/**
 * Appends to and reads the accounts' security logs and the operators' audit log; there is no
 * method to edit or delete an entry (the TTL monitor ends them after two years).
 */
export class AuditData extends DomainHandle {
  async record(events: SecurityEventInput | SecurityEventInput[]): Promise<void> {
    const list = Array.isArray(events) ? events : [events];
    if (!list.length) return;
    await open(this).SecurityEvent.insertMany(
      list.map((e) => {
        const at = e.at ?? new Date();
        return { ...e, _id: securityEventId(at), at, detail: e.detail ?? {} };
      }),
    );
  }

  /** One page of an account's log, newest first, after the id `before` (ids are ordered by time). */
  page(accountId: string, limit: number, before?: string): Promise<SecurityEventRow[]> {
    return open(this)
      .SecurityEvent.find(before ? { account_id: accountId, _id: { $lt: before } } : { account_id: accountId })
      .sort({ _id: -1 })
      .limit(limit)
      .lean<SecurityEventRow[]>();
  }

  /** The whole audit log, newest first, filtered (the operators' `audit:list`). */
  list(filter: AuditFilter, limit: number): Promise<SecurityEventRow[]> {
    const query: Record<string, unknown> = {};
    if (filter.account) query.account_id = filter.account;
    if (filter.actor) query[filter.actor.includes('@') ? 'actor.email' : 'actor.credential_prefix'] = filter.actor;
    if (filter.action) query.type = filter.action;
    const id: Record<string, string> = {};
    if (filter.before) id.$lt = filter.before;
    // Ids begin with the time in ms: "since" is an id bound, served by the same indexes.
    if (filter.since) id.$gte = `sev_${filter.since.getTime().toString(16).padStart(12, '0')}`;
    if (Object.keys(id).length) query._id = id;
    return open(this).SecurityEvent.find(query).sort({ _id: -1 }).limit(limit).lean<SecurityEventRow[]>();
  }
}

export const auditDomain = defineDomain('audit', { SecurityEvent: [securityEventSchema, 'security_events'] }, (m: AuditModels) => new AuditData(m));
