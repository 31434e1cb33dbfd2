/**
 * The bounded "did you mean" of skill_read's not_found errors (K3; issue 58
 * #17): how many names there are and the few closest to what was asked, never
 * the whole list (a run may hold thousands of skills, a skill 512 files).
 */

/** How many close names an error quotes. */
const SHOWN = 5;
/** How much of each name is compared and quoted (a skill's name is at most 64; a file path up to 255). */
const COMPARED = 64;

/** "this run has N skills; the closest: "a", "b"" — at most SHOWN names, each cut to COMPARED characters. */
export function closestNames(wanted: string, names: readonly string[], noun: 'skill' | 'file'): string {
  const holder = noun === 'skill' ? 'this run has' : 'it has';
  const count = `${holder} ${names.length} ${noun}${names.length === 1 ? '' : 's'}`;
  if (names.length === 0) return count;
  const target = wanted.slice(0, COMPARED);
  const ranked = names
    .map((name, index) => ({ name: name.slice(0, COMPARED), index, distance: editDistance(target, name.slice(0, COMPARED)) }))
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, SHOWN)
    .map((n) => JSON.stringify(n.name));
  return `${count}${names.length <= SHOWN ? ': ' : '; the closest: '}${ranked.join(', ')}`;
}

// Levenshtein distance over UTF-16 units, two rows (both sides are at most COMPARED long).
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
