/**
 * Skill documents (K1): an Agent Skill `{ files: { 'SKILL.md': …, … } }`, its
 * frontmatter checked by the Agent Skills rules through the SDK's own
 * `skillEntry` (name: 1-64 lowercase letters, digits and single hyphens;
 * description: 1-1024 characters; metadata: strings), its files bounded in
 * count and path and kept inside the skill; or the older form `{ description,
 * instructions }`, read as a SKILL.md with no other files.
 */
import { skillEntry, SkillCatalogError, type Skill } from '@modelcontextprotocol/server/ext/skills';
import { AgtError } from '../errors.js';
import { needsEscape, outsideText } from '../outside-text.js';
import { isPlainObject, setOwn } from '../json.js';
import { MAX_SKILL_DESCRIPTION, MAX_SKILL_FILES, MAX_SKILL_PATH_DEPTH, MAX_SKILL_PATH_LENGTH } from '../bounds.js';
import type { AgentSkillData, LegacySkillData } from './types.js';

const invalid = (field: string, message: string) =>
  new AgtError('invalid_input', `skill data: ${field}: ${message}`, { details: { field } });

/** True for the Agent Skill form (`files`). */
export function isAgentSkill(data: unknown): data is AgentSkillData {
  return isPlainObject(data) && data.files !== undefined;
}

/**
 * Checks a skill document's shape: the files form whole, or the older form (whole, or the fields of an update when
 * `partial`). `stored`: a record read back, which may predate the rule that paths coexist on disk (export refuses those).
 */
export function checkSkillData(data: unknown, warnings: string[], partial: boolean, stored = false): Record<string, unknown> {
  if (!isPlainObject(data))
    throw new AgtError(
      'invalid_input',
      'skill data: must be an object like { "files": { "SKILL.md": "---\\nname: …\\ndescription: …\\n---\\n…" } }',
    );
  if (data.files !== undefined) return checkFiles(data, warnings, !stored);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    if (key === 'description' || key === 'instructions') {
      if (typeof value !== 'string') throw invalid(key, 'must be a string');
    } else {
      warnings.push(`skill data: unknown key "${outsideText(key, { max: 64 })}" kept as is`);
    }
    setOwn(out, key, value);
  }
  if (!partial && (typeof out.description !== 'string' || out.description.trim() === ''))
    throw invalid('description', 'a skill needs a one-line description (or give it as an Agent Skill: { "files": { "SKILL.md": … } })');
  return out;
}

function checkFiles(data: Record<string, unknown>, warnings: string[], clashes: boolean): Record<string, unknown> {
  for (const key of Object.keys(data)) {
    if (key === 'description' || key === 'instructions')
      throw invalid(
        key,
        'an Agent Skill takes its description from the SKILL.md frontmatter and its instructions from the body; give "files" only',
      );
    if (key !== 'files') warnings.push(`skill data: unknown key "${outsideText(key, { max: 64 })}" kept as is`);
  }
  const files = data.files;
  if (!isPlainObject(files)) throw invalid('files', 'must be an object of paths inside the skill to their text');
  const paths = Object.keys(files);
  if (paths.length > MAX_SKILL_FILES) throw invalid('files', `${paths.length} files; a skill holds at most ${MAX_SKILL_FILES}`);
  if (typeof files['SKILL.md'] !== 'string') throw invalid('files', 'an Agent Skill needs a "SKILL.md" at its root');
  for (const path of paths) {
    const problem = skillPathProblem(path);
    if (problem !== undefined) throw invalid('files', `"${outsideText(path, { max: 80 })}": ${problem}`);
    if (typeof files[path] !== 'string')
      throw invalid('files', `"${outsideText(path, { max: 80 })}": must be the file's text (skills keep text files only)`);
  }
  // K1: a skill's files must be writable as a folder (issue 58 #21): no path is also a folder of another.
  const clash = clashes ? skillPathClash(paths) : undefined;
  if (clash !== undefined)
    throw invalid(
      'files',
      `${JSON.stringify(clash[0])} and ${JSON.stringify(clash[1])} cannot both be files: the first would also be a folder of the second on disk; rename one`,
    );
  return data;
}

/** Two of `paths` that cannot coexist on disk (the first is a folder of the second: `a` and `a/b`), or undefined. */
export function skillPathClash(paths: readonly string[]): [string, string] | undefined {
  const given = new Set(paths);
  for (const path of paths) {
    for (let end = path.indexOf('/'); end !== -1; end = path.indexOf('/', end + 1)) {
      const folder = path.slice(0, end);
      if (given.has(folder)) return [folder, path];
    }
  }
  return undefined;
}

/** Why `path` is not a file path inside a skill (relative, `/`-separated, no `.`/`..` segments, bounded), or undefined. */
export function skillPathProblem(path: string): string | undefined {
  if (path.length === 0 || path.length > MAX_SKILL_PATH_LENGTH) return `a path is 1-${MAX_SKILL_PATH_LENGTH} characters`;
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path))
    return 'must be relative to the skill, with "/" between folders';
  // Every character a terminal, a bidi renderer or a model's JSON cannot take as is (U+0000–U+001F, DEL, U+0080–U+009F, bidi controls, line
  // separators, half a surrogate pair): such a name is shown escaped, so it could never be asked for as shown.
  if (needsEscape(path)) return 'must not hold control characters (nor bidi controls, line separators or half a surrogate pair)';
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return 'must stay inside the skill (no empty, "." or ".." segments)';
  if (segments.length > MAX_SKILL_PATH_DEPTH) return `folders nest at most ${MAX_SKILL_PATH_DEPTH} deep`;
  return undefined;
}

/** The SKILL.md of the older form: its description, the instructions as body, a name from the reference. */
export function legacySkillFiles(reference: string, data: LegacySkillData): AgentSkillData['files'] {
  const description = data.description.replace(/\s+/g, ' ').trim().slice(0, MAX_SKILL_DESCRIPTION) || 'a skill';
  return {
    'SKILL.md': `---\nname: ${skillNameOf(reference)}\ndescription: ${JSON.stringify(description)}\n---\n${data.instructions ?? ''}`,
  };
}

/** The Agent Skills name a reference's last part becomes: lowercase letters, digits and single hyphens, 1-64. */
export function skillNameOf(reference: string): string {
  const last = reference.slice(reference.lastIndexOf('/') + 1).toLowerCase();
  const name = last
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return name === '' ? 'skill' : name;
}

/**
 * A stored skill's files, checked by the rules a write is checked by (K1): a hand-edited or corrupt row that breaks them
 * is store_unavailable `corrupt_record` saying what is wrong, never a raw TypeError nor a path no read can name.
 */
export function storedSkillFiles(reference: string, data: unknown): AgentSkillData['files'] {
  let checked: Record<string, unknown>;
  try {
    checked = checkSkillData(data, [], false, true);
  } catch (error) {
    if (!(error instanceof AgtError)) throw error;
    throw new AgtError(
      'store_unavailable',
      `skill ${outsideText(reference)} as stored breaks the registry's rules (${error.message}): a hand-edited or corrupt row, or one written before the rule; fix what it names and import the skill again (agt skill import DIR ${outsideText(reference)})`,
      { details: { reason: 'corrupt_record' } },
    );
  }
  return skillFilesOf(reference, checked);
}

/** A skill's files, whichever form it is stored in. */
export function skillFilesOf(reference: string, data: unknown): AgentSkillData['files'] {
  if (isAgentSkill(data)) return data.files;
  return legacySkillFiles(reference, data as LegacySkillData);
}

/**
 * The skill's entry as the MCP Skills extension describes it (frontmatter, files with sizes and sha256 digests),
 * built and checked by the SDK's `skillEntry`: invalid_input naming what to fix when the frontmatter breaks a rule.
 */
export async function agentSkillEntry(files: AgentSkillData['files']): Promise<Skill> {
  // The SDK checks that the name equals the skill's folder: the folder is named as the frontmatter seems to say.
  const named = /^name:[ \t]*["']?([a-z0-9-]{1,64})["']?[ \t]*$/m.exec(splitSkillMd(files['SKILL.md'])?.frontmatter ?? '');
  try {
    return await skillEntry(named?.[1] ?? 'skill', files);
  } catch (error) {
    const problems = SkillCatalogError.isInstance(error)
      ? (error as SkillCatalogError).problems.map((p) => p.message)
      : [(error as Error).message];
    throw new AgtError('invalid_input', `skill data: files: SKILL.md: ${problems.join('; ').slice(0, 500)}`, {
      details: { field: 'files', problems },
    });
  }
}

/** A SKILL.md's frontmatter (between its `---` lines) and its body, by a line scan (no regex on the text); undefined without frontmatter. */
export function splitSkillMd(text: string): { frontmatter: string; body: string } | undefined {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n');
  if (lines[0]?.trimEnd() !== '---') return undefined;
  for (let i = 1; i < lines.length; i++)
    if (lines[i]?.trimEnd() === '---') return { frontmatter: lines.slice(1, i).join('\n'), body: lines.slice(i + 1).join('\n') };
  return undefined;
}
