import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import SettingsPanel from './SettingsPanel.svelte';
import { settingsBackend, withValues } from './fixture';

function open(b = settingsBackend(), props: Record<string, unknown> = {}) {
  const onclose = vi.fn();
  const onsaved = vi.fn();
  render(SettingsPanel, { backend: b, onclose, onsaved, onerror: vi.fn(), ...props });
  return { b, onclose, onsaved };
}

describe('SettingsPanel', () => {
  it('picks a model by provider from the known ones, and says which key it needs', async () => {
    const { b } = open();
    const provider = await screen.findByLabelText<HTMLSelectElement>('Provider');
    expect(provider.value).toBe('google');
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Model' }).value).toBe('gemini-3-flash-preview');
    expect(screen.getByTestId('model-key')).toHaveTextContent('Needs GEMINI_API_KEY: stored in the system keyring.');
    await userEvent.selectOptions(provider, 'anthropic');
    expect(screen.getByTestId('model-string')).toHaveTextContent('anthropic:claude-sonnet-4-5');
    expect(screen.getByTestId('model-key')).toHaveTextContent('Needs ANTHROPIC_API_KEY, which is not set.');
    // Claude's settings replace Gemini's; Gemini's are kept, and said so.
    expect(screen.getByLabelText('Extended thinking')).toHaveValue('enabled');
    expect(screen.queryByLabelText('Thinking level')).toBeNull();
    expect(screen.getByTestId('other-settings')).toHaveTextContent('google_thinking_config.thinking_level');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'Custom…');
    const custom = screen.getByLabelText('Custom name');
    expect(custom).toHaveFocus();
    await userEvent.clear(custom);
    await userEvent.type(custom, 'claude-next');
    expect(screen.getByTestId('model-string')).toHaveTextContent('anthropic:claude-next');
    expect(screen.getByRole('tab', { name: /Model.*unsaved/ })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Save model settings' }));
    expect(b.saveSettings).toHaveBeenCalledWith({
      model: '"anthropic:claude-next"',
      model_settings: expect.any(String),
      models: '{}',
      provider_settings: 'null',
    });
    expect(await screen.findByTestId('settings-status')).toHaveTextContent('Model saved to .freeact/agent.json');
    // The key link opens the API keys tab on that key.
    await userEvent.click(screen.getByRole('button', { name: 'Set ANTHROPIC_API_KEY' }));
    expect(screen.getByRole('tab', { name: 'API keys' })).toHaveAttribute('aria-selected', 'true');
    await vi.waitFor(() => expect(screen.getByLabelText('New value of ANTHROPIC_API_KEY')).toHaveFocus());
  });

  it('lists the models a local server offers, or says why it could not', async () => {
    const { b } = open();
    const provider = await screen.findByLabelText<HTMLSelectElement>('Provider');
    await userEvent.selectOptions(provider, 'ollama');
    expect(b.localModels).toHaveBeenCalledWith('ollama', '');
    const name = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Model' });
    await vi.waitFor(() => expect(within(name).getByRole('option', { name: 'qwen3:8b-on-server (on the server)' })).toBeInTheDocument());
    await userEvent.selectOptions(name, 'qwen3:8b-on-server');
    expect(screen.getByTestId('model-string')).toHaveTextContent('ollama:qwen3:8b-on-server');
    vi.mocked(b.localModels).mockResolvedValueOnce({ models: [], error: 'could not list the models at http://localhost:1234/v1: connection refused' });
    await userEvent.selectOptions(provider, 'lmstudio');
    expect(await screen.findByTestId('model-offered-error')).toHaveTextContent('connection refused');
  });

  it('edits model settings by their bounds and removes one back to the provider default', async () => {
    const { b } = open();
    const temp = await screen.findByLabelText('Temperature');
    expect(temp).toBeDisabled(); // provider default
    await userEvent.click(within(screen.getByTestId('field-temperature')).getByRole('checkbox'));
    await userEvent.clear(temp);
    await userEvent.type(temp, '3');
    expect(screen.getByTestId('error-temperature')).toHaveTextContent('3 is out of range: want a number between 0 and 2.');
    await userEvent.clear(temp);
    await userEvent.type(temp, '0.3');
    await userEvent.selectOptions(screen.getByLabelText('Thinking level'), 'high');
    await userEvent.click(screen.getByRole('button', { name: 'Save model settings' }));
    const saved = JSON.parse((vi.mocked(b.saveSettings).mock.calls[0]![0] as Record<string, string>).model_settings!) as Record<string, unknown>;
    expect(saved).toEqual({
      temperature: 0.3,
      google_thinking_config: { include_thoughts: true, thinking_level: 'high' },
      anthropic_thinking: { type: 'enabled', budget_tokens: 8192 },
    });
  });

  it('offers the thinking settings only for models that have them', async () => {
    open();
    const name = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Model' });
    expect(screen.getByLabelText('Thinking level')).toBeInTheDocument();
    // Gemini 2.5 thinks by a budget, not in levels: the set level is kept, and said so.
    await userEvent.selectOptions(name, 'gemini-2.5-flash');
    expect(screen.queryByLabelText('Thinking level')).toBeNull();
    expect(screen.getByTestId('other-settings')).toHaveTextContent('google_thinking_config.thinking_level');
    const provider = screen.getByLabelText<HTMLSelectElement>('Provider');
    await userEvent.selectOptions(provider, 'openai');
    expect(screen.getByLabelText('Reasoning effort')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'gpt-4.1');
    expect(screen.queryByLabelText('Reasoning effort')).toBeNull();
    // A custom model of an OpenAI-compatible server has no thinking setting.
    await userEvent.selectOptions(provider, 'url');
    await userEvent.type(document.getElementById('model-custom')!, 'my-model');
    expect(screen.getByTestId('model-string')).toHaveTextContent('my-model');
    expect(screen.queryByLabelText('Reasoning effort')).toBeNull();
    expect(screen.queryByLabelText('Thinking level')).toBeNull();
    expect(screen.getByLabelText('Temperature')).toBeInTheDocument();
  });

  it("says the default output limit of the chosen model's provider, not another's", async () => {
    open();
    const field = () => screen.getByTestId('field-max_tokens');
    // The workspace of defaults runs Gemini.
    await screen.findByLabelText('Max output tokens');
    expect(field()).toHaveTextContent("Unset: the model's own limit (Gemini's default).");
    expect(field()).not.toHaveTextContent('16,384');
    expect(field()).not.toHaveTextContent('Claude');
    await userEvent.selectOptions(screen.getByLabelText<HTMLSelectElement>('Provider'), 'anthropic');
    expect(field()).toHaveTextContent('Unset: 16,384');
    await userEvent.selectOptions(screen.getByLabelText<HTMLSelectElement>('Provider'), 'openai');
    expect(field()).toHaveTextContent("Unset: the server's default");
    expect(field()).not.toHaveTextContent('16,384');
  });

  it('explains a number typed as words at once and saves nothing', async () => {
    const { b } = open(settingsBackend(), { tab: 'agent' });
    const timeout = await screen.findByLabelText('Code action time limit');
    expect(screen.getByTestId('field-execution_timeout')).toHaveTextContent('Default: 300 seconds.');
    await userEvent.clear(timeout);
    await userEvent.type(timeout, 'sixty');
    expect(screen.getByTestId('error-execution_timeout')).toHaveTextContent('“sixty” is not a number: type the seconds in digits');
    await userEvent.click(screen.getByRole('button', { name: 'Save agent settings' }));
    expect(b.saveSettings).not.toHaveBeenCalled();
    expect(screen.getByTestId('settings-status')).toHaveTextContent('Nothing was saved: fix the fields marked in red.');
    expect(timeout).toHaveFocus();
    await userEvent.clear(timeout);
    await userEvent.type(timeout, '60');
    await userEvent.click(screen.getByRole('button', { name: 'Save agent settings' }));
    expect(b.saveSettings).toHaveBeenCalledTimes(1);
    const values = vi.mocked(b.saveSettings).mock.calls[0]![0] as Record<string, string>;
    expect(values.execution_timeout).toBe('60');
    // Only the Agent tab's keys are written.
    expect(Object.keys(values).sort()).toEqual(
      [
        'approval_timeout',
        'checkpoint_max_file_bytes',
        'checkpoints',
        'compaction_threshold',
        'enable_persistence',
        'enable_subagents',
        'execution_timeout',
        'images_dir',
        'judge_model',
        'max_cost_per_session',
        'max_subagents',
        'tool_result_inline_max_bytes',
        'tool_result_preview_chars',
        'tool_search',
      ].sort(),
    );
  });

  it('shows the backend’s check beside its field as the value is typed', async () => {
    const b = settingsBackend({ errors: [{ key: 'max_subagents', path: '', message: 'value 50 is not valid: want at most 10 (a test rule)' }] });
    open(b, { tab: 'agent' });
    const max = await screen.findByLabelText('Subagents at once');
    await userEvent.clear(max);
    await userEvent.type(max, '50');
    expect(await screen.findByTestId('error-max_subagents')).toHaveTextContent('want at most 10');
    expect(b.checkSettings).toHaveBeenLastCalledWith({ max_subagents: '50' });
    expect(b.saveSettings).not.toHaveBeenCalled();
  });

  it('saves the MCP servers tab with its own button', async () => {
    const { b } = open(settingsBackend(), { tab: 'mcp' });
    await userEvent.click(await screen.findByRole('button', { name: 'Add server' }));
    const name = screen.getByLabelText('Name');
    await vi.waitFor(() => expect(name).toHaveFocus());
    await userEvent.clear(name);
    await userEvent.type(name, 'fs');
    await userEvent.type(screen.getByLabelText('Command'), 'npx');
    await userEvent.click(screen.getByRole('button', { name: 'Add argument' }));
    await userEvent.type(screen.getByLabelText('Arguments: argument 1'), '@modelcontextprotocol/server-filesystem');
    await userEvent.click(screen.getByRole('button', { name: 'Save MCP servers' }));
    expect(b.saveSettings).toHaveBeenCalledWith({
      mcp_servers: JSON.stringify({ fs: { command: 'npx', args: ['@modelcontextprotocol/server-filesystem'] } }),
      ptc_servers: '{}',
    });
  });

  it('applies saved keys that need a restart; closing at once asks for no Apply', async () => {
    const b = settingsBackend();
    vi.mocked(b.pendingRestart).mockResolvedValue(['execution_timeout']);
    let applied = () => {};
    vi.mocked(b.applySettings).mockReturnValue(new Promise<void>((resolve) => (applied = resolve)));
    const { onclose, onsaved } = open(b, { tab: 'kernel' });
    await userEvent.type(await screen.findByLabelText('Python interpreter'), '/usr/bin/python3');
    await userEvent.click(screen.getByRole('button', { name: 'Save kernel settings' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Apply now (restarts the kernel)' }));
    expect(b.applySettings).toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Close settings' }));
    expect(onclose).toHaveBeenCalled();
    expect(onsaved).not.toHaveBeenCalled();
    applied();
  });

  it('shows the JupyterHub card of the saved jupyter_url, read again when the Kernel tab is saved', async () => {
    const b = settingsBackend();
    const hub = { url: 'https://hub.example.org/', is_hub: true, token_name: 'JUPYTERHUB_TOKEN_HUB_EXAMPLE_ORG', token_page: 'https://hub.example.org/hub/token', user: '', has_token: false, oauth: false, problem: '' };
    vi.mocked(b.hubStatus).mockResolvedValueOnce({ ...hub, is_hub: false, url: '' }).mockResolvedValue(hub);
    open(b, { tab: 'kernel' });
    await userEvent.type(await screen.findByLabelText('Python interpreter'), '/usr/bin/python3');
    expect(screen.queryByTestId('hub-signin')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Save kernel settings' }));
    expect(await screen.findByLabelText('JupyterHub token')).toBeInTheDocument();
    expect(b.hubStatus).toHaveBeenCalledTimes(2);
  });

  it('flags unsaved tabs and asks before closing', async () => {
    const { onclose } = open(settingsBackend(), { tab: 'agent' });
    await userEvent.click(await screen.findByRole('switch', { name: 'Subagents' }));
    expect(screen.getByRole('tab', { name: /Agent.*unsaved/ })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    const confirm = screen.getByTestId('unsaved-changes');
    expect(confirm).toHaveTextContent('Unsaved changes in Agent.');
    expect(screen.getByRole('button', { name: 'Save and close' })).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(onclose).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Revert' }));
    await userEvent.click(screen.getByRole('button', { name: 'Close settings' }));
    expect(onclose).toHaveBeenCalled();
  });

  it('saves all tabs and closes, or discards', async () => {
    const { b, onclose } = open(settingsBackend(), { tab: 'agent' });
    await userEvent.click(await screen.findByRole('switch', { name: 'Save sessions' }));
    await userEvent.click(screen.getByRole('tab', { name: 'Kernel' }));
    await userEvent.type(screen.getByLabelText('Python interpreter'), '/usr/bin/python3');
    await userEvent.click(screen.getByRole('button', { name: 'Close settings' }));
    expect(screen.getByTestId('unsaved-changes')).toHaveTextContent('Unsaved changes in Agent, Kernel.');
    await userEvent.click(screen.getByRole('button', { name: 'Save and close' }));
    expect(b.saveSettings).toHaveBeenCalledTimes(2);
    expect(onclose).toHaveBeenCalled();
  });

  it('moves between tabs with the arrow keys and saves with Ctrl+S', async () => {
    const { b } = open();
    const model = await screen.findByRole('tab', { name: 'Model' });
    await vi.waitFor(() => expect(model).toHaveFocus());
    await userEvent.keyboard('{ArrowDown}');
    expect(screen.getByRole('tab', { name: 'Agent' })).toHaveFocus();
    expect(screen.getByRole('tab', { name: 'Agent' })).toHaveAttribute('aria-selected', 'true');
    await userEvent.keyboard('{End}');
    expect(screen.getByRole('tab', { name: 'Permissions' })).toHaveFocus();
    await userEvent.keyboard('{Home}{ArrowDown}');
    await userEvent.click(screen.getByRole('switch', { name: 'Subagents' }));
    await userEvent.keyboard('{Control>}s{/Control}');
    expect(b.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ enable_subagents: 'false' }));
  });

  it('says when there is nothing to save, writes nothing, and keeps the focus in the panel after a save', async () => {
    const { b, onclose } = open(settingsBackend(), { tab: 'permissions' });
    const saveButton = await screen.findByRole('button', { name: 'Save permissions' });
    await userEvent.click(saveButton);
    expect(await screen.findByTestId('settings-status')).toHaveTextContent('Nothing to save: nothing was changed.');
    expect(b.savePermissions).not.toHaveBeenCalled();
    expect(screen.getByRole('dialog').contains(document.activeElement)).toBe(true);
    // A real save: the disabled button gives the focus back after.
    await userEvent.click(screen.getByRole('tab', { name: 'Model' }));
    const temp = await screen.findByLabelText('Temperature');
    await userEvent.click(within(screen.getByTestId('field-temperature')).getByRole('checkbox'));
    await userEvent.clear(temp);
    await userEvent.type(temp, '0.5');
    await userEvent.click(screen.getByRole('button', { name: 'Save model settings' }));
    expect(await screen.findByTestId('settings-status')).toHaveTextContent('Model saved to .freeact/agent.json');
    await vi.waitFor(() => expect(screen.getByRole('dialog').contains(document.activeElement)).toBe(true));
    await userEvent.keyboard('{Escape}');
    expect(onclose).toHaveBeenCalled();
  });

  it('keeps config.toml keys read-only', async () => {
    open(settingsBackend({ fields: withValues({ model: '"google-gla:gemini-2.5-pro"' }, ['model', 'model_settings', 'max_subagents']) }));
    expect(await screen.findByLabelText('Provider')).toBeDisabled();
    expect(screen.getByRole('combobox', { name: 'Model' })).toBeDisabled();
    expect(screen.getByText(/set in config.toml/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('tab', { name: 'Agent' }));
    expect(screen.getByLabelText('Subagents at once')).toHaveAttribute('readonly');
  });
});
