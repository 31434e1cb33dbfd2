/**
 * Finding a server's descendants on macOS (issue 29): no /proc there, so the
 * process table comes from `ps -A -o pid=,ppid=,pgid=,stat=` (one line per
 * process: pid, parent, process group, state). Parsing is a loop over lines
 * of bounded length, never a regex over the whole output.
 */

/** One process of the table. */
export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** `ps` state letters; `Z` is a zombie (exited, not yet reaped). */
  state: string;
}

/** The arguments of the `ps` call whose output {@link parsePsTable} reads. */
export const PS_ARGS = ['-A', '-o', 'pid=,ppid=,pgid=,stat='] as const;

/** The living rows of `ps -A -o pid=,ppid=,pgid=,stat=` output; malformed lines are skipped. */
export function parsePsTable(output: string): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const raw of output.split('\n')) {
    if (raw.length > 256) continue;
    const fields = raw.trim().split(/\s+/);
    if (fields.length < 4) continue;
    const [pid, ppid, pgid] = fields.slice(0, 3).map(Number) as [number, number, number];
    const state = fields[3] as string;
    if (![pid, ppid, pgid].every((n) => Number.isInteger(n) && n >= 0)) continue;
    if (state.startsWith('Z')) continue;
    rows.push({ pid, ppid, pgid, state });
  }
  return rows;
}

/** Every descendant of `pid` by parent link, plus the living members of its process group (`pid` itself left out). */
export function descendantsOf(rows: readonly ProcessRow[], pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const row of rows) children.set(row.ppid, [...(children.get(row.ppid) ?? []), row.pid]);
  const found = new Set<number>(rows.filter((r) => r.pgid === pid).map((r) => r.pid));
  const seen = new Set<number>([pid]);
  const stack = [...found, ...(children.get(pid) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as number;
    if (seen.has(next)) continue;
    seen.add(next);
    found.add(next);
    stack.push(...(children.get(next) ?? []));
  }
  found.delete(pid);
  return [...found].sort((a, b) => a - b);
}
