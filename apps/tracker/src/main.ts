import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'tracker', defaultPort: 8087, env: process.env, createApp });
