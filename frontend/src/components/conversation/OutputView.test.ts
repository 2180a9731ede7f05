import { describe, expect, it } from 'vitest';
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
});
