import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ToolBlock from './ToolBlock.svelte';
import type { Backend } from '../../lib/backend';
import type { AgentEvent } from '../../lib/conversation/events';
import { answered, initialState, reduce, type Decision, type ToolItem } from '../../lib/conversation/reducer';

// Tool items are made the way the window makes them: events from the Go
// side through the reducer, answers through answered().
type Step = AgentEvent | { answer: string; decision: Decision };

function toolOf(steps: Step[]): ToolItem {
  let s = initialState();
  let now = 1_000;
  for (const step of steps) {
    now += 500;
    s = 'answer' in step ? answered(s, step.answer, step.decision, now) : reduce(s, step, now);
  }
  const tool = s.items.find((it) => it.kind === 'tool');
  if (!tool || tool.kind !== 'tool') throw new Error('the events made no tool item');
  return tool;
}

const meta = { agent_id: 'main', correlation_id: 'c1' };
const EXECUTE = 'ipybox_execute_ipython_cell';
const askCode = (code: string): AgentEvent => ({
  ...meta,
  type: 'ApprovalRequest',
  request_id: 'r1',
  tool_call: { type: 'CodeAction', tool_name: EXECUTE, code },
  suggested_pattern: EXECUTE,
});
const chunk = (kind: string, text: string): AgentEvent => ({ ...meta, type: 'CodeExecutionOutputChunk', kind, text });
const toolOutput = (tool_name: string, content: string, is_error = false): AgentEvent => ({
  ...meta,
  type: 'ToolOutput',
  tool_name,
  content,
  is_error,
});

function fakeBackend(): Backend {
  const partial: Pick<Backend, 'imageData' | 'openFile' | 'showInFolder' | 'copyText'> = {
    imageData: vi.fn(async (path: string) => `data:image/png;base64,${btoa(path)}`),
    openFile: vi.fn(async () => {}),
    showInFolder: vi.fn(async () => {}),
    copyText: vi.fn(async () => {}),
  };
  return partial as Backend;
}

function show(item: ToolItem, backend = fakeBackend(), onreply = vi.fn()) {
  render(ToolBlock, { item, backend, onreply });
  return { backend, onreply, status: () => screen.getByTestId('tool-status').textContent };
}

describe('ToolBlock', () => {
  describe('approval states', () => {
    it('shows a code action waiting for approval with its highlighted code', () => {
      const { status } = show(toolOf([askCode('import os\nprint(os.getcwd())')]));
      expect(screen.getByRole('article', { name: 'Code action' })).toHaveClass('asking');
      expect(status()).toBe('waiting for approval');
      const code = screen.getByRole('article').querySelector('pre.code code')!;
      expect(code).toHaveTextContent('import os print(os.getcwd())');
      expect(code.querySelector('.hljs-keyword')).toHaveTextContent('import');
      expect(screen.queryByRole('status', { name: 'Running' })).not.toBeInTheDocument();
      expect(screen.queryByTestId('elapsed')).not.toBeInTheDocument();
    });

    it('runs with a spinner and a clock once approved', () => {
      const { status } = show(toolOf([askCode('x = 1'), { answer: 'r1', decision: 'yes' }]));
      expect(status()).toBe('running');
      expect(screen.getByRole('status', { name: 'Running' })).toBeInTheDocument();
      expect(screen.getByTestId('elapsed')).toHaveTextContent(/^\d+\.\d s$/);
    });

    it('shows a rejected call as rejected, without the model-facing result as output', () => {
      const item = toolOf([askCode('!rm -rf /'), { answer: 'r1', decision: 'no' }, toolOutput(EXECUTE, 'Tool call rejected', true)]);
      const { status } = show(item);
      expect(status()).toBe('rejected');
      expect(screen.getByRole('article')).toHaveClass('rejected');
      expect(screen.queryByTestId('output')).not.toBeInTheDocument();
    });

    it('lists each shell command of the cell with its own answer', () => {
      const shell = (request_id: string, command: string): AgentEvent => ({
        ...meta,
        type: 'ApprovalRequest',
        request_id,
        tool_call: { type: 'ShellAction', tool_name: 'bash', command },
        display: command,
        suggested_pattern: command,
      });
      const item = toolOf([
        askCode('!git status && touch x && ls'),
        { answer: 'r1', decision: 'yes' },
        shell('s1', 'git status'),
        { answer: 's1', decision: 'yes' },
        shell('s2', 'touch x'),
        { answer: 's2', decision: 'no' },
        shell('s3', 'ls'),
      ]);
      show(item);
      const rows = within(screen.getByRole('list', { name: 'Shell commands' })).getAllByRole('listitem');
      expect(rows.map((r) => r.textContent)).toEqual([
        '$ git status approved',
        '$ touch x rejected',
        '$ ls waiting for approval',
      ]);
      expect(rows[1]).toHaveClass('rejected');
    });

    it('marks a call cut off by the end of its turn as interrupted', () => {
      const item = toolOf([
        askCode('import time; time.sleep(60)'),
        { answer: 'r1', decision: 'yes' },
        { agent_id: 'main', type: 'TurnEnded' },
      ]);
      const { status } = show(item);
      expect(status()).toBe('interrupted');
    });
  });

  describe('output and images', () => {
    it('shows streamed output and the images the cell saved, once each, without their markdown links', async () => {
      const item = toolOf([
        askCode('plot()'),
        { answer: 'r1', decision: 'yes' },
        chunk('stdout', 'plotting\n'),
        chunk('image', '![image](/ws/images/a1.png)\n'),
        chunk('stdout', 'done\n'),
        {
          ...meta,
          type: 'CodeExecutionOutput',
          text: 'plotting\n![image](/ws/images/a1.png)\ndone\n',
          images: ['/ws/images/a1.png'],
        },
        toolOutput(EXECUTE, 'plotting\n![image](/ws/images/a1.png)\ndone\n'),
      ]);
      const { backend, status } = show(item);
      expect(status()).toBe('done');
      const output = screen.getByTestId('output');
      expect(output.querySelector('pre')!.textContent).toBe('plotting\ndone\n');
      expect(output).not.toHaveClass('error');
      const images = await screen.findAllByTestId('inline-image');
      expect(images).toHaveLength(1);
      expect(images[0]).toHaveAttribute('src', `data:image/png;base64,${btoa('/ws/images/a1.png')}`);
      expect(backend.imageData).toHaveBeenCalledWith('/ws/images/a1.png');
      // A code action's result is its output: no separate result section.
      expect(screen.queryByTestId('tool-result')).not.toBeInTheDocument();
    });

    it('shows a failing cell as an error with its traceback', () => {
      const tb = 'Traceback (most recent call last):\nZeroDivisionError: division by zero\n';
      const item = toolOf([
        askCode('1/0'),
        { answer: 'r1', decision: 'yes' },
        chunk('error', tb),
        { ...meta, type: 'CodeExecutionOutput', text: tb, images: null, error: true },
        toolOutput(EXECUTE, tb, true),
      ]);
      const { status } = show(item);
      expect(status()).toBe('error');
      expect(screen.getByTestId('output')).toHaveClass('error');
      expect(screen.getByTestId('output')).toHaveTextContent('ZeroDivisionError: division by zero');
    });

    it('shows a resumed cell from the result the model saw, with the images it names', async () => {
      const item = toolOf([
        { ...meta, type: 'ToolCall', tool_name: EXECUTE, args: { code: 'plot()' } },
        toolOutput(EXECUTE, 'saved a plot\n![image](images/b2.png)\n'),
      ]);
      show(item);
      expect(screen.getByRole('article', { name: 'Code action' })).toHaveTextContent('plot()');
      expect(screen.getByTestId('output').querySelector('pre')!.textContent).toBe('saved a plot\n');
      expect(await screen.findAllByTestId('inline-image')).toHaveLength(1);
    });

    it('asks for input inside the cell and sends the answer', async () => {
      const item = toolOf([
        askCode('name = input("Name? ")'),
        { answer: 'r1', decision: 'yes' },
        { ...meta, type: 'InputRequest', request_id: 'in1', prompt: 'Name? ' },
      ]);
      const { onreply } = show(item);
      await userEvent.type(screen.getByTestId('cell-input'), 'Ada{Enter}');
      expect(onreply).toHaveBeenCalledExactlyOnceWith('in1', 'Ada');
    });
  });

  describe('tool kinds', () => {
    const ask = (tool_call: Extract<AgentEvent, { type: 'ApprovalRequest' }>['tool_call']): AgentEvent => ({
      ...meta,
      type: 'ApprovalRequest',
      request_id: 'r1',
      tool_call,
      suggested_pattern: tool_call.tool_name,
    });

    it.each([
      ['Read notes.txt', { type: 'FileRead', tool_name: 'filesystem_read_text_file', path: 'notes.txt' } as const, null],
      [
        'Write out.md',
        { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: 'out.md', content: '# Title\n' } as const,
        '# Title\n',
      ],
      [
        'Edit a.py',
        { type: 'FileEdit', tool_name: 'filesystem_edit_text_file', path: 'a.py', old_text: 'x = 1', new_text: 'x = 2' } as const,
        '- x = 1\n+ x = 2',
      ],
      [
        'Tool: github_search_issues',
        { type: 'GenericCall', tool_name: 'github_search_issues', tool_args: { query: 'is:open' } } as const,
        '{\n  "query": "is:open"\n}',
      ],
      [
        'Tool call from code: github_search_issues',
        { type: 'GenericCall', tool_name: 'github_search_issues', tool_args: { query: 'bug' }, ptc: true } as const,
        '{\n  "query": "bug"\n}',
      ],
    ])('titles the call "%s" and shows its arguments', (title, call, args) => {
      show(toolOf([ask(call)]));
      expect(screen.getByRole('article', { name: title })).toBeInTheDocument();
      expect(screen.getByText(title)).toHaveClass('title');
      if (args === null) {
        expect(screen.queryByText('Arguments')).not.toBeInTheDocument();
      } else {
        expect(screen.getByText('Arguments').closest('details')).toHaveAttribute('open');
        expect(screen.getByText('Arguments').nextElementSibling!.textContent).toBe(args);
      }
      // Only code actions have code and output.
      expect(screen.queryByTestId('output')).not.toBeInTheDocument();
      expect(screen.getByRole('article').querySelector('pre.code')).toBeNull();
    });

    it('shows a short result open', () => {
      const call = { type: 'FileRead', tool_name: 'filesystem_read_text_file', path: 'a.txt' } as const;
      show(toolOf([ask(call), { answer: 'r1', decision: 'yes' }, toolOutput(call.tool_name, '1: hello')]));
      expect(screen.getByTestId('tool-result')).toHaveTextContent('1: hello');
      expect(screen.getByTestId('tool-result').closest('details')).toHaveAttribute('open');
      expect(screen.getByText('Result')).toBeInTheDocument();
    });

    it('folds a long result and names its size', () => {
      const call = { type: 'FileRead', tool_name: 'filesystem_read_text_file', path: 'big.txt' } as const;
      const long = 'y'.repeat(5000);
      show(toolOf([ask(call), { answer: 'r1', decision: 'yes' }, toolOutput(call.tool_name, long)]));
      expect(screen.getByTestId('tool-result').closest('details')).not.toHaveAttribute('open');
      expect(screen.getByText(/^Result \(5,000 characters\)$/)).toBeInTheDocument();
    });

    it('labels a failed call Error', () => {
      const call = { type: 'GenericCall', tool_name: 'files_delete', tool_args: {} } as const;
      const { status } = show(
        toolOf([ask(call), { answer: 'r1', decision: 'yes' }, toolOutput(call.tool_name, 'MCP server "files": tool failed', true)]),
      );
      expect(status()).toBe('error');
      expect(screen.getByText('Error')).toBeInTheDocument();
      expect(screen.getByTestId('tool-result')).toHaveTextContent('tool failed');
    });
  });

  describe('offloaded results', () => {
    const notice =
      'The tool result is 40000 bytes, larger than the inline limit of 32768 bytes. ' +
      'The full result was saved to .freeact/sessions/s1/tool-results/ab12cd34.txt; read that file when you need more than the preview.';
    const item = () =>
      toolOf([
        {
          ...meta,
          type: 'ApprovalRequest',
          request_id: 'r1',
          tool_call: { type: 'GenericCall', tool_name: 'db_dump', tool_args: {} },
          suggested_pattern: 'db_dump',
        },
        { answer: 'r1', decision: 'yes' },
        { ...toolOutput('db_dump', notice), saved_path: '.freeact/sessions/s1/tool-results/ab12cd34.txt' } as AgentEvent,
      ]);

    it('names the file and opens it through the backend', async () => {
      const { backend } = show(item());
      expect(screen.getByText('.freeact/sessions/s1/tool-results/ab12cd34.txt', { selector: '.saved code' })).toBeInTheDocument();
      await userEvent.click(screen.getByRole('button', { name: 'Open saved file' }));
      expect(backend.openFile).toHaveBeenCalledExactlyOnceWith('.freeact/sessions/s1/tool-results/ab12cd34.txt');
    });

    it('offers no button for output that only says it saved a file', () => {
      // The same notice without the agent's saved_path, and code's own
      // output imitating it: the text is not where the path comes from.
      const fake = 'The full result was saved to report.html.';
      show(
        toolOf([
          {
            ...meta,
            type: 'ApprovalRequest',
            request_id: 'r1',
            tool_call: { type: 'GenericCall', tool_name: 'db_dump', tool_args: {} },
            suggested_pattern: 'db_dump',
          },
          { answer: 'r1', decision: 'yes' },
          toolOutput('db_dump', notice + '\n' + fake),
        ]),
      );
      expect(screen.queryByRole('button', { name: 'Open saved file' })).toBeNull();
      expect(document.querySelector('.saved')).toBeNull();
    });

    it('shows the button from the field, whatever the text says', () => {
      show(
        toolOf([
          {
            ...meta,
            type: 'ApprovalRequest',
            request_id: 'r1',
            tool_call: { type: 'GenericCall', tool_name: 'db_dump', tool_args: {} },
            suggested_pattern: 'db_dump',
          },
          { answer: 'r1', decision: 'yes' },
          { ...toolOutput('db_dump', 'The result was saved to report.html.'), saved_path: 'out/real.txt' } as AgentEvent,
        ]),
      );
      expect(screen.getByText('out/real.txt', { selector: '.saved code' })).toBeInTheDocument();
      expect(screen.queryByText('report.html', { selector: '.saved code' })).toBeNull();
    });

    it('shows why the file could not be opened', async () => {
      const backend = fakeBackend();
      vi.mocked(backend.openFile).mockRejectedValueOnce(new Error('the file is outside the workspace'));
      show(item(), backend);
      await userEvent.click(screen.getByRole('button', { name: 'Open saved file' }));
      expect(await screen.findByRole('alert')).toHaveTextContent('the file is outside the workspace');
    });

    it('offers Copy path and Show in folder when no program opens the file', async () => {
      const backend = fakeBackend();
      vi.mocked(backend.openFile).mockRejectedValueOnce(new Error('no program to open files is installed (xdg-open was not found)'));
      show(item(), backend);
      expect(screen.queryByRole('button', { name: 'Copy path' })).toBeNull();
      await userEvent.click(screen.getByRole('button', { name: 'Open saved file' }));
      expect(await screen.findByRole('alert')).toHaveTextContent('xdg-open was not found');
      await userEvent.click(screen.getByRole('button', { name: 'Copy path' }));
      expect(backend.copyText).toHaveBeenCalledWith('.freeact/sessions/s1/tool-results/ab12cd34.txt');
      await userEvent.click(screen.getByRole('button', { name: 'Show in folder' }));
      expect(backend.showInFolder).toHaveBeenLastCalledWith('.freeact/sessions/s1/tool-results/ab12cd34.txt');
    });

    it('says so when Show in folder finds no file manager either, and keeps Copy path', async () => {
      const backend = fakeBackend();
      vi.mocked(backend.openFile).mockRejectedValueOnce(new Error('no program to open files is installed (xdg-open was not found)'));
      vi.mocked(backend.showInFolder).mockRejectedValueOnce(new Error('no file manager answers and no program to open folders is installed'));
      show(item(), backend);
      await userEvent.click(screen.getByRole('button', { name: 'Open saved file' }));
      await userEvent.click(await screen.findByRole('button', { name: 'Show in folder' }));
      await vi.waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('no file manager answers'));
      expect(screen.getByRole('button', { name: 'Copy path' })).toBeInTheDocument();
    });
  });
});

describe('ToolBlock header for screen readers', () => {
  it("names the header with the cell's status and badges", () => {
    const item = { ...toolOf([askCode('print(1)')]), status: 'done' as const, original: 'print(0)' };
    show(item);
    expect(screen.getByRole('group', { name: /done, edited by you/ })).toBeInTheDocument();
  });
});

describe('ToolBlock hidden characters', () => {
  const plainItem = (over: Partial<ToolItem>): ToolItem => ({
    ...toolOf([askCode('')]),
    ...over,
  });

  it('shows hidden characters in code, commands, paths and arguments as escapes', () => {
    const { container } = render(ToolBlock, {
      item: plainItem({
        call: { type: 'CodeAction', tool_name: EXECUTE, code: "x = 1 # \u202e\r\n!touch 'a\x1b[2Kb'" },
        shell: [
          {
            requestId: 'r1',
            command: "touch 'a\x1b[2Kb'",
            call: { type: 'ShellAction', tool_name: 'bash', command: "touch 'a\x1b[2Kb'" },
            status: 'asking',
            approvedBy: null,
          },
        ],
      }),
      backend: fakeBackend(),
      onreply: vi.fn(),
    });
    const text = container.textContent ?? '';
    expect(text).toContain('x = 1 # \\u202e\\r');
    expect(text).toContain("$ touch 'a\\x1b[2Kb'");
    expect(text).not.toMatch(/[\r\x1b\u202e]/);

    render(ToolBlock, {
      item: plainItem({
        name: 'filesystem_write_text_file',
        call: { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: 'a\u200bb.txt', content: 'ok\x07' },
      }),
      backend: fakeBackend(),
      onreply: vi.fn(),
    });
    expect(screen.getByText('Write a\\u200bb.txt')).toBeInTheDocument();
    expect(screen.getByText('ok\\x07')).toBeInTheDocument();
  });
});

describe('ToolBlock MCP progress', () => {
  const askTool: AgentEvent = {
    ...meta,
    type: 'ApprovalRequest',
    request_id: 'r1',
    tool_call: { type: 'GenericCall', tool_name: 'gh_sync', tool_args: {}, hints: { destructive: true } },
    suggested_pattern: 'gh_sync',
  };
  const progress = (i: number, logs: number): AgentEvent => ({
    ...meta,
    type: 'ToolProgress',
    server: 'gh',
    progress: i,
    total: 200,
    message: `page ${i}\u202e`,
    logs: Array.from({ length: logs }, (_, k) => ({ level: k % 2 ? 'error' : 'info', message: `line ${i}.${k}` })),
    dropped: 5,
  });

  it('shows the bar, the message and the newest log lines on the card, with the badges', async () => {
    const steps: Step[] = [askTool, { answer: 'r1', decision: 'yes' }];
    // A flood: 400 events of 10 lines each keep the last 50 lines.
    for (let i = 1; i <= 200; i++) steps.push(progress(i, 10));
    const item = toolOf(steps);
    expect(item.progress?.logs).toHaveLength(50);
    expect(item.progress?.dropped).toBe(200 * 10 + 200 * 5 - 50);
    show(item);
    expect(screen.getByText('destructive')).toBeInTheDocument();
    expect(screen.getByTestId('progress-percent')).toHaveTextContent('100%');
    expect(screen.getByRole('progressbar', { name: 'gh: 100%' })).toHaveValue(100);
    expect(screen.getByTestId('progress-message')).toHaveTextContent('page 200\\u202e');
    const summary = screen.getByTestId('progress-log-summary');
    expect(summary).toHaveTextContent('Log of gh · 3000 lines, the last 50 shown');
    await userEvent.click(summary);
    const lines = within(screen.getByTestId('progress-logs')).getAllByRole('listitem');
    expect(lines).toHaveLength(50);
    expect(lines.at(-1)).toHaveTextContent('error line 200.9');
    expect(lines.at(-1)).toHaveClass('error');
  });

  it('drops progress that comes after the result', () => {
    const item = toolOf([askTool, { answer: 'r1', decision: 'yes' }, progress(10, 1), toolOutput('gh_sync', 'done'), progress(20, 1)]);
    expect(item.progress?.progress).toBe(10);
  });

  it('shows a count without a total, and no bar', () => {
    const item = toolOf([askTool, { answer: 'r1', decision: 'yes' }, { ...meta, type: 'ToolProgress', server: 'gh', progress: 7 }]);
    show(item);
    expect(screen.getByTestId('progress-percent')).toHaveTextContent('7 done');
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.queryByTestId('progress-logs')).toBeNull();
  });
});

describe('ToolBlock auto-approval by a hook', () => {
  it('says a hook allowed the call, with what the hook said, not a saved rule', () => {
    const item = toolOf([
      {
        ...meta,
        type: 'AutoApproved',
        tool_call: { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: 'a.txt', content: 'x' },
        by: 'hook',
        rule: 'writes are fine',
      },
    ]);
    show(item);
    const badge = screen.getByTestId('auto-approved');
    expect(badge).toHaveTextContent('hook');
    expect(badge).not.toHaveTextContent('saved rule');
    expect(badge).toHaveAttribute('title', 'Auto-approved by a hook: writes are fine');
  });
});

describe('ToolBlock auto-approval by auto mode', () => {
  const write = { type: 'FileWrite' as const, tool_name: 'filesystem_write_text_file', path: 'a.txt', content: 'x' };
  it.each([
    ['sandbox', '', 'auto-approved · sandbox', 'the sandbox bounds it'],
    ['read_only', '', 'auto-approved · read-only tool', 'read-only tool of a server you trusted'],
    ['judge', 'the user asked\nfor a.txt', 'auto-approved · judge: the user asked', "Auto mode's judge allowed it: the user asked"],
  ] as const)('says %s let the call run, with the judge its reason', (by, reason, text, title) => {
    const item = toolOf([{ ...meta, type: 'AutoApproved', tool_call: write, by, reason }]);
    show(item);
    const badge = screen.getByTestId('auto-approved');
    expect(badge).toHaveTextContent(text);
    expect(badge).toHaveAttribute('data-by', by);
    expect(badge.getAttribute('title')).toContain(title);
    expect(badge).not.toHaveTextContent('saved rule');
  });

  it('says auto mode let a shell command inside a cell run', () => {
    const item = toolOf([
      askCode('!ls'),
      { answer: 'r1', decision: 'yes' },
      { ...meta, type: 'AutoApproved', tool_call: { type: 'ShellAction', tool_name: 'shell', command: 'ls' }, by: 'judge', reason: 'only lists' },
    ]);
    show(item);
    expect(screen.getByRole('list', { name: 'Shell commands' })).toHaveTextContent('auto-approved (judge only lists)');
  });
});
