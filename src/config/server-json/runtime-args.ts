/**
 * What a server.json's `runtimeArguments` can do that its package cannot: they
 * go to the runtime before the package, so they can make `npx` or `uvx` run
 * another package than the one the registry checked (`npx other`, `uvx --from
 * git+…`, `npx -c 'cmd'`), and make `docker` hand the container this host
 * (`--privileged`, `-v /:/host`, `--env-file ~/.env`). They are written as the
 * file gives them, with a warning naming them (flags only, never values). So
 * are the environment variables the runtime itself reads: the config's env is
 * the runtime's (`NODE_OPTIONS`, `NPM_CONFIG_REGISTRY`, `UV_INDEX_URL`,
 * `DOCKER_HOST` choose what code it loads, from where).
 */
import { outsideText } from '../../outside-text.js';

// docker/podman run flags that give a container part of this host: its files, devices, namespaces, privileges.
const HOST_FLAGS = new Set([
  '--privileged',
  '-v',
  '--volume',
  '--mount',
  '--volumes-from',
  '--env-file',
  '--device',
  '--device-cgroup-rule',
  '--cap-add',
  '--security-opt',
  '--network',
  '--net',
  '--pid',
  '--ipc',
  '--uts',
  '--userns',
  '--cgroupns',
  '--cgroup-parent',
  '--group-add',
  '--gpus',
]);
// Variables that change how the runtime itself starts: what code it loads, from which registry or daemon.
const LOADER_VARIABLES = new Set([
  'NODE_OPTIONS',
  'NODE_PATH',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'BASH_ENV',
  'PATH',
]);
const RUNTIME_PREFIXES = /^(?:NPM_CONFIG_|BUN_|UV_|PIP_|DOCKER_|CONTAINERS_|CONTAINER_|NUGET_|DOTNET_)/i;

/** True for an environment variable the runtime (npx, uvx, docker, dnx) or its loader reads itself. */
export function changesRuntime(name: string): boolean {
  return LOADER_VARIABLES.has(name) || RUNTIME_PREFIXES.test(name);
}

// Runtime arguments of npx and dnx that change nothing about what runs.
const HARMLESS = new Set(['-y', '--yes']);

const flagOf = (arg: string): string => (arg.startsWith('--') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg);

function named(flags: string[]): string {
  const unique = [...new Set(flags)];
  const shown = unique.slice(0, 6).map((f) => outsideText(f, { max: 40 }));
  return `${shown.join(', ')}${unique.length > 6 ? ` and ${unique.length - 6} more` : ''}`;
}

/** The warnings about a package's runtime arguments (empty when they only say what agt says anyway). */
export function runtimeArgumentWarnings(command: string, runtimeArgs: readonly string[], field: string): string[] {
  if (command === 'docker' || command === 'podman') {
    // -v/-p style short flags may carry their value glued on (-v/:/host); a long one as --flag=value.
    const host = runtimeArgs
      .filter((a) => a.startsWith('-') && (HOST_FLAGS.has(flagOf(a)) || /^-v./.test(a)))
      .map((a) => (/^-v./.test(a) ? '-v' : flagOf(a)));
    return host.length > 0
      ? [
          `${field}: runs the container with ${named(host)}, which give it part of this host (files, devices, privileges); check them before the first launch`,
        ]
      : [];
  }
  const others = runtimeArgs.filter((a) => !HARMLESS.has(a));
  if (others.length === 0) return [];
  const flags = others.filter((a) => a.startsWith('-')).map(flagOf);
  const words = others.length - flags.length;
  const what = [flags.length > 0 ? named(flags) : '', words > 0 ? `${words} word${words === 1 ? '' : 's'}` : '']
    .filter((w) => w !== '')
    .join(' and ');
  return [
    `${field}: gives ${command} ${what} before the package, which can change what it runs (another package, a command); check them before the first launch`,
  ];
}
