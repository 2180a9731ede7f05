import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import McpStatus from './McpStatus.svelte';
import type { Backend, MCPServerState } from '../../lib/backend';
import type { MCPRequest } from '../../lib/stores/mcp.svelte';

const base = { group: 'mcp_servers', url: '', connected: false, signIn: false, signedIn: false, refreshable: false };
const servers: MCPServerState[] = [
  { ...base, name: 'files', connected: true },
  { ...base, name: 'tracker', url: 'https://t.example/mcp', signIn: true, failure: 'initialize: transport error: sign-in required for MCP server "tracker"' },
  { ...base, name: 'wiki', url: 'https://w.example/mcp', signIn: true, failure: 'connection refused' },
  { ...base, name: 'docs', url: 'https://d.example/mcp', signIn: true, signedIn: true, connected: true, refreshable: true, expiry: '2030-01-02T03:04:05Z' },
  { ...base, name: 'broken', failure: 'start node server.js: exit status 1' },
  { ...base, name: 'code', group: 'ptc_servers' },
];

function setup(list = servers, fail = '') {
  let emit: (r: MCPRequest) => void = () => {};
  const backend = {
    mcpServers: vi.fn(async () => {
      if (fail) throw new Error(fail);
      return list;
    }),
    mcpSignIn: vi.fn(async () => {}),
    mcpSignOut: vi.fn(async () => {}),
    mcpConnect: vi.fn(async () => {}),
    onMCP: vi.fn((cb: (r: MCPRequest) => void) => {
      emit = cb;
      return () => {};
    }),
  };
  render(McpStatus, { backend: backend as unknown as Backend });
  return { backend, emit: (r: MCPRequest) => emit(r) };
}

describe('McpStatus', () => {
  it('shows each server in words', async () => {
    setup();
    await screen.findByTestId('mcp-state-files');
    expect(screen.getByTestId('mcp-state-files')).toHaveTextContent(/^Connected$/);
    expect(screen.getByTestId('mcp-state-tracker')).toHaveTextContent(/^Needs sign-in$/);
    expect(screen.getByTestId('mcp-state-wiki')).toHaveTextContent('Needs sign-in (connection refused)');
    expect(screen.getByTestId('mcp-state-docs')).toHaveTextContent(/Connected, signed in; the token expires .*2030.* \(renewed without asking\)/);
    expect(screen.getByTestId('mcp-state-broken')).toHaveTextContent('Failed: start node server.js: exit status 1');
    expect(screen.getByTestId('mcp-state-code')).toHaveTextContent('Connects when code calls it');
    // Sign in where a server signs in; Sign out where it is signed in.
    expect(screen.getByRole('button', { name: 'Sign in to tracker' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign out of docs' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Sign in to files/ })).toBeNull();
  });

  it('signs in and out, and reads the list again', async () => {
    const { backend } = setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in to tracker' }));
    expect(backend.mcpSignIn).toHaveBeenCalledWith('tracker');
    await vi.waitFor(() => expect(screen.getByText('Signed in to tracker.')).toBeInTheDocument());
    await userEvent.click(screen.getByRole('button', { name: 'Sign out of docs' }));
    expect(backend.mcpSignOut).toHaveBeenCalledWith('docs');
    await vi.waitFor(() => expect(screen.getByText('Signed out of docs; the client registration is kept.')).toBeInTheDocument());
    expect(backend.mcpServers).toHaveBeenCalledTimes(3);
  });

  it('tries a failed server again (only one that needs no sign-in), and reads the list again', async () => {
    const { backend } = setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Try again to start broken' }));
    expect(backend.mcpConnect).toHaveBeenCalledWith('broken');
    await vi.waitFor(() => expect(screen.getByText('Connected broken; its tools are offered from the next message.')).toBeInTheDocument());
    expect(backend.mcpServers).toHaveBeenCalledTimes(2);
    expect(screen.queryByRole('button', { name: /Try again to start (wiki|tracker|files|code)/ })).toBeNull();
  });

  it('says why a sign-in failed', async () => {
    const { backend } = setup();
    backend.mcpSignIn.mockRejectedValueOnce(new Error('sign in to MCP server "tracker": browser: sign-in cancelled'));
    await userEvent.click(await screen.findByRole('button', { name: 'Sign in to tracker' }));
    await vi.waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('sign-in cancelled'));
  });

  it('reads the list again when a sign-in card ends', async () => {
    const { backend, emit } = setup();
    await screen.findByTestId('mcp-state-files');
    emit({ id: 'm1', kind: 'signin', server: 'tracker', state: 'done', message: '' });
    await vi.waitFor(() => expect(backend.mcpServers).toHaveBeenCalledTimes(2));
  });

  it('says so when the agent has not started', async () => {
    setup(servers, 'the agent has not started');
    expect(await screen.findByText('the agent has not started')).toBeInTheDocument();
  });
});

describe('McpStatus focus', () => {
  it('keeps the focus on the server when Sign out goes away', async () => {
    const list = [...servers];
    const { backend } = setup(list);
    backend.mcpSignOut.mockImplementation(async () => {
      list[3] = { ...list[3]!, signedIn: false, connected: false, expiry: undefined };
    });
    const out = await screen.findByRole('button', { name: 'Sign out of docs' });
    out.focus();
    await userEvent.keyboard('{Enter}');
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Sign in to docs' })).toHaveFocus());
  });
});
