/** Skill documents: a description and instructions, enough for mounts and refresh. */
import { AgtError } from '../errors.js';
import { isPlainObject, setOwn } from '../json.js';
import type { SkillData } from './types.js';

/** Checks a skill document (whole, or the fields of an update when `partial`). */
export function checkSkillData(data: unknown, warnings: string[], partial: boolean): Partial<SkillData> & Record<string, unknown> {
  if (!isPlainObject(data))
    throw new AgtError('invalid_input', 'skill data: must be an object like { "description": "…", "instructions": "…" }');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    if (key === 'description' || key === 'instructions') {
      if (typeof value !== 'string')
        throw new AgtError('invalid_input', `skill data: ${key}: must be a string`, { details: { field: key } });
    } else {
      warnings.push(`skill data: unknown key "${key}" kept as is`);
    }
    setOwn(out, key, value);
  }
  if (!partial && (typeof out.description !== 'string' || out.description.trim() === '')) {
    throw new AgtError('invalid_input', 'skill data: description: a skill needs a one-line description', {
      details: { field: 'description' },
    });
  }
  return out as Partial<SkillData> & Record<string, unknown>;
}
