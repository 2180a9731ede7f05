// A subagent's work in its own lane, with its own approval, in the dark
// theme: the real backend and kernels, the fake Gemini server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startApp, startFakeModel, type App, type FakeModel } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');

const scenario = {
  name: 'subagent lane',
  turns: [
    { reply: [{ call: { name: 'subagent_task', args: { prompt: 'Compute six times seven' } } }] },
    { reply: [{ thought: 'Easy.' }, { call: { name: 'ipybox_execute_ipython_cell', args: { code: 'print(6 * 7)' } } }] },
    { reply: [{ text: 'It is 42.' }] },
    { reply: [{ text: 'The subagent computed **42**.' }] },
  ],
};

describe('subagents', () => {
  let model: FakeModel;
  let app: App;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-sub-'));
    const ws = join(dir, 'project');
    mkdirSync(join(ws, '.freeact'), { recursive: true });
    writeFileSync(join(ws, '.freeact', 'agent.json'), JSON.stringify({ python, enable_subagents: true }));
    writeFileSync(join(dir, 'scenario.json'), JSON.stringify(scenario));
    model = await startFakeModel(join(dir, 'scenario.json'));
    app = await startApp({ env: model.env, colorScheme: 'dark' });
    await app.page.getByLabel('or type its path').fill(ws);
    await app.page.getByRole('button', { name: 'Open', exact: true }).click();
    await app.page.getByText('Kernel ready').waitFor({ timeout: 60_000 });
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows the subagent's work in its own lane with its own approval", async () => {
    const { page } = app;
    const box = page.getByLabel('Message to the agent');
    await box.fill('Delegate a sum');
    await box.press('Enter');
    const body = () => page.getByTestId('approval-body').textContent({ timeout: 1000 }).catch(() => '');
    await expect.poll(body, { timeout: 20_000 }).toContain('Compute six times seven');
    await page.keyboard.press('Enter');
    await expect.poll(body, { timeout: 60_000, message: app.log() }).toContain('print(6 * 7)');
    expect(await page.getByTestId('approval-bar').textContent()).toMatch(/subagent sub-/);
    await app.screenshot('subagent-approval-dark');
    await page.keyboard.press('Enter');
    await page.getByText('The subagent computed').waitFor({ timeout: 30_000 });
    const lane = page.getByTestId('subagent-lane');
    expect(await lane.count()).toBe(1);
    expect(await lane.getByTestId('output').textContent()).toContain('42');
    expect(await lane.getByText('It is 42.').count()).toBe(1);
    await app.screenshot('subagent-lane-dark');
  });
});
