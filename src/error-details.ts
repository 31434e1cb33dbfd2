/**
 * What each error code's `details` holds (docs/errors.md has the table): one
 * map from code to payload for AgtError codes, and one for every code a result
 * carries (the AgtError codes and the codes only results have), so
 * `error.details` narrows on `error.code`. Every payload may carry more fields than it names
 * (`Open`): the named ones are the contract, and none ever holds an argument,
 * env or header value.
 */

/** Fields a payload may carry besides the ones it names. */
type Open = { readonly [key: string]: unknown };

/** An issue of output_invalid: where in the result and which rule, never a value. */
export interface OutputIssueDetail {
  instancePath: string;
  schemaPath: string;
  keyword: string;
}

/** A problem of an MCP config that cannot be launched: the field, what is wrong, and the fix. */
export interface ConfigProblemDetail {
  field: string;
  message: string;
  fix?: string;
}

/** The `details` of each AgtError code. */
export interface AgtErrorDetails {
  invalid_input: { field?: string; reason?: string; limitBytes?: number; limit?: number } & Open;
  invalid_config: { problems?: readonly ConfigProblemDetail[]; reason?: string; field?: string } & Open;
  schema_load_failed: { tool?: string; reason?: string; schemaPath?: string; dialect?: string; part?: string } & Open;
  not_found: { kind?: string; reference?: string; runId?: string; batchId?: string; callId?: string; mount?: string; tool?: string } & Open;
  already_exists: { kind?: string; reference?: string; currentRevision?: number | null } & Open;
  revision_conflict: {
    kind?: string;
    reference?: string;
    runId?: string;
    expectedRevision?: number | null;
    currentRevision?: number | null;
    /** `decided_elsewhere`: run.decide lost to another host's decision (`batchId`); resume again, do not retry. */
    reason?: string;
    batchId?: string;
    /** withRevision: how many read-and-write attempts it made before giving up. */
    attempts?: number;
  } & Open;
  option_removed: { option?: string } & Open;
  forbidden: Open;
  spawn_failed: { reason?: string; errno?: string; stderrTail?: string } & Open;
  exited_early: { exitCode?: number | null; signal?: string | null; stderrTail?: string } & Open;
  handshake_timeout: { phase?: string; timeoutMs?: number; stderrTail?: string } & Open;
  protocol_error: {
    reason?: string;
    method?: string;
    rpcCode?: number;
    status?: number;
    limitBytes?: number;
    limit?: number;
    garbageLines?: number;
    stderrTail?: string;
  } & Open;
  connection_closed: { reason?: string; errno?: string; mount?: string; timeoutMs?: number; stderrTail?: string } & Open;
  batch_rejected: { reason?: string; callId?: string; tool?: string | null; problems?: readonly unknown[] } & Open;
  fingerprint_mismatch: { part?: string; expected?: string; actual?: string } & Open;
  store_unavailable: { reason?: string; driverCode?: string; runId?: string } & Open;
  call_timeout: { timeoutMs?: number; reason?: string; batchTimeoutMs?: number } & Open;
  cancelled: { reason?: string } & Open;
  auth_required: { reason?: string; status?: number; oauthError?: string } & Open;
  output_invalid: { issues?: readonly OutputIssueDetail[] } & Open;
  server_unavailable: { mount?: string; failures?: number; lastErrorCode?: string } & Open;
  approval_stale: { tool?: string } & Open;
  protocol_mismatch: { pinned?: string; offered?: readonly string[] } & Open;
  input_stale: { tool?: string } & Open;
  input_rounds_exceeded: { rounds?: number } & Open;
  model_response_invalid: { provider?: string; field?: string } & Open;
  interrupted: { batchId?: string; decidedAt?: string; leaseUntil?: string } & Open;
  /** `unknown_to_server`: the server does not know the task (its TTL ran out there, or it restarted); `ttl_expired`: it did not end within its TTL here; `server_ended`: its server ended it without a result to give. */
  task_lost: { taskId: string; reason: 'unknown_to_server' | 'ttl_expired' | 'server_ended' } & Open;
  skill_unverified: { reason?: string } & Open;
  /** What this machine lacks to sandbox the server (P5), one line each: the piece, then how to get it. */
  sandbox_unavailable: { missing: readonly string[] } & Open;
}

/** The `details` of each result error code: every AgtError code's, and those of the codes only results carry. */
export interface ResultErrorDetails extends AgtErrorDetails {
  /** The arguments were not valid (`issues`), or the call was not one the model could make (`reason`: unknown_tool …). */
  invalid_arguments: { issues?: readonly (OutputIssueDetail & { message?: string })[]; reason?: string } & Open;
  /** `by`: who denied it (policy, hook, human …); `reason`: approval_expired, input_declined. */
  permission_denied: { by?: string; reason?: string; expiresAt?: string } & Open;
  /** The tool's `isError` result: its content (bounded: `truncated` when cut at maxResultBytes). */
  tool_error: { content?: readonly unknown[]; truncated?: boolean } & Open;
  tool_failed: Open;
  /** The server refused the call with a JSON-RPC error (`rpcCode`). */
  server_error: { reason?: string; rpcCode?: number } & Open;
  /** A kit tool asked the client for what it does not offer (`feature`: elicitation, sampling, roots). */
  unsupported: { feature?: string } & Open;
  /** The client's answer to a kit tool's question does not fit it (`method`). */
  invalid_answer: { method?: string } & Open;
  duplicate_name: Open;
  invalid_name: Open;
  corrupt_record: Open;
}
