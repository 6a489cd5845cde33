/** The engine thread (engine-thread.ts): starts the engine, reports access and catalog changes, saves a snapshot or stops on request. */
import { parentPort, workerData } from 'node:worker_threads';
import { startEmbeddedMongo } from '@cw-tools/embedded-mongo';
import { accessChangeOfWrite } from '@cw/db';

const port = parentPort!;
const { dataDir, socketPath, snapshot } = workerData as { dataDir?: string; socketPath?: string; snapshot?: string };
try {
  const mongo = await startEmbeddedMongo({ dataDir, socketPath, snapshot, log: (m) => port.postMessage({ log: m }) });
  mongo.engine.onChange((c) => {
    if (c.op !== 'put' && c.op !== 'delete') return;
    const change = accessChangeOfWrite(c.coll, c.op === 'put' ? c.doc : undefined);
    if (change) port.postMessage({ change });
  });
  const r = mongo.recovery;
  port.postMessage({
    started: { uri: mongo.uri, socketUri: mongo.socketUri, recovery: r ? { documents: r.documents, changes: r.changes, ms: r.ms } : undefined },
  });
  port.on('message', (m: 'stop' | { saveSnapshot: string }) => {
    if (m === 'stop') void mongo.stop().then(() => port.postMessage({ stopped: true }));
    else
      mongo.saveSnapshot(m.saveSnapshot).then(
        () => port.postMessage({ saved: m.saveSnapshot }),
        (e: Error) => port.postMessage({ saved: m.saveSnapshot, error: e.message }),
      );
  });
} catch (e) {
  port.postMessage({ failed: { name: (e as Error).name, message: (e as Error).message } });
}
