// Types of scripts/pack-links.mjs (plain JavaScript, as `npm run check:pack` runs on Node with no TypeScript).

/** The page without what holds no link: fenced and indented code, HTML comments, code spans. */
export function proseOf(text: string): string;
/** Every link destination of a markdown page, outside code, as written. */
export function linkTargets(markdown: string): string[];
/** What a link destination of `page` points to: a file of the package, nothing to check, or a bad link. */
export function resolveLink(page: string, target: string): { name: string } | { skip: true } | { bad: string };
/** The problems of the links of one shipped page, given which package paths ship. */
export function pageLinkProblems(page: string, markdown: string, ships: (name: string) => boolean): string[];
