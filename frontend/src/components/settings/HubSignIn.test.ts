import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import HubSignIn from './HubSignIn.svelte';
import type { Backend, HubState } from '../../lib/backend';

const hub: HubState = {
  url: 'https://hub.example.org/',
  is_hub: true,
  token_name: 'JUPYTERHUB_TOKEN_HUB_EXAMPLE_ORG',
  token_page: 'https://hub.example.org/hub/token',
  user: '',
  has_token: false,
  oauth: false,
  problem: '',
};

function setup(state: HubState) {
  const backend = {
    hubStatus: vi.fn(async () => state),
    hubSetToken: vi.fn(async () => ({ ...state, user: 'ada', has_token: true })),
    hubSignIn: vi.fn(async () => ({ ...state, user: 'ada', has_token: true })),
    hubSignOut: vi.fn(async () => ({ ...state, user: '', has_token: false })),
  };
  render(HubSignIn, { backend: backend as unknown as Backend });
  return backend;
}

describe('HubSignIn', () => {
  it('takes a pasted token in a masked field and shows whose it is', async () => {
    const backend = setup(hub);
    const field = await screen.findByLabelText('JupyterHub token');
    expect(field).toHaveAttribute('type', 'password');
    expect(screen.getByText('JUPYTERHUB_TOKEN_HUB_EXAMPLE_ORG')).toBeInTheDocument();
    // No browser sign-in unless the Hub's administrator registered freeact.
    expect(screen.queryByRole('button', { name: 'Sign in in the browser' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Sign in with the token' })).toBeDisabled();
    await userEvent.type(field, ' tok-123 ');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in with the token' }));
    expect(backend.hubSetToken).toHaveBeenCalledWith('tok-123');
    expect(await screen.findByTestId('hub-user')).toHaveTextContent('Signed in as ada');
    // The field went with the sign-in: the focus is on Sign out.
    await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Sign out of the JupyterHub' })).toHaveFocus());
    await userEvent.click(screen.getByRole('button', { name: 'Sign out of the JupyterHub' }));
    expect(backend.hubSignOut).toHaveBeenCalled();
    expect(await screen.findByLabelText('JupyterHub token')).toHaveValue('');
    await vi.waitFor(() => expect(screen.getByLabelText('JupyterHub token')).toHaveFocus());
  });

  it('offers the browser sign-in when the Hub has freeact as an OAuth client', async () => {
    const backend = setup({ ...hub, oauth: true, has_token: true, problem: 'the JupyterHub token was refused (HTTP 403)' });
    expect(await screen.findByTestId('hub-problem')).toHaveTextContent('the JupyterHub token was refused');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in in the browser' }));
    expect(backend.hubSignIn).toHaveBeenCalled();
    expect(await screen.findByTestId('hub-user')).toHaveTextContent('Signed in as ada');
  });

  it('shows a refused token as the error', async () => {
    const backend = setup(hub);
    backend.hubSetToken.mockRejectedValueOnce(new Error('the JupyterHub token lacks a scope: servers!user'));
    await userEvent.type(await screen.findByLabelText('JupyterHub token'), 'narrow');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in with the token' }));
    expect(await screen.findByTestId('hub-error')).toHaveTextContent('lacks a scope: servers!user');
  });

  it('shows nothing when jupyter_url is a Jupyter server', async () => {
    const backend = setup({ ...hub, is_hub: false, problem: 'not a JupyterHub: GET http://gpu:8888/hub/api answered HTTP 404' });
    await vi.waitFor(() => expect(backend.hubStatus).toHaveBeenCalled());
    expect(screen.queryByTestId('hub-signin')).toBeNull();
  });
});
