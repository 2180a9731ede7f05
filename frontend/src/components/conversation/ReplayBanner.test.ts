import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ReplayBanner from './ReplayBanner.svelte';
import type { KernelStatus } from '../../lib/backend';
import type { ReplayState } from '../../lib/conversation/reducer';

const kernel = (cells: number, reason = 'resumed'): KernelStatus => ({
  state: 'ready',
  message: '',
  progress: 1,
  sessionId: 's',
  model: 'm',
  sandboxed: false,
  replayCells: cells,
  replayReason: reason,
  replayCode: [],
  mcpFailures: [],
});
const replay = (over: Partial<ReplayState>): ReplayState => ({
  running: false,
  index: 1,
  total: 3,
  ran: 0,
  failed: 0,
  stopped: false,
  runs: [],
  ...over,
});
const handlers = () => ({ onreplay: vi.fn(), onskip: vi.fn(), onstop: vi.fn() });

describe('ReplayBanner', () => {
  it('offers to replay the cells of a resumed session, or to skip', async () => {
    const h = handlers();
    render(ReplayBanner, { kernel: kernel(7), replay: null, ...h });
    expect(screen.getByTestId('replay-offer')).toHaveTextContent('This session was resumed in a fresh kernel');
    await userEvent.click(screen.getByRole('button', { name: 'Replay 7 cells' }));
    expect(h.onreplay).toHaveBeenCalledOnce();
    await userEvent.click(screen.getByRole('button', { name: 'Skip' }));
    expect(h.onskip).toHaveBeenCalledOnce();
  });

  it('lists the code that would run, a cell changed outside the app open and marked', () => {
    const k = { ...kernel(2), replayCode: [{ code: 'x = 1\ny = 2', changed: false }, { code: "import os\nos.remove('a')", changed: true }] };
    render(ReplayBanner, { kernel: k, replay: null, ...handlers() });
    const items = screen.getByTestId('replay-cells').querySelectorAll('li');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('Cell 1 x = 1');
    expect(items[0]?.querySelector('details')?.open).toBe(false);
    expect(items[1]).toHaveTextContent('changed outside the app');
    expect(items[1]?.querySelector('details')?.open).toBe(true);
    expect(items[1]?.querySelector('pre')).toHaveTextContent("os.remove('a')");
  });

  it('offers nothing without cells to run', () => {
    render(ReplayBanner, { kernel: kernel(0), replay: null, ...handlers() });
    expect(screen.queryByTestId('replay-offer')).toBeNull();
  });

  it('shows the progress with Stop', async () => {
    const h = handlers();
    render(ReplayBanner, { kernel: kernel(3, 'died'), replay: replay({ running: true, index: 2, failed: 1 }), ...h });
    expect(screen.getByTestId('replay-progress')).toHaveTextContent('cell 2 of 3 · 1 failed');
    expect(screen.queryByTestId('replay-offer')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(h.onstop).toHaveBeenCalledOnce();
  });

  it('says how it went, until dismissed', async () => {
    render(ReplayBanner, { kernel: kernel(0), replay: replay({ ran: 2, stopped: true }), ...handlers() });
    expect(screen.getByTestId('replay-result')).toHaveTextContent('Replay stopped after 2 of 3 cells');
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('replay-result')).toBeNull();
  });
});
