/**
 * What this machine lacks to run a sandboxed stdio server (P5), found without
 * starting anything: the OS (Linux or macOS), Node >= 22.12 (the sandbox
 * runtime's own floor), the optional `@anthropic-ai/sandbox-runtime` package
 * (resolved, not loaded) and, on Linux, `bwrap`, `socat` and `rg` in PATH
 * (looked up in PATH's folders, never run). The static test (P1) reports each
 * missing piece; the launcher refuses with `sandbox_unavailable` naming them.
 */
import { createRequire } from 'node:module';
import { findInPath } from './host-paths.js';

/** The sandbox runtime package (an optional peer: loaded only for a server that asks for a sandbox). */
export const SANDBOX_RUNTIME_PACKAGE = '@anthropic-ai/sandbox-runtime';
/** The oldest Node the sandbox runtime runs on. */
export const SANDBOX_MIN_NODE = '22.12.0';

/** What a machine check looks at; each defaults to this process's own (tests pass others in). */
export interface MachineFacts {
  platform?: NodeJS.Platform;
  /** A Node version like "22.12.0" (default: process.versions.node). */
  nodeVersion?: string;
  /** The PATH to look in (default: process.env.PATH). */
  pathValue?: string;
  /** True when the runtime package can be resolved (default: resolved from this module). */
  runtimeInstalled?: () => boolean;
}

/** One piece a sandbox needs that this machine lacks, and how to get it. */
export interface MissingPiece {
  /** A short name: "os", "node", the package name, "bwrap", "socat" or "rg". */
  piece: string;
  message: string;
  fix: string;
}

const LINUX_TOOLS: readonly { command: string; pkg: string; what: string }[] = [
  { command: 'bwrap', pkg: 'bubblewrap', what: 'bubblewrap (bwrap), the filesystem sandbox' },
  { command: 'socat', pkg: 'socat', what: 'socat, the bridge to the network proxy' },
  { command: 'rg', pkg: 'ripgrep', what: 'ripgrep (rg), used to find the files a rule covers' },
];

function runtimeResolvable(): boolean {
  try {
    createRequire(import.meta.url).resolve(SANDBOX_RUNTIME_PACKAGE);
    return true;
  } catch {
    return false;
  }
}

/** True when `version` (e.g. "22.12.0" or "v24.1.0") is at least `floor`. */
export function nodeAtLeast(version: string, floor: string = SANDBOX_MIN_NODE): boolean {
  const parts = (v: string) =>
    v
      .replace(/^v/, '')
      .split('.')
      .map((n) => Number.parseInt(n, 10) || 0);
  const [a, b] = [parts(version), parts(floor)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** Each piece this machine lacks to run a sandboxed server, with how to get it; empty when nothing is missing. */
export function missingSandboxPieces(facts: MachineFacts = {}): MissingPiece[] {
  const platform = facts.platform ?? process.platform;
  const nodeVersion = facts.nodeVersion ?? process.versions.node;
  if (platform !== 'linux' && platform !== 'darwin') {
    return [
      {
        piece: 'os',
        message: `the sandbox runs on Linux and macOS only; this machine is ${platform}`,
        fix: 'run this server on Linux or macOS, or remove "sandbox" from its config to run it unsandboxed (P3)',
      },
    ];
  }
  const missing: MissingPiece[] = [];
  if (!nodeAtLeast(nodeVersion))
    missing.push({
      piece: 'node',
      message: `the sandbox runtime needs Node >= ${SANDBOX_MIN_NODE}; this is Node ${nodeVersion}`,
      fix: `run the host on Node ${SANDBOX_MIN_NODE} or later (22 LTS or 24)`,
    });
  if (!(facts.runtimeInstalled ?? runtimeResolvable)())
    missing.push({
      piece: SANDBOX_RUNTIME_PACKAGE,
      message: `the package ${SANDBOX_RUNTIME_PACKAGE} is not installed`,
      fix: `npm install ${SANDBOX_RUNTIME_PACKAGE} (an optional peer of agt-mcp)`,
    });
  if (platform === 'linux') {
    const pathValue = facts.pathValue ?? process.env.PATH;
    for (const tool of LINUX_TOOLS) {
      if (findInPath(tool.command, pathValue) !== undefined) continue;
      missing.push({
        piece: tool.command,
        message: `${tool.what} is not in PATH`,
        fix: `install it: apt-get install ${tool.pkg} (Debian, Ubuntu), dnf install ${tool.pkg} (Fedora), apk add ${tool.pkg} (Alpine)`,
      });
    }
  }
  return missing;
}

/** What this machine lacks to run a sandboxed server, one line each ("bwrap: … ; install it: …"); empty when nothing. */
export function sandboxMissing(facts: MachineFacts = {}): string[] {
  return missingSandboxPieces(facts).map((p) => `${p.piece}: ${p.message}; ${p.fix}`);
}
