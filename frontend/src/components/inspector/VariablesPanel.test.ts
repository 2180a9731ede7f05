import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import VariablesPanel from './VariablesPanel.svelte';
import type { Backend, Namespace } from '../../lib/backend';

const ns = (over: Partial<Namespace> = {}): Namespace => ({
  variables: [
    { name: 'df', type: 'pandas.DataFrame', shape: [3000, 3], bytes: 72_128, repr: 'columns: city, temp, n' },
    { name: 'n', type: 'int', bytes: 28, repr: '42' },
    { name: 'words', type: 'list', len: 12, bytes: 152, repr: "['a', 'b', ...]" },
  ],
  total: 3,
  repr_cut: false,
  ...over,
});

function backend(over: Partial<Backend> = {}): Backend {
  return {
    variables: vi.fn(async () => ns()),
    describeVariable: vi.fn(async (name: string) => ({
      name,
      type: 'pandas.DataFrame',
      bytes: 72_128,
      columns: [
        { name: 'city', dtype: 'object' },
        { name: 'temp', dtype: 'float64' },
      ],
      head: '   city  temp\n0  Oslo  -5.0',
    })),
    ...over,
  } as unknown as Backend;
}

describe('VariablesPanel', () => {
  it('lists the variables with type, shape or length, size and repr', async () => {
    render(VariablesPanel, { backend: backend(), refresh: 0, onclose: vi.fn() });
    const rows = await screen.findAllByTestId('variable');
    expect(rows.map((r) => r.querySelector('.name')?.textContent)).toEqual(['df', 'n', 'words']);
    expect(rows[0]).toHaveTextContent('pandas.DataFrame');
    expect(rows[0]).toHaveTextContent('3,000 × 3');
    expect(rows[0]).toHaveTextContent('72.1 kB');
    expect(rows[2]).toHaveTextContent('len 12');
    expect(screen.getByTestId('variables-count')).toHaveTextContent('3');
  });

  it('filters by name', async () => {
    render(VariablesPanel, { backend: backend(), refresh: 0, onclose: vi.fn() });
    await screen.findAllByTestId('variable');
    await userEvent.type(screen.getByLabelText('Filter variables by name'), 'WO');
    expect(screen.getAllByTestId('variable')).toHaveLength(1);
    await userEvent.type(screen.getByLabelText('Filter variables by name'), 'x');
    expect(screen.getByText('No variable matches “WOx”.')).toBeInTheDocument();
  });

  it('opens a DataFrame’s columns and first rows, and mentions it', async () => {
    const b = backend();
    const onmention = vi.fn();
    render(VariablesPanel, { backend: b, refresh: 0, onclose: vi.fn(), onmention });
    await userEvent.click((await screen.findAllByTestId('variable'))[0]!);
    const details = await screen.findByTestId('variable-details');
    expect(b.describeVariable).toHaveBeenCalledWith('df');
    expect(details).toHaveTextContent('city object');
    expect(details).toHaveTextContent('Oslo');
    await userEvent.click(screen.getByRole('button', { name: '@df in the prompt' }));
    expect(onmention).toHaveBeenCalledWith('df');
  });

  it('reloads when refresh changes and on demand', async () => {
    const b = backend();
    const { rerender } = render(VariablesPanel, { backend: b, refresh: 0, onclose: vi.fn() });
    await vi.waitFor(() => expect(b.variables).toHaveBeenCalledTimes(1));
    await rerender({ backend: b, refresh: 1, onclose: vi.fn() });
    await vi.waitFor(() => expect(b.variables).toHaveBeenCalledTimes(2));
    await userEvent.click(screen.getByRole('button', { name: 'Refresh variables' }));
    await vi.waitFor(() => expect(b.variables).toHaveBeenCalledTimes(3));
  });

  it('says why it cannot list, and when reprs ran out of time', async () => {
    const { unmount } = render(VariablesPanel, {
      backend: backend({ variables: vi.fn(async () => Promise.reject(new Error('the kernel is busy running a cell'))) }),
      refresh: 0,
      onclose: vi.fn(),
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('the kernel is busy');
    unmount();
    render(VariablesPanel, {
      backend: backend({ variables: vi.fn(async () => ns({ repr_cut: true, total: 6000 })) }),
      refresh: 0,
      onclose: vi.fn(),
    });
    expect(await screen.findByText('Some values are too slow to show (…).')).toBeInTheDocument();
    expect(screen.getByText('Showing 3 of 6,000.')).toBeInTheDocument();
  });
});
