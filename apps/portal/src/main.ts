import { runHttpService } from '@cw/runtime';
import { createApp, mailSettled } from './app';

// Stopping, it sends the mail still queued before the database closes (the links in it are stored there).
await runHttpService({ name: 'portal', defaultPort: 8088, env: process.env, createApp: (deps) => createApp(deps), onShutdown: mailSettled });
