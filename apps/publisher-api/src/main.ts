import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'publisher-api', defaultPort: 8081, env: process.env, createApp });
