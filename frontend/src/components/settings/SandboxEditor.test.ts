import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import SandboxEditor from './SandboxEditor.svelte';
import Header from '../shell/Header.svelte';
import type { Backend, FieldError, KernelStatus } from '../../lib/backend';

const defaults = '{\n  "network": {\n    "allowedDomains": []\n  }\n}';

function backend(saveErrors: FieldError[] = []) {
  return {
    sandbox: vi.fn(async () => ({ enabled: false, content: defaults, custom: false, path: '', defaults })),
    saveSandbox: vi.fn(async () => saveErrors),
    applySettings: vi.fn(async () => {}),
  } as unknown as Backend;
}

describe('SandboxEditor', () => {
  it('turns the sandbox on with custom rules, saves and applies', async () => {
    const b = backend();
    const onsaved = vi.fn();
    render(SandboxEditor, { backend: b, onsaved, onerror: vi.fn() });
    const toggle = await screen.findByRole('switch', { name: 'Run code in the sandbox' });
    expect(toggle).not.toBeChecked();
    expect(screen.getByText('The defaults; change them to save your own rules')).toBeInTheDocument();
    await userEvent.click(toggle);
    const rules = screen.getByLabelText('Rules');
    await userEvent.clear(rules);
    await userEvent.click(rules);
    await userEvent.paste('{"network": {"allowedDomains": ["example.org"]}}');
    await userEvent.click(screen.getByRole('button', { name: 'Save sandbox settings' }));
    expect(b.saveSandbox).toHaveBeenCalledWith(true, '{"network": {"allowedDomains": ["example.org"]}}');
    expect(onsaved).toHaveBeenCalledWith(expect.stringContaining('Apply now'));
    await userEvent.click(screen.getByRole('button', { name: 'Apply now (restarts the kernel)' }));
    expect(b.applySettings).toHaveBeenCalled();
  });

  it('shows why invalid rules were not saved, and resets to the defaults', async () => {
    const b = backend([{ key: 'sandbox_config', message: 'not a JSON object' }]);
    const onsaved = vi.fn();
    render(SandboxEditor, { backend: b, onsaved, onerror: vi.fn() });
    const rules = await screen.findByLabelText('Rules');
    await userEvent.clear(rules);
    await userEvent.type(rules, 'nonsense');
    await userEvent.click(screen.getByRole('button', { name: 'Save sandbox settings' }));
    expect(await screen.findByTestId('sandbox-error')).toHaveTextContent('Nothing was saved: not a JSON object');
    expect(rules).toHaveAttribute('aria-invalid', 'true');
    expect(onsaved).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Reset to defaults' }));
    expect((rules as HTMLTextAreaElement).value).toBe(defaults);
  });
});

describe('Header', () => {
  const kernel: KernelStatus = { state: 'ready', message: '', progress: 1, sessionId: 's', model: 'm', sandboxed: false, replayCells: 0, replayReason: '' };
  const workspace = { path: '/w', name: 'w', created: false, model: 'm', kernel, warnings: null };

  it('shows the sandbox badge only while the kernel is sandboxed', () => {
    const { rerender } = render(Header, { workspace, version: null, kernel });
    expect(screen.queryByTestId('sandboxed')).toBeNull();
    rerender({ workspace, version: null, kernel: { ...kernel, sandboxed: true } });
    expect(screen.getByTestId('sandboxed')).toHaveTextContent('Sandboxed');
  });
});
