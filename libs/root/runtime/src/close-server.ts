import type http from 'node:http';

/**
 * Graceful close: stop accepting, close idle keep-alive connections, let requests in flight
 * finish (up to graceMs), then cut whatever is left. Resolves when the server is closed.
 */
export function closeServer(server: http.Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
