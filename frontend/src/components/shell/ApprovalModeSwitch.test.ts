import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ApprovalModeSwitch from './ApprovalModeSwitch.svelte';
import { initialState, reduce } from '../../lib/conversation/reducer';
import type { AgentEvent } from '../../lib/conversation/events';
import { autoRan } from '../../lib/conversation/approvedby';

const on = { mode: 'rules', paused: false, sandbox: true, checkpoints: true };

describe('ApprovalModeSwitch', () => {
  it('shows the mode and switches it', async () => {
    const onchange = vi.fn();
    render(ApprovalModeSwitch, { current: on, onchange });
    const button = screen.getByTestId('approval-mode');
    expect(button).toHaveTextContent('Rules');
    expect(button).toHaveAccessibleName('Approval mode: Rules');
    await userEvent.click(button);
    expect(screen.getByRole('radio', { name: 'Rules' })).toHaveAttribute('aria-checked', 'true');
    await userEvent.click(screen.getByRole('radio', { name: 'Auto' }));
    expect(onchange).toHaveBeenCalledWith('auto');
    // A choice closes the switch; the mode already on is not set again.
    expect(screen.queryByRole('radio', { name: 'Rules' })).toBeNull();
    await userEvent.click(button);
    await userEvent.click(screen.getByRole('radio', { name: 'Rules' }));
    expect(onchange).toHaveBeenCalledOnce();
  });

  it('says plainly in the header when auto mode runs without the sandbox', async () => {
    render(ApprovalModeSwitch, { current: { ...on, mode: 'auto', sandbox: false }, onchange: () => {} });
    const button = screen.getByTestId('approval-mode');
    expect(button).toHaveTextContent('Auto · no sandbox');
    await userEvent.click(button);
    expect(screen.getByTestId('auto-unsandboxed')).toHaveTextContent('allows nothing by itself');
  });

  it('says nothing of the sandbox with it on, or outside auto mode', () => {
    const { unmount } = render(ApprovalModeSwitch, { current: { ...on, mode: 'auto' }, onchange: () => {} });
    expect(screen.getByTestId('approval-mode')).toHaveTextContent(/^Auto$/);
    unmount();
    render(ApprovalModeSwitch, { current: { ...on, sandbox: false }, onchange: () => {} });
    expect(screen.getByTestId('approval-mode')).toHaveTextContent(/^Rules$/);
  });

  it('says auto mode is paused and turns it back on', async () => {
    const onchange = vi.fn();
    render(ApprovalModeSwitch, { current: { ...on, mode: 'auto', paused: true }, onchange });
    const button = screen.getByTestId('approval-mode');
    expect(button).toHaveTextContent('Auto paused');
    await userEvent.click(button);
    expect(screen.getByTestId('auto-paused')).toHaveTextContent('asked too often');
    await userEvent.click(screen.getByRole('button', { name: 'Resume auto mode' }));
    expect(onchange).toHaveBeenCalledWith('auto');
  });

  it('is hidden before the agent runs', () => {
    render(ApprovalModeSwitch, { current: null, onchange: () => {} });
    expect(screen.queryByTestId('approval-mode')).toBeNull();
  });
});

const EXECUTE = 'ipybox_execute_ipython_cell';
// Two calls auto mode ran (one changed a file), one a saved rule allowed.
const events = [
  {
    type: 'AutoApproved',
    agent_id: 'main',
    correlation_id: 'c1',
    tool_call: { type: 'CodeAction', tool_name: EXECUTE, code: "open('a.txt','w').write('x')" },
    by: 'sandbox',
  },
  {
    type: 'FilesChanged',
    agent_id: 'main',
    correlation_id: 'c1',
    checkpoint: 'ck1',
    turn_id: 't1',
    files: [{ path: 'a.txt', status: 'modified' }],
  },
  {
    type: 'AutoApproved',
    agent_id: 'main',
    correlation_id: 'c2',
    tool_call: { type: 'GenericCall', tool_name: 'gh_list', tool_args: {} },
    by: 'judge',
    reason: 'lists only',
  },
  {
    type: 'AutoApproved',
    agent_id: 'main',
    correlation_id: 'c3',
    tool_call: { type: 'ShellAction', tool_name: 'shell', command: 'ls' },
    by: 'rule',
    rule: 'ls',
  },
] as AgentEvent[];

function ranItems() {
  let s = initialState();
  for (const ev of events) s = reduce(s, ev, 1);
  return autoRan(s.items);
}

describe('ApprovalModeSwitch: what ran in auto mode', () => {
  it('lists only what auto mode ran, counting what is new, with Review and Revert', async () => {
    const ran = ranItems();
    expect(ran.map((it) => it.id)).toEqual(['c1', 'c2']);
    const actions = { review: vi.fn(), revert: vi.fn(), busy: () => false };
    const onlook = vi.fn();
    render(ApprovalModeSwitch, { current: { ...on, mode: 'auto' }, onchange: () => {}, ran, seen: new Set(['c1']), onlook, actions });
    const button = screen.getByTestId('approval-mode');
    expect(button).toHaveTextContent('Auto · 1 new');
    expect(button).toHaveAccessibleName('Approval mode: Auto, 1 new in auto');
    await userEvent.click(button);
    expect(onlook).toHaveBeenCalledWith(['c1', 'c2']);
    const list = screen.getByTestId('auto-ran-list');
    const [judged, sandboxed] = within(list).getAllByRole('listitem') as [HTMLElement, HTMLElement];
    expect(judged).toHaveTextContent('new · judge: lists only');
    expect(judged).toHaveTextContent('no file changes');
    expect(within(judged).getByRole('button', { name: /^Revert/ })).toBeDisabled();
    expect(sandboxed).toHaveTextContent('sandbox');
    expect(sandboxed).not.toHaveTextContent('new');
    expect(sandboxed).toHaveTextContent('1 file changed');
    await userEvent.click(within(sandboxed).getByRole('button', { name: /^Review/ }));
    expect(actions.review).toHaveBeenCalledWith('ck1', expect.stringContaining('Changes of'), 'action');
    await userEvent.click(button);
    const again = within(screen.getByTestId('auto-ran-list')).getAllByRole('listitem')[1] as HTMLElement;
    await userEvent.click(within(again).getByRole('button', { name: /^Revert/ }));
    expect(actions.revert).toHaveBeenCalledWith('ck1', expect.stringContaining('Revert'), 'action');
  });

  it('lists what ran in auto mode before a resume, but not as new', async () => {
    // As a resumed session is replayed: each call, then who let it run.
    let s = initialState();
    for (const ev of [
      { type: 'ToolCall', agent_id: 'main', correlation_id: 'c1', tool_name: EXECUTE, args: { code: 'print(1)' } },
      { type: 'AutoApproved', agent_id: 'main', correlation_id: 'c1', by: 'sandbox', history: true },
      { type: 'ToolCall', agent_id: 'main', correlation_id: 'c2', tool_name: 'gh_list', args: {} },
      { type: 'AutoApproved', agent_id: 'main', correlation_id: 'c2', by: 'judge', reason: 'lists only', history: true },
      ...events.slice(0, 1).map((ev) => ({ ...ev, correlation_id: 'c9' })),
    ] as AgentEvent[])
      s = reduce(s, ev, 1);
    const ran = autoRan(s.items);
    expect(ran.map((it) => it.id)).toEqual(['c1', 'c2', 'c9']);
    const onlook = vi.fn();
    render(ApprovalModeSwitch, { current: { ...on, mode: 'auto' }, onchange: () => {}, ran, seen: new Set<string>(), onlook });
    const button = screen.getByTestId('approval-mode');
    expect(button).toHaveTextContent('Auto · 1 new');
    await userEvent.click(button);
    const items = within(screen.getByTestId('auto-ran-list')).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items.filter((li) => /\bnew\b/.test(li.textContent ?? ''))).toHaveLength(1);
  });

  it('has no list when nothing ran in auto mode', async () => {
    render(ApprovalModeSwitch, { current: on, onchange: () => {}, ran: [], seen: new Set<string>() });
    await userEvent.click(screen.getByTestId('approval-mode'));
    expect(screen.queryByTestId('auto-ran-list')).toBeNull();
  });
});
