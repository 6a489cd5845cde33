import { Schema, type InferSchemaType } from 'mongoose';

/** A publisher's assignment to a program: approved, pending review or rejected. */
export const membershipSchema = new Schema(
  {
    publisher_id: { type: String, required: true },
    program_id: { type: Number, required: true },
    status: { type: String, enum: ['approved', 'pending', 'rejected'], required: true },
    applied_at: { type: Date },
    decided_at: { type: Date },
    /** When the publisher's eligibility for this program was last confirmed (approval sets it). */
    eligibility_checked_at: { type: Date },
    created_at: { type: Date, default: Date.now },
    updated_at: { type: Date, default: Date.now },
  },
  { versionKey: false },
);
membershipSchema.index({ publisher_id: 1, program_id: 1 }, { unique: true });
membershipSchema.index({ publisher_id: 1, status: 1 });

export type MembershipDoc = InferSchemaType<typeof membershipSchema>;
