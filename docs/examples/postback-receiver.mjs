/* global process, console, Buffer */
// A postback receiver that verifies every delivery's signature (Standard Webhooks with this API's
// header names) using only Node's standard library, and prints each verified event once.
//   node docs/examples/postback-receiver.mjs PORT whsec_…
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const [port = '3000', secret = process.env.CW_POSTBACK_SECRET ?? ''] = process.argv.slice(2);
if (!secret.startsWith('whsec_')) {
  console.error('usage: node docs/examples/postback-receiver.mjs PORT whsec_… (the secret the API showed once)');
  process.exit(2);
}
const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
const seen = new Set(); // a delivery may arrive more than once: deduplicate on X-CW-Delivery

function verified(req, body) {
  const id = req.headers['x-cw-delivery'];
  const timestamp = req.headers['x-cw-timestamp'];
  if (!id || !timestamp || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  // While a secret rotates, the header lists two signatures: either one verifies.
  return String(req.headers['x-cw-signature'] ?? '')
    .split(' ')
    .some((s) => {
      const given = Buffer.from(s.replace(/^v1,/, ''), 'base64');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      // POST signs the body; GET signs the full request URL.
      const signed = req.method === 'GET' ? `http://${req.headers.host}${req.url}` : body;
      if (!verified(req, signed)) {
        console.log(`refused a delivery with a bad signature (${req.headers['x-cw-delivery'] ?? 'no id'})`);
        res.writeHead(401).end();
        return;
      }
      const delivery = req.headers['x-cw-delivery'];
      if (!seen.has(delivery)) {
        seen.add(delivery);
        const event = req.method === 'GET' ? { type: req.headers['x-cw-event'], conversion: {} } : JSON.parse(body);
        const c = event.conversion;
        console.log(`verified ${event.type}${event.test ? ' (test)' : ''} ${c.id ?? ''} ${c.commission ?? ''} ${c.currency ?? ''}`.trim());
      }
      res.writeHead(204).end(); // any 2xx acknowledges
    });
  })
  .listen(Number(port), '127.0.0.1', () => console.log(`postback receiver on http://127.0.0.1:${port}/`));
