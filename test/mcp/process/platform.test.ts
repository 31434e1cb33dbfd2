/**
 * The platform seam, tested on Linux: Windows command lines compared with what cross-spawn
 * (the SDK's stdio transport's spawner) builds, Windows path rules (R3, P1), the macOS `ps` parser on
 * recorded output (the macOS platform run for real: platform-processes.test.ts). The Linux paths themselves run in
 * every process test of the suite.
 */
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf, parsePsTable } from '../../../src/mcp/process/platform/darwin.js';
import { DARWIN, LINUX, processPlatform, WIN32, windowsDefaultEnvironment } from '../../../src/mcp/process/platform/index.js';
import { taskkillTree, windowsSpawn } from '../../../src/mcp/process/platform/win32.js';
import { findInPath, POSIX_PATHS, WIN32_PATHS } from '../../../src/config/host-paths.js';
import { launchProblems } from '../../../src/config/launch-rules.js';

type CrossSpawnParse = (
  command: string,
  args: string[],
  options: object,
) => { command: string; args: string[]; options: { windowsVerbatimArguments?: boolean } };
let crossSpawnWindows: CrossSpawnParse;
beforeAll(() => {
  // cross-spawn decides "Windows" when its modules load: load a fresh copy while process.platform says win32.
  const require = createRequire(import.meta.url);
  const real = Object.getOwnPropertyDescriptor(process, 'platform') as PropertyDescriptor;
  const comspec = process.env.comspec;
  delete process.env.comspec;
  for (const key of Object.keys(require.cache)) if (/[\\/](cross-spawn|which|isexe|path-key)[\\/]/.test(key)) delete require.cache[key];
  Object.defineProperty(process, 'platform', { value: 'win32' });
  try {
    crossSpawnWindows = require('cross-spawn/lib/parse.js') as CrossSpawnParse;
  } finally {
    Object.defineProperty(process, 'platform', real);
    if (comspec !== undefined) process.env.comspec = comspec;
  }
  for (const key of Object.keys(require.cache)) if (/[\\/](cross-spawn|which|isexe|path-key)[\\/]/.test(key)) delete require.cache[key];
});

// Twenty argument sets a shell would get wrong: spaces, quotes, backslashes before quotes, cmd.exe metacharacters, %VAR%.
const TRICKY: string[][] = [
  ['-y', '@modelcontextprotocol/server-filesystem', 'C:\\Users\\Ann Smith\\Documents'],
  ['say "hello"'],
  ['trailing backslash\\'],
  ['C:\\path with space\\'],
  ['a\\\\"b'],
  ['ampersand & echo pwned'],
  ['pipe | more'],
  ['caret ^ and ^^'],
  ['%PATH%', '%USERPROFILE%\\x', '100%'],
  ['<in', '>out', '2>&1'],
  ['(paren)', '[bracket]', '{brace}'],
  ['!bang!', '`tick`', ';semi', ',comma'],
  ['*.txt', '?.md'],
  [''],
  ['"'],
  ['\\"\\'],
  ['ünïcode ✓', '日本語'],
  ['--header=Authorization: Bearer ${TOKEN}'],
  ['=equals=', 'tab\there'],
  ['mixed "quotes" & %vars% ^ | \\end\\'],
];

describe('Windows command lines (through the seam)', () => {
  it('R6: a .cmd shim (npx) runs through cmd.exe with every argument quoted as cross-spawn quotes it', () => {
    const npx = 'C:\\Program Files\\nodejs\\npx.cmd';
    for (const args of TRICKY) {
      const ours = windowsSpawn(npx, args);
      const theirs = crossSpawnWindows(npx, args, {});
      expect({ command: ours.command, args: ours.args, verbatim: ours.windowsVerbatimArguments }).toEqual({
        command: theirs.command,
        args: theirs.args,
        verbatim: theirs.options.windowsVerbatimArguments,
      });
    }
  });

  it('R6: a program that is not a batch file (a script by association) gets ^ escapes, as cross-spawn gives it', () => {
    const script = 'C:\\tools\\server.py';
    for (const args of TRICKY) expect(windowsSpawn(script, args).args).toEqual(crossSpawnWindows(script, args, {}).args);
  });

  it('R6: an .exe is spawned directly, its arguments left to node; a line break is refused, never interpreted', () => {
    expect(windowsSpawn('C:\\Program Files\\nodejs\\node.exe', ['a & b'])).toEqual({
      command: 'C:\\Program Files\\nodejs\\node.exe',
      args: ['a & b'],
      windowsVerbatimArguments: false,
    });
    expect(() => windowsSpawn('C:\\x\\npx.cmd', ['line\r\ncalc.exe'])).toThrow(/line break/);
    expect(taskkillTree(4242)).toEqual({ command: 'taskkill', args: ['/T', '/F', '/PID', '4242'] });
  });
});

describe('Windows path rules (through the seam)', () => {
  const stdio = (cwd: string, command = 'npx') => ({ command, cwd });
  it('R3: C:\\ and UNC paths are absolute; relative, drive-relative, root-relative and \\\\?\\ paths get the R3 message', () => {
    for (const cwd of ['C:\\srv\\mcp', 'd:/work', '\\\\server\\share\\mcp'])
      expect(launchProblems(stdio(cwd), 'config', { rules: WIN32_PATHS })).toEqual([]);
    for (const cwd of ['srv\\mcp', 'C:foo', '\\srv\\mcp', '\\\\?\\C:\\srv', '\\\\.\\pipe\\x', '/srv/mcp']) {
      expect(launchProblems(stdio(cwd), 'config', { rules: WIN32_PATHS })).toEqual([
        { field: 'config.cwd', message: '"cwd" must be an absolute path', fix: 'replace "cwd" with the absolute path of that directory' },
      ]);
    }
    // The same config on POSIX: the message is the same one.
    expect(launchProblems(stdio('srv/mcp'), 'config', { rules: POSIX_PATHS })[0]?.message).toBe('"cwd" must be an absolute path');
  });

  it('R3: a command is a bare name or an absolute path on Windows too; C:tool is neither', () => {
    expect(launchProblems(stdio('C:\\srv', 'C:\\Program Files\\nodejs\\node.exe'), 'config', { rules: WIN32_PATHS })).toEqual([]);
    expect(launchProblems(stdio('C:\\srv', 'bin\\server.exe'), 'config', { rules: WIN32_PATHS })[0]?.field).toBe('config.command');
    expect(launchProblems(stdio('C:\\srv', 'C:tool.exe'), 'config', { rules: WIN32_PATHS })[0]?.field).toBe('config.command');
  });

  it('P1: PATH lookup tries PATHEXT, so npx is found as npx.cmd (as a static check would find it)', () => {
    const files = ['C:\\Program Files\\nodejs\\npx.cmd', 'C:\\Python\\python.exe', 'C:\\tools\\uvx.EXE'];
    // Windows file names are case-insensitive: the found path is the candidate tried (its PATHEXT casing).
    const isFile = (f: string) => files.some((x) => x.toLowerCase() === f.toLowerCase());
    const PATH = 'C:\\Windows\\system32;relative\\dir;C:\\Program Files\\nodejs;C:\\Python;C:\\tools';
    const find = (cmd: string, pathExt?: string) => findInPath(cmd, PATH, { rules: WIN32_PATHS, isFile, ...(pathExt ? { pathExt } : {}) });
    expect(find('npx')).toBe('C:\\Program Files\\nodejs\\npx.CMD');
    expect(find('npx.cmd')).toBe('C:\\Program Files\\nodejs\\npx.cmd');
    expect(find('python')).toBe('C:\\Python\\python.EXE');
    expect(find('uvx', '.EXE')).toBe('C:\\tools\\uvx.EXE');
    expect(find('npx', '.EXE')).toBeUndefined(); // a PATHEXT without .CMD does not run shims
    expect(find('missing')).toBeUndefined();
  });
});

describe('macOS process table (through the seam)', () => {
  // Recorded from `ps -A -o pid=,ppid=,pgid=,stat=` on macOS 14, trimmed; 4311 is the server (its own group).
  const RECORDED = `    1     0     1 Ss
  401     1   401 Ss
 4300   401  4300 S+
 4311  4300  4311 Ss
 4312  4311  4311 S
 4313  4312  4311 S
 4320  4313  4320 Ss
 4321  4311  4311 Z
 4330     1  4311 S
 garbage line
 4400   401  4400 R+
`;
  it("R5: the server's descendants by parent link and its group, zombies and unrelated processes left out", () => {
    const rows = parsePsTable(RECORDED);
    expect(rows.map((r) => r.pid)).toEqual([1, 401, 4300, 4311, 4312, 4313, 4320, 4330, 4400]);
    // 4320 left the group (setsid) but is a descendant; 4330 was orphaned (parent 1) but is still in the group.
    expect(descendantsOf(rows, 4311)).toEqual([4312, 4313, 4320, 4330]);
    expect(descendantsOf(rows, 9999)).toEqual([]);
  });
});

describe('the macOS platform, run for real on Linux (POSIX groups and ps, no /proc)', () => {
  it('R6: processPlatform picks the implementation by process.platform', () => {
    expect(processPlatform('linux')).toBe(LINUX);
    expect(processPlatform('darwin')).toBe(DARWIN);
    expect(processPlatform('freebsd')).toBe(DARWIN); // POSIX without /proc
    expect(processPlatform('win32')).toBe(WIN32);
    expect(WIN32.spawnTarget('C:\\nodejs\\npx.cmd', ['-y', 'pkg'], { ComSpec: 'C:\\Windows\\system32\\cmd.exe' })).toMatchObject({
      command: 'C:\\Windows\\system32\\cmd.exe',
      detached: false,
      windowsVerbatimArguments: true,
    });
  });
});

describe('the Windows environment (through the seam)', () => {
  it("R6: a server gets the SDK's Windows variables plus COMSPEC, PATHEXT and WINDIR, matched without case; nothing else", () => {
    const host = {
      Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs',
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
      ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      windir: 'C:\\Windows',
      USERPROFILE: 'C:\\Users\\ann',
      GITHUB_TOKEN: 'ghp_not_for_servers',
      TEMP: '() { :; }; echo pwned',
    };
    expect(windowsDefaultEnvironment(host)).toEqual({
      Path: host.Path,
      PATHEXT: host.PATHEXT,
      ComSpec: host.ComSpec,
      windir: host.windir,
      USERPROFILE: host.USERPROFILE,
    });
  });
});
