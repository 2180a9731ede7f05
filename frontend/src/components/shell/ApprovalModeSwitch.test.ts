import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ApprovalModeSwitch from './ApprovalModeSwitch.svelte';

const on = { mode: 'rules', paused: false, sandbox: true, checkpoints: true };

describe('ApprovalModeSwitch', () => {
  it('shows the mode and switches it', async () => {
    const onchange = vi.fn();
    render(ApprovalModeSwitch, { state: on, onchange });
    expect(screen.getByRole('radio', { name: 'Rules' })).toHaveAttribute('aria-checked', 'true');
    await userEvent.click(screen.getByRole('radio', { name: 'Auto' }));
    expect(onchange).toHaveBeenCalledWith('auto');
    // The mode already on is not set again.
    await userEvent.click(screen.getByRole('radio', { name: 'Rules' }));
    expect(onchange).toHaveBeenCalledOnce();
  });

  it('says plainly when auto mode runs without the sandbox', () => {
    render(ApprovalModeSwitch, { state: { ...on, mode: 'auto', sandbox: false }, onchange: () => {} });
    const warn = screen.getByTestId('auto-unsandboxed');
    expect(warn).toHaveTextContent('Auto without sandbox');
    expect(warn.getAttribute('title')).toContain('allows nothing by itself');
  });

  it('says nothing of the sandbox with it on, or outside auto mode', () => {
    const { unmount } = render(ApprovalModeSwitch, { state: { ...on, mode: 'auto' }, onchange: () => {} });
    expect(screen.queryByTestId('auto-unsandboxed')).toBeNull();
    unmount();
    render(ApprovalModeSwitch, { state: { ...on, sandbox: false }, onchange: () => {} });
    expect(screen.queryByTestId('auto-unsandboxed')).toBeNull();
  });

  it('says auto mode is paused and turns it back on', async () => {
    const onchange = vi.fn();
    render(ApprovalModeSwitch, { state: { ...on, mode: 'auto', paused: true }, onchange });
    expect(screen.getByTestId('auto-paused')).toHaveTextContent('Auto paused');
    await userEvent.click(screen.getByRole('button', { name: 'Resume' }));
    expect(onchange).toHaveBeenCalledWith('auto');
  });

  it('is hidden before the agent runs', () => {
    render(ApprovalModeSwitch, { state: null, onchange: () => {} });
    expect(screen.queryByTestId('approval-mode')).toBeNull();
  });
});
