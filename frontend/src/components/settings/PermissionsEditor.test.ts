import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import PermissionsEditor from './PermissionsEditor.svelte';

describe('PermissionsEditor', () => {
  it('edits, adds and deletes rules, then saves them by tier', async () => {
    const onsave = vi.fn();
    render(PermissionsEditor, {
      rules: {
        always: {
          allow: [{ type: 'ShellAction', tool_name: 'bash', command: 'ls *' }],
          ask: [{ type: 'FileRead', tool_name: 'filesystem_*', path: '**/.env' }],
        },
        session: { allow: [], ask: [] },
      },
      onsave,
    });
    expect(screen.getByText(/No grants/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    const patterns = screen.getAllByLabelText<HTMLInputElement>('Command or path pattern');
    await userEvent.type(patterns[2]!, 'git status *');
    await userEvent.click(screen.getAllByRole('button', { name: 'Delete rule' })[1]!); // ls *
    await userEvent.click(screen.getByRole('button', { name: 'Save permissions' }));
    expect(onsave).toHaveBeenCalledWith(
      [{ type: 'ShellAction', tool_name: 'bash', command: 'git status *' }],
      [{ type: 'FileRead', tool_name: 'filesystem_*', path: '**/.env' }],
    );
  });

  it("lists this conversation's grants, each revocable", async () => {
    const onrevoke = vi.fn();
    const grant = { type: 'ShellAction', tool_name: 'bash', command: 'make *' };
    render(PermissionsEditor, {
      rules: { always: { allow: [], ask: [] }, session: { allow: [grant], ask: [] } },
      grants: [grant],
      onsave: vi.fn(),
      onrevoke,
    });
    const list = screen.getByRole('list', { name: 'Grants of this conversation' });
    expect(list).toHaveTextContent('Shell make *');
    await userEvent.click(screen.getByRole('button', { name: 'Revoke make *' }));
    expect(onrevoke).toHaveBeenCalledWith(grant);
  });

  it("shows freeact 0.11's permissions.toml rules read-only, apart from the saved ones", async () => {
    const onsave = vi.fn();
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
      onsave,
    });
    expect(screen.getByText('.freeact/permissions.toml')).toBeInTheDocument();
    const list = screen.getByTestId('imported-rules');
    expect(list).toHaveTextContent('ask FileRead filesystem_* **/.env');
    expect(list).toHaveTextContent('allow ShellAction bash git status');
    expect(screen.queryAllByLabelText('Tool name')).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Save permissions' }));
    expect(onsave).toHaveBeenCalledWith([], []);
  });
});
