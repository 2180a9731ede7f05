import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import PromptBox from './PromptBox.svelte';

describe('PromptBox', () => {
  it('sends the trimmed text on Enter', async () => {
    const onsend = vi.fn();
    render(PromptBox, { onsend });
    await userEvent.type(screen.getByLabelText('Message to the agent'), '  list files {Enter}');
    expect(onsend).toHaveBeenCalledExactlyOnceWith('list files');
  });

  it('makes a new line on Shift+Enter instead of sending', async () => {
    const onsend = vi.fn();
    render(PromptBox, { onsend });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, 'one{Shift>}{Enter}{/Shift}two');
    expect(onsend).not.toHaveBeenCalled();
    expect(box.value).toBe('one\ntwo');
  });

  it('does not send blank text or while busy', async () => {
    const onsend = vi.fn();
    const { rerender } = render(PromptBox, { onsend });
    const box = screen.getByLabelText('Message to the agent');
    await userEvent.type(box, '   {Enter}');
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();

    await rerender({ onsend, busy: true, value: 'run it' });
    await userEvent.type(box, '{Enter}');
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
  });
});
