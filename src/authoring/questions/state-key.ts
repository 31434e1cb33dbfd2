/**
 * Where a kit server's sealing key comes from when `requestStateKey` is not
 * given (E5). A stdio server is a new process for every host process, so a
 * question asked by one process is answered to another: the key must outlive
 * the process. In order:
 *
 * 1. `AGT_REQUEST_STATE_KEY` in the server's environment (at least 32 bytes):
 *    what a launcher gives every process of one service, on any machine.
 * 2. A key file per server name, made once with mode 0600 and shared by every
 *    process of that name run by this user on this machine:
 *    `$AGT_HOME/request-state/<name>-<digest>.key` (default `~/.agt`). Beside
 *    it, the states already taken (`<name>-<digest>.used/`, one file each
 *    until it expires), so a replayed retry is refused by any process of the
 *    machine. Read once per process and name (serveHttp builds a server per
 *    request: they share it).
 * 3. When that directory cannot be used (read-only home, a key file others
 *    can read): a random key of this process, said once on stderr.
 *
 * The file is made only when the first state is sealed or checked: a server
 * that never asks writes nothing.
 */
import { randomBytes, createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AgtError } from '../../errors.js';

/** The environment variable a launcher sets to give every process of one service its sealing key. */
export const REQUEST_STATE_KEY_ENV = 'AGT_REQUEST_STATE_KEY';

/** A sealing key and, when it is shared through this machine's files, where taken states are recorded. */
export interface StateKey {
  key: Uint8Array | string;
  /** The folder of taken states shared by this machine's processes (absent: this process remembers alone). */
  usedDir?: string;
}

/** At least 32 bytes, or the error naming `field`. */
export function checkedKey(key: Uint8Array | string, field: string): Uint8Array | string {
  if ((typeof key === 'string' ? Buffer.byteLength(key) : key.byteLength) < 32)
    throw new AgtError('invalid_input', `createToolServer: ${field} must be at least 32 bytes`, { details: { field } });
  return key;
}

/** The key given in the environment, checked, or undefined. */
export function environmentKey(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[REQUEST_STATE_KEY_ENV];
  return value === undefined || value === '' ? undefined : (checkedKey(value, REQUEST_STATE_KEY_ENV) as string);
}

/** The folder of a server's key files: `$AGT_HOME/request-state`, else `~/.agt/request-state`. */
export function stateKeyDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.AGT_HOME ? path.resolve(env.AGT_HOME) : path.join(os.homedir(), '.agt');
  return path.join(home, 'request-state');
}

// A server name as a file name: the readable part, and a digest so two names never share a file.
function fileStem(name: string): string {
  const readable = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return `${readable}-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}

// The key of the file, made once (written aside, then linked into place: the first process to link wins).
async function keyFile(dir: string, stem: string): Promise<Buffer> {
  const file = path.join(dir, `${stem}.key`);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    return await readKey(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const aside = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await fs.writeFile(aside, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.unlink(aside).catch(() => undefined);
  }
  return readKey(file);
}

// A key file only this user can read, holding 64 hex digits.
async function readKey(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const stat = await handle.stat();
    const ownedByOthers = typeof process.getuid === 'function' && stat.uid !== process.getuid();
    if (process.platform !== 'win32' && ((stat.mode & 0o077) !== 0 || ownedByOthers))
      throw new Error(`${file} may be read by other users (it must be this user's, mode 0600)`);
    const text = (await handle.readFile({ encoding: 'utf8' })).trim();
    if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${file} does not hold a key (64 hex digits); delete it to make a new one`);
    return Buffer.from(text, 'hex');
  } finally {
    await handle.close();
  }
}

/**
 * The default key of the server `name`: the environment's, else this machine's key file, else (said once on
 * stderr, through `note`) a random key of this process. Made on first use and kept for the process's life.
 */
export function defaultStateKey(name: string, note: (line: string) => void): () => Promise<StateKey> {
  const given = environmentKey();
  return () => {
    if (given !== undefined) return Promise.resolve({ key: given });
    const where = `${stateKeyDir()}\0${name}`;
    let made = machineKeys.get(where);
    if (made === undefined) machineKeys.set(where, (made = machineKey(name, note)));
    return made;
  };
}

// The machine keys this process has read, by folder and server name (a few: one per kit server name).
const machineKeys = new Map<string, Promise<StateKey>>();

async function machineKey(name: string, note: (line: string) => void): Promise<StateKey> {
  const dir = stateKeyDir();
  const stem = fileStem(name);
  try {
    const key = await keyFile(dir, stem);
    const usedDir = path.join(dir, `${stem}.used`);
    await fs.mkdir(usedDir, { recursive: true, mode: 0o700 });
    return { key, usedDir };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    note(
      `kit server "${name}": cannot keep its requestStateKey in ${dir} (${why}); only this process can take the answers to its ` +
        `questions — give createToolServer a requestStateKey or set ${REQUEST_STATE_KEY_ENV}`,
    );
    return { key: randomBytes(32) };
  }
}

/** Records a taken state (by digest) in the machine's folder: false when another process (or this one) took it before. */
export async function takeOnDisk(usedDir: string, digest: string, untilMs: number): Promise<boolean> {
  try {
    await fs.writeFile(path.join(usedDir, digest), String(untilMs), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    return true; // the folder cannot be written now (full, removed): this process's own memory still refuses a replay
  }
  sweepSoon(usedDir);
  return true;
}

// Every 64th take, the records whose state has expired go (an expired state is refused by its seal anyway).
let takes = 0;
function sweepSoon(usedDir: string): void {
  takes += 1;
  if (takes % 64 !== 1) return;
  void sweep(usedDir).catch(() => undefined);
}

async function sweep(usedDir: string): Promise<void> {
  const now = Date.now();
  for (const entry of await fs.readdir(usedDir)) {
    const file = path.join(usedDir, entry);
    const until = Number(await fs.readFile(file, 'utf8').catch(() => 'NaN'));
    if (Number.isFinite(until) && until <= now) await fs.unlink(file).catch(() => undefined);
  }
}
