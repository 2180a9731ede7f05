import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import ApiKeysTab from './ApiKeysTab.svelte';
import type { APIKeys, Backend } from '../../lib/backend';

const keys: APIKeys = { storage: { kind: 'file', where: '~/.config/freeact/credentials.json', reason: 'no keyring' }, keys: [] } as unknown as APIKeys;

function setup() {
  const backend = {
    setAPIKey: vi.fn(async () => ({ kind: 'file', where: 'credentials.json' })),
    apiKeys: vi.fn(async () => keys),
  } as unknown as Backend;
  const onchanged = vi.fn();
  render(ApiKeysTab, { backend, keys, onchanged, onerror: vi.fn() });
  return { backend, onchanged };
}

describe('ApiKeysTab, another variable', () => {
  it('types the name in plain text and only the value hidden', () => {
    setup();
    expect(screen.getByLabelText('Name of another variable')).toHaveAttribute('type', 'text');
    expect(screen.getByLabelText('Value of another variable')).toHaveAttribute('type', 'password');
  });

  it('says what is wrong with an invalid pair and stores nothing', async () => {
    const { backend } = setup();
    await userEvent.type(screen.getByLabelText('Name of another variable'), '1BAD NAME');
    await userEvent.type(screen.getByLabelText('Value of another variable'), 'v');
    await userEvent.click(screen.getByRole('button', { name: 'Store' }));
    expect(screen.getByTestId('key-other-error')).toHaveTextContent('“1BAD NAME” is no variable name');
    expect(screen.getByLabelText('Name of another variable')).toHaveFocus();
    await userEvent.clear(screen.getByLabelText('Name of another variable'));
    await userEvent.type(screen.getByLabelText('Name of another variable'), 'MY_TOKEN');
    await userEvent.clear(screen.getByLabelText('Value of another variable'));
    await userEvent.click(screen.getByRole('button', { name: 'Store' }));
    expect(screen.getByTestId('key-other-error')).toHaveTextContent('Paste the value of MY_TOKEN.');
    expect(backend.setAPIKey).not.toHaveBeenCalled();
  });

  it('stores a valid pair and empties the fields', async () => {
    const { backend, onchanged } = setup();
    await userEvent.type(screen.getByLabelText('Name of another variable'), 'MY_TOKEN');
    await userEvent.type(screen.getByLabelText('Value of another variable'), 's3cret');
    await userEvent.click(screen.getByRole('button', { name: 'Store' }));
    await vi.waitFor(() => expect(onchanged).toHaveBeenCalled());
    expect(backend.setAPIKey).toHaveBeenCalledWith('MY_TOKEN', 's3cret');
    expect(screen.getByLabelText('Name of another variable')).toHaveValue('');
  });
});
