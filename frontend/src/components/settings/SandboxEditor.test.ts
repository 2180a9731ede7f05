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
  it('turns the sandbox on with custom rules and saves them', async () => {
    const b = backend();
    const ondirty = vi.fn();
    const { component } = render(SandboxEditor, { backend: b, ondirty, onerror: vi.fn() });
    const toggle = await screen.findByRole('switch', { name: 'Run code in the sandbox' });
    expect(toggle).not.toBeChecked();
    expect(screen.getByText('The defaults; change them to save your own rules')).toBeInTheDocument();
    await userEvent.click(toggle);
    const rules = screen.getByLabelText('Rules');
    await userEvent.clear(rules);
    await userEvent.click(rules);
    await userEvent.paste('{"network": {"allowedDomains": ["example.org"]}}');
    expect(ondirty).toHaveBeenLastCalledWith(true);
    expect(await component.save()).toBe(true);
    expect(b.saveSandbox).toHaveBeenCalledWith(true, '{"network": {"allowedDomains": ["example.org"]}}');
  });

  it('shows why invalid rules were not saved, and resets to the defaults', async () => {
    const b = backend([{ key: 'sandbox_config', path: '', message: 'not a JSON object' }]);
    const { component } = render(SandboxEditor, { backend: b, ondirty: vi.fn(), onerror: vi.fn() });
    const rules = await screen.findByLabelText('Rules');
    await userEvent.clear(rules);
    await userEvent.type(rules, 'nonsense');
    expect(await component.save()).toBe(false);
    expect(await screen.findByTestId('sandbox-error')).toHaveTextContent('Nothing was saved: not a JSON object');
    expect(rules).toHaveAttribute('aria-invalid', 'true');
    await userEvent.click(screen.getByRole('button', { name: 'Reset to defaults' }));
    expect((rules as HTMLTextAreaElement).value).toBe(defaults);
  });
});

describe('Header', () => {
  const kernel: KernelStatus = {
    state: 'ready',
    message: '',
    progress: 1,
    sessionId: 's',
    model: 'm',
    sandboxed: false,
    replayCells: 0,
    replayReason: '',
    replayCode: [],
    mcpFailures: [],
  };
  const workspace = { path: '/w', name: 'w', created: false, model: 'm', kernel, warnings: null };

  it('shows the sandbox badge only while the kernel is sandboxed', () => {
    const { rerender } = render(Header, { workspace, version: null, kernel });
    expect(screen.queryByTestId('sandboxed')).toBeNull();
    rerender({ workspace, version: null, kernel: { ...kernel, sandboxed: true } });
    expect(screen.getByTestId('sandboxed')).toHaveTextContent('Sandboxed');
  });
});
