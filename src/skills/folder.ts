/**
 * Agent Skill folders on disk (K1): read one into a registry skill's files —
 * text files only, bounded in count and depth, a symbolic link followed only
 * when it stays inside the folder — and write a skill's files out again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AgtError } from '../errors.js';
import { MAX_FILE_BYTES, MAX_SKILL_FILES, MAX_SKILL_PATH_DEPTH } from '../bounds.js';
import { skillPathProblem } from '../resources/skill-data.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const refuse = (message: string, field = 'dir') => new AgtError('invalid_input', message, { details: { field } });

/** The files of the skill folder `dir` by path inside it (names starting with "." are left out). */
export function readSkillFolder(dir: string): Record<string, string> {
  let root: string;
  try {
    root = fs.realpathSync(dir);
    if (!fs.statSync(root).isDirectory()) throw new Error('not a folder');
  } catch {
    throw refuse(`${dir} is not a folder; give the folder that holds the skill's SKILL.md`);
  }
  const files: Record<string, string> = {};
  const pending: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
  while (pending.length > 0) {
    const { rel, depth } = pending.pop()!;
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const inner = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const problem = skillPathProblem(inner);
      if (problem !== undefined) throw refuse(`${inner}: ${problem}`);
      const full = path.join(root, inner);
      let target = full;
      if (entry.isSymbolicLink()) {
        target = fs.realpathSync(full);
        if (target !== root && !target.startsWith(root + path.sep))
          throw refuse(`${inner} is a symbolic link out of the skill folder; copy what it points to into the folder instead`);
      }
      const stat = fs.statSync(target);
      if (stat.isDirectory()) {
        if (entry.isSymbolicLink()) throw refuse(`${inner} is a symbolic link to a folder; skills keep plain folders`);
        if (depth + 1 >= MAX_SKILL_PATH_DEPTH) throw refuse(`${inner}: folders nest at most ${MAX_SKILL_PATH_DEPTH} deep in a skill`);
        pending.push({ rel: inner, depth: depth + 1 });
      } else if (stat.isFile()) {
        if (Object.keys(files).length >= MAX_SKILL_FILES)
          throw refuse(`the folder holds more than ${MAX_SKILL_FILES} files; a skill holds at most that`);
        if (stat.size > MAX_FILE_BYTES)
          throw refuse(`${inner} is ${stat.size} bytes; a skill file read from disk is at most ${MAX_FILE_BYTES}`);
        const bytes = fs.readFileSync(target);
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
  if (files['SKILL.md'] === undefined) throw refuse(`${dir} holds no SKILL.md at its top; an Agent Skill starts there`);
  return files;
}

/** Writes `files` under `dir` (made if missing; refused when it holds anything already). */
export function writeSkillFolder(dir: string, files: Readonly<Record<string, string>>): void {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw refuse(`${dir} is not empty; export into a new or empty folder`);
  for (const [inner, text] of Object.entries(files)) {
    const problem = skillPathProblem(inner);
    if (problem !== undefined) throw refuse(`${inner}: ${problem}`, 'files');
    const full = path.join(dir, ...inner.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text, { flag: 'wx' });
  }
}
