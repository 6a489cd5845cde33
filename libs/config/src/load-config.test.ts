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

  it('reads every budget from its own variable', () => {
    const c = loadConfig({ RATELIMIT_PRODUCTS_PER_MIN: '100000', RATELIMIT_IP_PER_MIN: '5' }, { port: 1 });
    expect(c.rateLimits.products).toBe(100000);
    expect(c.rateLimits.ip).toBe(5);
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
