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

  it('copies the whole output', async () => {
    const copy = vi.fn(async () => {});
    render(OutputView, { output: 'a\nb\n', lines: 2, dropped: 0, copy });
    await userEvent.click(screen.getByRole('button', { name: 'Copy output' }));
    expect(copy).toHaveBeenCalledWith('a\nb\n');
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });
});
