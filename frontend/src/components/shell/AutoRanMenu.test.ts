import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import AutoRanMenu from './AutoRanMenu.svelte';
import { initialState, reduce } from '../../lib/conversation/reducer';
import type { AgentEvent } from '../../lib/conversation/events';
import { autoRan } from '../../lib/conversation/approvedby';

const EXECUTE = 'ipybox_execute_ipython_cell';
// Two calls auto mode ran (one changed a file), one a saved rule allowed.
const events: AgentEvent[] = [
  { type: 'AutoApproved', agent_id: 'main', correlation_id: 'c1', tool_call: { type: 'CodeAction', tool_name: EXECUTE, code: "open('a.txt','w').write('x')" }, by: 'sandbox' },
  { type: 'FilesChanged', agent_id: 'main', correlation_id: 'c1', checkpoint: 'ck1', turn_id: 't1', files: [{ path: 'a.txt', status: 'modified' }] },
  { type: 'AutoApproved', agent_id: 'main', correlation_id: 'c2', tool_call: { type: 'GenericCall', tool_name: 'gh_list', tool_args: {} }, by: 'judge', reason: 'lists only' },
  { type: 'AutoApproved', agent_id: 'main', correlation_id: 'c3', tool_call: { type: 'ShellAction', tool_name: 'shell', command: 'ls' }, by: 'rule', rule: 'ls' },
] as AgentEvent[];

function items() {
  let s = initialState();
  for (const ev of events) s = reduce(s, ev, 1);
  return s.items;
}

describe('AutoRanMenu', () => {
  it('lists only what auto mode ran, counting what is new, with Review and Revert', async () => {
    const ran = autoRan(items());
    expect(ran.map((it) => it.id)).toEqual(['c1', 'c2']);
    const actions = { review: vi.fn(), revert: vi.fn(), busy: () => false };
    const onlook = vi.fn();
    render(AutoRanMenu, { ran, seen: new Set(['c1']), onlook, actions });
    const chip = screen.getByTestId('auto-ran');
    expect(chip).toHaveTextContent('1 new in auto');
    await userEvent.click(chip);
    expect(onlook).toHaveBeenCalledWith(['c1', 'c2']);
    const list = screen.getByTestId('auto-ran-list');
    const [judged, sandboxed] = within(list).getAllByRole('listitem') as [HTMLElement, HTMLElement];
    expect(judged).toHaveTextContent('judge: lists only');
    expect(judged).toHaveTextContent('no file changes');
    expect(within(judged).getByRole('button', { name: /^Revert/ })).toBeDisabled();
    expect(sandboxed).toHaveTextContent('sandbox');
    expect(sandboxed).toHaveTextContent('1 file changed');
    await userEvent.click(within(sandboxed).getByRole('button', { name: /^Review/ }));
    expect(actions.review).toHaveBeenCalledWith('ck1', expect.stringContaining('Changes of'), 'action');
    await userEvent.click(screen.getByTestId('auto-ran'));
    const again = screen.getAllByRole('listitem')[1] as HTMLElement;
    await userEvent.click(within(again).getByRole('button', { name: /^Revert/ }));
    expect(actions.revert).toHaveBeenCalledWith('ck1', expect.stringContaining('Revert'), 'action');
  });

  it('says how many ran once all were seen, and is hidden when none ran', () => {
    const ran = autoRan(items());
    const { unmount } = render(AutoRanMenu, { ran, seen: new Set(['c1', 'c2']), onlook: () => {}, actions: { review: () => {}, revert: () => {}, busy: () => false } });
    expect(screen.getByTestId('auto-ran')).toHaveTextContent('2 ran in auto');
    unmount();
    render(AutoRanMenu, { ran: [], seen: new Set<string>(), onlook: () => {}, actions: { review: () => {}, revert: () => {}, busy: () => false } });
    expect(screen.queryByTestId('auto-ran')).toBeNull();
  });
});
