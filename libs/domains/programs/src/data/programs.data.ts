/**
 * The programs domain's data: merchants, their programs (terms, markets, status) and publishers'
 * memberships of them. Other libs reach it through `ProgramsData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { CacheNamespace, type CacheSpec } from '@cw/cache';
import { announceAccessChanges, defineDomain, modelVault, literalPattern } from '@cw/db';
import { membershipSchema, type MembershipDoc } from './membership.schema';
import { merchantSchema, type MerchantDoc } from './merchant.schema';
import { programSchema, type ProgramDoc } from './program.schema';

export type ProgramRow = ProgramDoc & { _id: number };
export type ProgramInput = Partial<ProgramDoc> & Pick<ProgramDoc, 'name' | 'merchant_id' | 'default_landing_url'> & { _id: number };
export type AssignmentRow = Pick<MembershipDoc, 'publisher_id' | 'program_id' | 'status'> & {
  applied_at?: Date;
  decided_at?: Date;
  eligibility_checked_at?: Date;
};

export type MerchantInput = Pick<MerchantDoc, 'name'> & Partial<MerchantDoc> & { _id: number };

export interface ProgramsModels {
  Merchant: Model<MerchantDoc>;
  Program: Model<ProgramDoc>;
  Membership: Model<MembershipDoc>;
}

/** Merchant display names (docs/decisions/0045-one-cache-abstraction.md): a rename shows within a minute. */
export const MERCHANT_NAMES_CACHE: CacheSpec = {
  name: 'programs.merchantNames',
  keeps: 'Merchant display names on product results and program listings, by merchant id',
  maxEntries: 100_000,
  freshMs: 60_000,
  invalidation: 'Nothing else (a rename shows once the name is no longer fresh).',
};

announceAccessChanges(programSchema, 'programs');
// Merchant names show on catalog pages: a rename is a catalog change.
announceAccessChanges(merchantSchema, 'catalog');
announceAccessChanges(membershipSchema, { accountField: 'publisher_id' });

/** Which programs are open to instant links (active, joinable), narrowed as the monetize API asks. */
export interface InstantFilter {
  country?: string;
  channel?: string;
  topic?: string;
  ids?: number[];
}

const { DomainHandle, open } = modelVault<ProgramsModels>('programs');

/** Merchants, their programs and publishers' assignments to them: the queries other domains ask. */
export class ProgramsData extends DomainHandle {
  /** Merchant display names, cached per process for a minute. */
  readonly names = new CacheNamespace<number, string>(MERCHANT_NAMES_CACHE);

  private get models(): ProgramsModels {
    return open(this);
  }

  /** Creates merchants through the schema, in one write. */
  async createMerchants(merchants: MerchantInput[]): Promise<void> {
    await this.models.Merchant.insertMany(merchants);
  }

  async merchantExists(id: number): Promise<boolean> {
    return !!(await this.models.Merchant.exists({ _id: id }));
  }

  async merchantNames(ids: number[], now = Date.now()): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const hit = this.names.get(id, { now });
      if (hit !== undefined) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length) {
      for (const m of await this.models.Merchant.find({ _id: { $in: missing } }, { name: 1 }).lean()) {
        out.set(Number(m._id), m.name);
        this.names.set(Number(m._id), m.name, { now });
      }
    }
    return out;
  }

  /** Program ids the publisher holds an approved assignment to (whatever the program's status). */
  async approvedIds(publisherId: string): Promise<number[]> {
    const rows = await this.models.Membership.find({ publisher_id: publisherId, status: 'approved' }, { program_id: 1, _id: 0 }).lean();
    return rows.map((m) => m.program_id);
  }

  /** The program ids each of these publishers holds an approved assignment to (one read for all: the link health pass). */
  async approvedOfPublishers(publisherIds: string[]): Promise<Map<string, Set<number>>> {
    const out = new Map(publisherIds.map((p) => [p, new Set<number>()]));
    if (!publisherIds.length) return out;
    const rows = await this.models.Membership.find(
      { publisher_id: { $in: publisherIds }, status: 'approved' },
      { publisher_id: 1, program_id: 1, _id: 0 },
    ).lean();
    for (const m of rows) out.get(m.publisher_id)?.add(m.program_id);
    return out;
  }

  /** Active programs with an approved assignment, in id order: what the publisher may promote now. */
  async activeApprovedIds(publisherId: string): Promise<number[]> {
    const ids = await this.approvedIds(publisherId);
    if (!ids.length) return [];
    const active = await this.models.Program.find({ _id: { $in: ids }, status: 'active' }, { _id: 1 }).lean();
    return active.map((p) => Number(p._id)).sort((a, b) => a - b);
  }

  /** The publisher's assignment status per program id. */
  async assignments(publisherId: string): Promise<Map<number, 'approved' | 'pending' | 'rejected'>> {
    const rows = await this.models.Membership.find({ publisher_id: publisherId }, { program_id: 1, status: 1 }).lean();
    return new Map(rows.map((m) => [m.program_id, m.status as 'approved' | 'pending' | 'rejected']));
  }

  byId(id: number, projection?: Record<string, 1>): Promise<ProgramRow | null> {
    return this.models.Program.findById(id, projection).lean<ProgramRow>();
  }

  /** Creates programs through the schema (defaults and validation), in one write. */
  async create(programs: ProgramInput[]): Promise<ProgramRow[]> {
    return (await this.models.Program.insertMany(programs)).map((d) => d.toObject() as ProgramRow);
  }

  /** Writes assignments (one upsert each, in one bulk write): the operator's decisions and the seed's. */
  async saveAssignments(rows: AssignmentRow[], now = new Date()): Promise<void> {
    if (!rows.length) return;
    await this.models.Membership.bulkWrite(
      rows.map((r) => ({
        updateOne: {
          filter: { publisher_id: r.publisher_id, program_id: r.program_id },
          update: {
            $set: {
              status: r.status,
              decided_at: r.decided_at ?? (r.status === 'pending' ? undefined : now),
              updated_at: now,
              ...(r.status === 'approved' ? { eligibility_checked_at: r.eligibility_checked_at ?? now } : {}),
            },
            $setOnInsert: { applied_at: r.applied_at ?? now, created_at: now },
          },
          upsert: true,
        },
      })),
    );
  }

  /** Sets a program's status (an operator pausing or closing it); false when it does not exist. */
  async setStatus(id: number, status: 'active' | 'paused' | 'closed'): Promise<boolean> {
    const r = await this.models.Program.updateOne({ _id: id }, { $set: { status, updated_at: new Date() } });
    return r.matchedCount === 1;
  }

  activeOfMerchant(merchantId: number, projection?: Record<string, 1>): Promise<ProgramRow[]> {
    return this.models.Program.find({ merchant_id: merchantId, status: 'active' }, projection).lean<ProgramRow[]>();
  }

  async exists(id: number): Promise<boolean> {
    return !!(await this.models.Program.exists({ _id: id }));
  }

  /** Programs by id (whatever their status), by id. */
  async byIds(ids: number[], projection?: Record<string, 1>): Promise<Map<number, ProgramRow>> {
    const rows = await this.models.Program.find({ _id: { $in: [...new Set(ids)] } }, projection).lean<ProgramRow[]>();
    return new Map(rows.map((p) => [p._id, p]));
  }

  /** Program names: of `ids`, or of every program (the network's programs, a bounded set). */
  async namesOf(ids?: number[]): Promise<Map<number, string>> {
    const rows = await this.models.Program.find(ids ? { _id: { $in: [...new Set(ids)] } } : {}, { name: 1 }).lean<Array<{ _id: number; name: string }>>();
    return new Map(rows.map((r) => [r._id, r.name]));
  }

  /** Active programs, narrowed to `ids`, a market and merchants when given, in id order. */
  active(f: { ids?: number[]; country?: string; merchants?: number[] } = {}, projection?: Record<string, 1>): Promise<ProgramRow[]> {
    const q: Record<string, unknown> = { status: 'active' };
    if (f.ids) q._id = { $in: f.ids };
    if (f.country) q.countries = f.country;
    if (f.merchants) q.merchant_id = { $in: f.merchants };
    return this.models.Program.find(q, projection).sort({ _id: 1 }).lean<ProgramRow[]>();
  }

  /** Every market an active program serves. */
  async activeCountries(): Promise<string[]> {
    return (await this.models.Program.distinct('countries', { status: 'active' })) as string[];
  }

  /** The publisher's memberships of these programs, by program id. */
  async membershipsOf(publisherId: string, programIds: number[]): Promise<Map<number, MembershipRow>> {
    const rows = await this.models.Membership.find({ publisher_id: publisherId, program_id: { $in: programIds } }).lean<MembershipRow[]>();
    return new Map(rows.map((m) => [m.program_id, m]));
  }

  /** Programs open to instant links (active and joinable) matching `f`, in id order, in the window given. */
  openToInstantLinks(f: InstantFilter, window: { skip?: number; limit?: number } = {}): Promise<ProgramRow[]> {
    const filter: Record<string, unknown> = { status: 'active', joinable: true };
    if (f.ids) filter._id = { $in: f.ids };
    if (f.country) filter.countries = f.country;
    if (f.channel) filter.$or = [{ allowed_channels: { $size: 0 } }, { allowed_channels: f.channel }];
    if (f.topic) {
      const re = { $regex: literalPattern(f.topic), $options: 'i' };
      filter.$and = [{ $or: [{ category: re }, { name: re }, { description: re }] }];
    }
    let q = this.models.Program.find(filter).sort({ _id: 1 });
    if (window.skip) q = q.skip(window.skip);
    if (window.limit !== undefined) q = q.limit(window.limit);
    return q.lean<ProgramRow[]>();
  }
}

export type MembershipRow = MembershipDoc & { _id: unknown };

/** The programs lib's own models (not exported from the lib). */
export const programsModels = (data: ProgramsData): ProgramsModels => open(data);

export const programsDomain = defineDomain(
  'programs',
  { Merchant: [merchantSchema, 'merchants'], Program: [programSchema, 'programs'], Membership: [membershipSchema, 'program_memberships'] },
  (m: ProgramsModels) => new ProgramsData(m),
);
