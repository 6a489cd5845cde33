import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'feed-service', defaultPort: 8084, env: process.env, createApp });
