import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import ToolBlock from './ToolBlock.svelte';
import type { Backend } from '../../lib/backend';
import type { ToolItem } from '../../lib/conversation/reducer';

const item = (over: Partial<ToolItem>): ToolItem => ({
  kind: 'tool',
  id: 'c1',
  name: 'ipybox_execute_ipython_cell',
  call: null,
  args: null,
  status: 'asking',
  output: '',
  dropped: 0,
  lines: 0,
  images: [],
  result: null,
  isError: false,
  startedAt: null,
  endedAt: null,
  shell: [],
  input: null,
  ...over,
});

describe('ToolBlock', () => {
  it('shows hidden characters in code, commands, paths and arguments as escapes', () => {
    const backend = {} as Backend;
    const { container } = render(ToolBlock, {
      item: item({
        call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: "x = 1 # \u202e\r\n!touch 'a\x1b[2Kb'" },
        shell: [{ requestId: 'r1', command: "touch 'a\x1b[2Kb'", status: 'asking' }],
      }),
      backend,
      onreply: vi.fn(),
    });
    const text = container.textContent ?? '';
    expect(text).toContain('x = 1 # \\u202e\\r');
    expect(text).toContain("$ touch 'a\\x1b[2Kb'");
    expect(text).not.toMatch(/[\r\x1b\u202e]/);

    render(ToolBlock, {
      item: item({
        name: 'filesystem_write_text_file',
        call: { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: 'a\u200bb.txt', content: 'ok\x07' },
      }),
      backend,
      onreply: vi.fn(),
    });
    expect(screen.getByText('Write a\\u200bb.txt')).toBeInTheDocument();
    expect(screen.getByText('ok\\x07')).toBeInTheDocument();
  });
});
