/** Options that no longer exist (A7): passing them fails loudly instead of being ignored. */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';

const REMOVED = ['allowMcp', 'allow_mcp'] as const;

/** Throws `option_removed` if `value` has an own key `allowMcp` or `allow_mcp`. */
export function rejectRemovedOptions(value: unknown, where: string): void {
  if (!isPlainObject(value)) return;
  for (const key of REMOVED) {
    if (Object.prototype.hasOwnProperty.call(value, key)) {
      throw new AgtError(
        'option_removed',
        `${where}: "${key}" was removed. An agent's MCP access is its mounts (data.mcps) and the permission policy; there is no MCP master switch any more. Stop sending "${key}".`,
        { details: { option: key } },
      );
    }
  }
}
