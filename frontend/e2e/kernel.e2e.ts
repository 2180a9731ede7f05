// The kernel workflow in the browser against the real Go backend and a real
// kernel: editing a code action before approving it, the variable
// inspector, @name, running a cell again, and restoring the kernel state
// after a restart. Screenshots in both themes land in test-output/e2e/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, startApp, startFakeModel, type App, type FakeModel } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');

const modelCell =
  "import numpy as np, pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Rome', 'Lima', 'Cairo'], 'temp': [3.5, 18.0, 16.2, 24.9]})\ntemps = np.linspace(-5, 30, 1_000_000)\nname = 'freeact'\nprint(len(df), name)";
const editedCell = modelCell.replace("name = 'freeact'", "name = 'edited by you'");

const scenario = {
  name: 'kernel workflow e2e',
  turns: [
    { reply: [{ call: { id: 'c1', name: 'ipybox_execute_ipython_cell', args: { code: modelCell } } }] },
    {
      expect: { last: [{ role: 'user', response: 'ipybox_execute_ipython_cell', output: 'The user edited your code' }] },
      reply: [{ text: 'Made a frame, an array and a name (you changed the name).' }],
    },
    {
      expect: {
        last: [
          { role: 'user', text: 'Describe @df' },
          { role: 'user', text: '<variable name="df">' },
          { role: 'user', text: 'city (' },
        ],
      },
      reply: [{ text: 'Four cities; Cairo is the warmest.' }],
    },
  ],
};

async function send(page: Page, text: string) {
  const box = page.getByLabel('Message to the agent');
  await box.fill(text);
  await box.press('Enter');
}

/** Takes a screenshot in the light and the dark theme. */
async function both(app: App, name: string) {
  await app.page.emulateMedia({ colorScheme: 'light' });
  await app.screenshot(name);
  await app.page.emulateMedia({ colorScheme: 'dark' });
  await app.screenshot(`${name}-dark`);
  await app.page.emulateMedia({ colorScheme: 'light' });
}

describe('the kernel workflow in the window', () => {
  let model: FakeModel;
  let app: App;
  let dir: string;
  let workspace: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-kernel-'));
    workspace = join(dir, 'analysis');
    mkdirSync(join(workspace, '.freeact'), { recursive: true });
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(workspace, '.freeact', 'agent.json'), JSON.stringify({ python, enable_subagents: false }));
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify(scenario));
    model = await startFakeModel(file);
    app = await startApp({ env: model.env, home: join(dir, 'home') });
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const fail = () => `${app?.log()}\nfake model:\n${model?.log()}`;

  it('opens the workspace', async () => {
    const { page } = app;
    await page.getByLabel('or type its path').fill(workspace);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('kernel-status').textContent(), { timeout: 60_000, message: fail() })
      .toContain('Kernel ready');
  });

  it('edits a code action before approving it; the edited cell runs', async () => {
    const { page } = app;
    await send(page, 'Make some data');
    await page.getByTestId('approval-body').waitFor({ timeout: 30_000 });
    await page.keyboard.press('e');
    const editor = page.getByLabel('Edit the cell before it runs');
    await editor.waitFor();
    // Type the change as a person would: select the old name, type over it.
    const value = await editor.inputValue();
    const at = value.indexOf("'freeact'");
    const end = at + "'freeact'".length;
    await editor.evaluate((el: HTMLTextAreaElement, r: number[]) => el.setSelectionRange(r[0] ?? 0, r[1] ?? 0), [at, end]);
    await page.keyboard.type("'edited by you'");
    expect(await editor.inputValue()).toBe(editedCell);
    await page.getByText('edited: this runs instead').waitFor();
    await both(app, 'edit-before-approve');
    await page.keyboard.press('Control+Enter');
    const tool = page.getByTestId('tool').first();
    await expect
      .poll(() => tool.getByTestId('output').textContent(), { timeout: 30_000, message: fail() })
      .toContain('4 edited by you');
    await tool.getByTestId('edited-badge').waitFor();
    await page.getByText('you changed the name').waitFor({ timeout: 20_000 });
    await both(app, 'edited-cell-ran');
  });

  it('lists the variables silently, filters them and opens a DataFrame', async () => {
    const { page } = app;
    await page.getByRole('button', { name: 'Variables' }).click();
    const panel = page.getByTestId('variables-panel');
    await expect.poll(() => panel.getByTestId('variable').count(), { timeout: 20_000, message: fail() }).toBe(3);
    const names = await panel.locator('[data-testid=variable] .name').allTextContents();
    expect(names).toEqual(['df', 'name', 'temps']);
    expect(await panel.getByTestId('variable').nth(2).textContent()).toContain('1,000,000');
    expect(await panel.getByTestId('variable').nth(2).textContent()).toContain('8.0 MB');
    // Reading the variables ran no cell: the conversation has one.
    expect(await page.getByTestId('tool').count()).toBe(1);
    await panel.getByTestId('variable').first().click();
    const details = panel.getByTestId('variable-details');
    await expect.poll(() => details.textContent(), { timeout: 20_000 }).toContain('Cairo');
    expect(await details.textContent()).toContain('temp float64');
    await both(app, 'inspector');
    await panel.getByLabel('Filter variables by name').fill('te');
    expect(await panel.getByTestId('variable').count()).toBe(1);
    await panel.getByLabel('Filter variables by name').fill('');
  });

  it('completes @df from the inspector and sends its description', async () => {
    const { page } = app;
    const box = page.getByLabel('Message to the agent');
    await box.click();
    await box.pressSequentially('Describe @d');
    const option = page.getByRole('option').first();
    await expect.poll(() => option.textContent(), { timeout: 10_000 }).toContain('df');
    await app.screenshot('mention-completion');
    await page.keyboard.press('Enter');
    expect(await box.inputValue()).toBe('Describe @df ');
    await box.press('Enter');
    await page.getByText('Four cities; Cairo is the warmest.').waitFor({ timeout: 30_000, state: 'visible' });
  });

  it('runs a past cell again, edited, as a new run after it', async () => {
    const { page } = app;
    const first = page.getByTestId('tool').first();
    await first.getByRole('button', { name: 'Edit and run' }).click();
    const editor = page.getByLabel('Edit the cell, then run it');
    await editor.fill('print(name.upper(), round(temps.mean(), 1))');
    await page.keyboard.press('Control+Enter');
    const rerun = page.getByTestId('tool').nth(1);
    await rerun.getByTestId('run-badge').waitFor({ timeout: 20_000 });
    await expect.poll(() => rerun.getByTestId('output').textContent(), { timeout: 20_000 }).toContain('EDITED BY YOU 12.5');
    await both(app, 'run-again');
  });

  it('offers to restore the variables after a restart, and restores them', async () => {
    const { page } = app;
    await page.getByRole('button', { name: 'Restart kernel' }).click();
    // A restart loses the variables: it is confirmed first.
    await page.getByTestId('restart-dialog').getByRole('button', { name: 'Restart kernel' }).click();
    const offer = page.getByTestId('replay-offer');
    await offer.waitFor({ timeout: 30_000 });
    expect(await offer.textContent()).toContain('Replay 2 cells');
    await page.getByText('The user restarted the kernel').waitFor();
    await expect.poll(() => page.getByTestId('variable').count(), { timeout: 20_000 }).toBe(0);
    await both(app, 'replay-offer');
    await offer.getByRole('button', { name: 'Replay 2 cells' }).click();
    await page.getByTestId('replay-result').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('replay-result').textContent()).toContain('2 of 2 cells ran again');
    await expect.poll(() => page.getByTestId('variable').count(), { timeout: 20_000 }).toBe(3);
    await both(app, 'replay-done');
  });
});
