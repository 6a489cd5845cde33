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

const HEADER = 8;
/** Larger than any record the engine writes (a 48 MB wire message at most); beyond it the length is garbage. */
const MAX_RECORD = 256 * 1024 * 1024;

export function encodeRecord(docs: Document[]): Buffer {
  const parts = docs.map((d) => serialize(d));
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

function decodePayload(payload: Buffer): Document[] {
  const docs: Document[] = [];
  let at = 0;
  while (at < payload.length) {
    if (at + 5 > payload.length) throw new Error('truncated document');
    const size = payload.readInt32LE(at);
    if (size < 5 || at + size > payload.length) throw new Error('document length out of bounds');
    docs.push(deserialize(payload.subarray(at, at + size), DESERIALIZE_OPTIONS));
    at += size;
  }
  return docs;
}

/**
 * Reads a file's records in order without holding the whole file in memory, handing each valid
 * one to `onRecord`; stops at the first torn or corrupt record and says where the valid part ends.
 */
export function scanRecords(path: string, onRecord: (docs: Document[]) => void): ScanResult {
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
      let docs: Document[];
      try {
        docs = decodePayload(payload);
      } catch {
        return stop('corrupt');
      }
      onRecord(docs);
      records++;
      at += HEADER + length;
    }
    return { records, validBytes: at, size };
  } finally {
    closeSync(fd);
  }
}
