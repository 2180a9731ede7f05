import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import SettingsPanel from './SettingsPanel.svelte';
import type { Backend } from '../../lib/backend';

function backend(saveErrors: { key: string; message: string }[] = [], fromTOML = false) {
  return {
    settings: vi.fn(async () => [
      { key: 'model', value: '"gemini-3-flash-preview"', default: '"gemini-3-flash-preview"', description: 'The model.', read_only: fromTOML },
      { key: 'max_subagents', value: '5', default: '5', description: 'How many.', read_only: fromTOML },
      { key: 'python', value: 'null', default: 'null', description: 'The interpreter.', read_only: false },
    ]),
    settingsSource: vi.fn(async () =>
      fromTOML
        ? {
            file: '.freeact/config.toml',
            format: 'config.toml (freeact 0.11)',
            description: 'Settings read from config.toml (freeact 0.11), which this app never writes.',
            notes: ['config.toml: [terminal]: no effect here (ignored)'],
          }
        : { file: '.freeact/agent.json', format: 'agent.json', description: 'Settings read from agent.json.', notes: [] },
    ),
    apiKeyNames: vi.fn(async () => ['GEMINI_API_KEY']),
    permissions: vi.fn(async () => ({ always: { allow: [], ask: [] }, session: { allow: [], ask: [] } })),
    saveSettings: vi.fn(async () => saveErrors),
    pendingRestart: vi.fn(async () => ['execution_timeout']),
    applySettings: vi.fn(async () => {}),
  } as unknown as Backend;
}

describe('SettingsPanel', () => {
  it('picks a model by provider and saves the form', async () => {
    const b = backend();
    const onsaved = vi.fn();
    render(SettingsPanel, { backend: b, onclose: vi.fn(), onsaved, onerror: vi.fn() });
    expect(await screen.findByText('GEMINI_API_KEY is stored.')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText('Provider'), 'openai');
    expect(screen.getByLabelText<HTMLInputElement>('model').value).toBe('"openai:gpt-5"');
    expect(screen.getByText(/Needs OPENAI_API_KEY/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(b.saveSettings).toHaveBeenCalledWith({ model: '"openai:gpt-5"', max_subagents: '5', python: 'null' });
    expect(onsaved).toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Apply now (restarts the kernel)' }));
    expect(b.applySettings).toHaveBeenCalled();
  });

  it('shows errors next to their field and saves nothing', async () => {
    const b = backend([{ key: 'max_subagents', message: 'value 0 is not valid: want 1 or more' }]);
    const onsaved = vi.fn();
    render(SettingsPanel, { backend: b, onclose: vi.fn(), onsaved, onerror: vi.fn() });
    await screen.findByLabelText('max_subagents');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByTestId('error-max_subagents')).toHaveTextContent('want 1 or more');
    expect(screen.getByLabelText('max_subagents')).toHaveAttribute('aria-invalid', 'true');
    expect(onsaved).not.toHaveBeenCalled();
  });

  it('shows where the settings come from and keeps config.toml keys read-only', async () => {
    const b = backend([], true);
    render(SettingsPanel, { backend: b, onclose: vi.fn(), onsaved: vi.fn(), onerror: vi.fn() });
    expect(await screen.findByText(/Settings read from config.toml \(freeact 0.11\)/)).toBeInTheDocument();
    expect(screen.getByText('1 note on settings without effect here')).toBeInTheDocument();
    expect(screen.getByText(/\[terminal\]/)).toBeInTheDocument();
    expect(await screen.findByLabelText('max_subagents')).toHaveAttribute('readonly');
    expect(screen.getByLabelText('python')).not.toHaveAttribute('readonly');
    expect(screen.getByLabelText('Provider')).toBeDisabled();
    await userEvent.type(screen.getByLabelText('max_subagents'), '0');
    expect(screen.getByLabelText<HTMLInputElement>('max_subagents').value).toBe('5');
  });
});
