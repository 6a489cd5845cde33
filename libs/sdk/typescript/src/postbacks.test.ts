/** verifyPostback against the stock Standard Webhooks library, both ways (the scheme the platform signs with). */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generatePostbackSecret, signPostback, verifyPostback } from './postbacks';

const body = JSON.stringify({ id: 'evt_1', type: 'sale.approved', event: 'approved', conversion: { id: 'cnv_1' } });

describe('postback signatures', () => {
  it('signs what standardwebhooks verifies, and verifies what it signs', async () => {
    const secret = generatePostbackSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await signPostback(secret, 'dlv_1', timestamp, body);
    const wh = new Webhook(secret);
    expect(wh.verify(body, { 'webhook-id': 'dlv_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature })).toMatchObject({ id: 'evt_1' });
    const theirs = wh.sign('dlv_2', new Date(timestamp * 1000), body);
    const event = await verifyPostback({ 'X-CW-Delivery': 'dlv_2', 'X-CW-Timestamp': String(timestamp), 'X-CW-Signature': theirs }, body, [secret]);
    expect('conversion' in event && event.conversion.id).toBe('cnv_1');
  });

  it('accepts either signature of a rotation and refuses a timestamp outside the window, either way', async () => {
    const [older, newer] = [generatePostbackSecret(), generatePostbackSecret()];
    const now = 1_800_000_000_000;
    const ts = now / 1000;
    const headers = { 'x-cw-delivery': 'dlv_3', 'x-cw-timestamp': String(ts), 'x-cw-signature': await signPostback([newer, older], 'dlv_3', ts, body) };
    await expect(verifyPostback(headers, body, [older], { now })).resolves.toBeTruthy();
    await expect(verifyPostback(headers, body, newer, { now })).resolves.toBeTruthy();
    await expect(verifyPostback(headers, body, newer, { now: now + 301_000 })).rejects.toMatchObject({ reason: 'timestamp_outside_tolerance' });
    await expect(verifyPostback(headers, body, newer, { now: now - 301_000 })).rejects.toMatchObject({ reason: 'timestamp_outside_tolerance' });
    await expect(verifyPostback(headers, body, newer, { now: now + 600_000, toleranceSeconds: 900 })).resolves.toBeTruthy();
    await expect(verifyPostback({ ...headers, 'x-cw-timestamp': 'soon' }, body, newer, { now })).rejects.toMatchObject({ reason: 'invalid_timestamp' });
    await expect(verifyPostback(headers, body, [], { now })).rejects.toMatchObject({ reason: 'no_secret' });
  });
});
