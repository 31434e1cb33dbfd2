#!/usr/bin/env node
// The `agt` bin: runs the command line of this process (src/cli/main.ts) and exits with its code.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
