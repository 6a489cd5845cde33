import { runHttpService } from '@cw/runtime';
import { createApp } from './app';

await runHttpService({ name: 'mcp-server', defaultPort: 8085, env: process.env, createApp });
