/** `agt skill …`: import a skill folder, show a skill, export it to a folder (K1). */
import { oneLine } from '../outside-text.js';
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import { agentSkillEntry, storedSkillFiles } from '../resources/skill-data.js';
import { readSkillFolder, writeSkillFolder } from '../skills/folder.js';
import { skillFilePath } from '../mcp/requests/skills.js';
import { type CliContext, cliWrite, DEFAULT_SKILL_CATEGORY, emit, EXIT, inCli, skillReference } from './context.js';

/** Runs an `agt skill` subcommand; returns the exit code. */
export async function skillCommand(sub: string | undefined, args: string[], ctx: CliContext): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  switch (sub) {
    case 'import': {
      const [dir, given] = positionals;
      if (dir === undefined) throw new AgtError('invalid_input', 'usage: agt skill import <dir> [REF]');
      const files = readSkillFolder(dir);
      const { frontmatter } = await agentSkillEntry(files as { 'SKILL.md': string });
      const reference = given === undefined ? `${DEFAULT_SKILL_CATEGORY}/${frontmatter.name}` : skillReference(given);
      const exists = (await ctx.service.store.get('skill', reference)) !== undefined;
      const { record } = await cliWrite(ctx, { kind: 'skill', reference, create: !exists, data: { files } });
      emit(
        ctx,
        { reference, revision: record.revision, name: frontmatter.name, files: Object.keys(files).sort() },
        () =>
          oneLine`${exists ? 'updated' : 'imported'} skill ${reference} (revision ${record.revision}): ${frontmatter.name}, ${Object.keys(files).length} file(s)`,
      );
      return EXIT.ok;
    }
    case 'show': {
      const reference = positionals[0];
      if (reference === undefined) throw new AgtError('invalid_input', 'usage: agt skill show <REF>');
      const record = await inCli(ctx.service.read({ kind: 'skill', reference }), 'skill', reference);
      const files = storedSkillFiles(reference, record.data);
      const entry = await agentSkillEntry(files);
      const { frontmatter, resources } = entry;
      const listed = (resources as { uri: string; size: number; digest: string }[]).map((r) => ({
        // The path as stored (`my notes.md`), by the rule skill_read names files by: never the URI's spelling (`my%20notes.md`).
        path: skillFilePath(entry.uri, r.uri) ?? r.uri,
        size: r.size,
        digest: r.digest,
      }));
      emit(ctx, { reference, revision: record.revision, name: frontmatter.name, description: frontmatter.description, files: listed }, () =>
        [
          oneLine`${reference} — ${frontmatter.name} (revision ${record.revision})`,
          oneLine`  ${frontmatter.description}`,
          'files:',
          ...listed.map((f) => oneLine`  ${f.path} (${f.size} bytes)`),
        ].join('\n'),
      );
      return EXIT.ok;
    }
    case 'export': {
      const [reference, dir] = positionals;
      if (reference === undefined || dir === undefined) throw new AgtError('invalid_input', 'usage: agt skill export <REF> <dir>');
      const record = await inCli(ctx.service.read({ kind: 'skill', reference }), 'skill', reference);
      const files = storedSkillFiles(reference, record.data);
      writeSkillFolder(dir, files);
      emit(
        ctx,
        { reference, dir, files: Object.keys(files).sort() },
        () => oneLine`exported skill ${reference} to ${dir}: ${Object.keys(files).length} file(s)`,
      );
      return EXIT.ok;
    }
    default:
      throw new AgtError('invalid_input', 'usage: agt skill import|show|export …  (agt skill --help)');
  }
}
