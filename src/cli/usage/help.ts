/** The usage of every `agt` command: `agt --help`, `agt <group> --help`, `agt <group> <verb> --help`. */

const COMMANDS: Record<string, Record<string, string>> = {
  mcp: {
    create: `agt mcp create <ref> --command C [--arg A]… [--cwd DIR] [-e|--env K=V]… [--env-file FILE] [--timeout MS]
agt mcp add <ref> [--cwd DIR] [-e|--env K=V]… -- COMMAND [ARGS…]     (add is create; everything after -- is the command)
agt mcp create <ref> --url U [-H|--header "K: V"]… [--transport http|sse] [--timeout MS]
agt mcp create <ref> URL --transport http                          (as claude mcp add --transport http NAME URL)
agt mcp create <ref> --from FILE.json                              a { "mcpServers": { … } } document (JSONC allowed)
agt mcp add <ref> --sandbox [--allow-write PATH]… [--allow-domain DOMAIN]… -- COMMAND [ARGS…]
  Registers one server (alias: add). <ref> is category/name, or a bare name in the category "default".
  A stdio server without --cwd runs in the current folder (printed). Placeholders such as \${API_KEY},
  \${API_KEY:-default}, \${env:NAME}, \${input:id} and \${userHome} are stored as written and resolved when it starts.
  --sandbox runs a stdio server in a sandbox (Linux, macOS; docs/security.md): it writes only in its cwd and a
  private temp folder, reads all but ~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gcloud and .env files, has no network.
  --allow-write PATH (a folder it may also write) and --allow-domain DOMAIN (a host it may reach, *.example.com
  allowed) add to that and imply --sandbox. Where no sandbox can be given, the server does not start.`,
    'add-json': `agt mcp add-json <ref> JSON [--cwd DIR]
  Registers one server from its JSON config ('{"command": "npx", "args": ["-y", "pkg"]}' or '{"type": "http", "url": …}'),
  as claude mcp add-json does; a stdio server without "cwd" runs in the current folder (or --cwd DIR).`,
    update: `agt mcp update <ref> (the flags of create) [--unset-env K]… [--expected-revision N]
  Changes only what is given: --env/--header add or replace one entry, --unset-env removes one; a new command
  (-- COMMAND … or --command) or URL keeps the stored cwd, env, envFile, headers and timeout unless given again.
  With --expected-revision only if nobody changed it since.`,
    import: `agt mcp import FILE [--category C] [--cwd DIR] [--dry-run] [--update]
  Imports every server of a Claude Desktop / Claude Code / Cursor file or a VS Code mcp.json (JSONC,
  with its "inputs"). Entries already stored the same are "unchanged"; changed ones are replaced only with --update.
agt mcp import server.json [REF] [--package TYPE | --remote [--transport T]] [--cwd DIR] [--dry-run] [--update]
  A server as the MCP Registry publishes it: its first npm/PyPI/OCI/NuGet package (npx -y, uvx, docker run,
  dnx), or --package TYPE, or a remote (--remote); secrets and required values become \${input:…} variables.
  Saves configuration only: nothing is installed or started. REF defaults to imported/<its name>.`,
    test: `agt mcp test <ref> [--input id=VALUE]…
  Checks the config statically (cwd, command, PATH, envFile, placeholders, and for a "sandbox" what this
  machine lacks to give one: Node 22.12+, @anthropic-ai/sandbox-runtime, bwrap/socat/rg); starts nothing.`,
    probe: `agt mcp probe <ref> [--timeout MS] [--input id=VALUE]… [--sandbox]
  Starts or connects the server exactly as a run would (this runs its command on this host), lists and
  checks its tools, resources and prompts, then closes it. --timeout sets the handshake and listing limit.
  It declares MCP Apps: each tool's interface is listed (tool, ui:// URI, whether the model, the app or both call it).
  Inputs the config declares and that are not given are asked for on a terminal (passwords hidden).
  --sandbox probes a stdio server in a sandbox this once (its stored config with "sandbox": true added; nothing
  is written): try an untrusted server before giving it your files and network.`,
    call: `agt mcp call <ref> <tool> [--arg key=value]… [--args JSON | --args-file FILE] [--timeout MS] [--input id=VALUE]… [--answer KEY=JSON]… [--decline] [--detach] [--full | --budget TOKENS]
  Calls one tool the way a run does: the arguments are checked against the tool's inputSchema first (an
  invalid call is never sent: its issues are printed, exit 2), the structured result against its outputSchema.
  --arg values are JSON when they parse: n=3 is the number 3, s='"3"' the string "3", flag=true a boolean,
  tags='["a","b"]' a list; anything else (name=alice) is a string. --arg goes on top of --args / --args-file.
  Prints the text content, the structuredContent and the error of an isError result (exit 1). This runs the
  tool for real: a call can change the world. A question the server asks (elicitation) is asked on a terminal;
  without one (or with --json) the questions are printed, the call waits (exit 6), and the same command with
  --answer KEY=JSON for each question (or --decline) answers them and finishes the call. A tool the server
  runs as a task is waited for; with --detach its task id is printed and the command ends (agt mcp task).
  A result over the result budget (25,000 tokens, about 100,000 characters) is printed cut as a run gives it to
  the model, with a notice on stderr saying how much is shown; --full prints the whole, --budget TOKENS sets the
  budget (--json: the cut result with "cut": {keptChars, totalChars}).`,
    task: `agt mcp task get|result|cancel <ref> <taskId> [--timeout MS] [--input id=VALUE]…
  A task the server runs (agt mcp call --detach prints its id): get its status, its result once it ended
  (exit 6 while it still runs), or cancel it.`,
    read: `agt mcp read <ref> <uri> [--timeout MS] [--input id=VALUE]…
  Reads one resource (text printed; binary contents shown by type and size).`,
    app: `agt mcp app <ref> <tool> [--out FILE] [--timeout MS] [--input id=VALUE]…
  Reads a tool's interface (MCP Apps) as a host would before rendering it: the tool's _meta.ui.resourceUri, then
  that ui:// resource from the same server, its type (text/html;profile=mcp-app), size (2 MiB) and CSP domains and
  permissions checked. Prints its URI, size, digest, CSP domains and permissions, never the HTML; --out FILE writes
  the HTML (only once every check passed). A tool without an interface, or one refused, is exit 2; nothing is written.`,
    prompt: `agt mcp prompt <ref> <name> [--arg key=value]… [--timeout MS] [--input id=VALUE]…
  Gets one prompt as the server renders it with these arguments (strings, as written).`,
    resources: `agt mcp resources <ref> [--timeout MS] [--input id=VALUE]…
  Lists the resources and resource templates (every page).`,
    prompts: `agt mcp prompts <ref> [--timeout MS] [--input id=VALUE]…
  Lists the prompts and their arguments (an optional one is marked ?).`,
    ping: `agt mcp ping <ref> [--count N] [--timeout MS] [--input id=VALUE]…
  Connects, then measures the round trip of MCP ping (median of N).`,
    login: `agt mcp login <ref> [--scope S] [--no-browser] [--timeout MS] [--input id=VALUE]…
  Logs in to a remote server with OAuth (authorization code with PKCE, dynamic client registration where
  the server offers it): prints the URL to open (and opens a browser when there is one), waits on a loopback
  address for the redirect. The tokens go to a file of mode 0600 beside the store, never into the config;
  connections refresh them by themselves. --timeout: how long to wait for you (default 300000 ms).`,
    logout: `agt mcp logout <ref>
  Forgets the login of a server (its tokens and client registration).`,
    check: `agt mcp check <ref> [--all] [--dry-run] [--tool NAME]… [--timeout MS] [--input id=VALUE]…
  A contract check generated from the server's own schemas: for each tool, valid arguments guessed from its
  inputSchema (it must answer within the timeout, and its structuredContent match its outputSchema) and invalid
  ones (a required field missing, a wrong type, a bound crossed: it must refuse them, not crash or hang); after
  each tool the server must still answer a ping. Only tools annotated readOnlyHint: true are called unless --all
  is given: CALLS CAN CHANGE THE WORLD (a write tool would write). --dry-run prints the cases and calls nothing.`,
    list: `agt mcp list [--category C] [--probe] [--concurrency N]
  The registered servers, each with the state of its last probe and its login. --probe probes every server
  now, in parallel (--concurrency, default 8): ✓ connected with its tool count, ! connected with problems,
  ✗ failed with its code, ⊘ disabled ("disabled": true in its config); exit 1 when one failed.`,
    show: `agt mcp show <ref>
  The stored config (alias: get); env and header values are shown as *** unless --show-secrets; whether it is
  logged in (agt mcp login) and until when, never the token.`,
    delete: `agt mcp delete <ref> [--expected-revision N]
  Deletes a registered server (alias: remove).`,
  },
  agent: {
    create: `agt agent create <ref> [--name N] [--role manager|worker] [--kind native|harness] [--capability C]… [--mcp REF]… [--skill REF]…
                       [--model M] [--provider P] [--base-prompt T] [--disabled]`,
    update: `agt agent update <ref> [--add-mcp X]… [--remove-mcp Y]… [--add-skill S]… [--remove-skill S]… [--expected-revision N]
                       [--name N] [--enable|--disable]`,
    show: `agt agent show <ref>
  Identity, enabled, kind, role, capabilities, model and the mounts resolved.`,
    'mcp-list': `agt agent mcp-list <ref>
  The agent's mounts, each resolved (exists, transport, problems).`,
  },
  skill: {
    import: `agt skill import <dir> [REF]
  Registers the Agent Skill in <dir> (its SKILL.md and files; text only; a symbolic link out of the folder is refused)
  as REF (default skills/<name>); importing again updates it.`,
    show: `agt skill show <REF>
  The skill's name, description and files (sizes; --json: with sha256 digests).`,
    export: `agt skill export <REF> <dir>
  Writes the skill's files into <dir> (new or empty).`,
  },
  completion: {
    bash: `agt completion bash
  A bash completion script: source <(agt completion bash), or save it in ~/.local/share/bash-completion/completions/agt.`,
    zsh: `agt completion zsh
  A zsh completion script: agt completion zsh > "\${fpath[1]}/_agt" (or source <(agt completion zsh) in ~/.zshrc).`,
    fish: `agt completion fish
  A fish completion script: agt completion fish > ~/.config/fish/completions/agt.fish.`,
  },
};

/** The groups and verbs, and the flags each verb's usage names (shell completion). */
export function commandFlags(): Record<string, Record<string, string[]>> {
  return Object.fromEntries(
    Object.entries(COMMANDS).map(([group, verbs]) => [
      group,
      Object.fromEntries(Object.entries(verbs).map(([verb, text]) => [verb, [...new Set(text.match(/--[a-z][a-z-]*/g) ?? [])]])),
    ]),
  );
}

/** `claude mcp` habits: the verbs they use for ours. */
export const ALIASES: Record<string, Record<string, string>> = { mcp: { add: 'create', get: 'show', remove: 'delete' } };

const FOOTER = `Every command: --json (machine output), --store PATH (default $AGT_HOME/agt.db, else ~/.agt/agt.db), --debug,
--show-secrets (print env and header values; otherwise they are shown as ***), --help.
Exit codes: 0 ok, 1 a check or probe failed, 2 usage or invalid input, 3 not found / exists / revision conflict,
4 the server could not be started or reached, 5 the store is unavailable, 6 the call waits for answers (--answer).`;

/** The usage text of everything, a group, or one verb (aliases resolved); undefined for an unknown one. */
export function usage(group?: string, verb?: string): string | undefined {
  if (group === undefined) {
    // Every form of every verb (its unindented lines; the indented ones explain it in `agt <group> <verb> --help`).
    return `agt — register, test, probe and assemble MCP servers\n\n${Object.values(COMMANDS)
      .flatMap((verbs) => Object.values(verbs).flatMap((u) => u.split('\n').filter((line) => !line.startsWith(' '))))
      .join('\n')}\n\n${FOOTER}`;
  }
  const verbs = COMMANDS[group];
  if (verbs === undefined) return undefined;
  if (verb === undefined) return `${Object.values(verbs).join('\n\n')}\n\n${FOOTER}`;
  const text = verbs[ALIASES[group]?.[verb] ?? verb];
  return text === undefined ? undefined : `${text}\n\n${FOOTER}`;
}

/** The verbs of a group, for error messages. */
export function verbs(group: string): string[] {
  return [...Object.keys(COMMANDS[group] ?? {}), ...Object.keys(ALIASES[group] ?? {})];
}
