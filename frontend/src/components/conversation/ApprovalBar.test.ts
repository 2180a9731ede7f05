import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ApprovalBar from './ApprovalBar.svelte';
import type { PendingApproval } from '../../lib/conversation/reducer';

const shell = (id: string, command: string): PendingApproval => ({
  requestId: id,
  agentId: 'main',
  correlationId: 'c1',
  call: { type: 'ShellAction', tool_name: 'bash', command },
  display: command,
  suggested: `${command.split(' ')[0]} *`,
  reason: '',
  protected: false,
  noAlways: '',
});
const codeReq: PendingApproval = {
  requestId: 'r1',
  agentId: 'sub-ab12',
  correlationId: 'c0',
  call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'print(42)' },
  display: '',
  suggested: 'ipybox_execute_ipython_cell',
  reason: '',
  protected: false,
  noAlways: '',
};

describe('ApprovalBar', () => {
  it('shows the oldest request, what runs, and the queue', () => {
    render(ApprovalBar, { pending: [codeReq, shell('r2', 'git status')], onanswer: vi.fn() });
    expect(screen.getByText('Run this code?')).toBeInTheDocument();
    expect(screen.getByTestId('approval-body')).toHaveTextContent('print(42)');
    expect(screen.getByText('subagent sub-ab12')).toBeInTheDocument();
    expect(screen.getByTestId('approval-queue')).toHaveTextContent('1 of 2 pending');
  });

  it('shows an MCP tool\'s annotations as badges, and still asks', async () => {
    const onanswer = vi.fn();
    const req: PendingApproval = {
      ...shell('r7', ''),
      call: {
        type: 'GenericCall',
        tool_name: 'files_delete',
        tool_args: { path: 'a' },
        hints: { title: 'Delete a file', destructive: true, idempotent: false, open_world: false },
      },
      display: '',
      suggested: 'files_delete',
    };
    render(ApprovalBar, { pending: [req], onanswer });
    const hints = screen.getByTestId('tool-hints');
    expect(hints).toHaveTextContent('Delete a file');
    expect(screen.getByText('destructive')).toHaveClass('danger');
    expect(screen.getByText('not idempotent')).toBeInTheDocument();
    expect(screen.getByText('closed world')).toBeInTheDocument();
    expect(screen.queryByText('read-only')).toBeNull();
    expect(screen.getByTestId('approval-hints-note')).toHaveTextContent('never allow a call');
    // A read-only hint is shown, and the Yes is still the user's.
    const ro: PendingApproval = { ...req, requestId: 'r8', call: { type: 'GenericCall', tool_name: 'files_read', tool_args: {}, hints: { read_only: true } } };
    render(ApprovalBar, { pending: [ro], onanswer });
    expect(screen.getByText('read-only')).toHaveClass('calm');
    expect(onanswer).not.toHaveBeenCalled();
  });

  it('offers no Always for a tool its server marks destructive, and says why', async () => {
    const onanswer = vi.fn();
    const why =
      'The server marks this tool destructive, so no lasting rule is offered: allow it once or for this session. A rule for it can still be written in Settings → Permissions (.freeact/permissions.json).';
    const req: PendingApproval = {
      ...shell('r10', ''),
      call: { type: 'GenericCall', tool_name: 'files_delete', tool_args: { path: 'a' }, hints: { destructive: true } },
      display: '',
      suggested: 'files_delete',
      noAlways: why,
    };
    render(ApprovalBar, { pending: [req], onanswer });
    expect(screen.getByTestId('approval-no-always')).toHaveTextContent(why);
    expect(screen.queryByRole('button', { name: /Always/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Session/ })).toBeInTheDocument();
    await userEvent.keyboard('a');
    expect(screen.queryByLabelText('Always allow calls matching')).not.toBeInTheDocument();
    expect(onanswer).not.toHaveBeenCalled();
    await userEvent.keyboard('s');
    expect(onanswer).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r10' }), 'session', 'files_delete');
  });

  it('keeps Always for a read-only tool', () => {
    const req: PendingApproval = {
      ...shell('r11', ''),
      call: { type: 'GenericCall', tool_name: 'files_read', tool_args: {}, hints: { read_only: true } },
      display: '',
      suggested: 'files_read',
    };
    render(ApprovalBar, { pending: [req], onanswer: vi.fn() });
    expect(screen.getByRole('button', { name: /Always/ })).toBeInTheDocument();
    expect(screen.queryByTestId('approval-no-always')).toBeNull();
  });

  it('shows no badges for a tool without annotations', () => {
    const req: PendingApproval = { ...shell('r9', ''), call: { type: 'GenericCall', tool_name: 'x_y', tool_args: {} } };
    render(ApprovalBar, { pending: [req], onanswer: vi.fn() });
    expect(screen.queryByTestId('tool-hints')).toBeNull();
    expect(screen.queryByTestId('approval-hints-note')).toBeNull();
  });

  it('names the program of a script cell and shows the whole script', () => {
    const script = 'use strict;\nprint "one\\n";\nprint "two\\n";\nsystem("ls");\n';
    const req: PendingApproval = {
      ...shell('r3', ''),
      call: { type: 'ShellAction', tool_name: 'shell_magic', command: script, interpreter: 'perl -w' },
      display: `#!perl -w\n${script}`,
    };
    render(ApprovalBar, { pending: [req], onanswer: vi.fn() });
    expect(screen.getByText('Run this script with perl -w?')).toBeInTheDocument();
    expect(screen.getByTestId('approval-body').textContent).toBe(script);
  });

  it.each([
    ['{Enter}', 'yes', ''],
    ['y', 'yes', ''],
    ['Y', 'yes', ''],
    ['n', 'no', ''],
    ['{Escape}', 'no', ''],
    ['s', 'session', 'rm *'],
  ])('answers %s with %s', async (key, decision, pattern) => {
    const onanswer = vi.fn();
    render(ApprovalBar, { pending: [shell('r5', 'rm -rf build')], onanswer });
    await userEvent.keyboard(key);
    expect(onanswer).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r5' }), decision, pattern);
  });

  it('lets the user edit the pattern before Always', async () => {
    const onanswer = vi.fn();
    render(ApprovalBar, { pending: [shell('r5', 'git push origin main')], onanswer });
    await userEvent.keyboard('a');
    const input = screen.getByLabelText<HTMLInputElement>('Always allow calls matching');
    expect(input.value).toBe('git *');
    await userEvent.clear(input);
    await userEvent.type(input, 'git push *{Enter}');
    expect(onanswer).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r5' }), 'always', 'git push *');
  });

  it('shows what the Always rule will match before it is saved', async () => {
    const onanswer = vi.fn();
    const preview = vi.fn(async (_r: PendingApproval, pattern: string) => ({
      rule: { type: 'ShellAction', tool_name: 'bash', command: pattern },
      summary: `Shell commands matching "${pattern}" as a whole`,
      covers_call: pattern !== 'git pull *',
      matches: pattern === 'git push *' ? ['git push -v'] : ['git README.md'],
      misses: ['git push > out.txt'],
    }));
    render(ApprovalBar, { pending: [shell('r5', 'git push origin main')], onanswer, preview });
    await userEvent.keyboard('a');
    const shown = await screen.findByTestId('rule-preview');
    expect(shown).toHaveTextContent('Shell commands matching "git *"');
    expect(shown).toHaveTextContent('git README.md');
    const input = screen.getByLabelText('Always allow calls matching');
    await userEvent.clear(input);
    await userEvent.type(input, 'git pull *');
    await vi.waitFor(() => expect(screen.getByTestId('rule-preview')).toHaveTextContent('does not cover the call it answers'));
    await userEvent.clear(input);
    await userEvent.type(input, 'git push *');
    await vi.waitFor(() => expect(screen.getByTestId('rule-preview')).toHaveTextContent('git push -v'));
    expect(screen.getByTestId('rule-preview')).toHaveTextContent('git push > out.txt');
    expect(preview).toHaveBeenLastCalledWith(expect.objectContaining({ requestId: 'r5' }), 'git push *');
    expect(onanswer).not.toHaveBeenCalled();
  });

  it('ignores keys typed in a text field', async () => {
    const onanswer = vi.fn();
    render(ApprovalBar, { pending: [shell('r5', 'ls')], onanswer });
    const other = document.createElement('textarea');
    document.body.append(other);
    await new Promise((r) => setTimeout(r, 0));
    other.focus();
    await userEvent.keyboard('nas');
    expect(onanswer).not.toHaveBeenCalled();
    other.remove();
  });

  it('moves to the next request when the queue advances', async () => {
    const onanswer = vi.fn();
    const { rerender } = render(ApprovalBar, { pending: [codeReq, shell('r2', 'ls -la')], onanswer });
    await rerender({ pending: [shell('r2', 'ls -la')], onanswer });
    expect(screen.getByText('Run this shell command?')).toBeInTheDocument();
    expect(screen.getByTestId('approval-body')).toHaveTextContent('ls -la');
    expect(screen.queryByTestId('approval-queue')).not.toBeInTheDocument();
  });

  it('summarises a long cell in three lines and points at its card', async () => {
    const onreveal = vi.fn();
    const code = Array.from({ length: 40 }, (_, i) => `line_${i + 1} = ${i}`).join('\n');
    render(ApprovalBar, { pending: [{ ...codeReq, agentId: 'main', call: { ...codeReq.call, code } as PendingApproval['call'] }], onanswer: vi.fn(), onreveal });
    const body = screen.getByTestId('approval-body');
    expect(body).toHaveTextContent('line_1 = 0');
    expect(body).toHaveTextContent('line_3 = 2');
    expect(body).not.toHaveTextContent('line_4');
    expect(screen.getByText('40 lines · 37 more in the highlighted card')).toBeInTheDocument();
    expect(screen.getByText('ipybox_execute_ipython_cell', { selector: 'code' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show in conversation ↑' }));
    expect(onreveal).toHaveBeenCalledWith(expect.objectContaining({ correlationId: 'c0' }));
  });

  it('shows hidden characters of model text as escapes', () => {
    const tricky = shell('r7', "touch pwned\r\x1b[2K$ ls -la\u202e'");
    render(ApprovalBar, { pending: [tricky], onanswer: vi.fn() });
    const body = screen.getByTestId('approval-body').textContent ?? '';
    expect(body).toBe("touch pwned\\r\\x1b[2K$ ls -la\\u202e'");
    expect(body).not.toMatch(/[\r\x1b\u202e]/);
  });

  it("shows an MCP tool's name and title as one visible line", () => {
    const req: PendingApproval = {
      ...shell('r10', ''),
      call: { type: 'GenericCall', tool_name: 'files_read\u200b\nfiles_delete', tool_args: {}, hints: { title: 'Read\u202e\nonly', read_only: true } },
    };
    render(ApprovalBar, { pending: [req], onanswer: vi.fn() });
    expect(screen.getByText('Call files_read\\u200b files_delete?')).toBeInTheDocument();
    expect(screen.getByTestId('tool-hints')).toHaveTextContent('Read\\u202e only');
    expect(screen.getByTestId('tool-hints').textContent).not.toMatch(/[\n\u202e]/);
  });

  it('says why a call is asked although a rule allows calls like it', () => {
    const req = { ...shell('r8', 'cat .env'), reason: 'the rule ShellAction bash "cat *" allows it, but it reads .env, which the rule FileRead filesystem_* **/.env asks for' };
    render(ApprovalBar, { pending: [req], onanswer: vi.fn() });
    expect(screen.getByTestId('approval-reason')).toHaveTextContent('Why asked: the rule ShellAction bash "cat *" allows it, but it reads .env');
    expect(screen.getByRole('button', { name: /Always/ })).toBeInTheDocument();
  });

  it('offers only yes and no for a protected call', async () => {
    const onanswer = vi.fn();
    const req: PendingApproval = {
      requestId: 'r9',
      agentId: 'main',
      correlationId: 'c9',
      call: { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: '.freeact/permissions.json', content: '{}' },
      display: '',
      suggested: '',
      reason: 'it changes .freeact/permissions.json: this changes what the agent may do without asking',
      protected: true,
      noAlways: '',
    };
    render(ApprovalBar, { pending: [req], onanswer });
    expect(screen.getByTestId('approval-reason')).toHaveTextContent(
      'Warning: it changes .freeact/permissions.json: this changes what the agent may do without asking',
    );
    expect(screen.queryByRole('button', { name: /Always/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Session/ })).not.toBeInTheDocument();
    await userEvent.keyboard('as');
    expect(onanswer).not.toHaveBeenCalled();
    expect(screen.queryByLabelText('Always allow calls matching')).not.toBeInTheDocument();
    await userEvent.keyboard('{Enter}');
    expect(onanswer).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r9' }), 'yes', '');
  });
});

describe('ApprovalBar: edit before approving', () => {
  const mainCode: PendingApproval = { ...codeReq, agentId: 'main' };

  it('opens the cell in the editor with e and runs the edited cell with Ctrl+Enter', async () => {
    const onanswer = vi.fn();
    const onedit = vi.fn();
    render(ApprovalBar, { pending: [mainCode], onanswer, onedit });
    await userEvent.keyboard('e');
    const editor = screen.getByLabelText<HTMLTextAreaElement>('Edit the cell before it runs');
    expect(editor.value).toBe('print(42)');
    expect(screen.getByText('unchanged')).toBeInTheDocument();
    await userEvent.clear(editor);
    await userEvent.type(editor, 'print(43)');
    expect(screen.getByText(/edited: this runs instead/)).toBeInTheDocument();
    // Keys typed in the editor are code, not answers.
    expect(onanswer).not.toHaveBeenCalled();
    await userEvent.keyboard('{Control>}{Enter}{/Control}');
    expect(onedit).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r1' }), 'print(43)');
  });

  it('goes back to the cell as it was with Esc, and cannot run an empty cell', async () => {
    const onedit = vi.fn();
    render(ApprovalBar, { pending: [mainCode], onanswer: vi.fn(), onedit });
    await userEvent.click(screen.getByRole('button', { name: /Edit/ }));
    const editor = screen.getByLabelText<HTMLTextAreaElement>('Edit the cell before it runs');
    await userEvent.clear(editor);
    expect(screen.getByRole('button', { name: /Run edited cell/ })).toBeDisabled();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByLabelText('Edit the cell before it runs')).toBeNull();
    expect(screen.getByTestId('approval-body')).toHaveTextContent('print(42)');
    expect(onedit).not.toHaveBeenCalled();
  });

  it('offers no edit for a shell command', async () => {
    const onedit = vi.fn();
    render(ApprovalBar, { pending: [shell('r3', 'ls')], onanswer: vi.fn(), onedit });
    expect(screen.queryByRole('button', { name: /Edit/ })).toBeNull();
    await userEvent.keyboard('e');
    expect(screen.queryByLabelText('Edit the cell before it runs')).toBeNull();
  });

  it('offers Never: a no that saves the suggested rule as a deny rule, not for a protected file', async () => {
    const onanswer = vi.fn();
    const { unmount } = render(ApprovalBar, { pending: [shell('r20', 'rm -rf build')], onanswer });
    await userEvent.click(screen.getByTestId('approval-never'));
    expect(onanswer).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ requestId: 'r20' }), 'never', 'rm *');
    unmount();
    render(ApprovalBar, { pending: [{ ...shell('r21', 'tee .freeact/permissions.json'), protected: true }], onanswer });
    expect(screen.queryByTestId('approval-never')).toBeNull();
  });
});
