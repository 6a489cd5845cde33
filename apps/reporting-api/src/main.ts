import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'reporting-api', defaultPort: 8082, env: process.env, createApp });
