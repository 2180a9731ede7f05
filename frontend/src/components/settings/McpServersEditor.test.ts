import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import McpServersEditor from './McpServersEditor.svelte';

describe('McpServersEditor', () => {
  it('lists, tests, adds and removes servers', async () => {
    const onchange = vi.fn();
    const ontest = vi.fn(async () => ['read_file', 'write_file']);
    render(McpServersEditor, {
      mcp: '{"fs":{"command":"npx","args":["server-filesystem"]}}',
      ptc: '{}',
      onchange,
      ontest,
      onregenerate: vi.fn(async () => ''),
    });
    expect(screen.getByLabelText<HTMLInputElement>('Server name').value).toBe('fs');
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(ontest).toHaveBeenCalledWith('fs', expect.stringContaining('"command": "npx"'));
    expect(await screen.findByText('Connected: 2 tools (read_file, write_file)')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Add server' }));
    expect(onchange).toHaveBeenLastCalledWith('ptc_servers', '{}');
    expect(onchange).toHaveBeenCalledWith('mcp_servers', expect.stringContaining('"server2"'));

    await userEvent.click(screen.getAllByRole('button', { name: 'Remove' })[0]!);
    expect(onchange).toHaveBeenCalledWith('mcp_servers', '{"server2":{"command":"","args":[]}}');
  });

  it('shows why a test failed', async () => {
    render(McpServersEditor, {
      mcp: '{"bad":{"command":"/nope"}}',
      ptc: '{}',
      onchange: vi.fn(),
      ontest: vi.fn(async () => Promise.reject(new Error('server bad: executable not found'))),
      onregenerate: vi.fn(async () => ''),
    });
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText('server bad: executable not found')).toBeInTheDocument();
  });

  it('regenerates the Python API of a code-mode server', async () => {
    const onregenerate = vi.fn(async () => '.freeact/generated/mcptools/github');
    render(McpServersEditor, {
      mcp: '{"fs":{"command":"npx"}}',
      ptc: '{"github":{"url":"https://example.org/mcp"}}',
      onchange: vi.fn(),
      ontest: vi.fn(async () => []),
      onregenerate,
    });
    // Only the code-mode server has the button.
    const buttons = screen.getAllByRole('button', { name: 'Regenerate Python API' });
    expect(buttons).toHaveLength(1);
    await userEvent.click(buttons[0]!);
    expect(onregenerate).toHaveBeenCalledWith('github');
    expect(await screen.findByText('Generated the Python API in .freeact/generated/mcptools/github')).toBeInTheDocument();
  });
});
