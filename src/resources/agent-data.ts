/**
 * Agent documents: their normal form, update merges (A2) and single-item
 * add/remove (A3). Pure functions: the service adds storage and retries.
 */
import { AgtError } from '../errors.js';
import { isPlainObject, setOwn } from '../json.js';
import { isReference } from './reference.js';
import type { AgentData, AgentSettings } from './types.js';
import { checkKnownKeys, unknownKeys } from '../config/unknown-keys.js';

/** An agent document as stored: every field present. */
export interface StoredAgentData extends Required<Omit<AgentData, 'settings'>> {
  settings: AgentSettings;
}

/** Single-item changes to mount lists (A3). */
export interface MountChanges {
  mcps?: string[];
  skills?: string[];
}

const SETTINGS = new Set(['model', 'provider', 'basePrompt', 'permissions', 'delegation']);

/** Every top-level key of agent data, once: the compiler fails here when a field is added and not listed. */
const AGENT_KEYS = {
  name: true,
  role: true,
  kind: true,
  enabled: true,
  capabilities: true,
  mcps: true,
  skills: true,
  settings: true,
} as const satisfies Record<keyof AgentData, true>;

/** The top-level keys agent data knows. */
export const AGENT_DATA_KEYS: readonly string[] = Object.freeze(Object.keys(AGENT_KEYS));

function invalid(field: string, message: string): AgtError {
  return new AgtError('invalid_input', `agent data: ${field}: ${message}`, { details: { field } });
}

function referenceList(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw invalid(field, 'must be an array of "category/name" references');
  const out: string[] = [];
  for (const item of value) {
    if (!isReference(item))
      throw invalid(field, 'every entry must be a "category/name" reference (lower-case letters, digits, "-", "_", ".")');
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) {
    throw invalid(field, 'must be an array of non-empty strings');
  }
  return [...new Set(value as string[])];
}

/** What the refusal of an unknown agent key offers: agent writes have no strict: false (a stored unknown key does nothing). */
const NO_SUCH_FIELD = 'agent data has no such field; to remove one stored before, write it as null';

/**
 * Checks the fields present in `data` (a partial agent document) and returns them normalised. An unknown top-level
 * key (`mcp` for `mcps`) is invalid_input naming it and the closest known key: stored, it would mount nothing. An
 * unknown key given as null (or undefined) removes what an older write stored under it: it comes back undefined.
 */
export function checkAgentFields(data: unknown, warnings: string[]): Partial<StoredAgentData> & Record<string, unknown> {
  if (!isPlainObject(data)) throw invalid('data', 'must be an object');
  const out: Record<string, unknown> = {};
  const removed = Object.keys(data).filter((key) => !AGENT_DATA_KEYS.includes(key) && (data[key] === null || data[key] === undefined));
  for (const key of removed) setOwn(out, key, undefined);
  checkKnownKeys(data, [...AGENT_DATA_KEYS, ...removed], 'agent data', true, NO_SUCH_FIELD);
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    switch (key) {
      case 'name':
        if (typeof value !== 'string') throw invalid(key, 'must be a string');
        out.name = value;
        break;
      case 'role':
        if (value !== 'manager' && value !== 'worker') throw invalid(key, 'must be "manager" or "worker"');
        out.role = value;
        break;
      case 'kind':
        if (value !== 'native' && value !== 'harness') throw invalid(key, 'must be "native" or "harness"');
        out.kind = value;
        break;
      case 'enabled':
        if (typeof value !== 'boolean') throw invalid(key, 'must be true or false');
        out.enabled = value;
        break;
      case 'capabilities':
        out.capabilities = stringList(value, key);
        break;
      case 'mcps':
      case 'skills':
        out[key] = referenceList(value, key);
        break;
      case 'settings':
        out.settings = checkSettings(value, warnings);
        break;
    }
  }
  return out as Partial<StoredAgentData> & Record<string, unknown>;
}

function checkSettings(value: unknown, warnings: string[]): AgentSettings {
  if (!isPlainObject(value)) throw invalid('settings', 'must be an object');
  for (const key of ['model', 'provider', 'basePrompt'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') throw invalid(`settings.${key}`, 'must be a string');
  }
  for (const key of Object.keys(value)) if (!SETTINGS.has(key)) warnings.push(`agent data: unknown key "settings.${key}" kept as is`);
  return { ...value } as AgentSettings;
}

/**
 * Notices for the unknown top-level keys of a stored agent (written before they were refused): the agent still
 * loads, the keys do nothing, and the notice names the closest known key.
 */
export function agentNotices(agent: object): string[] {
  return unknownKeys(agent, AGENT_DATA_KEYS, 'stored agent data').map((u) => `${u.message} (ignored; remove it by writing it as null)`);
}

/** The defaults of a new agent: a native, enabled worker with nothing mounted. */
export function defaultAgent(): StoredAgentData {
  return { name: '', role: 'worker', kind: 'native', enabled: true, capabilities: [], mcps: [], skills: [], settings: {} };
}

/**
 * Applies an update: given top-level fields replace, omitted ones are kept (A2), an unknown one given undefined
 * (null in the write) is removed; then add/remove (A3).
 */
export function applyAgentUpdate(
  current: StoredAgentData,
  fields: Partial<StoredAgentData> & Record<string, unknown>,
  add: MountChanges,
  remove: MountChanges,
): StoredAgentData {
  const next: StoredAgentData = { ...current, ...fields };
  for (const key of Object.keys(fields)) if (fields[key] === undefined && !AGENT_DATA_KEYS.includes(key)) Reflect.deleteProperty(next, key);
  for (const list of ['mcps', 'skills'] as const) {
    const removed = new Set(remove[list] ?? []);
    const kept = next[list].filter((ref) => !removed.has(ref));
    for (const ref of add[list] ?? []) if (!kept.includes(ref)) kept.push(ref);
    next[list] = kept;
  }
  return next;
}

/** Checks an add/remove object: only mcps/skills, references only. */
export function checkMountChanges(value: unknown, field: 'add' | 'remove'): MountChanges {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw invalid(field, 'must be an object like { "mcps": ["category/name"] }');
  const out: MountChanges = {};
  for (const [key, list] of Object.entries(value)) {
    if (key !== 'mcps' && key !== 'skills') throw invalid(`${field}.${key}`, 'only "mcps" and "skills" can be added or removed');
    if (list !== undefined) out[key] = referenceList(list, `${field}.${key}`);
  }
  return out;
}

/**
 * Reads a stored agent document, filling fields a store may lack (older records). A field of the wrong type (a
 * hand-edited row: `skills: 5`, `enabled: "no"`) is store_unavailable `corrupt_record` naming it, never read as a
 * default (an `enabled` that is not a boolean must not enable the agent) nor a raw TypeError later.
 */
export function readAgent(data: unknown): StoredAgentData {
  const base = defaultAgent();
  if (!isPlainObject(data)) return base;
  for (const [field, ok] of STORED_FIELD_TYPES) {
    if (Object.hasOwn(data, field) && data[field] !== undefined && !ok(data[field])) throw corruptAgent(field);
  }
  return { ...base, ...(data as Partial<StoredAgentData>) };
}

/** The stored agent document without `fields` (the ones a write replaces): a write can repair a corrupt field. */
export function withoutFields(data: unknown, fields: readonly string[]): unknown {
  if (!isPlainObject(data)) return data;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!fields.includes(key)) setOwn(out, key, value);
  return out;
}

const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const STORED_FIELD_TYPES: readonly (readonly [string, (value: unknown) => boolean])[] = [
  ['name', (v) => typeof v === 'string'],
  ['role', (v) => v === 'manager' || v === 'worker'],
  ['kind', (v) => v === 'native' || v === 'harness'],
  ['enabled', (v) => typeof v === 'boolean'],
  ['capabilities', strings],
  ['mcps', strings],
  ['skills', strings],
  ['settings', isPlainObject],
];

function corruptAgent(field: string): AgtError {
  return new AgtError(
    'store_unavailable',
    `the stored agent's "${field}" is not what an agent holds (a hand-edited or damaged record); write the agent again with data.${field}`,
    { details: { reason: 'corrupt_record', field } },
  );
}
