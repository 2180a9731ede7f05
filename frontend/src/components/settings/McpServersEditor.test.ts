import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import McpServersEditor from './McpServersEditor.svelte';
import { SettingsForm } from '../../lib/stores/settings.svelte';
import { settingsBackend, withValues } from './fixture';

const timeout = { bounds: { min: 0, min_exclusive: true, unit: 'seconds' }, want: 'a positive number of seconds' };

async function setup(values: Record<string, string>, errors: { key: string; path: string; message: string }[] = []) {
  const b = settingsBackend({ fields: withValues(values), errors });
  const form = new SettingsForm(b);
  await form.load();
  const ontest = vi.fn(async () => ['read_file', 'write_file']);
  const onregenerate = vi.fn(async () => '.freeact/generated/mcptools/github');
  render(McpServersEditor, { form, timeout, ontest, onregenerate });
  return { form, b, ontest, onregenerate };
}

describe('McpServersEditor', () => {
  it('shows each server as a form, edits it and keeps keys it has no field for', async () => {
    const { form } = await setup({
      mcp_servers: '{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem"],"tool_prefix":"x"}}',
      ptc_servers: '{"github":{"url":"https://example.org/mcp","headers":{"Authorization":"Bearer ${GH}"}}}',
    });
    const fs = screen.getByTestId('server-fs');
    const gh = screen.getByTestId('server-github');
    expect(fs).toHaveTextContent('JSON tools');
    expect(gh).toHaveTextContent('code mode');
    await userEvent.click(within(fs).getByText('fs'));
    expect(within(fs).getByLabelText<HTMLInputElement>('Command').value).toBe('npx');
    expect(within(fs).getByLabelText<HTMLInputElement>('Arguments: argument 2').value).toBe('@modelcontextprotocol/server-filesystem');
    await userEvent.type(within(fs).getByLabelText('Start timeout'), '{Backspace}{Backspace}');
    await userEvent.click(within(fs).getByRole('checkbox', { name: 'Default (10 s)' }));
    await userEvent.clear(within(fs).getByLabelText('Start timeout'));
    await userEvent.type(within(fs).getByLabelText('Start timeout'), '30');
    await userEvent.click(within(fs).getByRole('button', { name: 'Add tool' }));
    await userEvent.type(within(fs).getByLabelText('Excluded tools: tool 1'), 'write_file');
    expect(JSON.parse(form.values.mcp_servers!)).toEqual({
      fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'], tool_prefix: 'x', connect_timeout: 30, excluded_tools: ['write_file'] },
    });
    // Moving it to code mode moves it between the keys.
    await userEvent.selectOptions(within(fs).getByLabelText('Used as'), 'ptc_servers');
    expect(JSON.parse(form.values.mcp_servers!)).toEqual({});
    expect(Object.keys(JSON.parse(form.values.ptc_servers!) as object).sort()).toEqual(['fs', 'github']);
  });

  it('switches a server between a command and a URL, and checks header names', async () => {
    const { form } = await setup({ mcp_servers: '{"s":{"command":"srv","env":{"A":"1"}}}' });
    await userEvent.click(screen.getByText('s'));
    await userEvent.click(screen.getByRole('radio', { name: 'HTTP URL (streamable HTTP)' }));
    expect(JSON.parse(form.values.mcp_servers!)).toEqual({ s: { url: 'https://' } });
    await userEvent.type(screen.getByLabelText('URL'), 'mcp.example.org/mcp');
    await userEvent.click(screen.getByRole('button', { name: 'Add header' }));
    await userEvent.type(screen.getByLabelText('Headers: name 1'), 'Bad Header');
    expect(screen.getByText('“Bad Header” is not a header name.')).toBeInTheDocument();
    expect(form.local.mcp_servers).toBe('“Bad Header” is not a header name.');
    expect(form.dirty('mcp')).toBe(true);
  });

  it('names servers that need a name, and tests one', async () => {
    const { ontest } = await setup({ mcp_servers: '{"fs":{"command":"npx"}}' });
    await userEvent.click(screen.getByText('fs'));
    const name = screen.getByLabelText('Name');
    await userEvent.clear(name);
    expect(screen.getByText('Give the server a name.')).toBeInTheDocument();
    await userEvent.type(name, 'my server');
    expect(screen.getByText(/Use letters, digits/)).toBeInTheDocument();
    await userEvent.clear(name);
    await userEvent.type(name, 'files');
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(ontest).toHaveBeenCalledWith('files', '{"command":"npx"}');
    expect(await screen.findByRole('status')).toHaveTextContent('Connected: 2 tools (read_file, write_file)');
  });

  it('shows why a test failed, and regenerates a code-mode server', async () => {
    const b = settingsBackend({ fields: withValues({ ptc_servers: '{"github":{"command":"gh-mcp"}}' }) });
    const form = new SettingsForm(b);
    await form.load();
    const onregenerate = vi.fn(async () => '.freeact/generated/mcptools/github');
    render(McpServersEditor, { form, timeout, ontest: vi.fn(async () => Promise.reject(new Error('server github: exited (exit status 1)'))), onregenerate });
    await userEvent.click(screen.getByText('github'));
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByRole('status')).toHaveTextContent('exited (exit status 1)');
    await userEvent.click(screen.getByRole('button', { name: 'Regenerate Python API' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Generated the Python API in .freeact/generated/mcptools/github');
  });

  it('puts the backend’s errors on the server field they name, and opens a server to focus', async () => {
    const b = settingsBackend({
      fields: withValues({ mcp_servers: '{"fs":{"command":"x"},"web":{"url":"http://h"}}' }),
      errors: [{ key: 'mcp_servers', path: 'web.url', message: 'server "web": has both "command" and "url"' }],
    });
    const form = new SettingsForm(b);
    await form.load();
    render(McpServersEditor, { form, timeout, focus: 'web', ontest: vi.fn(), onregenerate: vi.fn() });
    await form.check(); // nothing changed: no errors yet
    form.set('mcp_servers', form.values.mcp_servers!.replace('http://h', 'http://h2'));
    await form.check();
    const web = screen.getByTestId('server-web');
    expect(web).toHaveAttribute('open');
    expect(within(web).getByLabelText('Name')).toHaveFocus();
    expect(await within(web).findByTestId('error-url')).toHaveTextContent('has both "command" and "url"');
    expect(screen.getByTestId('server-fs')).not.toHaveAttribute('open');
  });
});
