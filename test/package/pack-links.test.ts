/**
 * The link check of `npm run check:pack` (scripts/pack-links.mjs): which files of the package a shipped markdown
 * page links to, so a link that would dangle in node_modules fails the pack.
 */
import { describe, expect, it } from 'vitest';
import { linkTargets, pageLinkProblems, resolveLink } from '../../scripts/pack-links.mjs';

/** The package of these tests: the paths it ships. */
const SHIPPED = ['README.md', 'docs/a.md', 'docs/b c.md', 'docs/x_(y).md', 'examples/demo.ts', 'examples/kit/README.md'];
const ships = (name: string) => SHIPPED.includes(name) || SHIPPED.some((f) => f.startsWith(name.replace(/\/?$/, '/')));
const problems = (page: string, markdown: string) => pageLinkProblems(page, markdown, ships);

describe('the links of a markdown page', () => {
  it('reads inline links and images, with or without a title', () => {
    expect(linkTargets('See [a](docs/a.md) and ![pic](docs/p.png "a picture") and [t](docs/b.md \'t\').')).toEqual([
      'docs/a.md',
      'docs/p.png',
      'docs/b.md',
    ]);
  });

  it('reads reference-style links: the definition is the target', () => {
    const page = 'Read [the guide][guide] and [more].\n\n[guide]: docs/a.md\n[more]: <docs/b c.md> "Title"\n';
    expect(linkTargets(page)).toEqual(['docs/a.md', 'docs/b c.md']);
    expect(problems('README.md', '[x][ref]\n\n[ref]: docs/missing.md\n')).toEqual([
      'README.md links to docs/missing.md, which the package does not ship',
    ]);
  });

  it('reads angle-bracket destinations, spaces and all', () => {
    expect(linkTargets('[x](<docs/b c.md>) and [y](<docs/b c.md> "title")')).toEqual(['docs/b c.md', 'docs/b c.md']);
    expect(problems('README.md', '[x](<docs/b c.md>)')).toEqual([]);
    expect(problems('README.md', '[x](<docs/nope c.md>)')).toEqual(['README.md links to docs/nope c.md, which the package does not ship']);
  });

  it('reads the href of an HTML <a> (and the src of an <img>)', () => {
    expect(linkTargets('<a href="docs/a.md">a</a> <A class="x" HREF=\'docs/b.md\'>b</A> <img src=docs/p.png>')).toEqual([
      'docs/a.md',
      'docs/b.md',
      'docs/p.png',
    ]);
    expect(linkTargets('<a href="docs/a.md?x=1&amp;y=2">a</a>')).toEqual(['docs/a.md?x=1&y=2']);
    expect(problems('README.md', '<a href="docs/gone.md">gone</a>')).toEqual([
      'README.md links to docs/gone.md, which the package does not ship',
    ]);
  });

  it('parses a target with parentheses in it (x_(y).md), and escaped ones', () => {
    expect(linkTargets('[x](docs/x_(y).md) and [z](docs/x_\\(y\\).md)')).toEqual(['docs/x_(y).md', 'docs/x_(y).md']);
    expect(problems('README.md', '[x](docs/x_(y).md)')).toEqual([]);
  });

  it('ignores links in ``` and ~~~ fences, in indented code and in code spans', () => {
    const page = [
      'Intro [ok](docs/a.md).',
      '',
      '```ts',
      'handlers[name](args); [a](docs/missing1.md)',
      '```',
      '',
      '~~~',
      '[b](docs/missing2.md)',
      '~~~',
      '',
      '````md',
      '```',
      '[c](docs/missing3.md)',
      '```',
      '````',
      '',
      '    [d](docs/missing4.md)',
      '',
      '\t[e](docs/missing5.md)',
      '',
      'A span `[f](docs/missing6.md)` and ``[g](docs/missing7.md) ` x`` then [h](docs/b%20c.md).',
      '<!-- [i](docs/missing8.md) -->',
    ].join('\n');
    expect(linkTargets(page)).toEqual(['docs/a.md', 'docs/b%20c.md']);
    expect(problems('README.md', page)).toEqual([]);
  });

  it('reads links in an indented paragraph continuation and in list items (not code)', () => {
    const page = ['Some text', '    [a](docs/a.md) continues it.', '', '- item', '', '    [b](docs/b.md) in the item'].join('\n');
    expect(linkTargets(page)).toEqual(['docs/a.md', 'docs/b.md']);
  });
});

describe('what a link points to', () => {
  it('takes off a query and an anchor before resolving', () => {
    expect(resolveLink('README.md', 'docs/a.md#install')).toEqual({ name: 'docs/a.md' });
    expect(resolveLink('README.md', 'docs/a.md?plain=1#L3')).toEqual({ name: 'docs/a.md' });
    expect(resolveLink('docs/a.md', '#a-heading')).toEqual({ skip: true });
    expect(problems('README.md', '[a](docs/a.md?plain=1) [b](docs/a.md#x) [c](#here)')).toEqual([]);
  });

  it('resolves relative to the page, decodes percent-encoding, refuses to climb out of the package', () => {
    expect(resolveLink('docs/a.md', '../README.md')).toEqual({ name: 'README.md' });
    expect(resolveLink('docs/a.md', './b%20c.md')).toEqual({ name: 'docs/b c.md' });
    expect(resolveLink('examples/kit/README.md', '/docs/a.md')).toEqual({ name: 'docs/a.md' });
    expect(resolveLink('docs/a.md', '../../outside.md')).toEqual({ bad: '../../outside.md: outside the package' });
  });

  it('reports a malformed percent-encoding (%zz) as a bad link, without throwing', () => {
    expect(resolveLink('README.md', 'docs/%zz.md')).toEqual({ bad: 'docs/%zz.md: a malformed percent-encoding' });
    expect(problems('README.md', '[x](docs/%zz.md)')).toEqual(['README.md has a bad link "docs/%zz.md: a malformed percent-encoding"']);
  });

  it('leaves web links unchecked: http:, https:, mailto:', () => {
    for (const target of ['http://example.com/x.md', 'https://example.com/y.md', 'mailto:someone@example.com'])
      expect(resolveLink('README.md', target)).toEqual({ skip: true });
    expect(problems('README.md', '[a](https://e.com/a.md) <a href="http://e.com">b</a> [c][c]\n\n[c]: mailto:x@e.com')).toEqual([]);
  });

  it('checks a page anywhere in the package (examples/**/*.md), relative to its own folder', () => {
    expect(problems('examples/kit/README.md', '[demo](../demo.ts) [kit](./) [gone](../gone.ts)')).toEqual([
      'examples/kit/README.md links to examples/gone.ts, which the package does not ship',
    ]);
  });
});
