import { describe, expect, it } from 'vitest';
import { serializerFor, UndeclaredFieldError } from './serializer';

/** Compiles as production does (no strict check), whatever the test run sets. */
function inProduction<T>(compile: () => T): T {
  const before = process.env.CW_STRICT_RESPONSES;
  delete process.env.CW_STRICT_RESPONSES;
  try {
    return compile();
  } finally {
    process.env.CW_STRICT_RESPONSES = before;
  }
}

const ITEM = {
  type: 'object',
  required: ['id', 'price', 'updated_at'],
  properties: {
    id: { type: 'string' },
    price: { type: 'string', description: 'Decimal string, never a float.' },
    updated_at: { type: 'string', format: 'date-time' },
    merchant: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    next_offset: { type: ['integer', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

describe('serializerFor', () => {
  it('writes a schema-conforming answer exactly as JSON.stringify does', () => {
    const value = {
      id: 'p_1',
      price: '12.5000',
      updated_at: '2026-11-27T09:00:00.000Z',
      merchant: { id: 7, name: 'Shop "Nord" \u2028 ü' },
      next_offset: 20,
      tags: ['a', 'b\n'],
    };
    expect(serializerFor(ITEM)(value)).toBe(JSON.stringify(value));
  });

  it('in production, does not write a property the schema does not declare, however deep', () => {
    const out = inProduction(() => serializerFor({ ...ITEM }))({
      id: 'p_1',
      price: '1',
      updated_at: 'x',
      secret: 's',
      merchant: { id: 1, name: 'm', commission: '0.1' },
    });
    expect(JSON.parse(out)).toEqual({ id: 'p_1', price: '1', updated_at: 'x', merchant: { id: 1, name: 'm' } });
  });

  it('in tests, refuses an answer carrying a member its schema does not declare, naming where it is', () => {
    expect(process.env.CW_STRICT_RESPONSES).toBe('1'); // vitest.config.ts sets it for every suite
    const write = serializerFor({ ...ITEM });
    expect(() => write({ id: 'p_1', price: '1', updated_at: 'x', secret: 's' })).toThrow(UndeclaredFieldError);
    expect(() => write({ id: 'p_1', merchant: { id: 1, commission: '0.1' } })).toThrow(/"\$\.merchant\.commission"/);
    const list = serializerFor({ type: 'object', properties: { data: { type: 'array', items: ITEM } } });
    expect(() => list({ data: [{ id: 'a' }, { id: 'b', channel: 'coupon' }] })).toThrow(/"\$\.data\[1\]\.channel"/);
  });

  it('in tests, accepts members that are undefined, free objects, and leaves such as dates and buffers', () => {
    const schema = { type: 'object', properties: { at: { type: 'string' }, meta: { type: 'object' }, raw: { type: 'string' } } };
    const value = { at: new Date(0), meta: { anything: { deep: 1 } }, raw: Buffer.from('x'), gone: undefined };
    expect(() => serializerFor(schema)(value)).not.toThrow();
  });

  it('writes dates as ISO strings and decimals as the strings they are', () => {
    const out = serializerFor(ITEM)({ id: 'p', price: '0.0001', updated_at: new Date(Date.UTC(2026, 10, 27, 9, 30)) });
    expect(out).toBe('{"id":"p","price":"0.0001","updated_at":"2026-11-27T09:30:00.000Z"}');
  });

  it('writes null as null, for a nullable field and for one the schema does not call nullable', () => {
    expect(serializerFor(ITEM)({ id: 'p', price: '1', updated_at: 'x', next_offset: null, merchant: null })).toBe(
      '{"id":"p","price":"1","updated_at":"x","merchant":null,"next_offset":null}',
    );
  });

  it('leaves out a member the value lacks, as JSON.stringify does, rather than failing the answer', () => {
    expect(serializerFor(ITEM)({ id: 'p' })).toBe('{"id":"p"}');
  });

  it('writes a value of a type its schema does not allow as JSON.stringify does, rather than failing the answer', () => {
    const value = { id: 42, price: '1', updated_at: 'x' };
    expect(serializerFor(ITEM)(value)).toBe(JSON.stringify(value));
  });

  it('writes an object the schema leaves free whole', () => {
    const schema = { type: 'object', properties: { meta: { type: 'object' }, rows: { type: 'array' } } };
    const value = { meta: { a: 1, b: { c: [true, null] } }, rows: [{ x: 1 }, 'y'] };
    expect(serializerFor(schema)(value)).toBe(JSON.stringify(value));
  });

  it('compiles each schema once: every surface answering with it shares one serializer', () => {
    expect(serializerFor(ITEM)).toBe(serializerFor(ITEM));
    expect(serializerFor(ITEM).compiled).toBe(true);
  });

  it('writes the answers of a schema too loose to compile (branches) with JSON.stringify', () => {
    const loose = { type: 'object', properties: { target: { oneOf: [{ type: 'object' }, { type: 'string' }] } } };
    const value = { target: { any: 'thing' }, extra: 1 };
    expect(serializerFor(loose).compiled).toBe(false);
    expect(serializerFor(loose)(value)).toBe(JSON.stringify(value));
  });
});
