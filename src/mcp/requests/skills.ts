/**
 * The MCP Skills extension (SEP-2640) on a connection, through the SDK's
 * SkillsClient: `listSkills` walks `skills/list` within the list timeout
 * (invalid entries left out with a warning, at most MAX_SERVER_SKILLS),
 * `readSkill` reads one file of a listed skill — named by the one path rule
 * of `skillFilePath` — and verifies it against the entry (listed, size, sha256
 * digest; for SKILL.md the frontmatter). A file that fails is never
 * returned: the caller gets a `skill_unverified` error without its text.
 * Names, descriptions and texts are masked like everything a server sends,
 * after verification (which needs the bytes as sent).
 */
import { SkillsClient, SkillVerificationError, type Skill } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { AgtError } from '../../errors.js';
import { MAX_SERVER_SKILLS, MAX_SKILL_READ_BYTES, MAX_SKILL_WARNINGS } from '../../bounds.js';
import { defined } from '../../json.js';
import { outsideText } from '../../outside-text.js';
import { skillPathProblem } from '../../resources/skill-data.js';
import { listTimeout } from './lists.js';
import { isRequestTimeout } from '../settings/timeouts.js';
import type { McpSkill, McpSkillFile, McpSkillListing, RequestOptions } from '../connection-types.js';
import type { Send } from './more-requests.js';

/** What the skill requests of a connection need from it. */
export interface SkillRequestParts {
  client: Client;
  send: Send;
  sdkOptions(options: RequestOptions, signal: AbortSignal): { signal?: AbortSignal; timeout: number };
  masked<T>(value: T): T;
  /** How long all pages of `skills/list` may take together (the connection's `timeouts.listMs`). */
  listMs: number;
  /** Where problems with the server's listing go (masked by the caller's masker). */
  warnings: string[];
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** A connection's skills (the MCP Skills extension): the part of McpConnection that {@link skillRequests} implements. */
export interface ConnectionSkills {
  /** True when the server declared the MCP Skills extension (SEP-2640). */
  servesSkills(): boolean;
  /**
   * The server's skills (`skills/list`, every page, within `timeouts.listMs` in all — `options.timeoutMs` overrides); none when it
   * does not declare the extension. Invalid entries are left out with a warning.
   */
  listSkills(options?: RequestOptions): Promise<McpSkillListing>;
  /**
   * One file of a skill of the last listing (`path` relative to the skill's folder; default its SKILL.md), verified
   * against the listing (size, sha256 digest, SKILL.md frontmatter): a file that fails is `skill_unverified`, its text never returned.
   */
  readSkill(uri: string, path?: string, options?: RequestOptions): Promise<McpSkillFile>;
}

/** servesSkills, listSkills and readSkill of a connection. */
export function skillRequests(parts: SkillRequestParts): ConnectionSkills {
  const { client, send, sdkOptions, masked } = parts;
  const skills = new SkillsClient(client, { skipInvalid: true });
  let entries = new Map<string, Skill>(); // the last listing, by SKILL.md URI: reads verify against it
  // A long-lived connection lists again and again: each problem is told once, and at most MAX_SKILL_WARNINGS of them.
  const told = new Set<string>();
  const warn = (text: string) => {
    if (told.has(text) || told.size >= MAX_SKILL_WARNINGS) return;
    told.add(text);
    parts.warnings.push(text);
  };
  return {
    servesSkills: () => skills.supported,
    listSkills: (options = {}) =>
      send(
        'skills/list',
        async (signal): Promise<McpSkillListing> => {
          if (!skills.supported) return { skills: [] };
          const listing = await listWithin(skills, options.timeoutMs ?? parts.listMs, sdkOptions(options, signal).signal);
          for (const bad of listing.invalid.slice(0, 5))
            // The reason quotes the server's name and URIs as sent: one line, escaped and bounded (outsideText).
            warn(outsideText(masked(`skills/list: entry ${bad.index} left out: ${bad.reason}`), { max: 300 }));
          const kept = listing.skills.slice(0, MAX_SERVER_SKILLS);
          if (listing.skills.length > kept.length)
            warn(`skills/list: more than ${MAX_SERVER_SKILLS} skills listed; the first ${MAX_SERVER_SKILLS} are used`);
          entries = new Map(kept.map((s) => [s.uri, s]));
          return {
            skills: kept.map((s) => masked(skillOf(s))),
            ...defined({ ttlMs: listing.ttlMs, cacheScope: listing.cacheScope }),
          };
        },
        options,
      ),
    readSkill: (uri, path, options = {}) =>
      send(
        'resources/read',
        async (signal): Promise<McpSkillFile> => {
          const entry = entries.get(uri);
          if (entry === undefined)
            throw new AgtError('not_found', 'no such skill on this server as last listed; list the skills again', {
              details: { reason: 'skill_not_listed' },
            });
          if (entry.resources === 'dynamic') throw unverified('dynamic', 'the skill is "dynamic": its files cannot be verified');
          // The file is found by the same rule that named it to the model (skillFilePath), and read by its listed URI.
          const listed =
            path === undefined
              ? entry.resources.find((r) => r.uri === entry.uri)
              : entry.resources.find((r) => skillFilePath(entry.uri, r.uri) === path);
          if (listed === undefined)
            throw new AgtError('not_found', 'the skill lists no such file', { details: { reason: 'skill_file_not_listed' } });
          if (listed.size > MAX_SKILL_READ_BYTES)
            throw new AgtError(
              'invalid_input',
              `the file is ${listed.size} bytes; skill files over ${MAX_SKILL_READ_BYTES} bytes are not read`,
              {
                details: { reason: 'skill_file_too_large', size: listed.size, limit: MAX_SKILL_READ_BYTES },
              },
            );
          let file;
          try {
            file = await skills.read(entry, path === undefined ? undefined : listed.uri, sdkOptions(options, signal));
          } catch (error) {
            if (error instanceof SkillVerificationError) throw unverified(error.reason, verificationWords[error.reason]);
            throw error;
          }
          return masked({
            uri: file.uri,
            size: file.bytes.byteLength,
            ...defined({ mimeType: file.mimeType, text: file.text ?? textOf(file.bytes), body: file.body }),
          });
        },
        options,
      ),
  };
}

/** A listed entry as a connection shows it. */
function skillOf(entry: Skill): McpSkill {
  const files = entry.resources === 'dynamic' ? 'dynamic' : entry.resources.map((r) => ({ uri: r.uri, size: r.size, digest: r.digest }));
  return { uri: entry.uri, name: entry.frontmatter.name, description: entry.frontmatter.description, files };
}

/**
 * A listed file's path inside its skill, as `skill_read` lists and reads it (K3; issue 58 #16): the URI resolved as
 * a URI resolves (`..`, `%2e%2e`), each segment percent-decoded; undefined when no skill path can name it (outside
 * the skill's folder, a query or fragment, a segment that decodes to "/", or a path skillPathProblem refuses).
 * The one rule both the listing and the read use, so a listed path is always one that reads.
 */
export function skillFilePath(skillUri: string, fileUri: string): string | undefined {
  let root: string;
  let href: string;
  try {
    const manifest = new URL(skillUri).href;
    if (!manifest.endsWith('/SKILL.md')) return undefined;
    root = manifest.slice(0, -'SKILL.md'.length);
    href = new URL(fileUri).href;
  } catch {
    return undefined;
  }
  if (!href.startsWith(root) || href.includes('?') || href.includes('#')) return undefined;
  const segments = href.slice(root.length).split('/').map(decodeSegment);
  if (segments.some((s) => s.includes('/'))) return undefined;
  const path = segments.join('/');
  return skillPathProblem(path) === undefined ? path : undefined;
}

// A segment percent-decoded; one that does not decode stays as spelled (as the SDK keys it).
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// skills/list, every page, within `listMs` in all (K4; issue 58 #18): a server that never answers delays a run's
// start by the list timeout, like tools/list, never by the call timeout. The caller's signal still cancels it.
async function listWithin(skills: SkillsClient, listMs: number, caller: AbortSignal | undefined) {
  const deadline = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    deadline.abort();
  }, listMs);
  const onAbort = () => deadline.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  caller?.addEventListener('abort', onAbort, { once: true });
  try {
    return await skills.list(undefined, { signal: deadline.signal, timeout: listMs });
  } catch (error) {
    if (expired || isRequestTimeout(error)) throw listTimeout('skills/list', listMs);
    throw error;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}

// The bytes as UTF-8 text, or undefined for a binary file (invalid UTF-8, or NUL bytes).
function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return textDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

const verificationWords: Record<string, string> = {
  unlisted: 'the server sent a file its skill does not list',
  size: "the file's size differs from the size the server listed",
  digest: "the file's sha256 digest differs from the digest the server listed",
  frontmatter: "the SKILL.md frontmatter differs from the server's listing",
};

function unverified(reason: string, words: string | undefined): AgtError {
  return new AgtError('skill_unverified', `${words ?? 'the file failed verification'}: it is not used`, {
    details: { reason },
  });
}
