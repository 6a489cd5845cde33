/**
 * The reference topologies in docker/ (they cannot run on this machine: no Docker): every app is a
 * service built from its own Dockerfile, no service starts before the indexes are migrated, and
 * the sharded one really is sharded (config server, two shards, a mongos every service talks to,
 * the collections sharded by the migration, a six-node Redis Cluster).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const apps = readdirSync(resolve(root, 'apps'));

interface Service {
  build?: { dockerfile: string };
  command?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
}
const load = (file: string) => parse(readFileSync(resolve(root, 'docker', file), 'utf8'), { merge: true }) as { services: Record<string, Service> };

describe.each(['compose.yaml', 'compose.sharded.yaml'])('docker/%s', (file) => {
  const { services } = load(file);

  it('runs every app from its own Dockerfile, each only after the migration completed', () => {
    for (const app of apps) {
      expect(services[app]?.build?.dockerfile, app).toBe(`docker/Dockerfile.${app}`);
      expect(services[app]?.depends_on?.migrate, app).toEqual({ condition: 'service_completed_successfully' });
    }
    expect(services.migrate?.command?.join(' ')).toContain('npm run admin -- db:migrate');
  });
});

describe('docker/compose.sharded.yaml', () => {
  const { services } = load('compose.sharded.yaml');

  it('is a sharded MongoDB: a config server, two shards, a mongos that every service and the migration use', () => {
    expect(services.config?.command).toEqual(expect.arrayContaining(['--configsvr']));
    const shards = Object.entries(services).filter(([, s]) => s.command?.includes('--shardsvr'));
    expect(shards).toHaveLength(2);
    expect(services.mongos?.command?.[0]).toBe('mongos');
    for (const app of apps) expect(new URL(services[app]!.environment!.MONGODB_URI!).host, app).toBe('mongos:27017');
    expect(new URL(services.migrate!.environment!.MONGODB_URI!).host).toBe('mongos:27017');
    expect(services.migrate?.command?.join(' ')).toContain('db:migrate --shard');
  });

  it('is a Redis Cluster of six nodes that every service names', () => {
    for (const app of apps) {
      const nodes = services[app]!.environment!.REDIS_CLUSTER_NODES!.split(',');
      expect(nodes, app).toHaveLength(6);
      for (const node of nodes) expect(services[node.split(':')[0]!]?.command, node).toEqual(expect.arrayContaining(['--cluster-enabled']));
      expect(services[app]!.environment!.REDIS_URL, app).toBeUndefined();
    }
  });
});
