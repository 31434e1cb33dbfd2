/** Helpers of the provider adapter tests: recorded payloads served to the real SDK clients, no network. */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/index.js';

/** A recorded provider payload from test/fixtures/providers. */
export function recorded(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/providers', `${name}.json`), 'utf8'));
}

/** A fetch that answers each request with the next payload, and keeps every request body. */
export function recordedFetch(payloads: Record<string, unknown>[]) {
  const requests: { url: string; body: Record<string, unknown> }[] = [];
  const queue = [...payloads];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    requests.push({ url: String(url), body: JSON.parse(String(init?.body ?? '{}')) });
    const next = queue.shift();
    if (next === undefined) return new Response(JSON.stringify({ error: { message: 'no more recorded payloads' } }), { status: 500 });
    return new Response(JSON.stringify(next), {
      status: 200,
      headers: { 'content-type': 'application/json', 'request-id': 'req_recorded' },
    });
  };
  return { fetch, requests };
}

/** The 41 real tool inputSchemas of the reference servers (../shared/data). */
export function realToolSchemas(): { name: string; schema: Record<string, unknown> }[] {
  const dir = path.join(REPO_ROOT, 'test/fixtures/real-tool-schemas');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace('.input.json', ''), schema: JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }));
}

const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'description',
  'title',
  'anyOf',
  '$defs',
  '$ref',
]);

/**
 * What OpenAI's strict mode rejects in a schema, per its documented rules:
 * an object root, every object closed (`additionalProperties: false`) with
 * every property required, and only the supported keywords.
 */
export function openAIStrictIssues(schema: unknown, at = '', root = true): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`${at}: not a schema object`];
  const s = schema as Record<string, unknown>;
  const issues: string[] = [];
  if (root && s.type !== 'object') issues.push(`${at}: the root must be type object`);
  for (const key of Object.keys(s)) if (!STRICT_KEYWORDS.has(key)) issues.push(`${at}/${key}: not supported in strict mode`);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('object')) {
    if (s.additionalProperties !== false) issues.push(`${at}: objects need additionalProperties: false`);
    const props = Object.keys((s.properties as Record<string, unknown>) ?? {});
    const required = (s.required as string[]) ?? [];
    if (props.length !== required.length || props.some((p) => !required.includes(p))) issues.push(`${at}: every property must be required`);
    for (const [k, v] of Object.entries((s.properties as Record<string, unknown>) ?? {}))
      issues.push(...openAIStrictIssues(v, `${at}/properties/${k}`, false));
  }
  if (types.includes('array') && s.items !== undefined) issues.push(...openAIStrictIssues(s.items, `${at}/items`, false));
  for (const [i, v] of ((s.anyOf as unknown[]) ?? []).entries()) issues.push(...openAIStrictIssues(v, `${at}/anyOf/${i}`, false));
  return issues;
}
