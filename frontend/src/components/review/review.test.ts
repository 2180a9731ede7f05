import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ChangesBar from './ChangesBar.svelte';
import DiffDialog from './DiffDialog.svelte';
import RevertDialog from './RevertDialog.svelte';
import type { FileDiff, RevertPlan } from '../../lib/backend';
import type { FileChange } from '../../lib/conversation/events';

const files: FileChange[] = [
  { path: 'data.csv', status: 'modified', added: 1, removed: 0 },
  { path: 'gone.txt', status: 'deleted', added: 0, removed: 1 },
  { path: 'plot.png', status: 'added', binary: true, added: 0, removed: 0 },
];

describe('ChangesBar', () => {
  it('lists the files and offers review and revert', async () => {
    const onreview = vi.fn();
    const onrevert = vi.fn();
    render(ChangesBar, { files, scope: 'turn', revertedBy: '', onreview, onrevert });
    expect(screen.getByText('This turn: 3 files changed')).toBeInTheDocument();
    const list = screen.getByTestId('changed-files');
    expect(within(list).getByText('gone.txt')).toBeInTheDocument();
    expect(within(list).getByText('binary')).toBeInTheDocument();
    expect(within(list).getByText('+1')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Review changes' }));
    await userEvent.click(screen.getByRole('button', { name: 'Revert this turn' }));
    expect(onreview).toHaveBeenCalledOnce();
    expect(onrevert).toHaveBeenCalledOnce();
  });

  it('says when the changes were reverted and offers no second revert', () => {
    render(ChangesBar, { files: files.slice(0, 1), scope: 'action', revertedBy: 'r1', onreview: () => {}, onrevert: () => {} });
    expect(screen.getByText('1 file changed')).toBeInTheDocument();
    expect(screen.getByTestId('reverted-badge')).toHaveTextContent('Reverted');
    expect(screen.queryByRole('button', { name: 'Revert this action' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Review diff' })).toBeInTheDocument();
  });

  it('strikes through only the files the revert took back, not one it kept', () => {
    render(ChangesBar, { files, scope: 'turn', revertedBy: 'r1', kept: ['data.csv'], onreview: () => {}, onrevert: () => {} });
    const list = screen.getByTestId('changed-files');
    const kept = within(list).getByText('data.csv');
    expect(kept).not.toHaveClass('struck');
    expect(getComputedStyle(kept).textDecoration).not.toContain('line-through');
    expect(kept.closest('li')).toHaveTextContent('kept: the revert left it as it is');
    for (const name of ['gone.txt', 'plot.png']) {
      const path = within(list).getByText(name);
      expect(path).toHaveClass('struck');
      expect(path.closest('li')).not.toHaveTextContent('kept');
    }
  });

  it('strikes nothing through while the changes stand', () => {
    render(ChangesBar, { files, scope: 'turn', revertedBy: '', onreview: () => {}, onrevert: () => {} });
    for (const name of ['data.csv', 'gone.txt', 'plot.png']) expect(screen.getByText(name)).not.toHaveClass('struck');
  });

  it('marks changes recorded late, after freeact stopped during the action, and still offers their revert', () => {
    render(ChangesBar, { files: files.slice(0, 1), scope: 'action', revertedBy: '', late: true, onreview: () => {}, onrevert: () => {} });
    expect(screen.getByTestId('late-badge')).toHaveTextContent('Recorded late');
    expect(screen.getByRole('button', { name: 'Revert this action' })).toBeInTheDocument();
  });
});

describe('DiffDialog', () => {
  const diffs: FileDiff[] = [
    {
      path: 'notes.txt',
      status: 'modified',
      added: 1,
      removed: 1,
      diff: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n',
    },
    { path: 'plot.png', status: 'added', binary: true, added: 0, removed: 0, diff: '' },
    { path: 'big.bin', status: 'modified', large: true, added: 0, removed: 0, diff: '' },
  ];

  it('shows each file with its unified diff, coloured by line', async () => {
    const onclose = vi.fn();
    const onrevert = vi.fn();
    render(DiffDialog, { title: 'Changes of this turn', load: async () => diffs, onrevert, revertLabel: 'Revert this turn', onclose });
    const text = await screen.findByTestId('diff-text');
    const lines = [...text.querySelectorAll('.line')].map((l) => `${l.className.replace('line ', '').split(' ')[0]}:${l.textContent?.trim()}`);
    expect(lines).toEqual(['hunk:@@ -1,2 +1,2 @@', 'ctx:keep', 'del:-old', 'add:+new']);
    expect(screen.getByText('Binary file: no text diff.')).toBeInTheDocument();
    expect(screen.getByText(/content was not kept/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Revert this turn' }));
    expect(onrevert).toHaveBeenCalledOnce();
    await userEvent.keyboard('{Escape}');
    expect(onclose).toHaveBeenCalled();
  });

  it('says what went wrong when the diff cannot be loaded', async () => {
    render(DiffDialog, {
      title: 'x',
      load: async () => {
        throw new Error('checkpoints are off');
      },
      onclose: () => {},
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('checkpoints are off');
  });
});

describe('RevertDialog', () => {
  const plan: RevertPlan = {
    restore: [
      { path: 'notes.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'gone.txt', status: 'added', added: 1, removed: 0 },
    ],
    conflicts: [{ path: 'data.csv', status: 'modified', added: 2, removed: 0 }],
    unrestorable: ['big.bin'],
    protected: null,
    unkept: null,
  };

  it('lists what goes back, asks before overwriting later changes and says the kernel keeps its variables', async () => {
    const onconfirm = vi.fn(async () => {});
    render(RevertDialog, { title: 'Revert this turn?', what: 'this turn', load: async () => plan, onconfirm, onclose: () => {} });
    const button = await screen.findByRole('button', { name: 'Revert 2 files' });
    expect(screen.getByText('restore (deleted since)')).toBeInTheDocument();
    expect(screen.getByText('data.csv')).toBeInTheDocument();
    expect(screen.getByText(/big.bin/)).toBeInTheDocument();
    expect(screen.getByRole('alertdialog')).toHaveAccessibleDescription(/Variables, imports and data in the Python kernel are not files/);
    await userEvent.click(screen.getByRole('checkbox', { name: /Revert these too/ }));
    expect(button).toHaveTextContent('Revert 3 files');
    await userEvent.click(button);
    expect(onconfirm).toHaveBeenCalledWith(true, []);
  });

  it('shows protected files with both versions and unkept files, changing them only when ticked', async () => {
    const onconfirm = vi.fn(async () => {});
    const pp = '.freeact/permissions.json';
    render(RevertDialog, {
      title: 'Revert this turn?',
      what: 'this turn',
      load: async () => ({
        restore: [{ path: pp, status: 'modified', added: 1, removed: 1 }],
        conflicts: null,
        unrestorable: null,
        protected: [{ path: pp, status: 'modified', added: 1, removed: 1, current: '{"allow": ["*"]}', restored: '{"allow": []}' }],
        unkept: [
          { path: 'results.bin', size: 11 << 20 },
          { path: 'keep.bin', size: 2048 },
        ],
      }),
      onconfirm,
      onclose: () => {},
    });
    const button = await screen.findByRole('button', { name: 'Revert 1 file' });
    expect(screen.getByText(/this changes what the agent may do without asking/)).toBeInTheDocument();
    expect(screen.getByText('{"allow": ["*"]}')).toBeInTheDocument();
    expect(screen.getByText('{"allow": []}')).toBeInTheDocument();
    expect(screen.getByText('11.0 MiB')).toBeInTheDocument();
    expect(button).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: /Change this protected file/ }));
    await userEvent.click(screen.getByRole('checkbox', { name: /results.bin/ }));
    expect(button).toHaveTextContent('Revert 2 files');
    await userEvent.click(button);
    expect(onconfirm).toHaveBeenCalledWith(true, ['results.bin']);
  });

  it('keeps the dialog open with the error when the revert fails', async () => {
    render(RevertDialog, {
      title: 'Revert this action?',
      what: 'this action',
      load: async () => ({ restore: plan.restore, conflicts: null, unrestorable: null, protected: null, unkept: null }),
      onconfirm: async () => {
        throw new Error('a turn is running: revert when it has ended');
      },
      onclose: () => {},
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Revert 2 files' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('a turn is running'));
    expect(screen.getByRole('button', { name: 'Revert 2 files' })).toBeEnabled();
  });

  it('offers "Revert anyway" when files changed since the plan was made, and overwrites them on it', async () => {
    const onconfirm = vi.fn(async (force: boolean) => {
      if (!force) throw new Error('files changed since: data.txt (revert anyway to overwrite)');
    });
    render(RevertDialog, {
      title: 'Revert this turn?',
      what: 'this turn',
      load: async () => ({ restore: plan.restore, conflicts: null, unrestorable: null, protected: null, unkept: null }),
      onconfirm,
      onclose: () => {},
    });
    expect(screen.queryByRole('button', { name: 'Revert anyway' })).toBeNull();
    await userEvent.click(await screen.findByRole('button', { name: 'Revert 2 files' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Revert anyway' }));
    expect(onconfirm.mock.calls).toEqual([[false, []], [true, []]]);
  });

  it('says that unticked conflicts stay as they are', async () => {
    render(RevertDialog, { title: 'Revert?', what: 'this turn', load: async () => plan, onconfirm: async () => {}, onclose: () => {} });
    expect(await screen.findByText(/they stay as they are and only the other files are reverted/)).toBeInTheDocument();
  });

  it('has nothing to do when the files are as they were', async () => {
    render(RevertDialog, {
      title: 'Revert?',
      what: 'this action',
      load: async () => ({ restore: null, conflicts: null, unrestorable: null, protected: null, unkept: null }),
      onconfirm: async () => {},
      onclose: () => {},
    });
    expect(await screen.findByText(/Nothing to revert/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Revert 0 files' })).toBeDisabled();
  });
});
