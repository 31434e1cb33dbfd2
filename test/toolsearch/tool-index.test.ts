/**
 * ToolIndex: deterministic lexical search over a run's tools:
 * names split and stemmed, synonyms of model words, schema property names,
 * bounded reading of hostile schemas (B1: what the model is shown).
 */
import { describe, expect, it } from 'vitest';
import { ToolIndex } from '../../src/toolsearch/tool-index.js';
import { stem, words } from '../../src/toolsearch/words.js';
import { estimateToolTokens } from '../../src/toolsearch/tokens.js';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}) => ({
  name,
  description,
  inputSchema: { type: 'object', properties },
});

const tools = [
  tool('files__fs__read_text_file', 'Read the complete contents of a file as text.', { path: { type: 'string' } }),
  tool('files__fs__write_file', 'Create a new file or overwrite an existing file.', { path: {}, content: {} }),
  tool('files__fs__list_directory', 'Get a detailed listing of all files and directories in a specified path.', { path: {} }),
  tool('files__fs__move_file', 'Move or rename files and directories.', { source: {}, destination: {} }),
  tool('kg__memory__create_entities', 'Create multiple new entities in the knowledge graph', { entities: { type: 'array' } }),
  tool('kg__memory__delete_relations', 'Delete multiple relations from the knowledge graph', { relations: {} }),
  tool('code__github__create_issue', 'Create a new issue in a GitHub repository', { owner: {}, repo: {}, title: {}, body: {} }),
  tool('code__github__searchRepositories', 'Search for GitHub repositories', { query: { description: 'Search query' } }),
];

describe('ToolIndex', () => {
  it('B1: names are split on _, -, . and camel case, and stemmed; stop words are dropped', () => {
    expect(words('list_directory-with.sizes')).toEqual(['list', 'directory', 'siz']);
    expect(words('searchRepositories')).toEqual(['search', 'repository']);
    expect(['files', 'reading', 'created', 'deletion'].map(stem)).toEqual(['fil', 'read', 'creat', 'delet']);
  });

  it('B1: a model-style query finds the tool by name, description, synonyms and parameter names; ranked best first', () => {
    const index = new ToolIndex(tools);
    expect(index.search('read a file')[0]?.name).toBe('files__fs__read_text_file');
    expect(index.search('rename a folder')[0]?.name).toBe('files__fs__move_file');
    expect(index.search('open a ticket on github')[0]?.name).toBe('code__github__create_issue');
    expect(index.search('find repos')[0]?.name).toBe('code__github__searchRepositories');
    expect(index.search('remove relations between entities')[0]?.name).toBe('kg__memory__delete_relations');
    expect(index.search('destination')[0]?.name).toBe('files__fs__move_file');
  });

  it('B1: deterministic: the same query gives the same list; limit bounds it; no match gives nothing', () => {
    const index = new ToolIndex(tools);
    expect(index.search('file', { limit: 3 })).toEqual(new ToolIndex(tools).search('file', { limit: 3 }));
    expect(index.search('file', { limit: 3 })).toHaveLength(3);
    expect(index.search('zebra quantum')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
  });

  it('B1: token estimates: about 4 characters a token of the definition as JSON; a cyclic or too deep schema counts as huge, never throws', () => {
    const small = tool('a__b__echo', 'Echo a message back.', { message: { type: 'string' } });
    const chars = JSON.stringify({ name: small.name, description: small.description, input_schema: small.inputSchema }).length;
    expect(estimateToolTokens(small)).toBe(Math.ceil(chars / 4));
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(estimateToolTokens({ name: 'x', inputSchema: cyclic })).toBe(250_000);
  });

  it('B1: a hostile schema (deep nesting, 10,000 properties, huge descriptions) is read bounded and fast', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { nested: deep } };
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { description: 'x'.repeat(10_000) }]));
    const index = new ToolIndex([tool('a__b__deep', 'deep', { root: deep }), tool('a__b__wide', 'd'.repeat(1_000_000), wide)]);
    expect(index.search('nested')).toEqual([expect.objectContaining({ name: 'a__b__deep' })]);
    expect(index.size).toBe(2);
  });
});
