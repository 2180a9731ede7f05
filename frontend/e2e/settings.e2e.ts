// The settings panel against the real backend: a round trip through every
// tab (typed into its form, saved with its own button, written to the
// workspace's files, shown again after the panel is reopened), inline
// errors by agent.json's own rules, API keys in a real Secret Service
// (GNOME Keyring in the app's own D-Bus session), and the guard against
// closing with unsaved changes. Each tab is photographed in both themes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, shoot, startApp, type App } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');
const everything = join(repoRoot, 'scripts', 'mcp-servers', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

describe('settings panel', () => {
  let app: App;
  let dir: string;
  let home: string;
  let workspace: string;
  const agentJSON = () => JSON.parse(readFileSync(join(workspace, '.freeact', 'agent.json'), 'utf8')) as Record<string, unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-settings-'));
    home = join(dir, 'home');
    mkdirSync(home);
    workspace = join(dir, 'project');
    mkdirSync(join(workspace, '.freeact'), { recursive: true });
    writeFileSync(join(workspace, '.freeact', 'agent.json'), JSON.stringify({ python, enable_subagents: false }, null, 2));
    app = await startApp({ home, keyring: true, env: { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' } });
    const { page } = app;
    await page.getByLabel('or type its path', { exact: true }).fill(workspace);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('button', { name: 'Settings', exact: true }).waitFor();
  });
  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function openSettings(page: Page, tab: string) {
    if ((await page.getByRole('dialog', { name: 'Settings' }).count()) === 0) {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
    }
    await page.getByRole('tab', { name: new RegExp(`^${tab}`) }).click();
  }

  async function closeSettings(page: Page) {
    await page.getByRole('button', { name: 'Close settings' }).click();
    await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
  }

  it('Model: picks a provider and model, sets model settings, and shows them again', async () => {
    const { page } = app;
    await openSettings(page, 'Model');
    await expect.poll(() => page.getByTestId('model-key').textContent()).toContain('Needs GEMINI_API_KEY, which is not set.');
    await shoot(page, 'settings-model');
    await page.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    await page.getByRole('combobox', { name: 'Model', exact: true }).selectOption('claude-opus-4-5');
    await page.getByTestId('field-temperature').getByRole('checkbox').uncheck();
    await page.getByLabel('Temperature', { exact: true }).fill('0.4');
    await page.getByLabel('Thinking budget', { exact: true }).fill('4096');
    await page.getByRole('button', { name: 'Save model settings' }).click();
    await expect.poll(() => page.getByTestId('settings-status').textContent()).toContain('Model saved to .freeact/agent.json');
    const saved = agentJSON();
    expect(saved.model).toBe('anthropic:claude-opus-4-5');
    expect(saved.model_settings).toMatchObject({ temperature: 0.4, anthropic_thinking: { type: 'enabled', budget_tokens: 4096 } });
    await closeSettings(page);
    await openSettings(page, 'Model');
    expect(await page.getByLabel('Provider', { exact: true }).inputValue()).toBe('anthropic');
    expect(await page.getByLabel('Temperature', { exact: true }).inputValue()).toBe('0.4');
    expect(await page.getByTestId('model-key').textContent()).toContain('Needs ANTHROPIC_API_KEY, which is not set.');
  });

  it('Agent: explains words typed for a number, saves nothing until fixed', async () => {
    const { page } = app;
    await openSettings(page, 'Agent');
    const before = readFileSync(join(workspace, '.freeact', 'agent.json'), 'utf8');
    const timeout = page.getByLabel('Code action time limit', { exact: true });
    await timeout.fill('sixty');
    await expect.poll(() => page.getByTestId('error-execution_timeout').textContent()).toContain('“sixty” is not a number');
    await page.getByLabel('Subagents at once', { exact: true }).fill('0');
    // The backend's own rule, checked as the value is typed.
    await expect.poll(() => page.getByTestId('error-max_subagents').textContent()).toContain('1 or more');
    await shoot(page, 'settings-agent-errors');
    await page.getByRole('button', { name: 'Save agent settings' }).click();
    await expect.poll(() => page.getByTestId('settings-status').textContent()).toContain('Nothing was saved');
    expect(readFileSync(join(workspace, '.freeact', 'agent.json'), 'utf8')).toBe(before);
    await timeout.fill('60');
    await page.getByLabel('Subagents at once', { exact: true }).fill('3');
    await page.getByTestId('field-approval_timeout').getByRole('checkbox').uncheck();
    await page.getByLabel('Approval wait for tool calls from code', { exact: true }).fill('120');
    await page.getByLabel('Python tool discovery', { exact: true }).selectOption('hybrid');
    await expect.poll(() => page.getByTestId('error-max_subagents').count()).toBe(0);
    await shoot(page, 'settings-agent');
    await page.getByRole('button', { name: 'Save agent settings' }).click();
    await expect.poll(() => agentJSON().execution_timeout).toBe(60);
    expect(agentJSON()).toMatchObject({ max_subagents: 3, approval_timeout: 120, tool_search: 'hybrid', model: 'anthropic:claude-opus-4-5' });
    await closeSettings(page);
    await openSettings(page, 'Agent');
    expect(await page.getByLabel('Code action time limit', { exact: true }).inputValue()).toBe('60');
  });

  it('Kernel: environment variables with ${VAR}, the interpreter and the remote server', async () => {
    const { page } = app;
    await openSettings(page, 'Kernel');
    await page.getByRole('button', { name: 'Add environment variable' }).click();
    await page.getByLabel('Environment variables: name 1', { exact: true }).fill('GITHUB_TOKEN');
    await page.getByLabel('Environment variables: value of GITHUB_TOKEN', { exact: true }).fill('${GITHUB_TOKEN}');
    await page.getByRole('button', { name: 'Add environment variable' }).click();
    await page.getByLabel('Environment variables: name 2', { exact: true }).fill('MODE');
    await page.getByLabel('Environment variables: value of MODE', { exact: true }).fill('test');
    // Nothing sets GITHUB_TOKEN yet: the workspace would not load, so it is
    // an error before anything is written.
    await expect.poll(() => page.getByTestId('error-kernel_env').textContent()).toContain('${GITHUB_TOKEN} is not set');
    await page.getByLabel('Server URL', { exact: true }).fill('localhost:8888');
    await expect.poll(() => page.getByTestId('error-jupyter_url').textContent()).toContain('an http:// or https:// URL');
    await shoot(page, 'settings-kernel-errors');
    await page.getByLabel('Server URL', { exact: true }).fill('');
    // A key stored in the app sets it.
    await page.getByRole('tab', { name: /^API keys/ }).click();
    await page.getByLabel('Name of another variable', { exact: true }).fill('GITHUB_TOKEN');
    await page.getByLabel('Value of another variable', { exact: true }).fill('ghp-e2e');
    await page.getByRole('button', { name: 'Store', exact: true }).last().click();
    await expect.poll(() => page.getByTestId('key-row-GITHUB_TOKEN').textContent()).toContain('Stored in the keyring');
    await page.getByRole('tab', { name: /^Kernel/ }).click();
    await shoot(page, 'settings-kernel');
    await page.getByRole('button', { name: 'Save kernel settings' }).click();
    await expect.poll(() => agentJSON().kernel_env).toEqual({ GITHUB_TOKEN: '${GITHUB_TOKEN}', MODE: 'test' });
    expect(agentJSON().python).toBe(python);
    expect(agentJSON().jupyter_url).toBeUndefined();
  });

  it('MCP servers: adds a server by form, tests it, and its Save writes it', async () => {
    const { page } = app;
    await openSettings(page, 'MCP servers');
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByLabel('Name', { exact: true }).fill('everything');
    await page.getByLabel('Command', { exact: true }).fill('node');
    await page.getByRole('button', { name: 'Add argument' }).click();
    await page.getByLabel('Arguments: argument 1', { exact: true }).fill(everything);
    await page.getByRole('button', { name: 'Add tool' }).click();
    await page.getByLabel('Excluded tools: tool 1', { exact: true }).fill('longRunningOperation');
    await page.getByTestId('field-read_timeout').getByRole('checkbox').uncheck();
    await page.getByLabel('Call timeout', { exact: true }).fill('30');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Connected' }).count(), { timeout: 30_000 }).toBe(1);
    await shoot(page, 'settings-mcp');
    await page.getByRole('button', { name: 'Save MCP servers' }).click();
    await expect.poll(() => agentJSON().mcp_servers).toEqual({
      everything: { command: 'node', args: [everything], excluded_tools: ['longRunningOperation'], read_timeout: 30 },
    });
    await closeSettings(page);
    await openSettings(page, 'MCP servers');
    expect(await page.getByTestId('server-everything').textContent()).toContain('JSON tools');
  });

  it('Sandbox: saves the switch with the tab’s button', async () => {
    const { page } = app;
    await openSettings(page, 'Sandbox');
    await page.getByRole('switch', { name: 'Run code in the sandbox' }).check();
    await shoot(page, 'settings-sandbox');
    await page.getByRole('button', { name: 'Save sandbox settings' }).click();
    await expect.poll(() => agentJSON().sandbox).toBe(true);
    await page.getByRole('switch', { name: 'Run code in the sandbox' }).uncheck();
    await page.getByRole('button', { name: 'Save sandbox settings' }).click();
    await expect.poll(() => agentJSON().sandbox).toBe(false);
  });

  it('API keys: stores a key in the Secret Service and says so', async () => {
    const { page } = app;
    await openSettings(page, 'API keys');
    await expect.poll(() => page.getByTestId('key-storage').textContent()).toContain('Keys are stored in the system keyring (Secret Service).');
    await page.getByLabel('New value of ANTHROPIC_API_KEY', { exact: true }).fill('sk-ant-e2e-secret');
    await page.getByTestId('key-row-ANTHROPIC_API_KEY').getByRole('button', { name: 'Store' }).click();
    await expect.poll(() => page.getByTestId('key-row-ANTHROPIC_API_KEY').textContent()).toContain('Stored in the keyring');
    await shoot(page, 'settings-keys');
    // Another client of the same Secret Service reads it; the file does not hold it.
    const bus = readFileSync(join(home, 'dbus-address'), 'utf8').trim();
    const got = execFileSync('secret-tool', ['lookup', 'service', 'freeact', 'username', 'ANTHROPIC_API_KEY'], {
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus },
    }).toString();
    expect(got).toBe('sk-ant-e2e-secret');
    let file = '';
    try {
      file = readFileSync(join(home, '.config', 'freeact', 'credentials.json'), 'utf8');
    } catch {
      // no file at all: fine
    }
    expect(file).not.toContain('sk-ant');
    // The model picker now sees the key.
    await openSettings(page, 'Model');
    await expect.poll(() => page.getByTestId('model-key').textContent()).toContain('Needs ANTHROPIC_API_KEY: stored in the system keyring.');
  });

  it('Permissions: previews a new rule, saves it, and lists grants beside the saved rules', async () => {
    const { page } = app;
    await openSettings(page, 'Permissions');
    await page.getByLabel('Command', { exact: true }).fill('make test *');
    const preview = page.getByTestId('rule-preview');
    await expect.poll(() => preview.textContent()).toContain('Shell commands matching "make test *"');
    expect(await preview.textContent()).toContain('make test > out.txt');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('button', { name: 'Delete rule Shell command ls *' }).click();
    await shoot(page, 'settings-permissions');
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await expect
      .poll(() => (JSON.parse(readFileSync(join(workspace, '.freeact', 'permissions.json'), 'utf8')) as { allow: { command?: string }[] }).allow.map((r) => r.command))
      .toContain('make test *');
    const rules = JSON.parse(readFileSync(join(workspace, '.freeact', 'permissions.json'), 'utf8')) as { allow: { command?: string }[] };
    expect(rules.allow.map((r) => r.command)).not.toContain('ls *');
    expect(await page.getByTestId('saved-grants').textContent()).toContain('No grants yet');
  });

  it('asks before closing with unsaved changes, and discards them', async () => {
    const { page } = app;
    await openSettings(page, 'Agent');
    await page.getByRole('switch', { name: 'Save sessions' }).uncheck();
    await expect.poll(() => page.getByRole('tab', { name: /Agent.*unsaved/ }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await page.getByTestId('unsaved-changes').waitFor();
    await shoot(page, 'settings-unsaved');
    await page.getByRole('button', { name: 'Discard and close' }).click();
    await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
    expect(agentJSON().enable_persistence).toBe(true);
  });
});
