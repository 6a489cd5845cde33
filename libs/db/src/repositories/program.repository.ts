import type { Models } from '../models';
import type { MembershipDoc } from '../schemas/membership.schema';
import type { ProgramDoc } from '../schemas/program.schema';

export type ProgramRow = ProgramDoc & { _id: number };
export type ProgramInput = Partial<ProgramDoc> & Pick<ProgramDoc, 'name' | 'merchant_id' | 'default_landing_url'> & { _id: number };
export type AssignmentRow = Pick<MembershipDoc, 'publisher_id' | 'program_id' | 'status'> & {
  applied_at?: Date;
  decided_at?: Date;
  eligibility_checked_at?: Date;
};

/** Programs and a publisher's assignments to them: the queries several use cases ask. */
export class ProgramRepository {
  constructor(private readonly models: Models) {}

  /** Program ids the publisher holds an approved assignment to (whatever the program's status). */
  async approvedIds(publisherId: string): Promise<number[]> {
    const rows = await this.models.Membership.find({ publisher_id: publisherId, status: 'approved' }, { program_id: 1, _id: 0 }).lean();
    return rows.map((m) => m.program_id);
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

  activeOfCampaign(campaignId: number, projection?: Record<string, 1>): Promise<ProgramRow[]> {
    return this.models.Program.find({ merchant_id: campaignId, status: 'active' }, projection).lean<ProgramRow[]>();
  }
}
