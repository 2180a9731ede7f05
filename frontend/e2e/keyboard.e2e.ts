// The window's keyboard against the real backend: the shortcut sheet (F1
// or Ctrl+/) lists every shortcut and gives the focus back to the message
// box when it closes, and the settings panel opens with Ctrl+, and moves
// through its tabs with the arrow keys. Every settings tab, as it first
// opens, is photographed in both themes (test-output/e2e/settings-tab-*).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { APPROVAL_KEYS, OTHER_KEYS, SHORTCUTS } from '../src/lib/keyboard';
import { repoRoot, shoot, startApp, type App } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');

/** The id of the element that has the keyboard focus. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

/** The rows of the sheet as "keys: description", keys as shown. */
async function rows(sheet: Locator): Promise<string[]> {
  return sheet.locator('dl').evaluateAll((lists) =>
    lists.flatMap((dl) => [...dl.querySelectorAll('dt')].map((dt) => `${dt.textContent?.trim()}: ${dt.nextElementSibling?.textContent?.trim()}`)),
  );
}

describe('the keyboard', () => {
  let app: App;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-keyboard-'));
    const workspace = join(dir, 'project');
    mkdirSync(join(workspace, '.freeact'), { recursive: true });
    writeFileSync(join(workspace, '.freeact', 'agent.json'), JSON.stringify({ python, enable_subagents: false }, null, 2));
    app = await startApp({ env: { GEMINI_API_KEY: '', GOOGLE_API_KEY: '' } });
    const { page } = app;
    await page.getByLabel('or type its path', { exact: true }).fill(workspace);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByTestId('kernel-status').filter({ hasText: 'Kernel ready' }).waitFor({ timeout: 60_000 });
  });
  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('opens the shortcut sheet with F1 and Ctrl+/; Esc closes it and the message box has the focus', async () => {
    const { page } = app;
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const key of ['F1', 'Control+/']) {
      // The focus starts elsewhere, so its return is the sheet's doing.
      await page.getByRole('button', { name: 'Settings', exact: true }).focus();
      await page.keyboard.press(key);
      await sheet.waitFor();
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
      const listed = await rows(sheet);
      // The shortcuts issue 14 asks for, as the sheet shows them.
      expect(listed).toEqual(
        expect.arrayContaining([
          'Ctrl+N: New conversation',
          'Ctrl+,: Settings',
          'Ctrl+LorEsc: Go to the message box',
          'Ctrl+K: Search conversations',
          'Ctrl+Q: Quit',
          'F1orCtrl+/: This list of shortcuts',
          'yorEnter: Yes: run this call',
          'norEsc: No: do not run it (the turn ends)',
        ]),
      );
      // And every row of the window's table, once.
      const table = [...SHORTCUTS, ...APPROVAL_KEYS, ...OTHER_KEYS].map((s) => `${s.keys.join('or')}: ${s.description}`);
      expect(listed).toEqual(table);
      if (key === 'F1') await shoot(page, 'shortcut-sheet');
      await page.keyboard.press('Escape');
      await sheet.waitFor({ state: 'detached' });
      await expect.poll(() => focused(page)).toBe('prompt-input');
    }
    // Tab stays in the sheet (one button), and F1 closes it again.
    await page.keyboard.press('F1');
    await sheet.waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
    await page.keyboard.press('F1');
    await sheet.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('prompt-input');
  });

  it('opens Settings with Ctrl+, and walks every tab with ↓, photographed in both themes', async () => {
    const { page } = app;
    const panel = page.getByRole('dialog', { name: 'Settings' });
    await page.keyboard.press('Control+,');
    await panel.waitFor();
    // What shows that each tab has loaded.
    const tabs: { id: string; label: string; ready: () => Locator }[] = [
      { id: 'model', label: 'Model', ready: () => panel.getByTestId('model-key') },
      { id: 'agent', label: 'Agent', ready: () => panel.getByLabel('Code action time limit', { exact: true }) },
      { id: 'kernel', label: 'Kernel', ready: () => panel.getByLabel('Server URL', { exact: true }) },
      { id: 'mcp', label: 'MCP servers', ready: () => panel.getByRole('button', { name: 'Add server' }) },
      { id: 'sandbox', label: 'Sandbox', ready: () => panel.getByRole('switch', { name: 'Run code in the sandbox' }) },
      { id: 'keys', label: 'API keys', ready: () => panel.getByTestId('key-storage') },
      { id: 'hooks', label: 'Hooks', ready: () => panel.getByTestId('hooks-workspace') },
      { id: 'permissions', label: 'Permissions', ready: () => panel.getByTestId('saved-grants') },
    ];
    expect((await panel.getByRole('tab').allTextContents()).map((s) => s.trim())).toEqual(tabs.map((t) => t.label));
    for (const [i, t] of tabs.entries()) {
      await expect.poll(() => focused(page)).toBe(`tab-${t.id}`);
      expect((await panel.getByRole('tab', { selected: true }).textContent())?.trim()).toBe(t.label);
      await t.ready().waitFor();
      expect(await panel.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe(`tab-${t.id}`);
      await shoot(page, `settings-tab-${String(i + 1)}-${t.id}`);
      await page.keyboard.press('ArrowDown');
    }
    // ↓ on the last tab wraps to the first; ↑ goes back.
    await expect.poll(() => focused(page)).toBe('tab-model');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => focused(page)).toBe('tab-permissions');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('prompt-input');
  });
});
