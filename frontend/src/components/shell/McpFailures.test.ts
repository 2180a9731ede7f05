import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import McpFailures from './McpFailures.svelte';

const failure = { group: 'mcp_servers', server: 'tracker', error: 'exec: "/opt/tracker": no such file or directory' };

describe('McpFailures', () => {
  it('tries a server again; its banner goes once the status no longer names it', async () => {
    const onretry = vi.fn(async () => {});
    const { rerender } = render(McpFailures, { failures: [failure], onopen: vi.fn(), onretry });
    const banner = screen.getByTestId('mcp-failure-tracker');
    expect(banner).toHaveTextContent('MCP server “tracker” did not start');
    expect(banner).toHaveTextContent('no such file or directory');
    await userEvent.click(screen.getByRole('button', { name: 'Try again to start tracker' }));
    expect(onretry).toHaveBeenCalledWith('tracker');
    await rerender({ failures: [], onopen: vi.fn(), onretry });
    expect(screen.queryByTestId('mcp-failure-tracker')).toBeNull();
  });

  it('says so when the server still does not start, and tries once at a time', async () => {
    let fail: (e: Error) => void = () => {};
    const onretry = vi.fn(() => new Promise<void>((_, reject) => (fail = reject)));
    render(McpFailures, { failures: [failure], onopen: vi.fn(), onretry });
    const button = screen.getByRole('button', { name: 'Try again to start tracker' });
    await userEvent.click(button);
    expect(button).toHaveTextContent('Trying…');
    await userEvent.click(button);
    expect(onretry).toHaveBeenCalledTimes(1);
    fail(new Error('still missing'));
    expect(await screen.findByRole('status')).toHaveTextContent('it still does not start');
    expect(button).toHaveTextContent('Try again');
  });
});
