import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import CodeEditor from './CodeEditor.svelte';

describe('CodeEditor', () => {
  it('highlights the text it edits', () => {
    const { container } = render(CodeEditor, { value: 'def f(x):\n    return x', label: 'Cell', onsubmit: vi.fn(), oncancel: vi.fn() });
    const layer = container.querySelector('.layer code')!;
    expect(layer.textContent).toBe('def f(x):\n    return x\n');
    expect(layer.querySelector('.hljs-keyword')).toHaveTextContent('def');
  });

  it('indents with Tab and dedents with Shift+Tab', async () => {
    render(CodeEditor, { value: 'a\nb', label: 'Cell', onsubmit: vi.fn(), oncancel: vi.fn() });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Cell');
    box.setSelectionRange(0, 3);
    await userEvent.keyboard('{Tab}');
    expect(box.value).toBe('    a\n    b');
    box.setSelectionRange(0, box.value.length);
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    expect(box.value).toBe('a\nb');
  });

  it('keeps the indentation on Enter, one level more after a colon', async () => {
    render(CodeEditor, { value: '', label: 'Cell', onsubmit: vi.fn(), oncancel: vi.fn() });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Cell');
    await userEvent.type(box, 'for x in y:{Enter}print(x){Enter}z = 1');
    expect(box.value).toBe('for x in y:\n    print(x)\n    z = 1');
  });

  it('submits with Ctrl+Enter and cancels with Esc', async () => {
    const onsubmit = vi.fn();
    const oncancel = vi.fn();
    render(CodeEditor, { value: 'x', label: 'Cell', onsubmit, oncancel });
    await userEvent.keyboard('{Control>}{Enter}{/Control}');
    expect(onsubmit).toHaveBeenCalledOnce();
    await userEvent.keyboard('{Escape}');
    expect(oncancel).toHaveBeenCalledOnce();
  });

  it('warns about characters it cannot show', () => {
    render(CodeEditor, { value: 'x = 1\u200b', label: 'Cell', onsubmit: vi.fn(), oncancel: vi.fn() });
    expect(screen.getByRole('alert')).toHaveTextContent('hidden characters');
  });
});
