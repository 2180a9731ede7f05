import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import Header from './Header.svelte';
import type { KernelStatus } from '../../lib/backend';

const workspace = { path: '/w', name: 'w', created: false, warnings: [] } as never;
const kernel = (over: Partial<KernelStatus>): KernelStatus => ({
  state: 'ready',
  message: '',
  progress: 1,
  sessionId: 's',
  model: 'gemini-2.5-flash',
  sandboxed: false,
  replayCells: 0,
  replayReason: '',
  replayCode: [],
  mcpFailures: [],
  ...over,
});

describe('Header', () => {
  it('says a conversation open in another freeact process is open there, not that the kernel failed', () => {
    render(Header, {
      workspace,
      version: null,
      kernel: kernel({ state: 'error', problem: 'busy', busyPid: 4242, summary: 'This conversation is open in another freeact window, pid 4242.' }),
    });
    const status = screen.getByTestId('kernel-status');
    expect(status).toHaveTextContent('Open in another window');
    expect(status).not.toHaveTextContent('Kernel failed');
  });

  it('says the kernel failed when it did', () => {
    render(Header, { workspace, version: null, kernel: kernel({ state: 'error', problem: 'kernel' }) });
    expect(screen.getByTestId('kernel-status')).toHaveTextContent('Kernel failed');
  });
});
