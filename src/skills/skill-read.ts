/**
 * The run tool `skill_read` ({ name, path? }) (K3): offered when a run has
 * skills, called through the same pipeline as every tool (validated,
 * permitted, audited). Without a path it answers the skill's SKILL.md body
 * and the paths of its other files; with one, that file's text.
 */
import * as v from 'valibot';
import { defineFrameworkTool, type FrameworkTool } from '../framework/tools.js';
import { MAX_SKILL_DESCRIPTION, MAX_SKILL_PATH_LENGTH } from '../bounds.js';
import { outsideText } from '../outside-text.js';
import type { SkillInfo, SkillSet } from './skill-set.js';

/** The name of the run tool that reads skills. */
export const SKILL_READ = 'skill_read';

const input = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.description('The skill, by its name in the list of skills')),
  path: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(MAX_SKILL_PATH_LENGTH),
      v.description('A file of the skill, relative to its folder (e.g. "references/GUIDE.md"); leave out for its instructions'),
    ),
  ),
});

/** skill_read over one snapshot's skills. */
export function skillReadTool(skills: SkillSet): FrameworkTool {
  return defineFrameworkTool(
    SKILL_READ,
    "Read a skill's instructions (its SKILL.md, with the list of its other files), or one of its files with path. Read a skill when the task matches its description, before you act.",
    input,
    async ({ name, path }, context) => ({ result: await skills.read(name, path, context.signal ?? new AbortController().signal) }),
  );
}

/**
 * The skills as a model is told of them, for a system prompt: one line each, name and description, and how to read
 * them (`skill_read`). Empty when there are none.
 */
export function renderSkills(skills: readonly SkillInfo[]): string {
  if (skills.length === 0) return '';
  // A server's or a file's words in a system prompt (K3): one line each, no controls or bidi overrides, bounded.
  const lines = skills.map(
    (s) => `- ${outsideText(s.name)}: ${outsideText(s.description.replace(/\s+/g, ' ').trim(), { max: MAX_SKILL_DESCRIPTION })}`,
  );
  return [
    'You have these skills. When a task matches a skill, call skill_read with its name first and follow its instructions; read the files it names with skill_read and path.',
    ...lines,
  ].join('\n');
}
