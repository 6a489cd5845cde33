/**
 * A stored document owns its bytes: Binary and Decimal128 values decoded from a wire message are
 * views of the whole message, and a stored document holding such a view would keep the message
 * alive (a batch insert's megabytes per document, found measuring clicks in the engine's memory).
 * An inserted document is kept as its BSON until something reads it, then decoded once.
 */
import { describe, expect, it } from 'vitest';
import { Binary, Decimal128, Long, ObjectId, deserialize, serialize } from './bson';
import { Encoded } from './stored-docs';
import { Collection } from './collection';

/** A document as the wire hands it over: decoded from a message much larger than its values. */
const fromMessage = (doc: Record<string, unknown>) =>
  deserialize(serialize({ ...doc, padding: 'x'.repeat(100_000) }), { promoteValues: true, promoteBuffers: false });

describe('stored documents', () => {
  it('hold Binary and Decimal128 values in buffers of their own, not views of the message', () => {
    const c = new Collection('db', 'c');
    const doc = fromMessage({ _id: 'a', bin: new Binary(Buffer.from('0123456789')), nested: [{ amount: Decimal128.fromString('12.34') }] });
    expect((doc.bin as Binary).buffer.buffer.byteLength).toBeGreaterThan(100_000);
    c.insert(doc);
    const stored = c.get(Collection.idKey(doc))!;
    const bin = stored.bin as Binary;
    expect(bin.buffer.buffer.byteLength).toBe(10);
    expect(Buffer.from(bin.buffer).toString()).toBe('0123456789');
    const amount = (stored.nested as Array<{ amount: Decimal128 }>)[0]!.amount;
    expect(amount.bytes.buffer.byteLength).toBe(16);
    expect(amount.toString()).toBe('12.34');
  });

  it('and so does a replaced document', () => {
    const c = new Collection('db', 'c');
    c.insert({ _id: 'b', bin: new Binary(Buffer.from('a')) });
    c.replace(Collection.idKey({ _id: 'b' }), fromMessage({ _id: 'b', bin: new Binary(Buffer.from('bcd')) }));
    const bin = c.get(Collection.idKey({ _id: 'b' }))!.bin as Binary;
    expect(bin.buffer.buffer.byteLength).toBe(3);
    expect(Buffer.from(bin.buffer).toString()).toBe('bcd');
  });

  it('keep an inserted document as its BSON until it is read, then decoded once with every value as inserted', () => {
    const c = new Collection('db', 'c');
    const doc = fromMessage({
      _id: 'e',
      n: 3,
      big: Long.fromString('9007199254740993'),
      amount: Decimal128.fromString('0.10'),
      at: new Date(1_700_000_000_000),
      oid: new ObjectId('65a1b2c3d4e5f60718293a4b'),
      cols: new Binary(Buffer.from([1, 2, 3]), 0x80),
      nested: { list: ['a', { b: null }], empty: {} },
    });
    delete doc.padding;
    c.insert(doc);
    const stored = () => [...c.docs.stored()][0];
    expect(stored()).toBeInstanceOf(Encoded);
    const read = c.get(Collection.idKey(doc))!;
    expect(serialize(read)).toEqual(serialize(doc));
    expect((read.cols as Binary).sub_type).toBe(0x80);
    expect((read.big as Long).toString()).toBe('9007199254740993');
    // Decoded once: the next read is the same object, and it owns its bytes.
    expect(stored()).not.toBeInstanceOf(Encoded);
    expect(c.get(Collection.idKey(doc))).toBe(read);
    expect((read.cols as Binary).buffer.buffer.byteLength).toBe(3);
  });
});
