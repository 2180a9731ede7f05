import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import HooksTab from './HooksTab.svelte';
import { addCommandHook, type HooksBackend, type HooksInfo } from '../../lib/hooks';

const wsContent = '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh <b>x</b>"}]}]}}';

function info(trusted: boolean, claude = true): HooksInfo {
  return {
    user: {
      source: 'user',
      path: '/home/u/.config/freeact/hooks.json',
      exists: true,
      trusted: true,
      changed: false,
      digest: '',
      content: '{}',
      hooks: [
        {
          event: 'PostToolUse',
          matcher: '',
          group: 0,
          handler: 0,
          type: 'command',
          command: 'log.sh',
          disabled: false,
          runs: [{ event: 'PostToolUse', tool: 'Write', source: 'user', handler: 'log.sh', verdict: 'ok', at: '2026-01-01T10:00:00Z' }],
        },
      ],
    },
    workspace: {
      source: 'workspace',
      path: '/ws/.freeact/hooks.json',
      exists: true,
      trusted,
      changed: false,
      digest: 'sha256:shown',
      content: wsContent,
      hooks: [{ event: 'PreToolUse', matcher: 'Bash', group: 0, handler: 0, type: 'command', command: './guard.sh <b>x</b>', disabled: false, runs: [] }],
    },
    claude,
  };
}

function fake(first: HooksInfo): HooksBackend {
  return {
    hooks: vi.fn(async () => first),
    saveHooks: vi.fn(async () => info(true)),
    setHookDisabled: vi.fn(async () => info(true)),
    trustHooks: vi.fn(async () => ({ ...info(true), note: 'Saved and applied: the agent restarted with them.' })),
    claudeHooks: vi.fn(async () => ({ files: [{ path: '/ws/.claude/settings.json', hooks: '{"PreToolUse": []}' }], digest: 'sha256:claude' })),
    importClaudeHooks: vi.fn(async () => info(true)),
  };
}

describe('HooksTab', () => {
  it('lists both files with source, trust and last runs, and trusts what it showed', async () => {
    const hooks = fake(info(false));
    render(HooksTab, { hooks, onerror: vi.fn() });
    await screen.findByTestId('hooks-workspace');
    expect(screen.getByTestId('hooks-trust').textContent).toContain('not trusted');
    // The command and the file's content are text, never markup.
    expect(screen.getByTestId('hooks-content').textContent).toBe(wsContent);
    expect(document.querySelector('[data-testid="hooks-tab"] b')).toBeNull();
    const user = screen.getByTestId('hooks-user');
    expect(user.textContent).toContain('always run');
    expect(user.textContent).toContain('log.sh');
    expect(user.textContent).toContain('PostToolUse Write');
    await userEvent.click(screen.getByRole('button', { name: 'Trust these hooks' }));
    expect(hooks.trustHooks).toHaveBeenCalledWith('sha256:shown');
    await waitFor(() => expect(screen.getByTestId('hooks-trust').textContent).toBe('trusted'));
    expect(screen.getByTestId('hooks-note').textContent).toContain('restarted');
  });

  it('turns a hook off', async () => {
    const hooks = fake(info(true));
    render(HooksTab, { hooks, onerror: vi.fn() });
    const ws = await screen.findByTestId('hooks-workspace');
    await userEvent.click(ws.querySelector('button.small')!);
    expect(hooks.setHookDisabled).toHaveBeenCalledWith('workspace', 'PreToolUse', 0, 0, true);
  });

  it("shows Claude Code's hooks before it imports them", async () => {
    const hooks = fake(info(true));
    render(HooksTab, { hooks, onerror: vi.fn() });
    await userEvent.click(await screen.findByTestId('import-claude'));
    expect(hooks.claudeHooks).toHaveBeenCalled();
    expect(hooks.importClaudeHooks).not.toHaveBeenCalled();
    expect((await screen.findByTestId('claude-import')).textContent).toContain('/ws/.claude/settings.json');
    await userEvent.click(screen.getByRole('button', { name: 'Import these hooks' }));
    expect(hooks.importClaudeHooks).toHaveBeenCalledWith('sha256:claude');
  });

  it('adds a command hook to the file', async () => {
    const hooks = fake(info(true, false));
    render(HooksTab, { hooks, onerror: vi.fn() });
    const ws = await screen.findByTestId('hooks-workspace');
    expect(screen.queryByTestId('import-claude')).toBeNull();
    await userEvent.click(ws.querySelector('.buttons button')!);
    await userEvent.type(screen.getByPlaceholderText('python3 ~/hooks/check.py'), 'new.sh');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const [source, content] = (hooks.saveHooks as ReturnType<typeof vi.fn>).mock.calls[0] as [string, string];
    expect(source).toBe('workspace');
    const doc = JSON.parse(content);
    expect(doc.hooks.PreToolUse).toHaveLength(2);
    expect(doc.hooks.PreToolUse[1]).toEqual({ matcher: 'Bash', hooks: [{ type: 'command', command: 'new.sh' }] });
  });
});

describe('addCommandHook', () => {
  it('keeps the other keys and refuses what is not an object', () => {
    const out = JSON.parse(addCommandHook('{"disabledHooks": {}, "hooks": {}}', 'Stop', '', 'done.sh'));
    expect(out).toEqual({ disabledHooks: {}, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'done.sh' }] }] } });
    expect(() => addCommandHook('[]', 'Stop', '', 'x')).toThrow('not a JSON object');
  });
});
