/**
 * The library's bounds in one place: every depth, size, count and time limit
 * that more than one concept shares or that a host may meet (a limit on what
 * it passes, the default of an option, a size it can hit), and the rule of a
 * time a caller gives (`checkMs` in check-ms.ts applies it). A walker's own
 * tuning (how many example values a schema generator tries) stays beside it;
 * a limit data from outside (a model, a server, a file) is held to lives here.
 * A leaf: this file imports nothing, so every file may import it.
 */

/** How deep any JSON from outside may nest: arguments, results, server notices, documents, audit events, schemas walked. */
export const MAX_JSON_DEPTH = 64;
/** How many issues one invalid validation builds (in schema order; the rest are only counted): enough for a model to correct its call. */
export const MAX_VALIDATION_ISSUES = 20;
/** How many properties of one schema object a walker reads (parameter headers, tool search, contract cases, examples). */
export const MAX_SCHEMA_PROPERTIES = 200;

/** The longest message read from an MCP server by default: a stdio line, an HTTP body, one event of a stream. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** The longest message a kit-authored stdio server reads by default. */
export const DEFAULT_MAX_SERVED_MESSAGE_BYTES = 10 * 1024 * 1024;
/** The smallest message bound a caller may set (`maxMessageBytes`). */
export const MIN_MAX_MESSAGE_BYTES = 1024;
/** On stdio, the share of the handshake the 2026-07-28 discover probe gets (a silent server is legacy; initialize gets the rest). */
export const DISCOVER_PROBE_SHARE = 0.5;
/** How much of a stdio server's stderr is kept (a ring: older bytes go). */
export const STDERR_TAIL_BYTES = 16 * 1024;
/** The longest name a model sees (a tool alias: OpenAI, Anthropic and Gemini take 64), and each part of a reference or a server's name. */
export const MAX_NAME_LENGTH = 64;
/** The longest tool name MCP recommends (1–128 characters); also how much of a server's name our messages quote. */
export const MAX_TOOL_NAME_LENGTH = 128;
/** How much of a handler's unexpected error text a kit server writes to its stderr. */
export const MAX_HANDLER_ERROR_TEXT = 500;
/** The largest registry document (an MCP config, an agent) written by default. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024;
/** The largest audit event kept. */
export const MAX_AUDIT_EVENT_BYTES = 1024 * 1024;
/** The largest file the CLI reads as input (a document, arguments). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** The largest small state file read: an `envFile`, the CLI's probe notes, a token file. */
export const MAX_STATE_FILE_BYTES = 1024 * 1024;
/** The longest header value of a remote config. */
export const MAX_HEADER_VALUE = 8192;
/** The most the Mcp-Param headers of one call may weigh together (SEP-2243; HTTP servers refuse ~16 KiB of headers with 431). */
export const MAX_PARAM_HEADERS_BYTES = 8 * 1024;
/** How many used kit request states a process remembers (each is refused again until it expires; the oldest goes first). */
export const MAX_USED_REQUEST_STATES = 10_000;
/** The longest a kit request state may live, in seconds (`requestStateTtlSeconds`): one day. */
export const MAX_REQUEST_STATE_TTL_SECONDS = 24 * 60 * 60;
/** The longest `requestState` a 2026-07-28 server may ask the client to echo (it is sent back on every retry). */
export const MAX_REQUEST_STATE_BYTES = 64 * 1024;
/** The most rounds of questions one call goes through (answered inline or by the host), the SDK's own default bound. */
export const MAX_INPUT_ROUNDS = 10;
/** The most questions one round of a 2026-07-28 server may ask (inline or deferred: one bound for both). */
export const MAX_INPUT_REQUESTS = 32;
/** The most a host's answers to one round may weigh, as JSON (each is sent back to the server with the retry). */
export const MAX_INPUT_ANSWERS_BYTES = 1024 * 1024;
/** How much of a server's own error text is kept (escaped, masked). */
export const MAX_SERVER_TEXT = 500;

/** How many skills one server's listing may bring (the rest are left out with a notice). */
export const MAX_SERVER_SKILLS = 1000;
/** How many files a registry skill holds at most (the MCP Skills extension's own per-skill limit is 512). */
export const MAX_SKILL_FILES = 512;
/** The longest path of a file inside a skill. */
export const MAX_SKILL_PATH_LENGTH = 255;
/** How deep the folders of a skill go. */
export const MAX_SKILL_PATH_DEPTH = 8;
/** The longest skill description (the Agent Skills frontmatter bound): also how much of one a system prompt is given (renderSkills). */
export const MAX_SKILL_DESCRIPTION = 1024;
/** The largest skill file `skill_read` reads and returns (a larger one is a readable refusal, never fetched). */
export const MAX_SKILL_READ_BYTES = 256 * 1024;

/** The longest a 2026-07-28 list may be reused (a server's `ttlMs` beyond it is cut to it). */
export const MAX_LIST_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a deferred call waits for `run.decide` by default. */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;
/** How long past its call timeout a decided call's lease lasts before its host is taken as dead (run.recover, E8): the default `inFlightLeaseMs` is the call timeout plus this. */
export const LEASE_GRACE_MS = 60_000;
/** How long a decided call's result stays in the run record by default (`decidedRetentionMs`): 15 minutes. */
export const DEFAULT_DECIDED_RETENTION_MS = 15 * 60_000;
/** The most decided results a run record keeps (the newest). */
export const MAX_DECIDED_KEPT = 100;
/** How often the end of decided calls is merged into a run other hosts keep writing before revision_conflict. */
export const MAX_MERGE_ATTEMPTS = 20;
/** How long a legacy era verdict is trusted by default. */
export const DEFAULT_LEGACY_VERDICT_MS = 24 * 60 * 60 * 1000;

/** The longest a task (a tool run as a task, either era) is waited for in all, unless the call's maxTotalMs says otherwise. */
export const DEFAULT_TASK_TOTAL_MS = 30 * 60_000;
/**
 * The poll interval a server may ask of a client waiting on its task, at least and at most (clamped). The floor is
 * low enough for a server's quick first looks (a kit paces a young task at half its age, issue 64) and still no busy
 * loop: at most 50 looks a second for one task, each bounded by the call's deadline.
 */
export const MIN_TASK_POLL_MS = 20;
export const MAX_TASK_POLL_MS = 5_000;
/** How often a task is polled when its server names no interval. */
export const DEFAULT_TASK_POLL_MS = 1_000;
/** How often a kit server reads its store for a task another process runs (shared by every request waiting on it), at least. */
export const MIN_TASK_STORE_READ_MS = 100;
/** The longest a kit server keeps a task and its result (its `ttlMs` option, or a client's asked TTL, is cut to it). */
export const MAX_TASK_TTL_MS = 7 * 24 * 60 * 60_000;
/** How many tasks one caller may have running at once on a kit server by default (its `tasks.maxRunningPerCaller`). */
export const DEFAULT_MAX_RUNNING_TASKS_PER_CALLER = 100;
/** How many tasks a kit server runs at once by default, all callers together (its `tasks.maxRunning`). */
export const DEFAULT_MAX_RUNNING_TASKS = 1_000;
/**
 * The most a kit server's memory task store holds, in characters of its records' JSON (results included): past it the
 * oldest ended tasks go first, and a record larger than all of it is refused (its task ends failed, not kept).
 */
export const MAX_MEMORY_TASK_CHARS = 64 * 1024 * 1024;
/**
 * The longest TTL a client takes from a server's task (`ttl`/`ttlMs`), cut to it before any date is made of it:
 * a longer one — even one past the last date JavaScript can hold — waits no longer than this (a call that waits on
 * its task waits its TTL, or approvalTtlMs when longer). Cut, not refused: the task itself may be good.
 */
export const MAX_SERVER_TASK_TTL_MS = MAX_TASK_TTL_MS;
/**
 * How long a client waits for a server to confirm a tasks/cancel: the call ends cancelled either way (cancelling is
 * cooperative), so a server that never answers must not hold the caller — inline (a call that gave up on its task)
 * or `run.cancel` of a deferred one.
 */
export const TASK_CANCEL_TIMEOUT_MS = 2_000;
/** The longest task id a client takes from a server (it is sent back with every request about the task). */
export const MAX_TASK_ID_LENGTH = 256;
/** How long each call of a contract check (`checkServer`, `agt mcp check`) may take by default. */
export const DEFAULT_CHECK_CALL_MS = 10_000;
/** McpPool: connections kept open at most, a breaker's cool-down, and how long close() lets calls in flight finish. */
export const DEFAULT_POOL_MAX_CONNECTIONS = 64;
export const DEFAULT_POOL_COOL_DOWN_MS = 30_000;
export const DEFAULT_POOL_DRAIN_MS = 10_000;
/**
 * How long a PostgreSQL store waits for a pooled connection by default (`acquireTimeoutMs`) before the call ends
 * store_unavailable (reason pool_timeout): a watch or a busy host holding every connection never stalls a write for good.
 */
export const DEFAULT_PG_ACQUIRE_TIMEOUT_MS = 30_000;
/** The rule of `acquireTimeoutMs`: a whole number of milliseconds, 1 ms to 10 minutes. */
export const PG_ACQUIRE_MS_RULE: MsRule = { whole: true, min: 1, max: 600_000 };
/**
 * A PostgresRunStore watch whose connection is lost reconnects after a backoff (E8): the first wait about
 * PG_WATCH_RETRY_FIRST_MS, each next one doubled up to PG_WATCH_RETRY_MAX_MS, every wait jittered down to half of it
 * (so a fleet that lost its database together does not come back in one burst), until it listens again or is stopped.
 */
export const PG_WATCH_RETRY_FIRST_MS = 100;
export const PG_WATCH_RETRY_MAX_MS = 30_000;
/**
 * How often a watch asks its connection for an answer by default (`watchHeartbeatMs`): a network cut sends no
 * 'error' or 'end', so a heartbeat unanswered by the next one ends the connection, and the watch reconnects.
 */
export const DEFAULT_PG_WATCH_HEARTBEAT_MS = 30_000;
/** The rule of `watchHeartbeatMs`: a whole number of milliseconds, 100 ms to 10 minutes. */
export const PG_WATCH_HEARTBEAT_MS_RULE: MsRule = { whole: true, min: 100, max: 600_000 };
/**
 * The most bytes (UTF-8) of a stored run's id, and of its agent (E8): PostgreSQL indexes a row's agent and run id
 * together only up to ~2.7 kB, so a longer one would fail on one store and work on another; every RunStore refuses it.
 */
export const MAX_RUN_ID_BYTES = 1024;

/** How much of an error cause's message an AgtError keeps (masked; the rest is cut with "…"). */
export const MAX_CAUSE_TEXT = 2000;
/** How many causes deep an AgtError's kept cause chain goes. */
export const MAX_CAUSE_DEPTH = 4;
/** How deep a JSONC text (an MCP config, a host's settings file) may nest before it is refused, unparsed. */
export const MAX_JSONC_DEPTH = 512;
/** How many compiled schemas a ToolSchemaRegistry keeps by default (`maxCached`; the least recently used go). */
export const DEFAULT_SCHEMA_CACHE_SIZE = 1000;
/** How many times ResourceService.write tries its compare-and-set by default (`maxAttempts`) before revision_conflict. */
export const DEFAULT_WRITE_ATTEMPTS = 200;
/** withRevision by default: attempts, the first backoff (doubled each time, jittered) and the longest wait between attempts. */
export const DEFAULT_REVISION_ATTEMPTS = 50;
export const DEFAULT_REVISION_BACKOFF_MS = 5;
export const DEFAULT_REVISION_MAX_DELAY_MS = 250;

/** A run's limits by default (`limits`, RunLimits): calls in one batch, one call's arguments as JSON, one result's content. */
export const DEFAULT_MAX_BATCH_CALLS = 512;
export const DEFAULT_MAX_ARGUMENT_BYTES = 1024 * 1024;
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
/** How many calls of one batch a run runs at once by default (`concurrency`). */
export const DEFAULT_RUN_CONCURRENCY = 4;
/** The most runs one `RunStore.list` returns when it is given a limit (`limit`: 1 … this). */
export const MAX_RUN_LIST_LIMIT = 10_000;
/** The most bytes of JSON a RunStore watch's announcement carries (PostgreSQL's NOTIFY payload is under 8,000 bytes). */
export const MAX_ANNOUNCEMENT_BYTES = 7_000;
/** Tool search: the tools found by default, the most ToolIndex.search returns, and the most the model's tool_search may ask. */
export const DEFAULT_TOOL_SEARCH_HITS = 5;
export const MAX_TOOL_SEARCH_HITS = 50;
export const MAX_TOOL_SEARCH_TOOL_HITS = 20;
/** The longest query the model's tool_search takes. */
export const MAX_TOOL_SEARCH_QUERY = 500;
/** The longest text tool search reads from one field of a tool (server data: bounded before anything runs on it). */
export const MAX_TOOL_FIELD_CHARS = 600;

/** A connection's time limits by default (`timeouts`, Timeouts): spawn, handshake, all pages of a list, each close grace, a call. */
export const DEFAULT_SPAWN_MS = 5_000;
export const DEFAULT_HANDSHAKE_MS = 10_000;
export const DEFAULT_LIST_MS = 10_000;
export const DEFAULT_CLOSE_GRACE_MS = 1_000;
export const DEFAULT_CALL_MS = 60_000;
/** How many pages one list of a server may take (more is protocol_error, reason too_many_pages: a server that pages forever). */
export const MAX_LIST_PAGES = 1000;
/** How many different warnings a connection's skill listings give (each told once; the rest are left out). */
export const MAX_SKILL_WARNINGS = 20;
/** The most completion values a server's answer gives (MCP's own bound). */
export const MAX_COMPLETIONS = 100;
/** How long an OAuth login waits for the browser's callback by default (`timeoutMs`, `agt mcp login --timeout`). */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;
/** McpPool by default: how long an unused connection stays open (`idleMs`), and its breaker's failures and first backoff. */
export const DEFAULT_POOL_IDLE_MS = 300_000;
export const DEFAULT_POOL_BREAKER_FAILURES = 3;
export const DEFAULT_POOL_BACKOFF_MS = 100;

/** A kit server's tasks by default: how long one and its result are kept (`tasks.ttlMs`), the poll interval it suggests. */
export const DEFAULT_SERVED_TASK_TTL_MS = 60 * 60_000;
export const DEFAULT_SERVED_TASK_POLL_MS = 500;
/**
 * How long a kit server waits for a task's handler before answering a 2026-07-28 `tools/call` with its task
 * (`tasks.graceMs`): one that ends within it answers with its result, as a plain call. Default and most.
 */
export const DEFAULT_TASK_GRACE_MS = 50;
export const MAX_TASK_GRACE_MS = 1_000;
/** The shortest poll interval a kit server asks of a client for a young task (paced by its age, issue 64). */
export const MIN_PACED_POLL_MS = 20;
/** The longest statusMessage a kit task's handler sets (`status(message)`: the rest is cut). */
export const MAX_TASK_STATUS_MESSAGE = 500;
/** The most tasks a kit server's memory task store keeps; beyond it the oldest ended ones go first. */
export const MAX_MEMORY_TASKS = 10_000;
/** The most tasks a SQLite task store's `list` returns (the newest). */
export const MAX_LISTED_TASKS = 1000;
/** How long a kit server's lists may be reused by default (DEFAULT_CACHE_HINT's `ttlMs`). */
export const DEFAULT_LIST_CACHE_TTL_MS = 60_000;
/** How long a kit server's request state lives by default, in seconds (`requestStateTtlSeconds`). */
export const DEFAULT_REQUEST_STATE_TTL_SECONDS = 600;
/** serveHttp by default: sessions at once (`maxSessions`), events kept for resumption and the reconnect delay (`resumable`). */
export const DEFAULT_MAX_HTTP_SESSIONS = 1000;
export const DEFAULT_RESUMABLE_EVENTS = 10_000;
export const DEFAULT_RESUMABLE_RETRY_MS = 1000;

/** How long a SQLite store waits for another process's lock by default (`busyTimeoutMs`). */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;
/** How many connections a PostgreSQL store's own pool opens at most by default (`max`). */
export const DEFAULT_PG_POOL_SIZE = 10;
/** How many servers `agt mcp list --probe` starts at once by default. */
export const DEFAULT_PROBE_CONCURRENCY = 8;

/** A rule for a time: at least `min` (default: more than 0), at most `max`, a whole number when `whole`. */
export interface MsRule {
  min?: number;
  max?: number;
  whole?: boolean;
}

/** The rule of a handshake timeout, in a config (`handshakeTimeoutMs`) and in ConnectSettings (`timeouts.handshakeMs`) alike. */
export const HANDSHAKE_MS_RULE: MsRule = { whole: true, min: 1, max: 600_000 };

/** What is wrong with `value` as a time of `rule` ("must be …"), or undefined when it is one. */
export function msProblem(value: unknown, rule: MsRule = {}): string | undefined {
  const { min, max, whole = false } = rule;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (min === undefined ? value > 0 : value >= min) &&
    (max === undefined || value <= max) &&
    (!whole || Number.isInteger(value));
  if (ok) return undefined;
  const kind = `${whole ? 'whole ' : ''}number of milliseconds`;
  if (min !== undefined && max !== undefined) return `must be a ${kind} between ${min} and ${max}`;
  if (min !== undefined) return `must be a ${kind}, at least ${min}`;
  return `must be a positive ${kind}${max === undefined ? '' : `, at most ${max}`}`;
}
/** MCP Apps: the longest `ui://` resource URI a tool may name. */
export const MAX_APP_URI_LENGTH = 2048;
/** MCP Apps: the largest interface (HTML) read from a server. */
export const MAX_APP_HTML_BYTES = 2 * 1024 * 1024;
/** MCP Apps: the most domains one CSP field may list. */
export const MAX_APP_CSP_DOMAINS = 32;
/** MCP Apps: the most bytes of model context one app keeps (`ui/update-model-context`, U5). */
export const MAX_APP_CONTEXT_BYTES = 16 * 1024;

/** B8: the tokens of one result a model is given by default (as Claude Code caps an MCP result). */
export const DEFAULT_RESULT_BUDGET_TOKENS = 25_000;
/** B8: the most tokens a result budget may be (`resultBudget.tokens`, `agt mcp call --budget`). */
export const MAX_RESULT_BUDGET_TOKENS = 10_000_000;
/** B8: the bytes of cut results a run keeps for result_read by default (the oldest dropped first). */
export const DEFAULT_KEPT_RESULT_BYTES = 16 * 1024 * 1024;
/** The most a run's `resultBudget.keptBytes` may be: 1 GiB. */
export const MAX_KEPT_RESULT_BYTES = 1024 * 1024 * 1024;
/** B8: the bounds of a token counter's characters per token (a counter answering beyond them is taken at the bound). */
export const MIN_CHARS_PER_TOKEN = 0.25;
export const MAX_CHARS_PER_TOKEN = 64;
/** B8: the longest call id whose result is kept (and that result_read takes). */
export const MAX_KEPT_CALL_ID = 512;
