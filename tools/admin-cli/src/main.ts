import { resolve } from 'node:path';
import { runCli } from './cli';

const { code, out } = await runCli(process.argv.slice(2), process.env, resolve(import.meta.dirname, '../../..'));
// A command that printed as it went (events:tail --follow) has nothing more to say.
if (out) (code === 0 ? process.stdout : process.stderr).write(`${out}\n`);
process.exit(code);
