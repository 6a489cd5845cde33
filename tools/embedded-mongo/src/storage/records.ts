/**
 * The on-disk record: `[u32 payload length][u32 CRC-32 of the payload][payload]`, little-endian,
 * where the payload is one or more BSON documents back to back. Journal and snapshot files are
 * sequences of records; a record is valid only when it is whole and its checksum matches, so a
 * write torn by a crash is recognised and never half-applied.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { deserialize, serialize, type Document } from '../bson';
import { DESERIALIZE_OPTIONS } from '../wire';
import { Encoded } from '../stored-docs';

const HEADER = 8;
/** Larger than any record the engine writes (a 48 MB wire message at most); beyond it the length is garbage. */
const MAX_RECORD = 256 * 1024 * 1024;

/** A record of documents; one still encoded (as loaded from a snapshot) is copied as it is. */
export function encodeRecord(docs: Array<Document | Encoded>): Buffer {
  const parts = docs.map((d) => (d instanceof Encoded ? d.bytes : serialize(d)));
  const length = parts.reduce((n, p) => n + p.length, 0);
  const out = Buffer.allocUnsafe(HEADER + length);
  out.writeUInt32LE(length, 0);
  let at = HEADER;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  out.writeUInt32LE(crc32(out.subarray(HEADER)), 4);
  return out;
}

export interface ScanResult {
  records: number;
  /** Bytes of whole, valid records from the start of the file. */
  validBytes: number;
  size: number;
  /** Why reading stopped before the end: a torn (incomplete) or corrupt record. */
  problem?: 'torn' | 'corrupt';
}

/** The payload's documents: decoded, or (`lazy`) the first decoded and the rest as their bytes. */
function decodePayload(payload: Buffer, lazy: boolean): Array<Document | Encoded> {
  const docs: Array<Document | Encoded> = [];
  let at = 0;
  while (at < payload.length) {
    if (at + 5 > payload.length) throw new Error('truncated document');
    const size = payload.readInt32LE(at);
    if (size < 5 || at + size > payload.length || payload[at + size - 1] !== 0) throw new Error('document length out of bounds');
    docs.push(lazy && docs.length > 0 ? new Encoded(payload, at, at + size) : deserialize(payload.subarray(at, at + size), DESERIALIZE_OPTIONS));
    at += size;
  }
  return docs;
}

/**
 * Reads a file's records in order without holding the whole file in memory, handing each valid
 * one to `onRecord`; stops at the first torn or corrupt record and says where the valid part ends.
 */
export function scanRecords(path: string, onRecord: (docs: Document[]) => void): ScanResult;
/** With `lazy`: each record's first document decoded (a header), the rest left encoded. */
export function scanRecords(path: string, onRecord: (docs: [Document, ...Encoded[]]) => void, lazy: true): ScanResult;
export function scanRecords(path: string, onRecord: (docs: never) => void, lazy = false): ScanResult {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(HEADER);
    let at = 0;
    let records = 0;
    const stop = (problem: 'torn' | 'corrupt'): ScanResult => ({ records, validBytes: at, size, problem });
    while (at < size) {
      if (size - at < HEADER) return stop('torn');
      readSync(fd, header, 0, HEADER, at);
      const length = header.readUInt32LE(0);
      if (length === 0 || length > MAX_RECORD) return stop('corrupt');
      if (at + HEADER + length > size) return stop('torn');
      const payload = Buffer.allocUnsafe(length);
      readSync(fd, payload, 0, length, at + HEADER);
      if (crc32(payload) !== header.readUInt32LE(4)) return stop('corrupt');
      let docs: Array<Document | Encoded>;
      try {
        docs = decodePayload(payload, lazy);
      } catch {
        return stop('corrupt');
      }
      onRecord(docs as never);
      records++;
      at += HEADER + length;
    }
    return { records, validBytes: at, size };
  } finally {
    closeSync(fd);
  }
}
