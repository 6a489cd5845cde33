/**
 * The weekly summary at scale, the engine in its own process (as MongoDB would be): P publishers
 * (default 10,000), each with one owner, in four time zones, every second owner with a time zone
 * of their own (Asia/Tokyo), all due (a Monday 10:00 UTC).
 *   1. The pass (`queueWeeklySummaries`, the worker's `mail:weekly-summaries` job): every
 *      membership read page by page, each summary's key claimed and its `mail:send` job queued.
 *   2. The jobs rendered and sent (`sendNotificationMail`, 10 at a time as the worker's Agenda
 *      runs them; nodemailer builds each message, which is then dropped): the stats read model's
 *      week, the top links, the unsubscribe link and headers.
 *   3. The pass again (a second worker, a rerun): nothing queued.
 * Time and this process's RSS after each part, and the engine's CPU.
 * `npm run bench:weekly-summary [-- --publishers 10000]`
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@cw/config';
import { createLogger } from '@cw/logging';
import { createMailer } from '@cw/mail';
import { createHttpMetrics } from '@cw/metrics';
import { MAIL_JOB, queueWeeklySummaries, sendNotificationMail, type MailJobData } from '@cw/notifications';
import { openServiceDeps } from '@cw/runtime';
import { generatedUsage, parseCommandLine } from '@cw-tools/cli-kit';
import { processCpuMicros, startEngineProcess } from './lib/engine-process';

const OPTIONS = { publishers: { type: 'string', default: '10000' } } as const;
const values = parseCommandLine(
  generatedUsage('npm run bench:weekly-summary --', 'A benchmark: bench/README.md says what it measures and its last figures.', OPTIONS),
  OPTIONS,
);
const P = Number(values.publishers);
const ZONES = ['UTC', 'Europe/Berlin', 'Europe/London', 'Africa/Nairobi'];

const engine = await startEngineProcess('bench_weekly');
const config = loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent' }, { port: 0 });
const deps = await openServiceDeps(config, engine.uri, 'bench', {
  logger: createLogger({ level: 'silent' }),
  metrics: createHttpMetrics({ defaultMetrics: false }),
  indexes: 'migrate',
});
const mib = () => (process.memoryUsage().rss / 1048576).toFixed(0);
const cpu = () => processCpuMicros(engine.pid);

try {
  const created = new Date('2026-01-01T00:00:00Z');
  const t0 = performance.now();
  for (let from = 0; from < P; from += 5000) {
    const n = Math.min(5000, P - from);
    const ids = Array.from({ length: n }, (_, i) => String(from + i).padStart(6, '0'));
    await deps.models.Publisher.collection.insertMany(
      ids.map((i, k) => ({
        _id: `pub_wk_${i}`,
        name: `Publisher ${i}`,
        status: 'active',
        feed_access: false,
        timezone: ZONES[(from + k) % ZONES.length],
        created_at: created,
        updated_at: created,
      })) as never[],
    );
    await deps.models.User.collection.insertMany(
      ids.map((i) => ({ _id: `usr_wk_${i}`, email: `owner${i}@bench.example`, password_hash: 'x', created_at: created })) as never[],
    );
    await deps.models.AccountMember.collection.insertMany(
      ids.map((i) => ({ _id: `pub_wk_${i}:usr_wk_${i}`, account_id: `pub_wk_${i}`, user_id: `usr_wk_${i}`, role: 'owner', joined_at: created })) as never[],
    );
    // Every second owner chose a time zone of their own (the week follows it, not the account's).
    await deps.models.NotificationPreference.collection.insertMany(
      ids.filter((_, k) => (from + k) % 2 === 0).map((i) => ({ _id: `usr_wk_${i}`, choices: {}, timezone: 'Asia/Tokyo', updated_at: created })) as never[],
    );
  }
  console.log(`seeded ${P} publishers with an owner each in ${(performance.now() - t0).toFixed(0)} ms`);

  // A Monday, 10:00 UTC: every zone above (and Tokyo's 19:00) is between Monday 08:00 and Tuesday's end.
  const now = new Date('2026-11-30T10:00:00Z');
  let c = cpu();
  let t = performance.now();
  const pass = await queueWeeklySummaries(deps, now);
  const passMs = performance.now() - t;
  console.log(
    `1. pass: ${pass.members} memberships, ${pass.queued} queued in ${passMs.toFixed(0)} ms (rss ${mib()} MiB, engine cpu ${((cpu() - c) / 1000).toFixed(0)} ms)`,
  );

  const mailer = createMailer({ from: config.mailFrom });
  const sendDeps = { ...deps, mailer };
  const jobs = deps.models.AgendaJob.collection.find({ name: MAIL_JOB }, { projection: { data: 1 } });
  c = cpu();
  t = performance.now();
  let sent = 0;
  const running = new Set<Promise<void>>();
  for await (const job of jobs) {
    const p = sendNotificationMail(sendDeps, (job as unknown as { data: MailJobData }).data).then((o) => void (o === 'sent' && sent++));
    running.add(p);
    void p.finally(() => running.delete(p));
    if (running.size >= 10) await Promise.race(running);
  }
  await Promise.all(running);
  const sendMs = performance.now() - t;
  console.log(
    `2. rendered and sent ${sent} in ${sendMs.toFixed(0)} ms (${((sendMs / Math.max(1, sent)) * 1000).toFixed(0)} µs each; rss ${mib()} MiB, engine cpu ${((cpu() - c) / 1000).toFixed(0)} ms)`,
  );

  t = performance.now();
  const again = await queueWeeklySummaries(deps, now);
  console.log(`3. pass again: ${again.queued} queued in ${(performance.now() - t).toFixed(0)} ms (rss ${mib()} MiB)`);
} finally {
  await deps.close();
  await engine.stop();
}
