/**
 * Agent Skill folders on disk (K1): read one into a registry skill's files —
 * text files only, bounded in count, depth and bytes (counted while reading:
 * never more than the bound is held), a symbolic link followed only when it
 * stays inside the folder — and write a skill's files out again, all or
 * nothing. A filesystem failure is invalid_input saying what to fix.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AgtError } from '../errors.js';
import { DEFAULT_MAX_DOCUMENT_BYTES, MAX_SKILL_FILES, MAX_SKILL_PATH_DEPTH } from '../bounds.js';
import { skillPathClash, skillPathProblem } from '../resources/skill-data.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const CHUNK_BYTES = 64 * 1024;
const refuse = (message: string, field = 'dir') => new AgtError('invalid_input', message, { details: { field } });

/**
 * The files of the skill folder `dir` by path inside it (names starting with "." are left out), at most
 * `maxBytes` together (the registry's document bound by default): reading stops at the bound (issue 58 #19).
 */
export function readSkillFolder(dir: string, maxBytes = DEFAULT_MAX_DOCUMENT_BYTES): Record<string, string> {
  let root: string;
  try {
    root = fs.realpathSync(dir);
    if (!fs.statSync(root).isDirectory()) throw new Error('not a folder');
  } catch {
    throw refuse("the skill folder is not a folder; give the folder that holds the skill's SKILL.md");
  }
  const files: Record<string, string> = {};
  let left = maxBytes;
  const pending: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
  while (pending.length > 0) {
    const { rel, depth } = pending.pop()!;
    const entries = onDisk(() => fs.readdirSync(path.join(root, rel), { withFileTypes: true }), rel || 'the skill folder', 'read');
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const inner = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const problem = skillPathProblem(inner);
      if (problem !== undefined) throw refuse(`${inner}: ${problem}`);
      const full = path.join(root, inner);
      // A name that is not UTF-8 comes back with U+FFFD in it, and that spelling names nothing on disk.
      if (entry.name.includes('\uFFFD') && !fs.existsSync(full) && !isLink(full))
        throw refuse(`${inner} is a name that is not valid UTF-8; rename it`);
      let target = full;
      if (entry.isSymbolicLink()) {
        target = onDisk(() => fs.realpathSync(full), inner, 'follow');
        if (target !== root && !target.startsWith(root + path.sep))
          throw refuse(`${inner} is a symbolic link out of the skill folder; copy what it points to into the folder instead`);
      }
      const stat = onDisk(() => fs.statSync(target), inner, 'read');
      if (stat.isDirectory()) {
        if (entry.isSymbolicLink()) throw refuse(`${inner} is a symbolic link to a folder; skills keep plain folders`);
        if (depth + 1 >= MAX_SKILL_PATH_DEPTH) throw refuse(`${inner}: folders nest at most ${MAX_SKILL_PATH_DEPTH} deep in a skill`);
        pending.push({ rel: inner, depth: depth + 1 });
      } else if (stat.isFile()) {
        if (Object.keys(files).length >= MAX_SKILL_FILES)
          throw refuse(`the folder holds more than ${MAX_SKILL_FILES} files; a skill holds at most that`);
        const bytes = stat.size > left ? undefined : onDisk(() => readUpTo(target, left), inner, 'read');
        if (bytes === undefined)
          throw refuse(
            `the files of the skill weigh more than ${maxBytes} bytes together (${inner} goes past it); a skill is at most that: leave large files out`,
          );
        left -= bytes.byteLength;
        let text: string | undefined;
        try {
          text = bytes.includes(0) ? undefined : utf8.decode(bytes);
        } catch {
          text = undefined;
        }
        if (text === undefined) throw refuse(`${inner} is not a UTF-8 text file; registry skills hold text files only`);
        files[inner] = text;
      } else {
        throw refuse(`${inner} is neither a file nor a folder`);
      }
    }
  }
  if (files['SKILL.md'] === undefined) throw refuse('the skill folder holds no SKILL.md at its top; an Agent Skill starts there');
  return files;
}

// The bytes of `file`, counted as they are read (its size as stat tells it may lie: it may grow), or undefined past `limit`.
function readUpTo(file: string, limit: number): Buffer | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit - total + 1));
      const read = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return Buffer.concat(chunks, total);
      total += read;
      if (total > limit) return undefined;
      chunks.push(chunk.subarray(0, read));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes `files` as the folder `dir` (made if missing; refused when it is a file, a dangling link or holds anything):
 * every path checked first, then written into a temporary folder and moved into place, so a failure leaves nothing
 * behind (issue 58 #21). An empty folder that exists is kept (its inode, mode and mount: a shell inside it sees the files).
 */
export function writeSkillFolder(dir: string, files: Readonly<Record<string, string>>): void {
  for (const inner of Object.keys(files)) {
    const problem = skillPathProblem(inner);
    if (problem !== undefined) throw refuse(`${inner}: ${problem}`, 'files');
  }
  const clash = skillPathClash(Object.keys(files));
  if (clash !== undefined)
    throw refuse(
      `the skill holds ${JSON.stringify(clash[0])} and ${JSON.stringify(clash[1])}, which cannot both be on disk; fix the skill first`,
      'files',
    );
  const { target, exists } = exportTarget(dir);
  if (exists) return writeInto(target, files);
  const parent = path.dirname(target);
  const made = onDisk(() => fs.mkdirSync(parent, { recursive: true }), 'a folder above the export folder', 'write');
  const temporary = path.join(parent, `.${path.basename(target)}.agt-export-${randomUUID()}`);
  try {
    onDisk(() => fs.mkdirSync(temporary), 'the folder beside the export folder', 'write');
    writeFiles(temporary, files);
    // rename(2) takes the place of a missing or empty folder at once; one that filled meanwhile is refused.
    onDisk(() => fs.renameSync(temporary, target), 'the export folder', 'write');
  } catch (error) {
    fs.rmSync(temporary, { recursive: true, force: true });
    if (made !== undefined) fs.rmSync(made, { recursive: true, force: true });
    throw error;
  }
}

function isLink(full: string): boolean {
  try {
    return fs.lstatSync(full).isSymbolicLink();
  } catch {
    return false;
  }
}

function writeFiles(into: string, files: Readonly<Record<string, string>>): void {
  for (const [inner, text] of Object.entries(files)) {
    const full = path.join(into, ...inner.split('/'));
    onDisk(() => fs.mkdirSync(path.dirname(full), { recursive: true }), inner, 'write');
    onDisk(() => fs.writeFileSync(full, text, { flag: 'wx' }), inner, 'write');
  }
}

// Into an empty folder that exists: written into a hidden folder inside it (the same filesystem), then each top entry
// moved up; a failure takes back what was moved. The folder itself is never replaced (`agt skill export REF .`).
function writeInto(target: string, files: Readonly<Record<string, string>>): void {
  const temporary = path.join(target, `.agt-export-${randomUUID()}`);
  const moved: string[] = [];
  try {
    onDisk(() => fs.mkdirSync(temporary), 'the export folder', 'write');
    writeFiles(temporary, files);
    for (const name of fs.readdirSync(temporary)) {
      const place = path.join(target, name);
      if (fs.existsSync(place)) throw refuse('the export folder is not empty; export into a new or empty folder');
      onDisk(() => fs.renameSync(path.join(temporary, name), place), 'the export folder', 'write');
      moved.push(place);
    }
    fs.rmdirSync(temporary);
  } catch (error) {
    for (const place of moved) fs.rmSync(place, { recursive: true, force: true });
    fs.rmSync(temporary, { recursive: true, force: true });
    throw error;
  }
}

// The export folder: a link is followed to the folder it names; a file, a dangling or looping link, or a folder that
// holds anything is refused. `exists`: an empty folder to write into, else a path to make.
function exportTarget(dir: string): { target: string; exists: boolean } {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { target: path.resolve(dir), exists: false };
    throw onDiskError(error, 'the export folder', 'write');
  }
  if (stat.isSymbolicLink()) return exportTarget(onDisk(() => fs.realpathSync(dir), 'the export folder', 'follow'));
  if (!stat.isDirectory()) throw refuse('the export folder is a file; give a new or empty folder');
  if (onDisk(() => fs.readdirSync(dir), 'the export folder', 'read').length > 0)
    throw refuse('the export folder is not empty; export into a new or empty folder');
  return { target: path.resolve(dir), exists: true };
}

// `work()`, its filesystem failure said as invalid_input naming what to fix (issue 58 #20).
function onDisk<T>(work: () => T, what: string, doing: 'read' | 'write' | 'follow'): T {
  try {
    return work();
  } catch (error) {
    throw onDiskError(error, what, doing);
  }
}

function onDiskError(error: unknown, what: string, doing: 'read' | 'write' | 'follow'): AgtError {
  if (error instanceof AgtError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
  const words: Record<string, string> =
    doing === 'follow'
      ? {
          ENOENT: 'is a symbolic link to nothing; remove it or point it at something that exists',
          ELOOP: 'is a symbolic link that loops; remove it',
        }
      : {
          ENOENT: 'does not exist (a symbolic link to nothing?); fix the path',
          ELOOP: 'is a symbolic link that loops; remove it',
          ENOTDIR: 'has a file where a folder goes; give a path through folders only',
          EEXIST: 'is taken by something already there; give a new or empty folder',
          ENOTEMPTY: 'is not empty; export into a new or empty folder',
          ENAMETOOLONG: 'has a name too long for this filesystem; shorten it',
          EACCES: `cannot be ${doing === 'read' ? 'read' : 'written'} (permission denied); change its permissions or choose another place`,
          EPERM: `cannot be ${doing === 'read' ? 'read' : 'written'} (not permitted); change its permissions or choose another place`,
          EROFS: 'is on a read-only filesystem; choose another place',
          ENOSPC: 'cannot be written: the disk is full; free space and try again',
          EISDIR: 'is a folder where a file goes; remove it',
        };
  const said =
    words[code] ?? `could not be ${doing === 'read' ? 'read' : doing === 'write' ? 'written' : 'followed'} (${code}); fix it and try again`;
  return new AgtError('invalid_input', `${what} ${said}`, { details: { field: 'dir', reason: code }, cause: error });
}
