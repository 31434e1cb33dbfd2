/**
 * The CLI's logins (`agt mcp login`): a TokenStore in one JSON file beside the
 * store (`agt.db` → `agt.db.tokens.json`, so under $AGT_HOME by default), of
 * mode 0600. A file that other users can read, or that another user owns, is
 * refused with the fix. Written whole to a temporary file of mode 0600, then
 * renamed: never half a file, never a moment readable by others.
 */
import fs from 'node:fs';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import { readStoredTokens, type StoredTokens, tokenKey, type TokenStore } from '../../mcp/auth/token-store.js';
import type { ResourceRef } from '../../resources/types.js';
import { MAX_STATE_FILE_BYTES } from '../../bounds.js';

interface Entry {
  tokens?: StoredTokens;
  client?: OAuthClientInformationMixed;
}

/** The logins file of a store file. */
export const tokensFile = (store: string): string => `${store}.tokens.json`;

/** A TokenStore in a file of mode 0600. */
export class FileTokenStore implements TokenStore {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  #read(): Record<string, Entry> {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.#file);
    } catch {
      return {}; // no logins yet
    }
    const problem =
      !stat.isFile() || stat.size > MAX_STATE_FILE_BYTES
        ? 'is not a logins file (not a regular file, or over 1 MiB)'
        : process.platform !== 'win32' && (stat.mode & 0o077) !== 0
          ? `can be read or written by other users (mode ${(stat.mode & 0o777).toString(8)}); run: chmod 600 ${this.#file}`
          : process.platform !== 'win32' && typeof process.getuid === 'function' && stat.uid !== process.getuid()
            ? 'belongs to another user; remove it, or log in as its owner'
            : undefined;
    if (problem !== undefined) {
      throw new AgtError('store_unavailable', `the logins file ${this.#file} ${problem}`, { details: { reason: 'insecure_token_file' } });
    }
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(this.#file, 'utf8'));
      const servers = isPlainObject(parsed) && isPlainObject(parsed.servers) ? parsed.servers : undefined;
      if (servers === undefined) throw new Error('no servers');
      return servers as Record<string, Entry>;
    } catch {
      throw new AgtError('store_unavailable', `the logins file ${this.#file} is not valid (changed by hand?); delete it and log in again`, {
        details: { reason: 'corrupt_record' },
      });
    }
  }

  #write(servers: Record<string, Entry>): void {
    const temp = `${this.#file}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temp, JSON.stringify({ version: 1, servers }), { mode: 0o600, flag: 'w' });
      fs.chmodSync(temp, 0o600); // a umask cannot widen it, an existing temp file cannot keep its mode
      fs.renameSync(temp, this.#file);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new AgtError('store_unavailable', `cannot write the logins file ${this.#file} (${code}); nothing was stored`, {
        details: { driverCode: code },
      });
    }
  }

  #update(server: ResourceRef, change: (entry: Entry) => Entry | undefined): void {
    const servers = this.#read();
    const key = tokenKey(server);
    const next = change(Object.hasOwn(servers, key) ? (servers[key] as Entry) : {});
    const out = Object.fromEntries(Object.entries(servers).filter(([k]) => k !== key));
    if (next !== undefined) Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
    this.#write(out);
  }

  #entry(server: ResourceRef): Entry | undefined {
    const servers = this.#read();
    const key = tokenKey(server);
    return Object.hasOwn(servers, key) ? servers[key] : undefined;
  }

  /** {@inheritDoc TokenStore.get} */
  async get(server: ResourceRef): Promise<StoredTokens | undefined> {
    const tokens = this.#entry(server)?.tokens;
    return tokens === undefined ? undefined : readStoredTokens(tokens, `the login of ${server.reference}`);
  }

  /** {@inheritDoc TokenStore.put} */
  async put(server: ResourceRef, tokens: StoredTokens): Promise<void> {
    const checked = readStoredTokens(tokens, 'the tokens');
    this.#update(server, (entry) => ({ ...entry, tokens: checked }));
  }

  /** {@inheritDoc TokenStore.delete} */
  async delete(server: ResourceRef): Promise<boolean> {
    if (this.#entry(server) === undefined) return false;
    this.#update(server, () => undefined);
    return true;
  }

  /** {@inheritDoc TokenStore.getClient} */
  async getClient(server: ResourceRef): Promise<OAuthClientInformationMixed | undefined> {
    return this.#entry(server)?.client;
  }

  /** {@inheritDoc TokenStore.putClient} */
  async putClient(server: ResourceRef, client: OAuthClientInformationMixed): Promise<void> {
    this.#update(server, (entry) => ({ ...entry, client }));
  }
}
