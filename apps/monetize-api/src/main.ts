import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'monetize-api', defaultPort: 8083, env: process.env, createApp });
