/**
 * A stored document owns its bytes: Binary and Decimal128 values decoded from a wire message are
 * views of the whole message, and a stored document holding such a view would keep the message
 * alive (a batch insert's megabytes per document, found measuring clicks in the engine's memory).
 */
import { describe, expect, it } from 'vitest';
import { Binary, Decimal128, deserialize, serialize } from './bson';
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
});
