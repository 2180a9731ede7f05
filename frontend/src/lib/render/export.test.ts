import { describe, expect, it } from 'vitest';
import { initialState, reduce } from '../conversation/reducer';
import { toHTML, toMarkdown } from './export';

describe('export', () => {
  const s = [
    { type: 'UserMessage', agent_id: 'main', text: 'Add 2 and 2' },
    { type: 'ToolCall', agent_id: 'main', correlation_id: 'c1', tool_name: 'ipybox_execute_ipython_cell', args: { code: 'print(2+2)' } },
    { type: 'ToolOutput', agent_id: 'main', correlation_id: 'c1', tool_name: 'ipybox_execute_ipython_cell', content: '4' },
    { type: 'Response', agent_id: 'main', text: 'It is **4**.' },
  ].reduce((st, ev) => reduce(st, ev as never, 0), initialState());

  it('writes the conversation as Markdown', () => {
    const md = toMarkdown(s, 'Session');
    expect(md).toContain('## You\n\nAdd 2 and 2');
    expect(md).toContain('```python\nprint(2+2)\n```');
    expect(md).toContain('```\n4\n```');
    expect(md).toContain('It is **4**.');
  });
  it('writes a self-contained HTML page', () => {
    const html = toHTML(s, 'Session');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<strong>4</strong>');
    expect(html).not.toContain('<script');
  });
});
