import { describe, expect, it, vi } from 'vitest';
import { render, screen, fireEvent } from '@testing-library/svelte';
import LiveKernels from './LiveKernels.svelte';
import type { Backend } from '../../lib/backend';

describe('LiveKernels', () => {
  it('shows the limit and saves a new one when changed', async () => {
    const set = vi.fn(async () => {});
    const backend = { liveKernelLimit: vi.fn(async () => 6), setLiveKernelLimit: set } as unknown as Backend;
    render(LiveKernels, { backend, onerror: vi.fn() });
    const input = (await screen.findByDisplayValue('6')) as HTMLInputElement;
    await fireEvent.input(input, { target: { value: '2' } });
    await fireEvent.change(input);
    expect(set).toHaveBeenCalledWith(2);
    expect(await screen.findByText(/Saved\./)).toBeTruthy();
  });

  it('reports a limit the backend refuses', async () => {
    const onerror = vi.fn();
    const backend = {
      liveKernelLimit: vi.fn(async () => 4),
      setLiveKernelLimit: vi.fn(async () => {
        throw new Error('the limit on live kernels must be between 1 and 32');
      }),
    } as unknown as Backend;
    render(LiveKernels, { backend, onerror });
    const input = await screen.findByDisplayValue('4');
    await fireEvent.input(input, { target: { value: '99' } });
    await fireEvent.change(input);
    await vi.waitFor(() => expect(onerror).toHaveBeenCalled());
  });
});
