/**
 * One check of a tool result's `structuredContent` against the tool's
 * outputSchema, for every side that checks it: a run (the pipeline's output
 * stage), a kit server (before it sends a result) and `checkServer` /
 * `agt mcp check`. It says what is wrong — missing, not an object, or not
 * valid — with issues whose property names a server made up are hidden
 * (serverSafeIssues), and words a failed verdict one way for every reader.
 */
import { isPlainObject } from '../json.js';
import { type ArgumentIssue, declaredNames, serverSafeIssues } from './issues/issues.js';
import type { CompiledToolSchema } from './registry.js';

/** A tool's outputSchema as a check: its compiled validator and the property names it declares (any other name is data). */
export interface OutputCheck {
  schema: CompiledToolSchema;
  names: ReadonlySet<string>;
}

/** What a structuredContent came to: fine, or missing, not a JSON object, or not valid (`where`: the first issue's path). */
export type OutputVerdict =
  | { ok: true }
  | { ok: false; problem: 'missing'; issues: ArgumentIssue[] }
  | { ok: false; problem: 'not_object'; issues: ArgumentIssue[] }
  | { ok: false; problem: 'invalid'; issues: ArgumentIssue[]; where: string; first: string };

const NOT_AN_OBJECT: ArgumentIssue = {
  instancePath: '',
  schemaPath: '',
  keyword: 'type',
  message: 'structuredContent must be a JSON object',
};

/** The check of an outputSchema (its names read once). */
export function outputCheckOf(schema: CompiledToolSchema, outputSchema: unknown): OutputCheck {
  return { schema, names: declaredNames(outputSchema) };
}

/**
 * Checks `structured` (a result's structuredContent, undefined when absent):
 * it must be a JSON object when present and, when the tool declares an
 * outputSchema (`output`), be present and valid for it.
 */
export function checkStructuredOutput(structured: unknown, output: OutputCheck | undefined): OutputVerdict {
  if (structured === undefined) return output === undefined ? { ok: true } : { ok: false, problem: 'missing', issues: [] };
  if (!isPlainObject(structured)) return { ok: false, problem: 'not_object', issues: [NOT_AN_OBJECT] };
  if (output === undefined) return { ok: true };
  const validation = output.schema.validate(structured);
  if (validation.ok) return { ok: true };
  const issues = serverSafeIssues(validation.issues, output.names); // the server's own keys are data: never in a message
  const first = issues[0];
  return {
    ok: false,
    problem: 'invalid',
    issues,
    where: first?.instancePath ? ` at "${first.instancePath}"` : '',
    first: first?.message ?? 'invalid',
  };
}

/**
 * A failed verdict in words, the same for every reader (a run's model, a kit server's client, a check's report):
 * `tool` names the tool when the reader may not know it. Never a value of the result, never a name the server made up.
 */
export function outputVerdictMessage(verdict: Exclude<OutputVerdict, { ok: true }>, tool?: string): string {
  const subject = tool === undefined ? 'the tool' : `tool "${tool}"`;
  switch (verdict.problem) {
    case 'missing':
      return `${subject} declares an outputSchema, but its result has no structuredContent`;
    case 'not_object':
      return `${subject} returned structuredContent that is not a JSON object`;
    case 'invalid':
      return `${subject} returned structuredContent that does not match its outputSchema${verdict.where}: ${verdict.first}`;
  }
}
