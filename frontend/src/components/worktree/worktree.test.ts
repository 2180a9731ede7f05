import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import WorktreeBar from './WorktreeBar.svelte';
import { reviewDiffs, type WorktreeBackend, type WorktreeInfo } from '../../lib/worktree';

const info: WorktreeInfo = {
  name: 'fix',
  branch: 'freeact/fix',
  baseBranch: 'main',
  baseCommit: '0123456789abcdef',
  path: '/data/worktrees/repo-1/fix',
  main: '/home/u/repo',
};

function fakeApi(over: Partial<WorktreeBackend> = {}): WorktreeBackend {
  return {
    current: vi.fn(async () => null),
    propose: vi.fn(async () => ({ proposed: 'task-1128' })),
    create: vi.fn(async () => ({ worktree: info })),
    review: vi.fn(async () => ({ review: { name: 'fix', branch: 'freeact/fix', base_branch: 'main', base_commit: 'abc', files: [] } })),
    commit: vi.fn(async () => ({})),
    merge: vi.fn(async () => ({ merged: { commit: 'feedfacecafe0000', base_branch: 'main', squash: false } })),
    remove: vi.fn(async () => ({ removed: { branch_kept: false, branch: 'freeact/fix' } })),
    rollback: vi.fn(async () => ({})),
    list: vi.fn(async () => []),
    open: vi.fn(async () => ({ worktree: info })),
    forget: vi.fn(async () => ({ removed: { branch_kept: true, branch: 'freeact/gone', pruned: true } })),
    ...over,
  };
}

describe('WorktreeBar', () => {
  it('creates a conversation in a worktree under the proposed name and shows its branch', async () => {
    const api = fakeApi();
    render(WorktreeBar, { path: '/home/u/repo', api });
    await userEvent.click(await screen.findByRole('button', { name: 'New conversation in a worktree' }));
    const input = await screen.findByTestId('worktree-name');
    await waitFor(() => expect(input).toHaveValue('task-1128'));
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(api.create).toHaveBeenCalledWith('task-1128');
    expect(await screen.findByTestId('worktree-branch')).toHaveTextContent('freeact/fix');
  });

  it('shows why there can be no worktree, with the offer', async () => {
    const api = fakeApi({
      propose: vi.fn(async () => ({
        problem: { kind: 'not-a-repository', message: '/home/u/x is not in a git repository', offer: 'run git init there', files: [], suggest: '', worktree: '' },
      })),
    });
    render(WorktreeBar, { path: '/home/u/x', api });
    await userEvent.click(await screen.findByRole('button', { name: 'New conversation in a worktree' }));
    const p = await screen.findByTestId('worktree-problem');
    expect(p).toHaveTextContent('not in a git repository');
    expect(p).toHaveTextContent('run git init there');
  });

  it('removes only after asking about unsaved files, and deletes only the list confirmed twice', async () => {
    const remove = vi.fn(async (choice: string) =>
      choice === ''
        ? { problem: { kind: 'unsaved-work', message: 'not committed', offer: '', files: ['notes.txt', 'new/data.csv'], suggest: '', worktree: '' } }
        : { removed: { branch_kept: true, branch: 'freeact/fix', discarded: ['notes.txt', 'new/data.csv'] } },
    );
    const api = fakeApi({ current: vi.fn(async () => info), remove });
    render(WorktreeBar, { path: info.path, api });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove worktree' }));
    const list = await screen.findByTestId('worktree-unsaved');
    expect(within(list).getByText('notes.txt')).toBeInTheDocument();
    expect(within(list).getByText('new/data.csv')).toBeInTheDocument();
    expect(remove).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'Delete them…' }));
    expect(await screen.findByText('Delete 2 files for good?')).toBeInTheDocument();
    expect(remove).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'Delete and remove' }));
    expect(remove).toHaveBeenLastCalledWith('delete', ['notes.txt', 'new/data.csv']);
    expect(await screen.findByTestId('worktree-note')).toHaveTextContent('The branch freeact/fix is kept');
  });

  it('marks ignored files, never commits them, and deletes them only after confirming their list', async () => {
    const files = ['notes.txt', '.env (ignored)', 'node_modules/ (812 files, ignored)'];
    const remove = vi.fn(async (choice: string) =>
      choice === ''
        ? { problem: { kind: 'unsaved-work', message: 'not committed', offer: '', files, suggest: '', worktree: '' } }
        : { removed: { branch_kept: true, branch: 'freeact/fix', committed: true, discarded: files.slice(1) } },
    );
    const api = fakeApi({ current: vi.fn(async () => info), remove });
    render(WorktreeBar, { path: info.path, api });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove worktree' }));
    const list = await screen.findByTestId('worktree-unsaved');
    expect(within(list).getByText('.env (ignored)')).toHaveClass('ignored');
    expect(within(list).getByText('notes.txt')).not.toHaveClass('ignored');
    expect(screen.getByTestId('worktree-ignored-note')).toHaveTextContent('never committed');
    expect(screen.queryByRole('button', { name: 'Commit to the branch and remove' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Commit the others, delete the ignored…' }));
    const confirm = await screen.findByTestId('worktree-confirm-delete');
    expect(within(confirm).getByText('Delete 2 files for good?')).toBeInTheDocument();
    expect(within(confirm).queryByText('notes.txt')).toBeNull();
    expect(remove).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'Delete and remove' }));
    expect(remove).toHaveBeenLastCalledWith('commit-delete', ['.env (ignored)', 'node_modules/ (812 files, ignored)']);
    expect(await screen.findByTestId('worktree-note')).toHaveTextContent('committed to freeact/fix first');
  });

  it('offers no commit when every file left is ignored', async () => {
    const remove = vi.fn(async () => ({ problem: { kind: 'unsaved-work', message: 'm', offer: '', files: ['data/ (40 files, ignored)'], suggest: '', worktree: '' } }));
    const api = fakeApi({ current: vi.fn(async () => info), remove });
    render(WorktreeBar, { path: info.path, api });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove worktree' }));
    await screen.findByTestId('worktree-unsaved');
    expect(screen.queryByRole('button', { name: /Commit/ })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Delete them…' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Delete and remove' }));
    expect(remove).toHaveBeenLastCalledWith('delete', ['data/ (40 files, ignored)']);
  });

  it('keeps the worktree when asked to', async () => {
    const remove = vi.fn(async () => ({ problem: { kind: 'unsaved-work', message: 'm', offer: '', files: ['a'], suggest: '', worktree: '' } }));
    const api = fakeApi({ current: vi.fn(async () => info), remove });
    render(WorktreeBar, { path: info.path, api });
    await userEvent.click(await screen.findByRole('button', { name: 'Remove worktree' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Keep the worktree' }));
    expect(remove).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('worktree-branch')).toBeInTheDocument();
  });

  it('shows a merge conflict with its files and changes nothing', async () => {
    const merge = vi.fn(async () => ({
      problem: { kind: 'conflict', message: 'merging conflicts; nothing was changed', offer: 'resolve it in the worktree', files: ['a.txt'], suggest: '', worktree: '' },
    }));
    const api = fakeApi({ current: vi.fn(async () => info), merge });
    render(WorktreeBar, { path: info.path, api });
    await userEvent.click(await screen.findByRole('button', { name: 'Merge worktree back' }));
    await userEvent.click(screen.getByRole('button', { name: 'Squash' }));
    expect(merge).toHaveBeenCalledWith(true);
    const p = await screen.findByTestId('worktree-problem');
    expect(within(p).getByText('a.txt')).toBeInTheDocument();
    expect(p).toHaveTextContent('nothing was changed');
  });
});

describe('WorktreeBar interrupted merge', () => {
  it('offers to roll back a merge a crash stopped half-way', async () => {
    const merge = vi.fn(async () => ({
      problem: { kind: 'merge-interrupted', message: 'the merge of worktree fix was interrupted half-way', offer: 'roll it back', files: [], suggest: '', worktree: 'fix' },
    }));
    const api = fakeApi({ current: vi.fn(async () => info), merge });
    render(WorktreeBar, { path: info.path, api });
    await userEvent.click(await screen.findByRole('button', { name: 'Merge worktree back' }));
    await userEvent.click(screen.getByRole('button', { name: 'Merge' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Roll back the merge' }));
    expect(api.rollback).toHaveBeenCalledWith('fix');
    expect(await screen.findByTestId('worktree-note')).toHaveTextContent('back where the interrupted merge found it');
  });
});

describe('WorktreeBar list', () => {
  it('reports a worktree whose folder was deleted and forgets it only on request', async () => {
    const gone = { ...info, name: 'gone', branch: 'freeact/gone', missing: true, open: false };
    const other = { ...info, name: 'other', branch: 'freeact/other', missing: false, open: false };
    const list = vi.fn().mockResolvedValueOnce([gone, other]).mockResolvedValueOnce([other]);
    const api = fakeApi({ list });
    render(WorktreeBar, { path: '/home/u/repo', api });
    await userEvent.click(await screen.findByRole('button', { name: 'Worktrees…' }));
    const rows = await screen.findAllByTestId('worktree-entry');
    expect(rows[0]).toHaveTextContent('its folder was deleted outside the app');
    expect(api.forget).not.toHaveBeenCalled();
    await userEvent.click(within(rows[0]!).getByRole('button', { name: /Forget/ }));
    expect(api.forget).toHaveBeenCalledWith('gone');
    await waitFor(() => expect(screen.getAllByTestId('worktree-entry')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(api.open).toHaveBeenCalledWith('other');
    expect(await screen.findByTestId('worktree-branch')).toHaveTextContent('freeact/fix');
  });
});

describe('reviewDiffs', () => {
  it('turns a git patch into the review dialog’s file with counts', () => {
    const patch = 'diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n-one\n+two\n+three\n';
    const [d] = reviewDiffs({ name: 'f', branch: 'b', base_branch: 'main', base_commit: 'c', files: [{ path: 'a.txt', status: 'M', patch }] });
    expect(d).toMatchObject({ path: 'a.txt', status: 'modified', added: 2, removed: 1 });
    expect(d?.diff.startsWith('@@ -1 +1,2 @@')).toBe(true);
  });
});
