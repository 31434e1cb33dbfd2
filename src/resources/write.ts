/**
 * What a write turns into, per kind: the next data to store, from the current
 * record (undefined on create) and the caller's input. Pure apart from the
 * lookups it is given; the service adds compare-and-set and retries.
 */
import { AgtError } from '../errors.js';
import {
  applyAgentUpdate,
  checkAgentFields,
  defaultAgent,
  type MountChanges,
  readAgent,
  type StoredAgentData,
  withoutFields,
} from './agent-data.js';
import { launchProblems } from '../config/launch-rules.js';
import { type ConfigProblem, normaliseMcpDocument } from '../config/mcp-config.js';
import { keepMaskedSecrets, SECRET_MASK } from '../config/secrets.js';
import { agentSkillEntry, checkSkillData, isAgentSkill } from './skill-data.js';
import type { ResourceKind, ResourceRecord } from './types.js';

/** A write, checked for shape. */
export interface WritePlan {
  kind: ResourceKind;
  reference: string;
  data: unknown;
  add: MountChanges;
  remove: MountChanges;
}

/** The next data and the warnings that go with it. */
export interface NextData {
  data: unknown;
  warnings: string[];
}

/** Computes the data to store; throws invalid_input / invalid_config when the write is not allowed. */
export async function nextData(plan: WritePlan, current: ResourceRecord | undefined): Promise<NextData> {
  const warnings: string[] = [];
  switch (plan.kind) {
    case 'mcp':
      return { data: nextMcp(plan, current, warnings), warnings };
    case 'agent':
      return { data: nextAgent(plan, current, warnings), warnings };
    case 'skill':
      return { data: await nextSkill(plan, current, warnings), warnings };
  }
}

function nextMcp(plan: WritePlan, current: ResourceRecord | undefined, warnings: string[]): unknown {
  if (plan.data === undefined) throw new AgtError('invalid_input', 'an mcp write needs "data": { "mcpServers": { "NAME": { … } } }');
  const next = normaliseMcpDocument(plan.data);
  warnings.push(...next.warnings);
  // "***" sent back for a stored secret keeps it: redacted reads can be edited and written again.
  if (current !== undefined) keepMaskedSecrets(next.document, current.data);
  const { config } = next;
  const maps = { env: 'env' in config ? config.env : undefined, headers: 'headers' in config ? config.headers : undefined };
  for (const [key, map] of Object.entries(maps)) {
    for (const [name, value] of Object.entries(map ?? {}))
      if (value === SECRET_MASK)
        warnings.push(`mcpServers.${next.name}.${key}.${name}: the value is "${SECRET_MASK}", a redacted placeholder; give the real value`);
  }
  let problems = launchProblems(next.config, `mcpServers.${next.name}`);
  if (current !== undefined) {
    // R6: a legacy record stays modifiable; only problems it did not have already block the write.
    const before = legacyProblems(current.data);
    const kept = problems.filter((p) => before.has(p.field.replace(/^mcpServers\.[^.]+\./, '')));
    for (const p of kept) warnings.push(`${p.field}: ${p.message} — the server cannot start until fixed: ${p.fix}`);
    problems = problems.filter((p) => !kept.includes(p));
  }
  if (problems.length > 0) throw launchRejected(problems);
  return next.document;
}

function legacyProblems(data: unknown): Set<string> {
  try {
    const old = normaliseMcpDocument(data);
    return new Set(launchProblems(old.config).map((p) => p.field.replace(/^config\./, '')));
  } catch {
    return new Set(['cwd', 'command']); // unreadable legacy record: anything goes while fixing it
  }
}

function launchRejected(problems: ConfigProblem[]): AgtError {
  const text = problems.map((p) => `${p.field}: ${p.message}; fix: ${p.fix}`).join(' | ');
  return new AgtError('invalid_config', `the mcp config cannot be launched as written: ${text}`, { details: { problems } });
}

function nextAgent(plan: WritePlan, current: ResourceRecord | undefined, warnings: string[]): StoredAgentData {
  const fields = plan.data === undefined ? {} : checkAgentFields(plan.data, warnings);
  const changes = Object.keys(plan.add).length > 0 || Object.keys(plan.remove).length > 0;
  if (current === undefined && changes) {
    throw new AgtError('invalid_input', 'add/remove apply to an existing agent; to create one with mounts, give "data.mcps"');
  }
  if (current !== undefined && plan.data === undefined && !changes) {
    throw new AgtError('invalid_input', 'nothing to change: give "data", "add" or "remove"');
  }
  for (const list of ['mcps', 'skills'] as const) {
    if (fields[list] !== undefined && (plan.add[list] !== undefined || plan.remove[list] !== undefined)) {
      throw new AgtError('invalid_input', `give either data.${list} (replaces the list) or add/remove.${list} (single items), not both`);
    }
    const both = (plan.add[list] ?? []).filter((r) => (plan.remove[list] ?? []).includes(r));
    if (both.length > 0) throw new AgtError('invalid_input', `a reference cannot be added and removed in the same write (${list})`);
  }
  // The fields this write replaces are not read back: a write is how a damaged field is repaired.
  const base = current === undefined ? defaultAgent() : readAgent(withoutFields(current.data, Object.keys(fields)));
  const next = applyAgentUpdate(base, fields, plan.add, plan.remove);
  if (next.kind === 'harness' && next.mcps.length > 0) {
    throw new AgtError(
      'invalid_input',
      'harness agents do not support library MCP mounts yet: their harness runs its own tools. Keep "mcps" empty, or make the agent "native"',
      { details: { field: 'mcps', reason: 'harness_mcp_unsupported' } },
    );
  }
  return next;
}

// K1: an Agent Skill is written whole and its frontmatter checked; the older form's fields update what is stored.
async function nextSkill(plan: WritePlan, current: ResourceRecord | undefined, warnings: string[]): Promise<unknown> {
  if (plan.data === undefined)
    throw new AgtError(
      'invalid_input',
      'a skill write needs "data": { "files": { "SKILL.md": "---\\nname: …\\ndescription: …\\n---\\n…" } }',
    );
  const fields = checkSkillData(plan.data, warnings, current !== undefined);
  if (isAgentSkill(fields)) {
    await agentSkillEntry(fields.files);
    return fields;
  }
  if (current !== undefined && isAgentSkill(current.data))
    throw new AgtError(
      'invalid_input',
      'skill data: this skill is an Agent Skill: write its "files" whole (description and instructions are its SKILL.md)',
      {
        details: { field: 'files' },
      },
    );
  const merged = current === undefined ? fields : { ...(current.data as object), ...fields };
  return checkSkillData(merged, [], false);
}
