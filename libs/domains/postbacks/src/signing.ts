/**
 * Standard Webhooks signatures with this API's header names: `X-CW-Signature: v1,<base64
 * HMAC-SHA256 of "{delivery}.{timestamp}.{body}">`, the key being the bytes after `whsec_`. While
 * a secret rotates, one signature per valid secret, space-separated. For GET deliveries the
 * signed body is the full request URL.
 */
import { createHmac } from 'node:crypto';

export function signature(secret: string, deliveryId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${deliveryId}.${timestamp}.${body}`).digest('base64')}`;
}

export function signatures(secrets: string[], deliveryId: string, timestamp: number, body: string): string {
  return secrets.map((s) => signature(s, deliveryId, timestamp, body)).join(' ');
}
