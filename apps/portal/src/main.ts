import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'portal', defaultPort: 8088, env: process.env, createApp: (deps) => createApp(deps) });
