/**
 * A durable engine's data directory:
 *
 * - `journal-NNNNNN.log`: an append-only journal of every acknowledged change, one record per
 *   command (CRC-32 per record). A command's reply waits until its record is written and
 *   fdatasync'd (MongoDB's `j: true`); records of concurrent commands share one write and one
 *   sync (group commit), so throughput stays high.
 * - `snapshot-NNNNNN.bson`: the whole state as of the end of journal NNNNNN, written in the
 *   background (documents are never changed in place, so a captured list of them is a consistent
 *   cut) to a temporary file, synced and renamed; then the journals it covers are deleted.
 * - `LOCK`: the process that owns the directory.
 *
 * Start-up loads the newest complete snapshot and replays the journals after it; indexes are
 * rebuilt as documents load. A torn or corrupt journal tail (a crash mid-write) is reported,
 * kept aside as `*.corrupt-<time>` and cut off, never fatal.
 */
import { promisify } from 'node:util';
import fs from 'node:fs';
import { join } from 'node:path';
import type { Document } from 'bson';
import type { Change } from '../collection';
import type { CollectionState, Engine, Journal } from '../engine';
import { encodeRecord, scanRecords } from './records';
import type { Encoded } from '../stored-docs';

const write = promisify(fs.write);
const fdatasync = promisify(fs.fdatasync);
const close = promisify(fs.close);

const JOURNAL = /^journal-(\d{6,})\.log$/;
const SNAPSHOT = /^snapshot-(\d{6,})\.bson$/;
const name = (kind: 'journal' | 'snapshot', n: number) => `${kind}-${String(n).padStart(6, '0')}.${kind === 'journal' ? 'log' : 'bson'}`;
const SNAPSHOT_CHUNK_DOCS = 1000;

export interface DataDirOptions {
  dir: string;
  /** Start a background snapshot once the current journal holds this many bytes (default 64 MiB). */
  compactAfterBytes?: number;
  /** Where recovery reports go (default: stderr). */
  log?: (message: string) => void;
}

export interface RecoveryReport {
  snapshot: number | null;
  journals: number;
  /** Journal bytes replayed (a large replay is compacted into a snapshot at once). */
  journalBytes: number;
  records: number;
  /** Documents loaded from the snapshot. */
  documents: number;
  /** Changes replayed from the journals. */
  changes: number;
  /** Bytes skipped at torn or corrupt journal tails. */
  skippedBytes: number;
  problems: string[];
  ms: number;
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** One journal file: queued records are written and synced together (group commit). */
class JournalFile {
  bytes = 0;
  private queue: Buffer[] = [];
  private waiters: Array<[() => void, (e: unknown) => void]> = [];
  private draining?: Promise<void>;

  constructor(
    readonly no: number,
    private readonly fd: number,
    /** The previous file is fully on disk first, so no record becomes durable before an earlier one. */
    private readonly after: Promise<void>,
  ) {}

  append(record: Buffer): Promise<void> {
    this.queue.push(record);
    this.bytes += record.length;
    const done = new Promise<void>((resolve, reject) => this.waiters.push([resolve, reject]));
    this.draining ??= this.drain();
    return done;
  }

  private async drain(): Promise<void> {
    await this.after;
    // Let every command of this turn of the event loop join the write.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const buf = this.queue.length === 1 ? this.queue[0] : Buffer.concat(this.queue);
      const waiters = this.waiters;
      this.queue = [];
      this.waiters = [];
      try {
        for (let at = 0; at < buf.length;) at += (await write(this.fd, buf, at, buf.length - at)) as unknown as number;
        await fdatasync(this.fd);
        for (const [resolve] of waiters) resolve();
      } catch (e) {
        for (const [, reject] of waiters) reject(e);
      }
    }
    this.draining = undefined;
  }

  /** Resolves when everything queued so far is on disk. */
  async flushed(): Promise<void> {
    await this.after;
    while (this.draining) await this.draining;
  }

  async close(): Promise<void> {
    await this.flushed();
    await close(this.fd);
  }
}

export class DataDir implements Journal {
  private current: JournalFile;
  private compacting?: Promise<void>;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly engine: Engine,
    firstJournal: number,
    private readonly compactAfterBytes: number,
    private readonly log: (message: string) => void,
  ) {
    this.current = this.openJournal(firstJournal, Promise.resolve());
  }

  /** Locks the directory, recovers its state into the engine, and journals from then on. */
  static open(engine: Engine, opts: DataDirOptions): { dataDir: DataDir; report: RecoveryReport } {
    const log = opts.log ?? ((m: string) => process.stderr.write(`embedded-mongo: ${m}\n`));
    fs.mkdirSync(opts.dir, { recursive: true });
    lock(opts.dir);
    const report = recover(engine, opts.dir, log);
    const files = fs.readdirSync(opts.dir);
    const lastJournal = Math.max(0, report.snapshot ?? 0, ...files.map((f) => Number(JOURNAL.exec(f)?.[1] ?? 0)));
    const dataDir = new DataDir(opts.dir, engine, lastJournal + 1, opts.compactAfterBytes ?? 64 * 1024 * 1024, log);
    engine.attachJournal(dataDir);
    if (report.journalBytes >= (opts.compactAfterBytes ?? 64 * 1024 * 1024)) void dataDir.compact();
    return { dataDir, report };
  }

  private openJournal(no: number, after: Promise<void>): JournalFile {
    const fd = fs.openSync(join(this.dir, name('journal', no)), 'a');
    // The new file's directory entry is durable before any of its records is acknowledged.
    syncDir(this.dir);
    return new JournalFile(no, fd, after);
  }

  append(changes: Change[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the data directory is closed'));
    const done = this.current.append(encodeRecord(changes));
    if (this.current.bytes >= this.compactAfterBytes && !this.compacting) void this.compact();
    return done;
  }

  /**
   * Writes a snapshot of the state as of now in the background and deletes the journals it
   * covers. New changes go to a new journal from this instant on.
   */
  compact(): Promise<void> {
    if (this.compacting) return this.compacting;
    const old = this.current;
    const state = this.engine.captureState();
    this.current = this.openJournal(old.no + 1, old.flushed());
    this.compacting = (async () => {
      try {
        await old.close();
        await writeSnapshot(this.dir, old.no, state);
        for (const f of fs.readdirSync(this.dir)) {
          const j = JOURNAL.exec(f);
          const s = SNAPSHOT.exec(f);
          if ((j && Number(j[1]) <= old.no) || (s && Number(s[1]) < old.no)) fs.rmSync(join(this.dir, f), { force: true });
        }
      } catch (e) {
        this.log(`snapshot failed (the journal still holds everything): ${(e as Error).message}`);
      } finally {
        this.compacting = undefined;
      }
    })();
    return this.compacting;
  }

  /** Waits for queued records and a running snapshot, then releases the directory. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.compacting;
    await this.current.close();
    fs.rmSync(join(this.dir, 'LOCK'), { force: true });
  }
}

function lock(dir: string): void {
  const path = join(dir, 'LOCK');
  try {
    const pid = Number(fs.readFileSync(path, 'utf8').trim());
    if (pid && pid !== process.pid) {
      let alive = true;
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (alive) throw new Error(`data directory ${dir} is in use by process ${pid}`);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fs.writeFileSync(path, `${process.pid}\n`);
}

async function writeSnapshot(dir: string, no: number, state: CollectionState[]): Promise<void> {
  const path = join(dir, name('snapshot', no));
  await writeSnapshotFile(path, no, state);
  syncDir(dir);
}

/**
 * Writes the state to `path` as a snapshot file (through a synced temporary file and a rename, so
 * a reader never sees half of one). Loadable by `loadSnapshotFile` into any engine.
 */
export async function writeSnapshotFile(path: string, no: number, state: CollectionState[]): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let documents = 0;
  try {
    const put = async (docs: Array<Document | Encoded>) => {
      const buf = encodeRecord(docs);
      for (let at = 0; at < buf.length;) at += (await write(fd, buf, at, buf.length - at)) as unknown as number;
    };
    await put([{ t: 'snapshot', v: 1, journal: no, collections: state.length }]);
    for (const c of state) {
      await put([{ t: 'collection', db: c.db, coll: c.coll, options: c.options, indexes: c.indexes }]);
      for (let i = 0; i < c.docs.length; i += SNAPSHOT_CHUNK_DOCS) {
        const chunk = c.docs.slice(i, i + SNAPSHOT_CHUNK_DOCS);
        await put([{ t: 'docs', db: c.db, coll: c.coll }, ...chunk]);
        documents += chunk.length;
      }
    }
    await put([{ t: 'end', collections: state.length, documents }]);
    await fdatasync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
}

/**
 * Loads a snapshot file into an engine with no data yet (its indexes settled, ready for queries);
 * false (engine reset) when it is incomplete or damaged.
 */
export function loadSnapshotFile(engine: Engine, path: string): boolean {
  const { ok } = loadSnapshot(engine, path);
  if (ok) engine.settleIndexes();
  return ok;
}

/** Loads a snapshot into the engine; false (engine reset) when it is incomplete or damaged. */
function loadSnapshot(engine: Engine, path: string): { ok: boolean; documents: number } {
  let documents = 0;
  let ended = false;
  let declared = -1;
  const result = scanRecords(
    path,
    (docs) => {
      const head = docs[0];
      if (head.t === 'collection') {
        engine.apply({ op: 'createCollection', db: head.db, coll: head.coll, options: head.options ?? {} });
        for (const spec of head.indexes as Document[]) engine.apply({ op: 'createIndex', db: head.db, coll: head.coll, spec: spec as never });
      } else if (head.t === 'docs') {
        // Kept encoded until read: start-up decodes only what the indexes need.
        for (let i = 1; i < docs.length; i++) engine.loadEncoded(head.db, head.coll, docs[i] as Encoded);
        documents += docs.length - 1;
      } else if (head.t === 'end') {
        ended = true;
        declared = Number(head.documents);
      }
    },
    true,
  );
  const ok = !result.problem && ended && declared === documents;
  if (!ok) engine.reset();
  return { ok, documents };
}

function recover(engine: Engine, dir: string, log: (m: string) => void): RecoveryReport {
  const started = Date.now();
  const report: RecoveryReport = { snapshot: null, journals: 0, journalBytes: 0, records: 0, documents: 0, changes: 0, skippedBytes: 0, problems: [], ms: 0 };
  const files = fs.readdirSync(dir);
  for (const f of files) if (f.endsWith('.tmp')) fs.rmSync(join(dir, f), { force: true });
  const snapshots = files.flatMap((f) => (SNAPSHOT.test(f) ? [Number(SNAPSHOT.exec(f)![1])] : [])).sort((a, b) => b - a);
  for (const no of snapshots) {
    const loaded = loadSnapshot(engine, join(dir, name('snapshot', no)));
    if (loaded.ok) {
      report.snapshot = no;
      report.documents += loaded.documents;
      break;
    }
    report.problems.push(`snapshot ${name('snapshot', no)} is incomplete or damaged; using an older state`);
  }
  const journals = files
    .flatMap((f) => (JOURNAL.test(f) ? [Number(JOURNAL.exec(f)![1])] : []))
    .filter((n) => n > (report.snapshot ?? 0))
    .sort((a, b) => a - b);
  for (const no of journals) {
    const path = join(dir, name('journal', no));
    const scan = scanRecords(path, (changes) => {
      for (const change of changes) {
        try {
          engine.apply(change as Change);
        } catch (e) {
          report.problems.push(`${name('journal', no)}: a ${String(change.op)} change could not be applied: ${(e as Error).message}`);
        }
      }
      report.changes += changes.length;
    });
    report.journals++;
    report.records += scan.records;
    report.journalBytes += scan.validBytes;
    if (scan.problem) {
      const skipped = scan.size - scan.validBytes;
      report.skippedBytes += skipped;
      const aside = `${path}.corrupt-${Date.now()}`;
      fs.copyFileSync(path, aside);
      fs.truncateSync(path, scan.validBytes);
      report.problems.push(`${name('journal', no)}: ${scan.problem} record at byte ${scan.validBytes}; skipped ${skipped} bytes (kept in ${aside})`);
    }
  }
  // Indexes were staged as documents loaded: sorted now, so the first query pays nothing extra.
  engine.settleIndexes();
  report.ms = Date.now() - started;
  for (const p of report.problems) log(p);
  return report;
}
