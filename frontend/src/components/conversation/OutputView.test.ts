import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import OutputView from './OutputView.svelte';

describe('OutputView', () => {
  it('shows the tail of long output from a line start, and all of it on request', async () => {
    const output = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(5, '0')} ${'x'.repeat(60)}`).join('\n') + '\n';
    render(OutputView, { output, lines: 1000, dropped: 0 });
    const pre = screen.getByTestId('output').querySelector('pre')!;
    expect(pre.textContent!.startsWith('00')).toBe(true);
    expect(pre.textContent!.split('\n').length).toBeLessThanOrEqual(201);
    expect(screen.getByText(/1,000 lines/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show all' }));
    expect(pre.textContent).toBe(output);
  });

  it('after Show all says what the window did not keep, not that characters are hidden', async () => {
    const output = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n') + '\n';
    render(OutputView, { output, lines: 826_746, dropped: 826_000 });
    expect(screen.getByText(/earlier characters hidden/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show all' }));
    expect(screen.queryByText(/earlier characters hidden/)).toBeNull();
    expect(screen.getByText(/826,000 earlier ones were not kept in the window/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Show less' }));
    expect(screen.getByText(/earlier characters hidden/)).toBeInTheDocument();
  });

  it('shows only the error as one: what the cell printed before the kernel died stays plain', () => {
    const death = 'Error: the kernel died and its state was lost; the next execution starts a fresh kernel';
    render(OutputView, { output: `step 1\nstep 2\n${death}\n[a note]`, lines: 4, dropped: 0, error: true, errorText: death });
    const out = screen.getByTestId('output');
    expect(out).not.toHaveClass('error');
    expect(screen.getByTestId('output-error').textContent).toBe(death);
    expect(out.querySelector('pre')!.textContent).toBe(`step 1\nstep 2\n${death}\n[a note]`);
  });

  it('shows an error output wholly as one when its error is not told apart', () => {
    render(OutputView, { output: 'Traceback\nValueError: boom', lines: 2, dropped: 0, error: true });
    expect(screen.getByTestId('output')).toHaveClass('error');
    expect(screen.queryByTestId('output-error')).toBeNull();
  });

  it('copies the whole output', async () => {
    const copy = vi.fn(async () => {});
    render(OutputView, { output: 'a\nb\n', lines: 2, dropped: 0, copy });
    await userEvent.click(screen.getByRole('button', { name: 'Copy output' }));
    expect(copy).toHaveBeenCalledWith('a\nb\n');
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });
});
