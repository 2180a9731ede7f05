import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import FailureCard from './FailureCard.svelte';
import type { Failure } from '../../lib/conversation/reducer';

const base: Failure = {
  cause: 'model',
  summary: 'The provider had a server error (HTTP 503).',
  fix: 'This is on the provider\'s side: try again in a moment.',
  error: 'google:gemini-x: HTTP 503 UNAVAILABLE: overloaded',
  keyEnv: '',
  status: 503,
  prompt: 'Plot it',
  images: [],
  action: '',
  kept: false,
};

describe('FailureCard', () => {
  it("shows a provider error in plain words, with the provider's message, Retry and the model setting", async () => {
    const onretry = vi.fn();
    const onsettings = vi.fn();
    render(FailureCard, { failure: base, savekey: vi.fn(), onretry, onsettings });
    const card = screen.getByRole('alert', { name: 'The request failed' });
    expect(card).toHaveTextContent('The provider had a server error (HTTP 503).');
    expect(card).toHaveTextContent('HTTP 503 UNAVAILABLE: overloaded');
    expect(card).toHaveTextContent("try again in a moment");
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onretry).toHaveBeenCalledWith(base);
    await userEvent.click(screen.getByRole('button', { name: 'Model settings' }));
    expect(onsettings).toHaveBeenCalled();
  });

  it('asks for a missing key, stores it and sends the prompt again', async () => {
    const savekey = vi.fn(async () => {});
    const onretry = vi.fn();
    const f: Failure = { ...base, cause: 'api_key', keyEnv: 'OPENAI_API_KEY', summary: 'No API key for openai:gpt-5.', error: 'no API key …' };
    render(FailureCard, { failure: f, savekey, onretry, onsettings: vi.fn() });
    const field = screen.getByLabelText('OPENAI_API_KEY');
    await vi.waitFor(() => expect(document.activeElement).toBe(field));
    expect(screen.getByRole('button', { name: 'Save key and retry' })).toBeDisabled();
    expect(screen.queryByText('no API key …')).not.toBeInTheDocument();
    await userEvent.type(field, ' sk-1 {Enter}');
    expect(savekey).toHaveBeenCalledWith('OPENAI_API_KEY', 'sk-1');
    expect(onretry).toHaveBeenCalledWith(f);
  });

  it('offers Continue, not Retry, for a turn whose actions ran and were kept', async () => {
    const onretry = vi.fn();
    const f = { ...base, kept: true };
    render(FailureCard, { failure: f, savekey: vi.fn(), onretry, onsettings: vi.fn() });
    expect(screen.getByTestId('failure-kept')).toHaveTextContent('they do not run again');
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(onretry).toHaveBeenCalledWith(f);
  });

  it('says why a key could not be stored, and does not retry', async () => {
    const onretry = vi.fn();
    const f: Failure = { ...base, cause: 'api_key', keyEnv: 'GEMINI_API_KEY' };
    render(FailureCard, { failure: f, savekey: vi.fn(async () => Promise.reject(new Error('store API key: disk full'))), onretry, onsettings: vi.fn() });
    await userEvent.type(screen.getByLabelText('GEMINI_API_KEY'), 'k{Enter}');
    expect(await screen.findByText('store API key: disk full')).toBeInTheDocument();
    expect(onretry).not.toHaveBeenCalled();
  });

  it('offers no fixes for a failure the conversation went past', () => {
    render(FailureCard, { failure: base, savekey: vi.fn(), onretry: vi.fn(), onsettings: vi.fn(), latest: false });
    expect(screen.getByRole('alert')).toHaveTextContent('server error');
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
  });
});
