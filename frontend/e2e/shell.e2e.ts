import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, type App } from './harness';

describe('the first window, against the real Go backend', () => {
  let app: App;

  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('shows the version the Go binding returns', async () => {
    const fromGo = await app.page.evaluate(async () => {
      const w = window as unknown as { go: { desktop: { Desktop: { Version(): Promise<{ version: string }> } } } };
      return (await w.go.desktop.Desktop.Version()).version;
    });
    expect(fromGo).toBe('dev');
    await expect.poll(() => app.page.getByTestId('version').textContent()).toBe('development build');
    expect(await app.page.getByTestId('workspace').textContent()).toContain('No workspace open');
    await app.screenshot('empty-window-light');
  });

  it('asks for a workspace first, and Go refuses a prompt without one', async () => {
    await app.page.getByRole('heading', { name: 'Open a workspace' }).waitFor();
    const err = await app.page.evaluate(async () => {
      const w = window as unknown as { go: { desktop: { Desktop: { Send(p: string, a: unknown[]): Promise<void> } } } };
      try {
        await w.go.desktop.Desktop.Send('What is 2 + 2?', []);
        return 'no error';
      } catch (e) {
        return String(e);
      }
    });
    expect(err).toBe('no workspace is open: choose a folder first');
  });

  it('offers to create a folder that does not exist, and says why a file is no workspace', async () => {
    await app.page.getByLabel('or type its path').fill('/nonexistent/folder');
    await app.page.getByRole('button', { name: 'Open', exact: true }).click();
    const offer = app.page.getByTestId('create-folder');
    await offer.waitFor();
    expect(await offer.textContent()).toContain('/nonexistent/folder does not exist.');
    expect(await offer.getByRole('button', { name: 'Create it and open' }).isVisible()).toBe(true);
    await app.screenshot('open-missing-folder');
    await app.page.getByLabel('or type its path').fill('/etc/hostname');
    await app.page.getByRole('button', { name: 'Open', exact: true }).click();
    const problem = app.page.getByRole('alert').filter({ hasText: 'is a file' });
    await problem.waitFor();
    expect(await offer.count()).toBe(0);
  });

  it('rejects an empty prompt in Go with a message that says what to do', async () => {
    const err = await app.page.evaluate(async () => {
      const w = window as unknown as { go: { desktop: { Desktop: { Send(p: string, a: unknown[]): Promise<void> } } } };
      try {
        await w.go.desktop.Desktop.Send('', []);
        return 'no error';
      } catch (e) {
        return String(e);
      }
    });
    expect(err).toBe('the prompt is empty: type a request first');
  });
});

describe('a kernel that cannot start', () => {
  it('shows the error with a Retry button', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'freeact-e2e-bad-'));
    mkdirSync(join(ws, '.freeact'));
    writeFileSync(join(ws, '.freeact', 'agent.json'), JSON.stringify({ python: '/no/such/python3' }));
    const app = await startApp({ env: { GEMINI_API_KEY: 'fake-key' } });
    try {
      await app.page.getByLabel('or type its path').fill(ws);
      await app.page.getByRole('button', { name: 'Open', exact: true }).click();
      const alert = app.page.getByRole('alert').filter({ hasText: "The kernel's Python could not be used." });
      await alert.waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
        await app.screenshot('kernel-error-failure');
        throw new Error(`${String(e)}\n${app.log()}`);
      });
      expect(await alert.textContent()).toContain('/no/such/python3');
      expect(await app.page.getByTestId('kernel-status').textContent()).toContain('Kernel failed');
      await app.screenshot('kernel-error');
      await alert.getByRole('button', { name: 'Retry' }).click();
      await alert.waitFor({ timeout: 30_000 });
    } finally {
      await app.close();
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('dark theme', () => {
  it('follows the system colour scheme', async () => {
    const app = await startApp({ colorScheme: 'dark' });
    try {
      const bg = await app.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(bg).toBe('rgb(22, 22, 21)');
      await app.screenshot('empty-window-dark');
    } finally {
      await app.close();
    }
  });
});
