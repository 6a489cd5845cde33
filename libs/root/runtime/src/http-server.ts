/**
 * The HTTP server every service listens with: time limits on slow clients, bounded URLs and
 * headers, and the transport-level refusals (malformed requests, smuggling shapes, headers over
 * the limit, slow headers) answered in the one error shape instead of Node's bare status lines.
 * Nothing was counted for these (no request reached an app), so they carry no RateLimit headers.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, errorBody, type ErrorCode } from '@cw/errors';
import { newRequestId } from '@cw/http';
import { traceRequests } from '@cw/telemetry';

export interface ServerLimits {
  /** Time to receive a request's headers (slowloris). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections close after this (above a load balancer's 60 s). */
  keepAliveTimeoutMs: number;
  /** Request line and headers together (Node: 431 beyond; the apps refuse targets over 8 KiB with 414). */
  maxHeaderBytes: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxHeaderBytes: 16 * 1024,
};

interface Refusal {
  status: number;
  body: string;
  requestId: string;
}

function refusal(code: ErrorCode, detail: string): Refusal {
  const err = new ApiError({ code, detail });
  const requestId = newRequestId();
  return { status: err.status, body: JSON.stringify(errorBody(err, requestId)), requestId };
}

/** What Node's parser reports, as the one error shape. */
function clientErrorAnswer(err: NodeJS.ErrnoException): Refusal {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return refusal('headers_too_large', 'The request line and headers are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return refusal('request_timeout', 'The request was not received in time.');
    default:
      return refusal('malformed_request', 'The request is not valid HTTP/1.1.');
  }
}

export function createHttpServer(handler: http.RequestListener, limits: Partial<ServerLimits> = {}): http.Server {
  const l = { ...DEFAULT_SERVER_LIMITS, ...limits };
  const server = http.createServer(
    {
      maxHeaderSize: l.maxHeaderBytes,
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, l.headersTimeoutMs),
    },
    // A server span per request when tracing is on (startTelemetry ran); else the handler itself.
    traceRequests(handler),
  );
  server.keepAliveTimeout = l.keepAliveTimeoutMs;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body, requestId } = clientErrorAnswer(err);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
