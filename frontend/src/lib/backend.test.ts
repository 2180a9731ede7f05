import { afterEach, describe, expect, it, vi } from 'vitest';
import { openInBrowser } from './backend';

type W = { go?: unknown; runtime?: unknown };

describe('openInBrowser', () => {
  afterEach(() => {
    delete (window as W).go;
    delete (window as W).runtime;
    vi.restoreAllMocks();
  });

  it('hands every link to the backend (Desktop.OpenLink), never to the runtime directly', async () => {
    const OpenLink = vi.fn().mockResolvedValue(undefined);
    const BrowserOpenURL = vi.fn();
    (window as W).go = { desktop: { Desktop: { OpenLink } } };
    (window as W).runtime = { BrowserOpenURL };
    openInBrowser('https://example.org/x');
    openInBrowser('file:///etc/passwd');
    expect(OpenLink.mock.calls).toEqual([['https://example.org/x'], ['file:///etc/passwd']]);
    expect(BrowserOpenURL).not.toHaveBeenCalled();
  });

  it('logs a refusal of the backend', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    (window as W).go = { desktop: { Desktop: { OpenLink: vi.fn().mockRejectedValue('file: links are not opened') } } };
    openInBrowser('file:///etc/passwd');
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith('The link was not opened: file: links are not opened'));
  });
});
