// The browser end-to-end harness every GUI test builds on: it starts a real
// freeact dev build (`go build -tags dev`), which serves the built frontend
// with live Go bindings on a loopback port, and drives Debian's chromium
// against it with playwright-core. Screenshots land in test-output/e2e/.
//
// FREEACT_E2E_COLOR_SCHEME=dark runs every test that does not choose a
// colour scheme itself in the dark theme, with its screenshots in
// test-output/e2e-dark/, so a visual change can be checked in both themes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../..');
const defaultScheme = process.env.FREEACT_E2E_COLOR_SCHEME === 'dark' ? 'dark' : 'light';
export const screenshotDir = join(repoRoot, 'test-output', defaultScheme === 'dark' ? 'e2e-dark' : 'e2e');

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const devBinary = process.env.FREEACT_DEV_BIN ?? join(repoRoot, 'build', 'bin', 'freeact-dev');

export interface App {
  url: string;
  page: Page;
  /** Everything the backend printed so far, for failure messages. */
  log(): string;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? ok(addr.port) : fail(new Error('no port'))));
    });
  });
}

async function waitForHTTP(url: string, child: ChildProcess, log: () => string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`freeact dev build exited with ${child.exitCode} before serving:\n${log()}`);
    }
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`freeact dev build did not serve ${url} within ${timeoutMs} ms:\n${log()}`);
}

function killGroup(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.pid === undefined || child.exitCode !== null) return done();
    child.once('exit', () => done());
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return done();
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 3000).unref();
  });
}

export interface StartOptions {
  env?: Record<string, string>;
  colorScheme?: 'light' | 'dark';
  /** A HOME (with its XDG folders) to reuse, e.g. to restart the app on the
   * same recent list; it is kept when the app closes. */
  home?: string;
  /** Runs the app in a D-Bus session of its own with GNOME Keyring
   * unlocked (a Secret Service, as in a desktop session); its bus address
   * is written to HOME/dbus-address. Without it the app sees no session
   * bus, so a test never touches the keyring of whoever runs it. */
  keyring?: boolean;
}

const fakeModelBinary = process.env.FREEACT_FAKEMODEL_BIN ?? join(repoRoot, 'build', 'bin', 'fakemodel');

export interface FakeModel {
  url: string;
  /** Environment for the app: points the Gemini client at the fake. */
  env: Record<string, string>;
  log(): string;
  close(): Promise<void>;
}

/** Starts the fake Gemini server (app/internal/fakemodel) on a scenario. */
export async function startFakeModel(scenario: string): Promise<FakeModel> {
  const child = spawn(fakeModelBinary, [scenario], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr?.on('data', (d) => (err += d));
  const url = await new Promise<string>((ok, fail) => {
    const t = setTimeout(() => fail(new Error(`fakemodel did not start within 30 s:\n${err}`)), 30_000);
    child.stdout?.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(t);
        ok(line.trim());
      }
    });
    child.once('exit', (code) => fail(new Error(`fakemodel exited with ${code}:\n${err}`)));
  });
  return {
    url,
    env: { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'fake-key', GOOGLE_API_KEY: '' },
    log: () => err,
    close: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.stdin?.end();
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      }),
  };
}

/** Photographs the page in the light and the dark theme, as
 * screenshotDir/NAME-light.png and NAME-dark.png. */
export async function shoot(page: Page, name: string) {
  mkdirSync(screenshotDir, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(screenshotDir, `${name}-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: null });
}

/** Starts the app and a browser page on it. Call close() in afterAll. */
export async function startApp(opts: StartOptions = {}): Promise<App> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const ownHome = opts.home === undefined;
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'freeact-e2e-home-'));
  const removeHome = () => ownHome && rmSync(home, { recursive: true, force: true });
  const args = ['-devserver', `127.0.0.1:${port}`, '-assetdir', join(repoRoot, 'frontend', 'dist')];
  // The dev build opens a real GTK window too, so it needs a display: use the
  // one we have (make test runs under xvfb-run) or make a virtual one. That
  // window runs the frontend as well: two pages share one backend, and the
  // window, loading first, usually opens the launch workspace, which the
  // browser's page then learns of (Workspace, or the workspace:open event).
  let [cmd, cmdArgs]: [string, string[]] = process.env.DISPLAY
    ? [devBinary, args]
    : ['xvfb-run', ['-a', '-s', '-screen 0 1280x900x24', devBinary, ...args]];
  if (opts.keyring) {
    const script =
      'echo "$DBUS_SESSION_BUS_ADDRESS" > "$HOME/dbus-address" && ' +
      'printf e2e-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"';
    [cmd, cmdArgs] = ['dbus-run-session', ['--', 'sh', '-c', script, 'sh', cmd, ...cmdArgs]];
  }
  const child = spawn(cmd, cmdArgs, {
    cwd: repoRoot,
    detached: true, // own process group, so close() stops every child
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(home, 'no-session-bus')}`,
      // matplotlib's font cache, built once by scripts/setup-python.sh; with
      // the fresh HOME the first plotting cell would build it, under load
      // for seconds.
      MPLCONFIGDIR: join(repoRoot, '.cache', 'python', 'matplotlib'),
      ...opts.env,
    },
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const log = () => output;

  let browser: Browser | undefined;
  try {
    await waitForHTTP(url, child, log);
    // launch() gives every browser a fresh, throw-away profile directory.
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const context = await browser.newContext({
      viewport: { width: 1180, height: 800 },
      colorScheme: opts.colorScheme ?? defaultScheme,
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { go?: object }).go !== undefined, null, {
      timeout: 30_000,
    });
    mkdirSync(screenshotDir, { recursive: true });
    const b = browser;
    return {
      url,
      page,
      log: () => `${output}\npage errors:\n${pageErrors.join('\n')}`,
      async screenshot(name) {
        const path = join(screenshotDir, `${name}.png`);
        await page.screenshot({ path });
        return path;
      },
      async close() {
        await b.close();
        await killGroup(child);
        removeHome();
      },
    };
  } catch (e) {
    await browser?.close();
    await killGroup(child);
    removeHome();
    throw e;
  }
}
