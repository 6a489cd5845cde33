import { describe, expect, it } from 'vitest';
import { feedItem } from './feed-formats';
import type { FeedRecord } from './feed-source';

const record = (over: Partial<FeedRecord>): FeedRecord => ({
  id: 'p1',
  title: 'Trail shoe',
  description: '',
  source_url: 'https://shop.example/p1',
  image: 'https://shop.example/p1.jpg',
  availability: 'in_stock',
  price: '129.9',
  sale_price: '',
  currency: 'EUR',
  brand: 'Acme',
  gtin: '4006381333931',
  mpn: '',
  condition: '',
  category: 'Shoes > Trail',
  merchant_id: 501,
  program_id: 1001,
  last_seen_at: 0,
  fresh_until: 0,
  ...over,
});

describe('feed items', () => {
  it("writes prices at the currency's minor unit with its code, exactly (JPY has none, BHD three)", () => {
    expect(feedItem(record({}), 'https://t/c/x', 'Shop', true)).toMatchObject({ price: '129.90 EUR', sale_price: '' });
    expect(feedItem(record({ price: '12900', sale_price: '11900', currency: 'JPY' }), 'l', 's', true)).toMatchObject({
      price: '12900 JPY',
      sale_price: '11900 JPY',
    });
    expect(feedItem(record({ price: '12.5', currency: 'BHD' }), 'l', 's', true).price).toBe('12.500 BHD');
    expect(feedItem(record({ price: '1.005', currency: 'USD' }), 'l', 's', true).price).toBe('1.00 USD');
    expect(feedItem(record({ price: '90071992547409.99', currency: 'USD' }), 'l', 's', true).price).toBe('90071992547409.99 USD');
  });
});
