/**
 * Loading a run's registry skills (K1, K4): each reference the agent mounts is
 * read as stored now and checked as an Agent Skill (an older-form skill is a
 * SKILL.md with no files); one that is missing or breaks the rules is left
 * out with a notice, like a broken mount with skipBrokenMounts.
 */
import { isAgtError } from '../errors.js';
import type { ResourceService } from '../resources/service.js';
import { agentSkillEntry, storedSkillFiles } from '../resources/skill-data.js';
import type { McpConnection } from '../mcp/connection.js';
import type { McpSkill, McpSkillListing } from '../mcp/connection-types.js';
import type { RegistrySkill } from './skill-set.js';

/** The agent's registry skills as stored now; problems become notices. */
export async function loadRegistrySkills(
  service: ResourceService,
  references: readonly string[],
  notices: string[],
): Promise<RegistrySkill[]> {
  const loaded = await Promise.all(
    references.map(async (reference): Promise<RegistrySkill | undefined> => {
      const record = await service.store.get('skill', reference);
      if (record === undefined) {
        notices.push(`skill "${reference}" does not exist (skipped)`);
        return undefined;
      }
      try {
        // A hand-edited row is checked as a write is (corrupt_record): it is left out with a notice, the run goes on.
        const files = storedSkillFiles(reference, record.data);
        return { reference, revision: record.revision, files: Object.freeze({ ...files }), entry: await agentSkillEntry(files) };
      } catch (error) {
        notices.push(`skill "${reference}" is unavailable: ${isAgtError(error) ? error.message : 'its files could not be read'} (skipped)`);
        return undefined;
      }
    }),
  );
  return loaded.filter((s): s is RegistrySkill => s !== undefined);
}

/** A mount's skills when its server serves them (none otherwise); a failed listing is a notice, never a failed mount. */
export async function listMountSkills(
  reference: string,
  connection: McpConnection,
  list: () => Promise<McpSkillListing>,
  notices: string[],
): Promise<readonly McpSkill[] | undefined> {
  if (!connection.servesSkills()) return undefined;
  try {
    return Object.freeze((await list()).skills);
  } catch (error) {
    notices.push(`mount "${reference}": its skills could not be listed: ${isAgtError(error) ? error.message : 'the listing failed'}`);
    return undefined;
  }
}
