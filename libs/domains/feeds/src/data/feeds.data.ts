/**
 * The publisher feed export's own data: the prepared feed files, one per (market, program), in the
 * GridFS bucket `feedfiles`. The catalog they are cut from and the markets' change marks belong to
 * the catalog domain.
 */
import type { Connection } from 'mongoose';
import mongoose from 'mongoose';
import { defineDomain } from '@cw/db';

const BUCKET = 'feedfiles';

export class FeedsData {
  readonly #conn: Connection;
  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /** The bucket of prepared files. */
  bucket(): mongoose.mongo.GridFSBucket {
    return new mongoose.mongo.GridFSBucket(this.#conn.db!, { bucketName: BUCKET });
  }
}

export const feedsDomain = defineDomain('feeds', {}, (_m, conn) => new FeedsData(conn));
