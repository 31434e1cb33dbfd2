/**
 * A stdio server's launch inside the sandbox (P5): the same launch spec a run
 * and a probe build (R3–R6), wrapped by the sandbox runtime — bubblewrap with
 * its own PID namespace, `--die-with-parent` and the network behind the
 * runtime's proxy on Linux, `sandbox-exec` on macOS. The command and every
 * argument are single-quoted words of the line the runtime wraps (no
 * argument is shell syntax); the environment, cwd and stdio are the spec's.
 * The wrapper itself runs on the host's PATH (the runtime starts `bwrap`
 * through it), and the server gets its own PATH back.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ResolvedSandbox, resolveSandbox, wantsSandbox } from '../../../config/sandbox.js';
import type { LaunchSpec } from '../launch.js';
import { isAgtError } from '../../../errors.js';
import { assertCanSandbox, holdSandbox, unavailable } from './host.js';
import { holdNetwork } from './network.js';
import { execLine } from './quote.js';

/** What a sandboxed server holds while it runs. */
export interface SandboxLease {
  /** The rules it runs under. */
  readonly rules: ResolvedSandbox;
  /** The runtime's note of what it denied this server (empty when nothing), for the stderr tail. */
  notes(): string;
  /** Gives the host, the network rules and the private temp folder back once the server has ended; idempotent. */
  release(): Promise<void>;
}

/** The rules of a config's sandbox at launch: the server's home and the host's both keep their secret places. */
export function launchRules(config: { sandbox?: unknown }, spec: LaunchSpec, tmpDir: string): ResolvedSandbox | undefined {
  // An empty or relative HOME (the server's, from its env) is taken as the shell would: relative to its cwd.
  const given = spec.env.HOME;
  const home = given === undefined || given === '' ? os.homedir() : path.resolve(spec.cwd, given);
  const rules = resolveSandbox({ sandbox: config.sandbox, cwd: spec.cwd }, home, tmpDir);
  if (rules === undefined || home === os.homedir()) return rules;
  const host = resolveSandbox({ sandbox: config.sandbox, cwd: spec.cwd }, os.homedir(), tmpDir) as ResolvedSandbox;
  const denyRead = [...new Set([...rules.filesystem.denyRead, ...host.filesystem.denyRead])];
  return { ...rules, filesystem: { ...rules.filesystem, denyRead } };
}

/**
 * The spec that starts `spec` sandboxed and its lease, or undefined when the config asks for no sandbox.
 * Throws invalid_config (Node too old, a malformed sandbox) or sandbox_unavailable (what is missing) before anything starts.
 */
export async function sandboxLaunch(
  config: { sandbox?: unknown },
  spec: LaunchSpec,
): Promise<{ spec: LaunchSpec; lease: SandboxLease } | undefined> {
  if (!wantsSandbox(config)) return undefined;
  assertCanSandbox();
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-sandbox-'));
  const removeTmp = () => fs.rmSync(tmpDir, { recursive: true, force: true });
  let rules: ResolvedSandbox;
  try {
    rules = launchRules(config, spec, tmpDir) as ResolvedSandbox;
  } catch (error) {
    removeTmp();
    throw error;
  }
  const hold = await holdSandbox().catch((error: unknown) => {
    removeTmp();
    throw error;
  });
  // Unguessable (the runtime binds a connection to a server's allow list by it): 128 random bits.
  const commandId = randomBytes(16).toString('base64url');
  const releaseNetwork = holdNetwork(hold.manager, commandId, rules.network);
  let released: Promise<void> | undefined;
  let kept: string | undefined; // the notes as they were at release (a reset forgets them)
  const notes = () => kept ?? hold.manager.annotateStderrWithSandboxFailures(commandId, '');
  const lease: SandboxLease = {
    rules,
    notes,
    release: () =>
      (released ??= (async () => {
        kept = notes();
        releaseNetwork();
        removeTmp();
        await hold.release();
      })()),
  };
  try {
    const { filesystem, network } = rules;
    // The server's temp folder is its private one (writable), unless its own env names another.
    const line = execLine(spec.command, spec.args, spec.env.PATH, { TMPDIR: spec.env.TMPDIR ?? tmpDir });
    const { argv } = await hold.manager.wrapWithSandboxArgv(
      line,
      undefined,
      { filesystem, network: { allowedDomains: network.allowedDomains, deniedDomains: network.deniedDomains } },
      undefined,
      spec.cwd,
      { commandId, commandText: path.basename(spec.command) },
    );
    const [command, ...args] = argv;
    if (command === undefined) throw new Error('the sandbox runtime gave no command');
    const env = { ...spec.env, PATH: process.env.PATH ?? spec.env.PATH ?? '' };
    return { spec: { command, args, cwd: spec.cwd, env }, lease };
  } catch (error) {
    await lease.release();
    if (isAgtError(error)) throw error;
    const reason = error instanceof Error ? error.name : 'error';
    throw unavailable(['sandbox-wrap'], [`the sandbox runtime could not wrap the server (${reason})`]);
  }
}
