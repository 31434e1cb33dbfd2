/**
 * A run's skills (K2, K3): the agent's registry skills and its mounts'
 * skills, listed by name and description only. Bodies and files are read by
 * `skill_read` (a call through the one pipeline): a registry skill's from its
 * stored files, a server's through its connection (verified against the
 * listing, K2). Names are as the skills declare them; when two sources declare
 * one name, the first in order — registry skills by reference, then mounts by
 * reference, each server's skills by URI — keeps it, and each later one is
 * named `<reference>:<name>` (then `<reference>:<name>:2`, `:3`… when one
 * source has it more than twice).
 */
import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import { AgtError } from '../errors.js';
import type { McpConnection } from '../mcp/connection.js';
import type { McpSkill } from '../mcp/connection-types.js';
import { skillFilePath } from '../mcp/requests/skills.js';
import { skillPathProblem, splitSkillMd } from '../resources/skill-data.js';
import { canonicalHash } from '../schema/canonical.js';
import { closestNames } from './closest.js';

/** One skill of a run as hosts and models see it: a name, a description and where it comes from. */
export interface SkillInfo {
  name: string;
  description: string;
  source: { kind: 'registry'; reference: string } | { kind: 'mcp'; mount: string; uri: string };
}

/** A registry skill as a run loaded it: its files and its entry (digests). */
export interface RegistrySkill {
  reference: string;
  revision: number;
  files: Readonly<Record<string, string>>;
  entry: Skill;
}

/** A mount's skills as listed on its connection. */
export interface MountSkills {
  mount: string;
  connection: McpConnection;
  skills: readonly McpSkill[];
}

/** What `skill_read` answers: a file's text (for SKILL.md without a path: its body, and the other files' paths). */
export interface SkillText {
  name: string;
  path: string;
  text: string;
  files?: string[];
}

type Entry = { info: SkillInfo; read(path: string | undefined, signal: AbortSignal): Promise<SkillText> };

/** The skills of one snapshot, frozen. */
export class SkillSet {
  readonly #entries = new Map<string, Entry>();
  /** Hash of every skill's name, source and file digests: part of the run's fingerprint (K4). */
  readonly hash: string | undefined;

  constructor(registry: readonly RegistrySkill[], mounts: readonly MountSkills[]) {
    const hashed: unknown[] = [];
    for (const skill of [...registry].sort((a, b) => (a.reference < b.reference ? -1 : 1))) {
      const { name, description } = skill.entry.frontmatter;
      const info: SkillInfo = {
        name: this.#free(name, skill.reference),
        description,
        source: { kind: 'registry', reference: skill.reference },
      };
      this.#entries.set(info.name, { info, read: async (path) => registryText(info.name, skill, path) });
      hashed.push({ reference: skill.reference, files: skill.entry.resources });
    }
    for (const mount of [...mounts].sort((a, b) => (a.mount < b.mount ? -1 : 1))) {
      for (const skill of [...mount.skills].sort((a, b) => (a.uri < b.uri ? -1 : 1))) {
        if (skill.files === 'dynamic') continue; // K2: files that cannot be verified are never offered
        const info: SkillInfo = {
          name: this.#free(skill.name, mount.mount),
          description: skill.description,
          source: { kind: 'mcp', mount: mount.mount, uri: skill.uri },
        };
        // Only the paths skill_read reads, normalised by the rule the read uses (issue 58 #16): never a raw spelling.
        const paths = skill.files.map((f) => skillFilePath(skill.uri, f.uri));
        const files = [...new Set(paths)].filter((p): p is string => p !== undefined && p !== 'SKILL.md').sort();
        this.#entries.set(info.name, {
          info,
          read: (path, signal) => mountText(info.name, mount.connection, skill.uri, files, path, signal),
        });
        hashed.push({ mount: mount.mount, uri: skill.uri, files: skill.files });
      }
    }
    this.hash = hashed.length === 0 ? undefined : canonicalHash(hashed);
    Object.freeze(this);
  }

  // The declared name, or `<source>:<name>` when an earlier skill has it, or `<source>:<name>:2`, `:3`… when that is
  // taken too (one server may list several skills of one name in different folders): a later skill never takes an
  // earlier one's place.
  #free(name: string, source: string): string {
    if (!this.#entries.has(name)) return name;
    let free = `${source}:${name}`;
    for (let n = 2; this.#entries.has(free); n++) free = `${source}:${name}:${n}`;
    return free;
  }

  /** How many skills the run has. */
  get size(): number {
    return this.#entries.size;
  }

  /** Every skill: name, description and source, in order. */
  list(): SkillInfo[] {
    return [...this.#entries.values()].map((e) => structuredClone(e.info));
  }

  /** A skill's SKILL.md body (no path) or one of its files; not_found (readable by the model) for an unknown skill or file. */
  async read(name: string, path: string | undefined, signal: AbortSignal): Promise<SkillText> {
    const entry = this.#entries.get(name);
    if (entry === undefined)
      throw new AgtError(
        'not_found',
        `no skill is named ${JSON.stringify(name.slice(0, 64))}; ${closestNames(name, [...this.#entries.keys()], 'skill')}`,
        {
          details: { reason: 'unknown_skill' },
        },
      );
    if (path !== undefined) {
      const problem = skillPathProblem(path);
      if (problem !== undefined)
        throw new AgtError('invalid_input', `path: ${problem}; give a path inside the skill, like "references/GUIDE.md"`, {
          details: { field: 'path', reason: 'path_outside_skill' },
        });
    }
    return entry.read(path, signal);
  }
}

function registryText(name: string, skill: RegistrySkill, path: string | undefined): SkillText {
  const others = Object.keys(skill.files)
    .filter((p) => p !== 'SKILL.md')
    .sort();
  if (path === undefined)
    return { name, path: 'SKILL.md', text: bodyOf(skill.files['SKILL.md'] ?? ''), ...(others.length ? { files: others } : {}) };
  const text = Object.hasOwn(skill.files, path) ? skill.files[path] : undefined;
  if (text === undefined) throw noFile(name, path, others);
  return { name, path, text };
}

async function mountText(
  name: string,
  connection: McpConnection,
  uri: string,
  others: string[],
  path: string | undefined,
  signal: AbortSignal,
): Promise<SkillText> {
  if (path !== undefined && path !== 'SKILL.md' && !others.includes(path)) throw noFile(name, path, others);
  const file = await connection.readSkill(uri, path, { signal });
  if (file.text === undefined)
    throw new AgtError('invalid_input', `"${path}" of skill "${name}" is a binary file; skill_read returns text files only`, {
      details: { reason: 'binary_file' },
    });
  if (path === undefined)
    return { name, path: 'SKILL.md', text: file.body ?? bodyOf(file.text), ...(others.length ? { files: others } : {}) };
  return { name, path, text: file.text };
}

function noFile(name: string, path: string, others: string[]): AgtError {
  return new AgtError(
    'not_found',
    `skill "${name}" has no file ${JSON.stringify(path.slice(0, 255))}; ${closestNames(path, ['SKILL.md', ...others], 'file')}`,
    { details: { reason: 'unknown_skill_file' } },
  );
}

// The markdown after a SKILL.md's frontmatter.
const bodyOf = (text: string): string => splitSkillMd(text)?.body ?? text;
