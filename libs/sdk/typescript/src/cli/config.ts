/** Where `cw login` keeps its credential: the user's config directory, the file readable by its owner only (0600). */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { OAuthTokens } from '../oauth.js';

export interface StoredLogin {
  base_url: string;
  api_key?: string;
  oauth?: {
    client_id: string;
    token_endpoint: string;
    resource: string;
    tokens: OAuthTokens;
  };
}

/** `$CW_CONFIG_DIR`, else `$XDG_CONFIG_HOME/cw`, `%APPDATA%\cw` on Windows, `~/.config/cw`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CW_CONFIG_DIR) return env.CW_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'cw');
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'cw');
  return join(homedir(), '.config', 'cw');
}

export const configPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'credentials.json');

export function readLogin(env: NodeJS.ProcessEnv = process.env): StoredLogin | undefined {
  const path = configPath(env);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as StoredLogin;
}

export function writeLogin(login: StoredLogin, env: NodeJS.ProcessEnv = process.env): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Created 0600 and set so again: a file that existed with wider permissions is narrowed.
  writeFileSync(path, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

export function removeLogin(env: NodeJS.ProcessEnv = process.env): boolean {
  const path = configPath(env);
  if (!existsSync(path)) return false;
  rmSync(path);
  return true;
}
