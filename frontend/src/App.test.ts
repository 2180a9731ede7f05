import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import App from './App.svelte';
import type { Backend } from './lib/backend';

function fakeBackend(overrides: Partial<Backend> = {}): Backend {
  return {
    version: vi.fn(async () => ({ version: '1.2.3', goVersion: 'go1.26', platform: 'linux/amd64', commit: '' })),
    workspace: vi.fn(async () => ({ path: '', name: '' })),
    send: vi.fn(async () => {}),
    ...overrides,
  };
}

describe('App', () => {
  it('shows the version from the backend and the workspace placeholder', async () => {
    render(App, { backend: fakeBackend() });
    expect(await screen.findByText('v1.2.3')).toBeInTheDocument();
    expect(screen.getByTestId('workspace')).toHaveTextContent('No workspace open');
    expect(screen.getByRole('heading', { name: 'What should we work on?' })).toBeInTheDocument();
  });

  it('shows the open workspace by name', async () => {
    render(App, { backend: fakeBackend({ workspace: async () => ({ path: '/home/u/proj', name: 'proj' }) }) });
    expect(await screen.findByTitle('/home/u/proj')).toHaveTextContent('proj');
  });

  it('puts a failed send in a dismissible banner and keeps the draft', async () => {
    const backend = fakeBackend({ send: vi.fn(async () => Promise.reject(new Error('no agent yet'))) });
    render(App, { backend });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, 'hello{Enter}');
    expect(backend.send).toHaveBeenCalledWith('hello');
    expect(await screen.findByRole('alert')).toHaveTextContent('no agent yet');
    expect(box.value).toBe('hello');
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('clears the draft after a successful send', async () => {
    const backend = fakeBackend();
    render(App, { backend });
    const box = screen.getByLabelText<HTMLTextAreaElement>('Message to the agent');
    await userEvent.type(box, 'hello{Enter}');
    await vi.waitFor(() => expect(box.value).toBe(''));
  });

  it('fills the prompt from an example', async () => {
    render(App, { backend: fakeBackend() });
    await userEvent.click(screen.getByRole('button', { name: 'Find the largest files in this folder' }));
    expect(screen.getByLabelText<HTMLTextAreaElement>('Message to the agent').value).toBe(
      'Find the largest files in this folder',
    );
  });
});
