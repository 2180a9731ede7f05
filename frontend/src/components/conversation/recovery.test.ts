import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import InterruptedRevert from './InterruptedRevert.svelte';
import BusyConversation from './BusyConversation.svelte';

const cut = { label: 'turn 2', files: 25, time: '2026-11-27T07:00:00Z' };

describe('InterruptedRevert', () => {
  it('says what was cut short and offers Finish and Roll back', () => {
    render(InterruptedRevert, { interrupted: cut, backend: { finishRevert: vi.fn(), rollbackRevert: vi.fn() } });
    const card = screen.getByTestId('interrupted-revert');
    expect(card).toHaveTextContent('A revert was interrupted (turn 2, 25 paths,');
    expect(card).toHaveTextContent('some files may be reverted and others not');
    expect(screen.getByRole('button', { name: 'Finish' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Roll back' })).toBeEnabled();
  });

  it.each([
    ['Finish', 'finishRevert'],
    ['Roll back', 'rollbackRevert'],
  ] as const)('%s calls its binding and the banner goes away on success', async (button, method) => {
    const backend = { finishRevert: vi.fn(async () => {}), rollbackRevert: vi.fn(async () => {}) };
    render(InterruptedRevert, { interrupted: cut, backend });
    await userEvent.click(screen.getByRole('button', { name: button }));
    expect(backend[method]).toHaveBeenCalledOnce();
    expect(backend[method === 'finishRevert' ? 'rollbackRevert' : 'finishRevert']).not.toHaveBeenCalled();
    expect(screen.queryByTestId('interrupted-revert')).toBeNull();
  });

  it.each([
    ['Finish', 'finishRevert', 'Finishing the revert…'],
    ['Roll back', 'rollbackRevert', 'Rolling the revert back…'],
  ] as const)('%s shows its progress while it runs', async (button, method, says) => {
    let done = () => {};
    const backend = { finishRevert: vi.fn(), rollbackRevert: vi.fn() };
    backend[method].mockImplementation(() => new Promise<void>((resolve) => (done = resolve)));
    render(InterruptedRevert, { interrupted: cut, backend });
    await userEvent.click(screen.getByRole('button', { name: button }));
    expect(screen.getByRole('status')).toHaveTextContent(says);
    expect(screen.getByRole('button', { name: 'Finish' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Roll back' })).toBeDisabled();
    done();
    await vi.waitFor(() => expect(screen.queryByTestId('interrupted-revert')).toBeNull());
  });

  it('keeps the banner with the error and what to do when the step fails, and Retry works', async () => {
    const backend = {
      finishRevert: vi.fn().mockRejectedValueOnce(new Error('finish the interrupted revert: no space left on device')).mockResolvedValueOnce(undefined),
      rollbackRevert: vi.fn(),
    };
    render(InterruptedRevert, { interrupted: cut, backend });
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('no space left on device');
    expect(alert).toHaveTextContent('The files stay as they are: try again, or choose the other way');
    expect(screen.getByRole('button', { name: 'Finish' })).toBeEnabled();
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    expect(backend.finishRevert).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('interrupted-revert')).toBeNull();
  });

  it('shows nothing without an interrupted revert', () => {
    render(InterruptedRevert, { interrupted: undefined, backend: { finishRevert: vi.fn(), rollbackRevert: vi.fn() } });
    expect(screen.queryByTestId('interrupted-revert')).toBeNull();
  });
});

describe('BusyConversation', () => {
  it('names the other window and its pid, and Fork opens the copy', async () => {
    const backend = { forkBusySession: vi.fn(async () => 'copy-1'), retryKernel: vi.fn() };
    const onforked = vi.fn();
    render(BusyConversation, { pid: 4242, backend, onforked });
    expect(screen.getByTestId('busy-conversation')).toHaveTextContent('This conversation is open in another freeact window, pid 4242.');
    await userEvent.click(screen.getByRole('button', { name: 'Fork' }));
    expect(backend.forkBusySession).toHaveBeenCalledOnce();
    expect(onforked).toHaveBeenCalledWith('copy-1');
    expect(backend.retryKernel).not.toHaveBeenCalled();
  });

  it('shows a failed fork with what to do, and Retry tries the conversation again', async () => {
    const backend = { forkBusySession: vi.fn(async () => Promise.reject(new Error('fork the conversation: disk full'))), retryKernel: vi.fn(async () => {}) };
    const onforked = vi.fn();
    render(BusyConversation, { pid: 0, backend, onforked });
    expect(screen.getByTestId('busy-conversation')).toHaveTextContent('open in another freeact window.');
    await userEvent.click(screen.getByRole('button', { name: 'Fork' }));
    expect(await screen.findByText(/disk full\. Nothing was changed: try again, or close the other window and retry\./)).toBeInTheDocument();
    expect(onforked).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(backend.retryKernel).toHaveBeenCalledOnce();
  });
});
