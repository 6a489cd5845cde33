/**
 * A collection's documents by _id key string. A document loaded from a snapshot is kept as its
 * BSON bytes (`Encoded`, a view into the snapshot record it came from) until something reads it;
 * it is decoded then, once, and kept decoded. Start-up therefore reads only what the indexes
 * need (`peekFields`: the _id and the indexed top-level fields of plain scalar types) instead of
 * building every document, and a collection nobody reads costs its bytes, not its objects.
 *
 * Every read goes through `get`, `values` or iteration, which decode; `stored` gives the
 * snapshot writer the bytes as they are.
 */
import { Decimal128, Long, ObjectId, deserialize, type Document } from './bson';
import { DESERIALIZE_OPTIONS } from './wire';

/** A document's BSON bytes: payload[start, end). */
export class Encoded {
  constructor(
    readonly payload: Buffer,
    readonly start: number,
    readonly end: number,
  ) {}

  get bytes(): Buffer {
    return this.payload.subarray(this.start, this.end);
  }

  decode(): Document {
    return deserialize(this.bytes, DESERIALIZE_OPTIONS);
  }
}

/**
 * Binary and Decimal128 values decoded from BSON are views of the bytes they came from (a wire
 * message, a snapshot record, a stored document's bytes): a stored document holding one would keep
 * those bytes (a batch insert's megabytes) alive as long as it lives. Copies them into buffers of
 * their own, in place, before the decoded document is kept.
 */
export function ownBuffers(value: unknown): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) ownBuffers(v);
    return;
  }
  const type = (value as { _bsontype?: string })._bsontype;
  if (type === 'Binary' || type === 'Decimal128') {
    const holder = value as { buffer?: Uint8Array; bytes?: Uint8Array };
    const key = type === 'Binary' ? 'buffer' : 'bytes';
    const view = holder[key];
    if (view && view.byteLength !== view.buffer.byteLength) holder[key] = Buffer.from(new Uint8Array(view).buffer); // a copy of its own (Buffer#slice is a view; small Buffers share a pool)
    return;
  }
  if (type || value instanceof Date || ArrayBuffer.isView(value)) return;
  for (const v of Object.values(value)) ownBuffers(v);
}

/** Stored documents' bytes are copied into shared slabs of this size (one object per slab, not per document). */
const SLAB_BYTES = 64 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabUsed = 0;

/**
 * A document's BSON kept as a stored document: copied into the current slab (a document over a
 * quarter of a slab gets a buffer of its own). A slab lives while any document in it is still
 * encoded; its space is not reused before then.
 */
export function encodedCopy(bytes: Uint8Array): Encoded {
  const n = bytes.byteLength;
  if (n > SLAB_BYTES / 4) {
    const own = Buffer.allocUnsafeSlow(n);
    own.set(bytes);
    return new Encoded(own, 0, n);
  }
  if (slabUsed + n > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  slab.set(bytes, slabUsed);
  const enc = new Encoded(slab, slabUsed, slabUsed + n);
  slabUsed += n;
  return enc;
}

export class DocumentStore {
  private readonly map = new Map<string, Document | Encoded>();

  get size(): number {
    return this.map.size;
  }

  has(id: string): boolean {
    return this.map.has(id);
  }

  get(id: string): Document | undefined {
    const v = this.map.get(id);
    if (!(v instanceof Encoded)) return v;
    const doc = v.decode();
    ownBuffers(doc);
    this.map.set(id, doc);
    return doc;
  }

  set(id: string, doc: Document | Encoded): void {
    this.map.set(id, doc);
  }

  delete(id: string): boolean {
    return this.map.delete(id);
  }

  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  *values(): Generator<Document> {
    for (const id of this.map.keys()) {
      const doc = this.get(id);
      if (doc) yield doc;
    }
  }

  *[Symbol.iterator](): Generator<[string, Document]> {
    for (const id of this.map.keys()) {
      const doc = this.get(id);
      if (doc) yield [id, doc];
    }
  }

  /** The documents as stored (decoded or still encoded), for writing them out. */
  stored(): IterableIterator<Document | Encoded> {
    return this.map.values();
  }
}

// BSON element types (bsonspec.org) whose values peekFields reads without the library.
const DOUBLE = 0x01;
const STRING = 0x02;
const OBJECT_ID = 0x07;
const BOOLEAN = 0x08;
const DATE = 0x09;
const NULL = 0x0a;
const INT32 = 0x10;
const INT64 = 0x12;
const DECIMAL128 = 0x13;

/** Bytes of an element's value after its name, for the types a document can hold; -1 if unknown. */
function valueSize(buf: Buffer, type: number, at: number): number {
  switch (type) {
    case DOUBLE:
    case DATE:
    case INT64:
    case 0x11: // timestamp
      return 8;
    case STRING:
    case 0x0d: // code
    case 0x0e: // symbol
      return 4 + buf.readInt32LE(at);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return buf.readInt32LE(at);
    case 0x05: // binary
      return 5 + buf.readInt32LE(at);
    case 0x06: // undefined
    case NULL:
    case 0x7f: // max key
    case 0xff: // min key
      return 0;
    case OBJECT_ID:
      return 12;
    case BOOLEAN:
      return 1;
    case 0x0b: {
      // regex: two C strings
      let end = buf.indexOf(0, at);
      end = buf.indexOf(0, end + 1);
      return end + 1 - at;
    }
    case 0x0c: // DBPointer
      return 4 + buf.readInt32LE(at) + 12;
    case INT32:
      return 4;
    case DECIMAL128:
      return 16;
    default:
      return -1;
  }
}

/** Field names to find in encoded documents, with their UTF-8 bytes. */
export class FieldNames {
  readonly list: Array<{ name: string; bytes: Buffer }>;
  constructor(names: Iterable<string>) {
    this.list = [...new Set(names)].map((name) => ({ name, bytes: Buffer.from(name, 'utf8') }));
  }

  /** The name whose bytes are buf[start, end), if it is one of these. */
  match(buf: Buffer, start: number, end: number): string | undefined {
    const length = end - start;
    for (const { name, bytes } of this.list) {
      if (bytes.length !== length || bytes[0] !== buf[start]) continue;
      let same = true;
      for (let i = 1; i < length && same; i++) same = bytes[i] === buf[start + i];
      if (same) return name;
    }
    return undefined;
  }
}

/**
 * The values of the named top-level fields, decoded as the library decodes them (with
 * DESERIALIZE_OPTIONS), when each is a plain scalar (string, number, date, boolean, null,
 * ObjectId, Decimal128, Long); undefined when one holds anything else (an array, a document...),
 * so the caller decodes the whole document instead. Fields absent from the document are absent.
 */
export function peekFields(enc: Encoded, names: FieldNames): Document | undefined {
  const buf = enc.payload;
  const out: Document = {};
  let found = 0;
  let at = enc.start + 4;
  const end = enc.end - 1;
  while (at < end && found < names.list.length) {
    const type = buf[at++];
    const nameEnd = buf.indexOf(0, at);
    // Names are compared as bytes: no string is made for a field nobody asked for.
    const name = names.match(buf, at, nameEnd);
    at = nameEnd + 1;
    const size = valueSize(buf, type, at);
    if (size < 0) return undefined;
    if (name !== undefined) {
      found++;
      switch (type) {
        case STRING:
          out[name] = buf.toString('utf8', at + 4, at + size - 1);
          break;
        case INT32:
          out[name] = buf.readInt32LE(at);
          break;
        case DOUBLE:
          out[name] = buf.readDoubleLE(at);
          break;
        case DATE:
          out[name] = new Date(Number(buf.readBigInt64LE(at)));
          break;
        case BOOLEAN:
          out[name] = buf[at] === 1;
          break;
        case NULL:
          out[name] = null;
          break;
        case OBJECT_ID:
          out[name] = new ObjectId(Uint8Array.prototype.slice.call(buf, at, at + 12));
          break;
        case DECIMAL128:
          out[name] = new Decimal128(Uint8Array.prototype.slice.call(buf, at, at + 16));
          break;
        case INT64:
          out[name] = Long.fromBigInt(buf.readBigInt64LE(at));
          break;
        default:
          return undefined;
      }
    }
    at += size;
  }
  return out;
}
