/**
 * MongoDB wire protocol framing: OP_MSG (2013) in both directions, legacy OP_QUERY (2004) in and
 * OP_REPLY (1) out for the driver's first handshake. Parsing never trusts a length it was sent.
 */
import { calculateObjectSize, deserialize, serialize, serializeWithBufferAndIndex, type Document } from './bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

export const MAX_BSON_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE = 48_000_000;

const FLAG_CHECKSUM = 1 << 0;
const FLAG_MORE_TO_COME = 1 << 1;

export class WireError extends Error {}

export interface Header {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export interface ParsedCommand {
  header: Header;
  /** The command document with kind-1 document sequences merged in. */
  command: Document;
  /** OP_MSG only: the client expects no reply. */
  moreToCome: boolean;
  /** OP_QUERY only: reply with OP_REPLY. */
  legacy: boolean;
}

/** Deserialization keeps Long and Decimal128 exact; int32 and double become JS numbers. */
export const DESERIALIZE_OPTIONS = { promoteLongs: false, promoteValues: true, promoteBuffers: false } as const;

function readDocument(buf: Buffer, offset: number, end: number): [Document, number] {
  if (offset + 5 > end) throw new WireError('truncated BSON document');
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > end) throw new WireError('BSON document length out of bounds');
  if (size > MAX_BSON_SIZE + 16 * 1024) throw new WireError('BSON document exceeds the 16 MiB limit');
  const doc = deserialize(buf.subarray(offset, offset + size), DESERIALIZE_OPTIONS);
  return [doc, offset + size];
}

function readCString(buf: Buffer, offset: number, end: number): [string, number] {
  const zero = buf.indexOf(0, offset);
  if (zero < 0 || zero >= end) throw new WireError('unterminated cstring');
  return [buf.toString('utf8', offset, zero), zero + 1];
}

export function readHeader(buf: Buffer): Header {
  return {
    length: buf.readInt32LE(0),
    requestId: buf.readInt32LE(4),
    responseTo: buf.readInt32LE(8),
    opCode: buf.readInt32LE(12),
  };
}

/** Parses one complete message (buf holds exactly header.length bytes). */
export function parseMessage(buf: Buffer): ParsedCommand {
  const header = readHeader(buf);
  const end = buf.length;
  if (header.opCode === OP_MSG) {
    const flags = buf.readUInt32LE(16);
    const sectionsEnd = flags & FLAG_CHECKSUM ? end - 4 : end;
    let offset = 20;
    let body: Document | undefined;
    const sequences: Record<string, Document[]> = {};
    while (offset < sectionsEnd) {
      const kind = buf.readUInt8(offset);
      offset += 1;
      if (kind === 0) {
        [body, offset] = readDocument(buf, offset, sectionsEnd);
      } else if (kind === 1) {
        if (offset + 4 > sectionsEnd) throw new WireError('truncated document sequence');
        const size = buf.readInt32LE(offset);
        const seqEnd = offset + size;
        if (size < 5 || seqEnd > sectionsEnd) throw new WireError('document sequence length out of bounds');
        let id: string;
        [id, offset] = readCString(buf, offset + 4, seqEnd);
        const docs: Document[] = [];
        while (offset < seqEnd) {
          let d: Document;
          [d, offset] = readDocument(buf, offset, seqEnd);
          docs.push(d);
        }
        sequences[id] = docs;
      } else {
        throw new WireError(`unknown OP_MSG section kind ${kind}`);
      }
    }
    if (!body) throw new WireError('OP_MSG without a body section');
    for (const [id, docs] of Object.entries(sequences)) body[id] = docs;
    return { header, command: body, moreToCome: (flags & FLAG_MORE_TO_COME) !== 0, legacy: false };
  }
  if (header.opCode === OP_QUERY) {
    const [collection, afterName] = readCString(buf, 20, end);
    const offset = afterName + 8; // numberToSkip, numberToReturn
    const [query] = readDocument(buf, offset, end);
    if (!collection.endsWith('.$cmd')) throw new WireError('OP_QUERY is only supported for commands');
    const command: Document = query.$query ?? query;
    command.$db = collection.slice(0, -'.$cmd'.length);
    return { header, command, moreToCome: false, legacy: true };
  }
  throw new WireError(`unsupported opCode ${header.opCode}`);
}

let nextRequestId = 1;

export function encodeMsg(responseTo: number, doc: Document): Buffer {
  const body = serialize(doc);
  const header = Buffer.alloc(21);
  writeMsgHeader(header, 21 + body.length, responseTo);
  return Buffer.concat([header, body]);
}

function writeMsgHeader(buf: Buffer, length: number, responseTo: number): void {
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(nextRequestId++ & 0x7fffffff, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(OP_MSG, 12);
  buf.writeUInt32LE(0, 16);
  buf.writeUInt8(0, 20);
}

/** A reply's bytes, and what to call once the socket has written them (gives a reused buffer back). */
export interface Reply {
  bytes: Buffer;
  done: () => void;
}

/** A reply in a buffer of its own: nothing to give back. */
export const ownReply = (bytes: Buffer): Reply => ({ bytes, done: () => undefined });

/** A reply this small is copied out of the shared buffer at once (Node's pool makes small buffers cheap). */
const SMALL_REPLY = 16 * 1024;

/**
 * OP_MSG replies serialized into buffers that are reused once the socket has written them. A
 * reply of full click buckets is megabytes: serialized into a new buffer, then copied behind its
 * header into another, its bytes were copied twice into memory touched for the first time, which
 * cost more than serializing them (bench/README.md, issue 45). Here they are serialized once into
 * a buffer kept for the next reply (grown to the largest reply so far), and sent from it.
 */
export class ReplyBuffers {
  private readonly spare: Buffer[] = [];
  /** The size of a new buffer: the largest any reply needed so far (one that fits costs one serialization). */
  private size = 64 * 1024;

  constructor(private readonly keep = 2) {}

  /** `doc` as an OP_MSG answering `responseTo`; `done` gives its buffer back once the socket has written it. */
  msg(responseTo: number, doc: Document): Reply {
    let buf = this.spare.pop() ?? Buffer.allocUnsafeSlow(this.size);
    let end: number;
    for (;;) {
      try {
        end = serializeWithBufferAndIndex(doc, buf, { index: 21 }) + 1;
        break;
      } catch (e) {
        // The bytes did not fit this buffer (copying them in threw a RangeError): one they fit.
        const need = e instanceof RangeError ? 21 + calculateObjectSize(doc) : 0;
        if (need <= buf.length) throw e;
        this.size = Math.max(need, buf.length * 2);
        buf = Buffer.allocUnsafeSlow(this.size);
      }
    }
    writeMsgHeader(buf, end, responseTo);
    if (end <= SMALL_REPLY) {
      const bytes = Buffer.from(buf.subarray(0, end));
      this.give(buf);
      return ownReply(bytes);
    }
    return { bytes: buf.subarray(0, end), done: () => this.give(buf) };
  }

  private give(buf: Buffer): void {
    if (buf.length >= this.size && this.spare.length < this.keep) this.spare.push(buf);
  }
}

export function encodeReply(responseTo: number, doc: Document): Buffer {
  const body = serialize(doc);
  const header = Buffer.alloc(36);
  header.writeInt32LE(36 + body.length, 0);
  header.writeInt32LE(nextRequestId++ & 0x7fffffff, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(OP_REPLY, 12);
  header.writeInt32LE(0, 16); // responseFlags
  header.writeBigInt64LE(0n, 20); // cursorID
  header.writeInt32LE(0, 28); // startingFrom
  header.writeInt32LE(1, 32); // numberReturned
  return Buffer.concat([header, body]);
}
