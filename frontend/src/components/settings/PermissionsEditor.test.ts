import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import PermissionsEditor from './PermissionsEditor.svelte';
import type { Preview, Rule } from '../../lib/backend';

const rules = {
  always: {
    allow: [{ type: 'ShellAction', tool_name: 'bash', command: 'ls *' }],
    ask: [{ type: 'FileRead', tool_name: 'filesystem_*', path: '**/.env' }],
  },
  session: { allow: [{ type: 'ShellAction', tool_name: 'bash', command: 'make *' }], ask: [] },
};

describe('PermissionsEditor', () => {
  it('lists saved rules and grants side by side; deletes, adds after a preview, revokes', async () => {
    const onchange = vi.fn();
    const onrevoke = vi.fn();
    const preview = vi.fn(
      async (r: Rule): Promise<Preview> => ({
        rule: r,
        summary: `Shell commands matching "${r.command}" as a whole`,
        covers_call: false,
        matches: ['git status -s'],
        misses: ['git status > out.txt'],
      }),
    );
    render(PermissionsEditor, { rules, grants: rules.session.allow, onrevoke, preview, onchange });
    expect(screen.getByTestId('saved-ask')).toHaveTextContent('filesystem_* **/.env');
    expect(screen.getByTestId('saved-allow')).toHaveTextContent('ls *');
    expect(screen.getByTestId('saved-grants')).toHaveTextContent('make *');

    await userEvent.click(screen.getByRole('button', { name: 'Delete rule Shell command ls *' }));
    expect(onchange).toHaveBeenLastCalledWith({ allow: [], ask: [rules.always.ask[0]], deny: [] });

    await userEvent.type(screen.getByLabelText('Command'), 'git status *');
    const shown = await screen.findByTestId('rule-preview');
    expect(shown).toHaveTextContent('Shell commands matching "git status *"');
    expect(within(shown).getByText('git status -s')).toBeInTheDocument();
    expect(within(shown).getByText('git status > out.txt')).toBeInTheDocument();
    expect(preview).toHaveBeenLastCalledWith({ type: 'ShellAction', tool_name: 'bash', command: 'git status *' });
    await userEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    expect(onchange).toHaveBeenLastCalledWith({ allow: [{ type: 'ShellAction', tool_name: 'bash', command: 'git status *' }], ask: [rules.always.ask[0]], deny: [] });

    await userEvent.click(screen.getByRole('button', { name: 'Revoke Shell command make *' }));
    expect(onrevoke).toHaveBeenCalledWith(rules.session.allow[0]);
  });

  it('shows the deny rules a Never answer saved, and removes or adds one', async () => {
    const onchange = vi.fn();
    const deny = { type: 'ShellAction', tool_name: 'bash', command: 'curl *' };
    render(PermissionsEditor, { rules: { ...rules, always: { ...rules.always, deny: [deny] } }, onchange });
    expect(screen.getByTestId('saved-deny')).toHaveTextContent('curl *');
    await userEvent.click(screen.getByRole('button', { name: 'Delete rule Shell command curl *' }));
    expect(onchange).toHaveBeenLastCalledWith({ allow: rules.always.allow, ask: rules.always.ask, deny: [] });
    await userEvent.selectOptions(screen.getByLabelText('Answer'), 'deny');
    await userEvent.type(screen.getByLabelText('Command'), 'rm *');
    await userEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    expect(onchange).toHaveBeenLastCalledWith({ allow: rules.always.allow, ask: rules.always.ask, deny: [{ type: 'ShellAction', tool_name: 'bash', command: 'rm *' }] });
    expect(screen.getByTestId('saved-deny')).toHaveTextContent('rm *');
  });

  it('will not add a rule the backend cannot read', async () => {
    const onchange = vi.fn();
    const preview = vi.fn(async (r: Rule): Promise<Preview> => ({ rule: r, problem: '"path" "src/[ab" is not a valid pattern', summary: '', covers_call: false, matches: [], misses: [] }));
    render(PermissionsEditor, { rules, preview, onchange });
    await userEvent.selectOptions(screen.getByLabelText('For'), 'File read');
    expect(screen.getByLabelText('Tool name')).toHaveValue('filesystem_*');
    await userEvent.type(screen.getByLabelText('Path'), 'src/[[ab');
    expect(await screen.findByRole('alert')).toHaveTextContent('not a valid pattern');
    expect(screen.getByRole('button', { name: 'Add rule' })).toBeDisabled();
  });

  it("shows freeact 0.11's permissions.toml rules read-only", () => {
    render(PermissionsEditor, {
      rules: {
        always: { allow: [], ask: [] },
        session: { allow: [], ask: [] },
        imported: {
          allow: [{ type: 'ShellAction', tool_name: 'bash', command: 'git status' }],
          ask: [{ type: 'FileRead', tool_name: 'filesystem_*', path: '**/.env' }],
        },
        imported_file: '.freeact/permissions.toml',
      },
      onchange: vi.fn(),
    });
    expect(screen.getByText('.freeact/permissions.toml')).toBeInTheDocument();
    const list = screen.getByTestId('imported-rules');
    expect(list).toHaveTextContent('ask FileRead filesystem_* **/.env');
    expect(list).toHaveTextContent('allow ShellAction bash git status');
    expect(screen.getByTestId('saved-grants')).toHaveTextContent('No grants yet');
  });
});
