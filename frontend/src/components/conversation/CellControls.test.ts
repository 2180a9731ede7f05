import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ToolBlock from './ToolBlock.svelte';
import { cellActionsKey, type CellActions } from '../../lib/conversation/cells';
import type { ToolItem } from '../../lib/conversation/reducer';
import type { Backend } from '../../lib/backend';

const item = (over: Partial<ToolItem> = {}): ToolItem => ({
  kind: 'tool',
  id: 'c1',
  name: 'ipybox_execute_ipython_cell',
  call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'x = 1\nprint(x)' },
  args: null,
  status: 'done',
  output: '1\n',
  dropped: 0,
  lines: 1,
  images: [],
  result: null,
  savedPath: '',
  isError: false,
  startedAt: 0,
  endedAt: 10,
  shell: [],
  input: null,
  original: null,
  run: null,
  changes: null,
  approvedBy: null,
  rejected: '',
  progress: null,
  errorText: '',
  ...over,
});

function show(it: ToolItem, canRun = true) {
  const actions: CellActions = { canRun, run: vi.fn(), runNotebook: vi.fn() };
  render(ToolBlock, {
    props: { item: it, backend: {} as Backend, onreply: vi.fn() },
    context: new Map([[cellActionsKey, actions]]),
  });
  return actions;
}

describe('running a cell again', () => {
  it('runs a finished cell again as it was', async () => {
    const actions = show(item());
    await userEvent.click(screen.getByRole('button', { name: 'Run again' }));
    expect(actions.run).toHaveBeenCalledExactlyOnceWith('x = 1\nprint(x)', 'c1', 'rerun');
  });

  it('edits, then runs; a run of a run belongs to the first cell', async () => {
    const actions = show(item({ id: 'run-4', run: { source: 'rerun', of: 'c1', index: 1, total: 1 } }));
    expect(screen.getByTestId('run-badge')).toHaveTextContent('run again');
    await userEvent.click(screen.getByRole('button', { name: 'Edit and run' }));
    const editor = screen.getByLabelText<HTMLTextAreaElement>('Edit the cell, then run it');
    expect(editor.value).toBe('x = 1\nprint(x)');
    await fireEvent.input(editor, { target: { value: 'x = 2\nprint(x)' } });
    await userEvent.keyboard('{Control>}{Enter}{/Control}');
    expect(actions.run).toHaveBeenCalledExactlyOnceWith('x = 2\nprint(x)', 'c1', 'rerun');
    expect(screen.queryByLabelText('Edit the cell, then run it')).toBeNull();
  });

  it('offers nothing while the cell runs, and waits while a turn runs', () => {
    show(item({ status: 'running' }));
    expect(screen.queryByRole('button', { name: 'Run again' })).toBeNull();
  });

  it('is disabled while it cannot run', () => {
    show(item(), false);
    expect(screen.getByRole('button', { name: 'Run again' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Edit and run' })).toBeDisabled();
  });

  it('shows the model’s cell under an edited one', () => {
    show(item({ original: 'x = 0' }));
    expect(screen.getByTestId('edited-badge')).toHaveTextContent('edited by you');
    expect(screen.getByText('The model’s cell, before your edit')).toBeInTheDocument();
  });

  it('runs a notebook cell that has not run in place, showing its saved output until then', async () => {
    const actions = show(item({ id: 'nb:n2', status: 'idle', output: '', result: 'saved 21\n' }));
    expect(screen.getByText('Notebook cell')).toBeInTheDocument();
    expect(screen.getByText('Output when the notebook was saved')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Run' }));
    expect(actions.run).toHaveBeenCalledExactlyOnceWith('x = 1\nprint(x)', 'n2', 'notebook');
  });
});
