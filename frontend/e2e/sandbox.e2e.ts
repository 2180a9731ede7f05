// Sandbox mode from the settings panel: the switch, Apply, the badge, and a
// code action that the real sandbox (srt + bubblewrap) confines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startApp, startFakeModel, type App, type FakeModel } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');
const srtDir = join(repoRoot, 'scripts', 'srt', 'node_modules', '.bin');

describe('sandbox mode in the desktop client', () => {
  let model: FakeModel;
  let app: App;
  let dir: string;
  let workspace: string;
  let outside: string;

  beforeAll(async () => {
    if (!existsSync(join(srtDir, 'srt'))) throw new Error(`srt is not installed in ${srtDir}: run make test`);
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-sandbox-'));
    workspace = join(dir, 'project');
    outside = join(dir, 'outside.txt');
    mkdirSync(join(workspace, '.freeact'), { recursive: true });
    writeFileSync(join(workspace, '.freeact', 'agent.json'), JSON.stringify({ python, enable_subagents: false }));
    writeFileSync(join(workspace, '.env'), 'API_TOKEN=secret-token\n');
    const code = [
      'try:',
      "    print(open('.env').read())",
      'except PermissionError:',
      "    print('.env is blocked')",
      'try:',
      `    open(${JSON.stringify(outside)}, 'w').write('x')`,
      'except OSError as e:',
      "    print('writing outside:', e.strerror)",
    ].join('\n');
    const file = join(dir, 'scenario.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'sandbox e2e',
        turns: [
          { reply: [{ call: { name: 'ipybox_execute_ipython_cell', args: { code } } }] },
          { reply: [{ text: 'The sandbox held.' }] },
        ],
      }),
    );
    model = await startFakeModel(file);
    app = await startApp({ env: { ...model.env, PATH: `${srtDir}:${process.env.PATH ?? ''}` } });
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const fail = () => `${app.log()}\nfake model:\n${model.log()}`;

  it('turns the sandbox on in settings and shows the badge', async () => {
    const { page } = app;
    await page.getByLabel('or type its path').fill(workspace);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    const status = page.getByTestId('kernel-status');
    await expect.poll(() => status.textContent(), { timeout: 60_000, message: fail() }).toContain('Kernel ready');
    expect(await page.getByTestId('sandboxed').count()).toBe(0);

    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('tab', { name: 'Sandbox' }).click();
    const toggle = page.getByRole('switch', { name: 'Run code in the sandbox' });
    await toggle.check();
    await app.screenshot('settings-sandbox');
    await page.getByRole('button', { name: 'Save sandbox settings' }).click();
    await page.getByRole('button', { name: 'Apply now (restarts the kernel)' }).click();
    expect(JSON.parse(readFileSync(join(workspace, '.freeact', 'agent.json'), 'utf8')).sandbox).toBe(true);
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.getByTestId('sandboxed').waitFor({ timeout: 60_000 });
    await expect.poll(() => status.textContent(), { timeout: 60_000, message: fail() }).toContain('Kernel ready');
  });

  it('runs a code action that the sandbox confines', async () => {
    const { page } = app;
    const box = page.getByLabel('Message to the agent');
    await box.fill('Try to read the secrets');
    await box.press('Enter');
    await page.getByTestId('approval-bar').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    await page.getByText('The sandbox held.').waitFor({ timeout: 30_000 });
    const output = (await page.getByTestId('tool').last().textContent()) ?? '';
    expect(output).toContain('.env is blocked');
    expect(output).toContain('writing outside: Read-only file system');
    expect(output).not.toContain('secret-token');
    expect(existsSync(outside)).toBe(false);
    await app.screenshot('sandboxed-conversation');
  });
});
