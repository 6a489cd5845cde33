/**
 * The notifications domain's data: people's choices, the keys of notices sent at most once, and
 * the mail jobs (Agenda's `jobs` collection, on this connection: the worker runs them).
 */
import type { Connection, Model } from 'mongoose';
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { defineDomain, modelVault } from '@cw/db';
import type { NotificationKind } from '../kinds';
import { notificationPreferenceSchema, notificationSendSchema, type NotificationPreferenceDoc, type NotificationSendDoc } from './notifications.schema';

export interface NotificationsModels {
  NotificationPreference: Model<NotificationPreferenceDoc>;
  NotificationSend: Model<NotificationSendDoc>;
}

export type Choices = Partial<Record<NotificationKind, boolean>>;

/** What a queued mail job holds: ids and the notice's own fields, never an address or a secret. */
export interface MailJobData {
  user_id: string;
  account_id: string;
  notice: { kind: NotificationKind; publisherId: string } & Record<string, string | number | undefined>;
}

/** The job that sends one notification mail (the worker defines it; anyone may queue it). */
export const MAIL_JOB = 'mail:send';

const { DomainHandle, open } = modelVault<NotificationsModels>('notifications');

export class NotificationsData extends DomainHandle {
  #conn: Connection;
  #agenda?: Agenda;

  constructor(models: NotificationsModels, conn: Connection) {
    super(models);
    this.#conn = conn;
  }

  /** The choices each person made (a person without a row made none). */
  async choicesOf(userIds: string[]): Promise<Map<string, Choices>> {
    if (!userIds.length) return new Map();
    const rows = await open(this)
      .NotificationPreference.find({ _id: { $in: userIds } })
      .lean<Array<{ _id: string; choices?: Choices }>>();
    return new Map(rows.map((r) => [r._id, r.choices ?? {}]));
  }

  /** Each person's own time zone (a person without one is left out). */
  async zonesOf(userIds: string[]): Promise<Map<string, string>> {
    if (!userIds.length) return new Map();
    const rows = await open(this)
      .NotificationPreference.find({ _id: { $in: userIds }, timezone: { $type: 'string' } }, { timezone: 1 })
      .lean<Array<{ _id: string; timezone: string }>>();
    return new Map(rows.map((r) => [r._id, r.timezone]));
  }

  /**
   * Records choices (the kinds named; others keep theirs) and, when `timezone` is given, the
   * person's own zone (null: none, each account's zone decides).
   */
  async choose(userId: string, choices: Choices, now = new Date(), opts: { timezone?: string | null } = {}): Promise<void> {
    const set: Record<string, unknown> = { updated_at: now };
    for (const [kind, on] of Object.entries(choices)) set[`choices.${kind}`] = on;
    if (opts.timezone !== undefined) set.timezone = opts.timezone;
    await open(this).NotificationPreference.updateOne({ _id: userId }, { $set: set }, { upsert: true });
  }

  /** Claims the keys not claimed yet (each at most once, until it expires); returns those this call claimed. */
  async claim(keys: Array<{ key: string; kind: NotificationKind; expiresAt: Date }>, now = new Date()): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const taken = new Set(
      (
        await open(this)
          .NotificationSend.find({ _id: { $in: keys.map((k) => k.key) } }, { _id: 1 })
          .lean<Array<{ _id: string }>>()
      ).map((r) => r._id),
    );
    const fresh = keys.filter((k) => !taken.has(k.key));
    const claimed = new Set(fresh.map((k) => k.key));
    if (!fresh.length) return claimed;
    try {
      await open(this).NotificationSend.insertMany(
        fresh.map((k) => ({ _id: k.key, kind: k.kind, created_at: now, expires_at: k.expiresAt })),
        { ordered: false },
      );
    } catch (e) {
      // Another process claimed some meanwhile: those are theirs.
      const errors = (e as { writeErrors?: Array<{ code?: number; err?: { op?: { _id?: string } }; index?: number }> }).writeErrors;
      if (!errors || errors.some((w) => w.code !== 11000)) throw e;
      for (const w of errors) if (w.index !== undefined) claimed.delete(fresh[w.index]!.key);
    }
    return claimed;
  }

  /** Gives a claim back (its job could not be queued: a later pass claims it again). */
  async release(key: string): Promise<void> {
    await open(this).NotificationSend.deleteOne({ _id: key });
  }

  /** Queues mail jobs: the worker's Agenda runs them (retried with backoff when sending fails). */
  async enqueue(jobs: MailJobData[]): Promise<void> {
    if (!jobs.length) return;
    this.#agenda ??= new Agenda({ backend: new MongoBackend({ mongo: this.#conn.db!, collection: 'jobs', ensureIndex: false }) });
    for (const data of jobs) await this.#agenda.create(MAIL_JOB, data).save();
  }
}

/** The notifications lib's own models (not exported from the lib). */
export const notificationsModels = (data: NotificationsData): NotificationsModels => open(data);

export const notificationsDomain = defineDomain(
  'notifications',
  {
    NotificationPreference: [notificationPreferenceSchema, 'notification_preferences'],
    NotificationSend: [notificationSendSchema, 'notification_sends'],
  },
  (m: NotificationsModels, conn: Connection) => new NotificationsData(m, conn),
);
