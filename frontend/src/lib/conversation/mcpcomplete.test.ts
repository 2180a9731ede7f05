import { describe, expect, it } from 'vitest';
import type { MCPCatalog } from '../backend';
import { missing, promptChoices, resourceChoices, slashCommand } from './mcpcomplete';

const cat: MCPCatalog = {
  resources: [
    { server: 'docs', uri: 'file:///guide.md', name: 'Guide', description: '', mime_type: 'text/markdown', arguments: [] },
    { server: 'docs', uri: 'repo://{owner}/{name}', name: 'Repository', description: '', mime_type: '', arguments: [{ name: 'owner', description: '', required: true }, { name: 'name', description: '', required: true }] },
    { server: 'db', uri: 'table://users', name: 'Users table', description: '', mime_type: '', arguments: [] },
  ],
  prompts: [
    { server: 'docs', name: 'summarise', description: 'Summarise a page', arguments: [{ name: 'page', description: '', required: true }, { name: 'tone', description: '', required: false }] },
    { server: 'db', name: 'report', description: 'A report', arguments: [] },
  ],
  errors: [],
};

describe('MCP completion', () => {
  it('offers resources by server:uri or name; a template asks for its variables', () => {
    expect(resourceChoices(cat, 'docs:').map((c) => c.label)).toEqual(['docs:file:///guide.md', 'docs:repo://{owner}/{name}']);
    expect(resourceChoices(cat, 'users').map((c) => c.insert)).toEqual(['@db:table://users ']);
    const t = resourceChoices(cat, 'docs:repo')[0]!;
    expect(t.insert).toBeNull();
    expect(t.form).toMatchObject({ kind: 'resource', server: 'docs', name: 'repo://{owner}/{name}' });
    expect(resourceChoices(null, '')).toEqual([]);
  });

  it('offers prompts; one with arguments asks for them', () => {
    expect(promptChoices(cat, '').map((c) => c.label)).toEqual(['/docs:summarise', '/db:report']);
    expect(promptChoices(cat, 'db:')[0]?.insert).toBe('/db:report ');
    expect(promptChoices(cat, 'summ')[0]?.form?.args.map((a) => a.name)).toEqual(['page', 'tone']);
  });

  it('writes the slash command the backend reads', () => {
    const form = promptChoices(cat, 'docs:summarise')[0]!.form!;
    expect(slashCommand(form, { page: 'intro' })).toBe('/docs:summarise page=intro');
    expect(slashCommand(form, { page: 'the intro', tone: 'dry' })).toBe('/docs:summarise page="the intro" tone=dry');
    expect(() => slashCommand(form, { page: 'say "hi"' })).toThrow('cannot hold a double quote');
    expect(missing(form, { tone: 'x' })).toEqual(['page']);
    expect(missing(form, { page: 'p' })).toEqual([]);
  });
});
