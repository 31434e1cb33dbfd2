#!/usr/bin/env node
// The `agt` bin: runs the command line of this process (src/cli/main.ts) and exits with its code.
import { main } from './main.js';

// Node 22 marks node:sqlite, the CLI's store driver there, experimental and says so on every start;
// the CLI owns this process, so that one notice is dropped (Node 24 prints none). Other warnings pass.
const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
process.emitWarning = ((warning: unknown, ...rest: unknown[]) => {
  const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
  if (type === 'ExperimentalWarning' && /SQLite/.test(String(warning))) return;
  emitWarning(warning, ...rest);
}) as typeof process.emitWarning;

process.exitCode = await main(process.argv.slice(2));
