import { Schema } from 'mongoose';

/** How far the compaction of an account's clicks has looked (./click-compaction.ts): buckets ending before `to` are decided. */
export interface ClickCompactionDoc {
  /** The account. */
  _id: string;
  to: Date;
}

export const clickCompactionSchema = new Schema<ClickCompactionDoc>(
  {
    _id: { type: String, required: true },
    to: { type: Date, required: true },
  },
  { versionKey: false },
);
