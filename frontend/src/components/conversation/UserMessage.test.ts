import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import UserMessage from './UserMessage.svelte';
import BudgetBar from './BudgetBar.svelte';
import type { Backend } from '../../lib/backend';
import type { ReviewActions } from '../../lib/conversation/actions';

const backend = {} as Backend;
const item = { kind: 'user' as const, id: 'i1', text: 'Plot sin(x)', images: [], turn: 2 };

function actions(busy = false): ReviewActions {
  return { review: vi.fn(), revert: vi.fn(), fork: vi.fn(), edit: vi.fn(), busy: () => busy };
}

describe('UserMessage', () => {
  it('forks the session before the prompt', async () => {
    const a = actions();
    render(UserMessage, { item, backend, actions: a });
    await userEvent.click(screen.getByRole('button', { name: 'Fork' }));
    expect(a.fork).toHaveBeenCalledWith(2);
  });

  it('edits the prompt and sends it as a fork', async () => {
    const a = actions();
    render(UserMessage, { item, backend, actions: a });
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const box = screen.getByRole('textbox', { name: 'Edited prompt' });
    expect(box).toHaveValue('Plot sin(x)');
    await userEvent.clear(box);
    await userEvent.type(box, 'Plot cos(x){Enter}');
    expect(a.edit).toHaveBeenCalledWith(2, 'Plot cos(x)');
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('offers nothing while a turn runs or without a turn number', () => {
    const { unmount } = render(UserMessage, { item, backend, actions: actions(true) });
    expect(screen.getByRole('button', { name: 'Fork' })).toBeDisabled();
    unmount();
    render(UserMessage, { item: { ...item, turn: 0 }, backend, actions: actions() });
    expect(screen.queryByRole('button', { name: 'Fork' })).toBeNull();
  });
});

describe('BudgetBar', () => {
  it('says what was spent and continues or stops', async () => {
    const onanswer = vi.fn();
    render(BudgetBar, { budget: { requestId: 'b1', agentId: 'main', spent: 4.5, budget: 5, estimate: 0.75 }, step: 5, onanswer });
    expect(screen.getByTestId('budget-bar')).toHaveTextContent('This session has cost $4.50 of its $5.00 budget; the next model call costs about $0.75.');
    await userEvent.click(screen.getByRole('button', { name: 'Continue (budget $10.00)' }));
    await userEvent.click(screen.getByRole('button', { name: 'Stop the turn' }));
    expect(onanswer.mock.calls).toEqual([[true], [false]]);
  });
});
