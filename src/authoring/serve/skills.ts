/**
 * Skills a kit server serves (the MCP Skills extension, SEP-2640), through the
 * SDK's SkillsExtension: a folder of skill folders (read with the SDK's
 * nodeSkillFiles, which skips a skill holding a symlink) or any SkillFiles
 * adapter. The catalog is loaded once per source in a process (every
 * instance of the server shares it, as serveHttp builds one per request) and
 * attached to each SDK server the kit builds; `reload()` scans the source
 * again and tells connected clients when the list changed.
 */
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension, type SkillCatalog, type SkillCatalogChanges, type SkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { nodeSkillFiles } from '@modelcontextprotocol/server/ext/skills/node';
import type { CacheHint } from '@modelcontextprotocol/server';
import { AgtError } from '../../errors.js';

/** Where a kit server's skills come from: a folder of skill folders, or a SkillFiles adapter (memorySkillFiles, your own). */
export type KitSkillSource = string | SkillFiles;

/** The skills of one source, loaded once per process. */
export interface KitSkills {
  /** Resolves when the catalog is loaded; rejects with invalid_input when the source cannot be read. */
  readonly ready: Promise<SkillCatalog>;
  /** Serves the loaded catalog on `mcp` (before it connects); throws when not loaded yet. */
  attach(mcp: McpServer): void;
  /** Scans the source again; connected clients are told when the list changed. */
  reload(): Promise<SkillCatalogChanges>;
}

const byFolder = new Map<string, KitSkills>();
const byAdapter = new WeakMap<SkillFiles, KitSkills>();

/** The process-wide skills of `source` (the first caller's cache hint holds). */
export function kitSkillsFor(source: KitSkillSource, cacheHint: CacheHint): KitSkills {
  if (typeof source === 'string') {
    const root = path.resolve(source);
    let skills = byFolder.get(root);
    if (skills === undefined) {
      byFolder.set(root, (skills = loaded(nodeSkillFiles(root), cacheHint, root)));
      const failed = skills;
      failed.ready.catch(() => byFolder.get(root) === failed && byFolder.delete(root)); // a folder that failed is read again next time
    }
    return skills;
  }
  if (typeof source !== 'object' || source === null || typeof source.list !== 'function' || typeof source.read !== 'function')
    throw new AgtError('invalid_input', 'skills: give a folder path, or a SkillFiles adapter with list(dir) and read(path)', {
      details: { field: 'skills' },
    });
  let skills = byAdapter.get(source);
  if (skills === undefined) {
    byAdapter.set(source, (skills = loaded(source, cacheHint, 'the SkillFiles adapter')));
    const failed = skills;
    failed.ready.catch(() => byAdapter.get(source) === failed && byAdapter.delete(source));
  }
  return skills;
}

function loaded(files: SkillFiles, cacheHint: CacheHint, where: string): KitSkills {
  let catalog: SkillCatalog | undefined;
  const ready = SkillsExtension.load(files, { cacheHint }).then(
    (c) => (catalog = c),
    (error: unknown) => {
      throw new AgtError('invalid_input', `skills: could not load the skills of ${where}: ${(error as Error).message ?? 'unknown error'}`, {
        details: { field: 'skills' },
        cause: error,
      });
    },
  );
  ready.catch(() => undefined); // told to whoever awaits it
  return {
    ready,
    attach(mcp) {
      if (catalog === undefined)
        throw new AgtError('invalid_input', 'skills are still loading: await server.ready() before serving (serveStdio and serveHttp do)');
      catalog.attach(mcp);
    },
    reload: async () => (await ready).reload(),
  };
}
