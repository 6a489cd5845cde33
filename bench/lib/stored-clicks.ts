/** Clicks stored for one link, counted through a plain driver connection: every bucket holding it unpacked, and any row of the older layout. */
import type { Db } from 'mongodb';
import { unpackBucket, type ClickBucketDoc } from '@cw/links';

export async function storedClicksOf(db: Db, linkId: string): Promise<number> {
  let n = await db.collection('clicks').countDocuments({ link_id: linkId });
  for await (const b of db.collection<ClickBucketDoc>('click_buckets').find({ ls: linkId })) n += unpackBucket(b).filter((c) => c.link_id === linkId).length;
  return n;
}
