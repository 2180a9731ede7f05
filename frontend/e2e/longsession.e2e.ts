// Long sessions in the window, end to end on the real backend with a real
// kernel: the context meter and costs, the files a turn changed (by a
// file tool, by !rm and from Python) with their diff, revert and undo,
// "Compact now" with its summary, and editing a past prompt as a fork.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, startApp, startFakeModel, type App, type FakeModel } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');

const scenario = {
  name: 'long session e2e',
  turns: [
    {
      reply: [{ call: { id: 'w1', name: 'filesystem_write_text_file', args: { path: 'notes.txt', content: 'new notes\nsecond line\n' } } }],
      usage: { input: 20000, output: 120, thinking: 40 },
    },
    {
      reply: [
        {
          call: {
            id: 'c1',
            name: 'ipybox_execute_ipython_cell',
            args: { code: "!rm gone.txt\nwith open('data.csv', 'a') as f:\n    f.write('3,4\\n')\nprint('appended')" },
          },
        },
      ],
      usage: { input: 21000, output: 90, thinking: 0 },
    },
    { reply: [{ text: 'I rewrote **notes.txt**, removed gone.txt and added a row to data.csv.' }], usage: { input: 22000, output: 30, thinking: 0 } },
    {
      expect: { system_contains: 'You summarise a working session' },
      reply: [
        {
          text: '## Requests\n- Change three files (current request, done).\n\n## Files\n- `notes.txt` rewritten, `gone.txt` removed, `data.csv` got a row — the user reverted and then restored these changes.\n\n## Open\n- Nothing.',
        },
      ],
      usage: { input: 3000, output: 80, thinking: 0 },
    },
    {
      expect: { messages: 1, last: [{ role: 'user', text: 'Only rewrite notes.txt.' }] },
      reply: [{ text: 'In this fork I only touch notes.txt.' }],
      usage: { input: 900, output: 20, thinking: 0 },
    },
  ],
};

const original: Record<string, string> = { 'notes.txt': 'old notes\n', 'gone.txt': 'to delete\n', 'data.csv': 'a,b\n1,2\n' };

async function approveAll(page: Page, until: () => Promise<boolean>, timeoutMs = 60_000) {
  // Answer each approval as it comes (a write, a code action, its !rm)
  // until the state comes; a loaded machine may take a while for each.
  const deadline = Date.now() + timeoutMs;
  while (!(await until())) {
    if (Date.now() > deadline) throw new Error(`answering approvals: the awaited state did not come within ${timeoutMs} ms`);
    const bar = page.getByTestId('approval-bar');
    if (await bar.isVisible().catch(() => false)) {
      await page.getByRole('button', { name: /^Yes/ }).click();
      await bar.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
    } else {
      await page.waitForTimeout(200); // the poll's interval: nothing says an approval is coming
    }
  }
}

describe('long sessions in the window', () => {
  let model: FakeModel;
  let app: App;
  let dir: string;
  let workspace: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-long-'));
    workspace = join(dir, 'project');
    mkdirSync(join(workspace, '.freeact'), { recursive: true });
    writeFileSync(
      join(workspace, '.freeact', 'agent.json'),
      JSON.stringify({
        python,
        enable_subagents: false,
        // A small window, so the meter moves visibly.
        models: { 'gemini-3-flash-preview': { context_window: 40000 } },
      }),
    );
    for (const [name, content] of Object.entries(original)) writeFileSync(join(workspace, name), content);
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify(scenario));
    model = await startFakeModel(file);
    app = await startApp({ env: model.env });
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const fail = () => `${app.log()}\nfake model:\n${model.log()}`;
  const read = (name: string) => (existsSync(join(workspace, name)) ? readFileSync(join(workspace, name), 'utf8') : '<missing>');

  it('shows what a turn changed, with the meter and its cost', async () => {
    const { page } = app;
    await page.getByLabel('or type its path').fill(workspace);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('kernel-status').textContent(), { timeout: 60_000, message: fail() })
      .toContain('Kernel ready');
    const box = page.getByLabel('Message to the agent');
    await box.fill('Change the three files.');
    await box.press('Enter');
    const answer = page.getByText('I rewrote');
    await approveAll(page, () => answer.isVisible());
    await answer.waitFor({ timeout: 30_000 });
    const turn = page.getByTestId('turn-changes');
    await turn.waitFor();
    expect(await turn.textContent()).toContain('This turn: 3 files changed');
    const actions = page.getByTestId('action-changes');
    expect(await actions.count()).toBe(2);
    expect(await actions.nth(1).textContent()).toMatch(/data\.csv.*gone\.txt/s);
    // 22,030 of 40,000 tokens; 63,000 in and 280 out at $0.50 and $3 a million: $0.0323.
    const meter = page.getByTestId('context-meter');
    await expect.poll(() => meter.textContent()).toContain('55%');
    expect(await meter.textContent()).toContain('$0.0323');
    expect(await page.getByTestId('usage').last().textContent()).toContain('$0.0323');
    await app.screenshot('long-turn-changes');
    await meter.click();
    await page.getByTestId('meter-panel').waitFor();
    expect(await page.getByTestId('meter-panel').textContent()).toContain('22,030 of 40,000 tokens');
    await app.screenshot('long-meter');
    await meter.click();
  });

  it('reviews the turn as a diff and reverts it, then undoes the revert', async () => {
    const { page } = app;
    await page.getByTestId('turn-changes').getByRole('button', { name: 'Review changes' }).click();
    const dialog = page.getByTestId('diff-dialog');
    await dialog.getByTestId('diff-file').first().waitFor();
    const text = await dialog.textContent();
    expect(text).toContain('+3,4');
    expect(text).toContain('-to delete');
    expect(text).toContain('+new notes');
    await app.screenshot('long-diff');
    await dialog.getByRole('button', { name: 'Revert this turn' }).click();
    const confirm = page.getByTestId('revert-dialog');
    await confirm.getByRole('button', { name: 'Revert 3 files' }).waitFor();
    expect(await confirm.textContent()).toContain('Python kernel are not files');
    await app.screenshot('long-revert-confirm');
    await confirm.getByRole('button', { name: 'Revert 3 files' }).click();
    const rev = page.getByTestId('revert-item');
    await rev.waitFor({ timeout: 15_000 });
    for (const [name, content] of Object.entries(original)) expect(read(name), name).toBe(content);
    await page.getByTestId('turn-changes').getByTestId('reverted-badge').waitFor();
    await app.screenshot('long-reverted');

    await rev.getByRole('button', { name: 'Undo' }).click();
    await page.getByTestId('revert-dialog').getByRole('button', { name: 'Revert 3 files' }).click();
    await expect.poll(() => read('notes.txt')).toBe('new notes\nsecond line\n');
    expect(read('gone.txt')).toBe('<missing>');
    await expect.poll(() => page.getByTestId('revert-item').count()).toBe(2);
    await page.getByTestId('turn-changes').getByTestId('reverted-badge').waitFor({ state: 'detached' });
  });

  it('compacts on request and shows the summary', async () => {
    const { page } = app;
    await page.getByTestId('context-meter').click();
    await page.getByRole('button', { name: 'Compact now' }).click();
    const note = page.getByTestId('compaction');
    await note.waitFor({ timeout: 20_000 });
    await expect.poll(() => note.textContent(), { message: fail() }).toContain('Earlier conversation compacted');
    await note.locator('summary').click();
    expect(await page.getByTestId('compaction-summary').textContent()).toContain('Change three files');
    await expect.poll(() => page.getByTestId('context-meter').textContent()).not.toContain('55%');
    await app.screenshot('long-compacted');
  });

  it('edits the first prompt and continues in a fork', async () => {
    const { page } = app;
    const prompt = page.getByTestId('user-message').first();
    await prompt.hover();
    await prompt.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByLabel('Edited prompt');
    await edit.fill('Only rewrite notes.txt.');
    await app.screenshot('long-edit-prompt');
    await page.getByRole('button', { name: 'Send as fork' }).click();
    await page.getByText('In this fork I only touch notes.txt.').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('user-message').count()).toBe(1);
    await app.screenshot('long-forked');
    await page.getByRole('button', { name: 'Sessions' }).click();
    const list = page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => list.count()).toBe(2);
  });
});
