import type { Models } from '../models';
import type { ProgramDoc } from '../schemas/program.schema';

export type ProgramRow = ProgramDoc & { _id: number };

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

  activeOfCampaign(campaignId: number, projection?: Record<string, 1>): Promise<ProgramRow[]> {
    return this.models.Program.find({ merchant_id: campaignId, status: 'active' }, projection).lean<ProgramRow[]>();
  }
}
