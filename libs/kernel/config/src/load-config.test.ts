import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadTestTargets } from './load-config';

describe('loadConfig', () => {
  it('gives working defaults for development', () => {
    const c = loadConfig({}, { port: 8080 });
    expect(c.port).toBe(8080);
    expect(c.portalUrl).toBe('http://127.0.0.1:8080');
    expect(c.trackingUrl).toBe(c.portalUrl);
    expect(c.rateLimits.products).toBe(60);
    expect(c.rateLimits.trending).toBe(60);
    expect(c.mongodbUri).toBeUndefined();
  });

  it('reads the key ring: SECRET_KEYS newest first, the base key last; bad entries are named', () => {
    const k2 = Buffer.alloc(32, 2).toString('base64');
    const k1 = Buffer.alloc(32, 1).toString('base64');
    const c = loadConfig({ SECRET_KEYS: `k2026:${k2}, k2025:${k1}` }, { port: 1 });
    expect(c.keys.current.id).toBe('k2026');
    expect(c.keys.all.map((k) => k.id)).toEqual(['k2026', 'k2025', 'base']);
    expect(c.keys.byId('base')).toEqual(c.secretKey);
    expect(loadConfig({}, { port: 1 }).keys.current).toEqual({ id: 'base', key: c.secretKey });
    let err: unknown;
    try {
      loadConfig({ SECRET_KEYS: `a:${k1},a:${k1},bad id:${k1},short:AAAA,base:${k1}` }, { port: 1 });
    } catch (e) {
      err = e;
    }
    expect((err as ConfigError).problems).toEqual([
      'SECRET_KEYS: key id a is given twice',
      'SECRET_KEYS: "bad id" is not a key id (1-32 of A-Z a-z 0-9 _ -, not "base")',
      'SECRET_KEYS: key short must be 32 bytes, base64-encoded',
      'SECRET_KEYS: "base" is not a key id (1-32 of A-Z a-z 0-9 _ -, not "base")',
    ]);
  });

  it('refuses insecure postback targets unless POSTBACK_ALLOW_INSECURE says otherwise, in every environment', () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      const env = NODE_ENV === 'production' ? { NODE_ENV, SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') } : { NODE_ENV };
      expect(loadConfig(env, { port: 1 }).postbackAllowInsecure, NODE_ENV).toBe(false);
      expect(loadConfig({ ...env, POSTBACK_ALLOW_INSECURE: 'true' }, { port: 1 }).postbackAllowInsecure, NODE_ENV).toBe(true);
    }
  });

  it('serves no metrics without METRICS_TOKEN, and takes only a token long enough to guess at', () => {
    expect(loadConfig({}, { port: 1 }).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(32) }, { port: 1 }).metricsToken).toBe('a'.repeat(32));
    for (const bad of ['short', 'has a space in it here', 'x'.repeat(513)])
      expect(() => loadConfig({ METRICS_TOKEN: bad }, { port: 1 }), bad).toThrow(/METRICS_TOKEN/);
  });

  it('reads every budget from its own variable', () => {
    const c = loadConfig({ RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '5' }, { port: 1 });
    expect(c.rateLimits.products).toBe(100000);
    expect(c.rateLimits.ip).toBe(5);
  });

  it('keeps rate-limit windows at 60 s; only a test (NODE_ENV=test) shortens them', () => {
    expect(loadConfig({}, { port: 1 }).rateLimitWindowSeconds).toBe(60);
    expect(loadConfig({ NODE_ENV: 'test', RATELIMIT_WINDOW_SECONDS: '2' }, { port: 1 }).rateLimitWindowSeconds).toBe(2);
    expect(() => loadConfig({ RATELIMIT_WINDOW_SECONDS: '2' }, { port: 1 })).toThrow(/RATELIMIT_WINDOW_SECONDS is for tests/);
    expect(() => loadConfig({ NODE_ENV: 'test', RATELIMIT_WINDOW_SECONDS: '61' }, { port: 1 })).toThrow(
      /RATELIMIT_WINDOW_SECONDS must be an integer from 1 to 60/,
    );
  });

  it('reports every problem at once', () => {
    let err: unknown;
    try {
      loadConfig({ PORT: 'eighty', REDIS_URL: 'http://x', RATELIMIT_PRODUCTS_PER_MIN: '-1', NODE_ENV: 'production' }, { port: 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT');
    expect(problems).toContain('REDIS_URL');
    expect(problems).toContain('RATELIMIT_PRODUCTS_PER_MIN');
    expect(problems).toContain('SECRET_ENCRYPTION_KEY');
  });

  it('gives tests their targets: MONGODB_URI when set, Redis at REDIS_URL or the local default', () => {
    expect(loadTestTargets({})).toEqual({ mongodbUri: undefined, redisUrl: 'redis://127.0.0.1:6379' });
    expect(loadTestTargets({ MONGODB_URI: 'mongodb://db:27017', REDIS_URL: 'redis://cache:6380' })).toEqual({
      mongodbUri: 'mongodb://db:27017',
      redisUrl: 'redis://cache:6380',
    });
    expect(() => loadTestTargets({ REDIS_URL: 'http://nope' })).toThrow(ConfigError);
  });
});
