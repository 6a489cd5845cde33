/**
 * The operations kit in docker/observability: the alert rules and the Grafana dashboard name only
 * metrics the code registers, every alert has a runbook in docs/runbooks.md, and promtool (Debian's
 * `prometheus` package, installed by the test environment when missing) accepts the rules and the scrape config.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../src/platform';

const KIT = join(REPO_ROOT, 'docker/observability');

interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const groups = (parse(readFileSync(join(KIT, 'alerts.yml'), 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups;
const rules = groups.flatMap((g) => g.rules);

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (e === 'node_modules' || e.startsWith('.')) continue;
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Every metric the code registers with prom-client (histograms with their series), and `up` (Prometheus's own). */
function registeredMetrics(): Set<string> {
  const names = new Set(['up']);
  for (const f of [...sources(join(REPO_ROOT, 'libs')), ...sources(join(REPO_ROOT, 'apps'))]) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/new (Gauge|Counter|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)) {
      names.add(m[2]!);
      if (m[1] === 'Histogram' || m[1] === 'Summary') for (const s of ['_bucket', '_count', '_sum']) names.add(m[2]! + s);
    }
    // The HTTP metrics, kept by @cw/metrics itself and registered in prom-client's registry.
    for (const m of text.matchAll(/\bthis\.metric\('([a-z_:][a-z0-9_:]*)', '[^']*', '(counter|histogram)'/g)) {
      names.add(m[1]!);
      if (m[2] === 'histogram') for (const s of ['_bucket', '_count', '_sum']) names.add(m[1]! + s);
    }
  }
  return names;
}

const FUNCTIONS = new Set(
  'sum min max avg count stddev stdvar topk bottomk quantile count_values group rate irate increase delta idelta deriv histogram_quantile absent absent_over_time clamp_min clamp_max abs ceil floor round label_replace label_join vector scalar time avg_over_time max_over_time min_over_time sum_over_time count_over_time last_over_time predict_linear changes resets sort sort_desc'.split(
    ' ',
  ),
);
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression selects (strings, label matchers, groupings and ranges left out). */
function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const out: string[] = [];
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\()?)/g)) {
    const word = m[0];
    if (FUNCTIONS.has(word) || KEYWORDS.has(word.toLowerCase()) || /^\$/.test(word)) continue;
    if (m[1]) throw new Error(`unknown function ${word} in ${expr}`);
    out.push(word);
  }
  return out;
}

describe('alert rules', () => {
  const known = registeredMetrics();

  it('are read by a selector extractor that skips functions, groupings, matchers and ranges', () => {
    expect(metricsIn('sum by (service) (rate(foo_total{status=~"5..", x="a b"}[5m])) / on(job) bar > 1 and baz')).toEqual(['foo_total', 'bar', 'baz']);
    expect(() => metricsIn('nosuchfn(foo)')).toThrow(/unknown function/);
  });

  it('select only metrics the services register', () => {
    expect(known).toContain('http_requests_total');
    for (const r of rules) {
      const used = metricsIn(r.expr);
      expect(used.length, r.alert).toBeGreaterThan(0);
      for (const m of used) expect(known, `${r.alert}: ${m}`).toContain(m);
    }
  });

  it('cover error rate, p99 per route, outbox lag, postback failures, the click buffer, Redis and MongoDB', () => {
    const all = rules.map((r) => r.expr).join('\n');
    for (const m of [
      'http_requests_total',
      'http_request_duration_seconds_bucket',
      'outbox_oldest_pending_seconds',
      'postback_deliveries',
      'tracker_click_buffer',
      'redis_ping_seconds',
      'mongodb_pool_checkout_failures',
    ])
      expect(all).toContain(m);
  });

  it('each have a severity, a summary and a runbook section in docs/runbooks.md', () => {
    const runbooks = readFileSync(join(REPO_ROOT, 'docs/runbooks.md'), 'utf8');
    const anchors = new Set(
      [...runbooks.matchAll(/^##+ (.+)$/gm)].map((m) =>
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const r of rules) {
      expect(['page', 'ticket'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      expect(r.annotations?.runbook_url, r.alert).toBe(`docs/runbooks.md#${r.alert.toLowerCase()}`);
      expect(anchors, r.alert).toContain(r.alert.toLowerCase());
    }
  });

  it('pass promtool check rules and check config', () => {
    const problem = inject('promtoolProblem');
    if (problem) throw new Error(problem);
    const rulesOut = execFileSync('promtool', ['check', 'rules', join(KIT, 'alerts.yml')], { encoding: 'utf8' });
    expect(rulesOut).toContain(`SUCCESS: ${rules.length} rules found`);
    // As deployed: the token file mounted beside the config (promtool checks that it exists).
    const deployed = mkdtempSync(join(tmpdir(), 'prometheus-'));
    for (const f of ['prometheus.yml', 'alerts.yml']) copyFileSync(join(KIT, f), join(deployed, f));
    writeFileSync(join(deployed, 'metrics_token'), 'a-metrics-token-0123456789\n');
    execFileSync('promtool', ['check', 'config', join(deployed, 'prometheus.yml')], { encoding: 'utf8' });
  });
});

describe('scrape config', () => {
  it('sends every service the metrics bearer token, since /metrics refuses a scrape without it', () => {
    const config = parse(readFileSync(join(KIT, 'prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; authorization?: { type?: string; credentials_file?: string } }>;
    };
    for (const job of config.scrape_configs) expect(job.authorization, job.job_name).toEqual({ type: 'Bearer', credentials_file: 'metrics_token' });
  });
});

describe('Grafana dashboard', () => {
  const dashboard = JSON.parse(readFileSync(join(KIT, 'grafana-dashboard.json'), 'utf8')) as {
    uid: string;
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };

  it('queries only metrics the services register, in every panel', () => {
    const known = registeredMetrics();
    expect(dashboard.uid).toBe('cw-platform');
    for (const p of dashboard.panels) {
      expect(p.targets.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets) for (const m of metricsIn(t.expr.replace(/\$__rate_interval/g, '5m'))) expect(known, `${p.title}: ${m}`).toContain(m);
    }
  });
});
