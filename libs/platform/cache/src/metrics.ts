/**
 * The caches' metrics in the process's registry (served at /metrics): one counter family of what
 * happened per namespace (`cache_events_total{namespace, event}`: hit, stale_hit, miss, load,
 * load_error, eviction) and the entries held (`cache_entries{namespace}`). Read from each
 * namespace's counts at the scrape, so a lookup costs an increment of a plain number.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CacheCounts, NamespaceStats } from './namespace';

const EVENTS: Array<[keyof CacheCounts, string]> = [
  ['hits', 'hit'],
  ['staleHits', 'stale_hit'],
  ['misses', 'miss'],
  ['loads', 'load'],
  ['loadErrors', 'load_error'],
  ['evictions', 'eviction'],
];

/** Registers the two families on `registry`, reading `namespaces()` at each scrape. */
export function registerCacheMetrics(registry: Registry, namespaces: () => Iterable<NamespaceStats>): void {
  new Counter({
    name: 'cache_events_total',
    help: 'Cache lookups and loads per namespace: hit, stale_hit (served while a refresh runs), miss, load, load_error, eviction',
    labelNames: ['namespace', 'event'],
    registers: [registry],
    collect() {
      this.reset();
      for (const ns of namespaces()) for (const [count, event] of EVENTS) this.inc({ namespace: ns.name, event }, ns.counts[count]);
    },
  });
  new Gauge({
    name: 'cache_entries',
    help: 'Entries held per cache namespace',
    labelNames: ['namespace'],
    registers: [registry],
    collect() {
      this.reset();
      for (const ns of namespaces()) this.set({ namespace: ns.name }, ns.size);
    },
  });
}
