import { describe, expect, it, vi } from 'vitest';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import App from './App.svelte';
import type { Backend, KernelStatus, LiveConversation, WorkspaceInfo } from './lib/backend';
import type { AgentEvent } from './lib/conversation/events';

const ready: KernelStatus = {
  state: 'ready',
  message: 'Kernel ready',
  progress: 1,
  sessionId: 's1',
  model: 'gemini-x',
  sandboxed: false,
  replayCells: 0,
  replayReason: '',
  replayCode: [],
  mcpFailures: [],
};
const ws = (path = '/home/u/proj'): WorkspaceInfo => ({
  path,
  name: path.split('/').at(-1) ?? '',
  created: false,
  warnings: [],
  model: 'gemini-x',
  kernel: ready,
});

function fakeBackend(overrides: Partial<Backend> = {}) {
  let emit: (b: AgentEvent[]) => void = () => {};
  let drop: (x: number, y: number, paths: string[]) => void = () => {};
  let opened: (w: WorkspaceInfo) => void = () => {};
  const b: Backend = {
    version: vi.fn(async () => ({ version: '1.2.3', goVersion: 'go1.26', platform: 'linux/amd64', commit: '' })),
    workspace: vi.fn(async () => ({ ...ws(''), kernel: { ...ready, state: 'stopped' } })),
    recentWorkspaces: vi.fn(async () => ['/home/u/old']),
    pickWorkspace: vi.fn(async () => ''),
    openWorkspace: vi.fn(async (p: string) => ws(p)),
    retryKernel: vi.fn(async () => {}),
    applySettings: vi.fn(async () => {}),
    restartKernel: vi.fn(async () => {}),
    send: vi.fn(async () => {}),
    continueTurn: vi.fn(async () => {}),
    approve: vi.fn(async () => {}),
    replyInput: vi.fn(async () => {}),
    cancel: vi.fn(async () => {}),
    sessions: vi.fn(async () => []),
    newSession: vi.fn(async () => {}),
    resumeSession: vi.fn(async () => {}),
    imageData: vi.fn(async () => 'data:image/png;base64,AA=='),
    openFile: vi.fn(async () => {}),
    showInFolder: vi.fn(async () => {}),
    completePath: vi.fn(async () => []),
    mcpCatalog: vi.fn(async () => ({ resources: [], prompts: [], errors: [] })),
    completeMCP: vi.fn(async () => []),
    mcpResourceURI: vi.fn(async (t: string) => t),
    imagesIn: vi.fn(async () => []),
    skills: vi.fn(async () => []),
    settings: vi.fn(async () => []),
    settingsSource: vi.fn(async () => ({ file: '.freeact/agent.json', format: 'agent.json', description: 'Settings read from agent.json.', notes: [] })),
    saveSettings: vi.fn(async () => []),
    pendingRestart: vi.fn(async () => []),
    checkSettings: vi.fn(async () => []),
    settingsSchema: vi.fn(async () => ({ providers: [], model_settings: [], server_timeout: {} })),
    localModels: vi.fn(async () => ({ models: [], error: '' })),
    apiKeys: vi.fn(async () => ({ storage: { kind: 'file', where: 'credentials.json' }, keys: [] })),
    renameSession: vi.fn(async () => {}),
    deleteSession: vi.fn(async () => {}),
    searchSessions: vi.fn(async () => []),
    setTitle: vi.fn(),
    quit: vi.fn(),
    setAPIKey: vi.fn(async () => ({ kind: 'file', where: 'credentials.json' })),
    testMCPServer: vi.fn(async () => []),
    regenerateMCPTools: vi.fn(async () => ''),
    apiKeyNames: vi.fn(async () => []),
    permissions: vi.fn(async () => ({ always: { allow: [], ask: [] }, session: { allow: [], ask: [] } })),
    savePermissions: vi.fn(async () => {}),
    previewRule: vi.fn(async (rule) => ({ rule, summary: '', covers_call: true, matches: [], misses: [] })),
    previewAlways: vi.fn(async () => ({ rule: { type: 'CodeAction', tool_name: 'x' }, summary: '', covers_call: true, matches: [], misses: [] })),
    revokeSessionRule: vi.fn(async () => ({ always: { allow: [], ask: [] }, session: { allow: [], ask: [] } })),
    sandbox: vi.fn(async () => ({ enabled: false, content: '{}', custom: false, path: '', defaults: '{}' })),
    saveSandbox: vi.fn(async () => []),
    exportSession: vi.fn(async () => ''),
    approveEdited: vi.fn(async () => {}),
    runCell: vi.fn(async () => {}),
    replay: vi.fn(async () => {}),
    skipReplay: vi.fn(async () => {}),
    pickNotebook: vi.fn(async () => ''),
    openNotebook: vi.fn(async () => {}),
    runNotebook: vi.fn(async () => {}),
    variables: vi.fn(async () => ({ variables: [], total: 0, repr_cut: false })),
    describeVariable: vi.fn(async () => ({ name: 'x', type: 'int', bytes: 28 })),
    compactNow: vi.fn(async () => {}),
    approvalMode: vi.fn(async () => ({ mode: 'rules', paused: false, sandbox: true, checkpoints: true })),
    setApprovalMode: vi.fn(async (mode: string) => ({ mode, paused: false, sandbox: true, checkpoints: true })),
    continueBudget: vi.fn(async () => {}),
    skipMCPWait: vi.fn(async () => {}),
    largeMentions: vi.fn(async () => []),
    sendAllowingLarge: vi.fn(async () => {}),
    checkpointDiff: vi.fn(async () => []),
    planRevert: vi.fn(async () => ({ restore: [], conflicts: [], unrestorable: [], protected: [], unkept: [] })),
    revert: vi.fn(async () => {}),
    forkSession: vi.fn(async () => ({ sessionId: 'fork-1', prompt: '' })),
    finishRevert: vi.fn(async () => {}),
    rollbackRevert: vi.fn(async () => {}),
    forkBusySession: vi.fn(async () => 'copy-1'),
    launch: vi.fn(async () => ({ path: '', sessionId: '', fromCommandLine: false })),
    inspectFolder: vi.fn(async (p: string) => ({ path: p.replace(/^~/, '/home/u'), exists: true, isDir: true })),
    createFolder: vi.fn(async (p: string) => p),
    checkAttachments: vi.fn(async (paths: string[]) =>
      paths.map((p) => {
        const name = p.split('/').at(-1) ?? p;
        const image = /\.(png|jpe?g|gif|webp)$/i.test(p);
        const relative = p.startsWith('/home/u/proj/') ? p.slice('/home/u/proj/'.length) : '';
        return {
          path: p,
          name,
          preview: image ? 'data:image/png;base64,AA==' : '',
          problem: image ? '' : `${name} is not an image: only PNG, JPEG, GIF and WebP images can be attached`,
          relative,
        };
      }),
    ),
    pickImages: vi.fn(async () => []),
    saveImage: vi.fn(async () => ''),
    sessionGrants: vi.fn(async () => []),
    revokeGrant: vi.fn(async () => []),
    copyText: vi.fn(async () => {}),
    copyImage: vi.fn(async () => {}),
    clipboardImage: vi.fn(async () => ''),
    answerForm: vi.fn(async () => {}),
    cancelSignIn: vi.fn(async () => {}),
    mcpServers: vi.fn(async () => []),
    mcpSignIn: vi.fn(async () => {}),
    mcpSignOut: vi.fn(async () => {}),
    mcpConnect: vi.fn(async () => {}),
    hubStatus: vi.fn(async () => ({ url: '', is_hub: false, token_name: '', token_page: '', user: '', has_token: false, oauth: false, problem: '' })),
    hubSetToken: vi.fn(),
    hubSignIn: vi.fn(),
    hubSignOut: vi.fn(),
    onMCP: () => () => {},
    conversations: vi.fn(async () => []),
    liveKernelLimit: vi.fn(async () => 4),
    setLiveKernelLimit: vi.fn(async () => {}),
    onConversations: () => () => {},
    onEvents: (cb) => {
      emit = cb;
      return () => {};
    },
    onKernel: () => () => {},
    onWorkspace: (cb) => {
      opened = cb;
      return () => {};
    },
    onFileDrop: (cb) => {
      drop = cb;
      return () => {};
    },
    ...overrides,
  };
  return {
    backend: b,
    emit: (batch: AgentEvent[]) => emit(batch),
    drop: (paths: string[]) => drop(0, 0, paths),
    /** A workspace:open event: the backend opened w, for any page. */
    opened: (w: WorkspaceInfo) => opened(w),
  };
}

describe('App', () => {
  it('starts at the workspace picker with the recent workspaces', async () => {
    const { backend } = fakeBackend();
    render(App, { backend });
    expect(await screen.findByText('v1.2.3')).toBeInTheDocument();
    expect(screen.getByTestId('workspace')).toHaveTextContent('No workspace open');
    await userEvent.click(await screen.findByRole('button', { name: /home.u.old/ }));
    expect(backend.openWorkspace).toHaveBeenCalledWith('/home/u/old', '');
    expect(await screen.findByRole('heading', { name: 'What should we work on?' })).toBeInTheDocument();
  });

  it('says when it created .freeact/', async () => {
    const { backend } = fakeBackend({ openWorkspace: vi.fn(async (p: string) => ({ ...ws(p), created: true })) });
    render(App, { backend });
    await userEvent.type(screen.getByLabelText('or type its path'), '/tmp/new{Enter}');
    expect(await screen.findByText(/Created .freeact\/ in \/tmp\/new/)).toBeInTheDocument();
  });

  it('sends, renders events, and answers approvals and input', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    await userEvent.type(box, 'hello @pic.png{Enter}');
    expect(backend.send).toHaveBeenCalledWith('hello @pic.png', [{ name: 'pic.png', path: 'pic.png' }]);
    await vi.waitFor(() => expect(box.value).toBe(''));
    emit([
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'UserMessage', agent_id: 'main', text: 'hello' },
      { type: 'Response', agent_id: 'main', text: 'Running **code**.' },
      {
        type: 'ApprovalRequest',
        agent_id: 'main',
        correlation_id: 'c1',
        request_id: 'r1',
        tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'input()' },
        suggested_pattern: 'ipybox_execute_ipython_cell',
      },
    ]);
    expect(await screen.findByTestId('approval-bar')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();
    await userEvent.keyboard('{Enter}');
    expect(backend.approve).toHaveBeenCalledWith('r1', 'yes', '');
    expect(screen.queryByTestId('approval-bar')).not.toBeInTheDocument();
    emit([{ type: 'InputRequest', agent_id: 'main', correlation_id: 'c1', request_id: 'r2', prompt: 'Name? ' }]);
    await userEvent.type(await screen.findByTestId('cell-input'), 'Ada{Enter}');
    expect(backend.replyInput).toHaveBeenCalledWith('r2', 'Ada');
    emit([
      { type: 'CodeExecutionOutput', agent_id: 'main', correlation_id: 'c1', text: 'Ada\n', images: [] },
      { type: 'Usage', agent_id: 'main', model: 'g', input_tokens: 7, output_tokens: 3, thinking_tokens: 0 },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    expect(await screen.findByTestId('usage')).toHaveTextContent('7 in · 3 out');
    expect(screen.getByText('code').tagName).toBe('STRONG');
  });

  it('attaches dropped images and says why other files are not attached', async () => {
    const { backend, drop } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    drop(['/home/u/proj/data/plot.PNG', '/home/u/proj/notes.txt', '/elsewhere/x.csv']);
    expect(await screen.findByTestId('attachment')).toHaveTextContent('plot.PNG');
    await vi.waitFor(() => expect(box.value).toBe('@notes.txt '));
    const notes = screen.getByTestId('attach-notes');
    expect(notes).toHaveTextContent('notes.txt is not an image');
    expect(notes).toHaveTextContent('Mentioned as @notes.txt instead');
    expect(notes).toHaveTextContent('x.csv is not an image');
    expect(document.activeElement).toBe(box);
    await userEvent.type(box, 'compare{Enter}');
    expect(backend.send).toHaveBeenCalledWith('@notes.txt compare', [
      { name: 'plot.PNG', path: '/home/u/proj/data/plot.PNG', dataUrl: undefined },
    ]);
  });

  it('attaches the images chosen with the Attach button', async () => {
    const { backend } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      pickImages: vi.fn(async () => ['/home/u/a.png', '/home/u/b.jpg']),
    });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    await userEvent.click(await screen.findByRole('button', { name: /Attach/ }));
    await vi.waitFor(() => expect(screen.getAllByTestId('attachment')).toHaveLength(2));
    expect(backend.checkAttachments).toHaveBeenCalledWith(['/home/u/a.png', '/home/u/b.jpg']);
  });

  it('exports the session as a notebook, with thoughts when asked', async () => {
    const { backend } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      exportSession: vi.fn(async () => '/tmp/out.ipynb'),
    });
    render(App, { backend });
    await screen.findByLabelText('Message to the agent');
    await userEvent.click(await screen.findByRole('button', { name: 'Export' }));
    await userEvent.click(screen.getByRole('checkbox', { name: /Include the model’s thoughts/ }));
    await userEvent.click(screen.getByRole('menuitem', { name: /Jupyter notebook/ }));
    expect(backend.exportSession).toHaveBeenCalledWith('ipynb', true);
    expect(await screen.findByText('Exported to /tmp/out.ipynb')).toBeInTheDocument();
    expect(screen.queryByRole('menu')).toBeNull();
  });

  it('puts a failed send in a dismissible banner and keeps the draft', async () => {
    const { backend } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      send: vi.fn(async () => Promise.reject(new Error('no agent yet'))),
    });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    await userEvent.type(box, 'hello{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('no agent yet');
    expect(box.value).toBe('hello');
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('clears the banner of a failed send once a send works', async () => {
    let fail = true;
    const { backend } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      send: vi.fn(async () => (fail ? Promise.reject(new Error('the kernel is still starting')) : undefined)),
    });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    await userEvent.type(box, 'one{Enter}');
    await userEvent.type(box, '{Enter}');
    expect(await screen.findAllByTestId('banner')).toHaveLength(1);
    fail = false;
    await userEvent.type(box, '{Enter}');
    await vi.waitFor(() => expect(screen.queryByTestId('banner')).not.toBeInTheDocument());
    expect(box.value).toBe('');
  });
});

describe('App at launch and in the picker', () => {
  it('opens the workspace and conversation of the launch', async () => {
    const { backend } = fakeBackend({
      launch: vi.fn(async () => ({ path: '/home/u/proj', sessionId: 's-last', fromCommandLine: true })),
    });
    render(App, { backend });
    await vi.waitFor(() => expect(backend.openWorkspace).toHaveBeenCalledWith('/home/u/proj', 's-last'));
    expect(await screen.findByTestId('workspace')).toHaveTextContent('proj');
  });

  // Two pages start on one backend (the window and a browser on the dev
  // server, or a page reloaded while the launch workspace opens). Only the
  // first is given the launch target; the second asks while the first is
  // opening it, so it hears of no open workspace and an empty target.
  // Whenever the open finishes, its workspace:open event reaches the page.
  it.each([
    ['while the page asks for the open workspace', 'workspace'],
    ['after the launch target came back empty', 'launch'],
  ] as const)('shows the launch workspace another page opens %s', async (_when, during) => {
    const none = { ...ws(''), kernel: { ...ready, state: 'stopped' } };
    const empty = { path: '', sessionId: '', fromCommandLine: false };
    const f = fakeBackend({
      workspace: vi.fn(async () => {
        if (during === 'workspace') f.opened(ws());
        return none;
      }),
      launch: vi.fn(async () => {
        if (during === 'launch') setTimeout(() => f.opened(ws()));
        return empty;
      }),
    });
    render(App, { backend: f.backend });
    await vi.waitFor(() => expect(f.backend.launch).toHaveBeenCalled());
    await vi.waitFor(() => expect(screen.getByTestId('workspace')).toHaveTextContent('proj'));
    expect(f.backend.openWorkspace).not.toHaveBeenCalled();
    expect(f.backend.sessions).toHaveBeenCalled();
    expect(screen.queryByRole('heading', { name: 'Open a workspace' })).not.toBeInTheDocument();
  });

  it('shows the picker with the reason when the launch workspace cannot open', async () => {
    const { backend } = fakeBackend({
      launch: vi.fn(async () => ({ path: '/gone', sessionId: '', fromCommandLine: false })),
      openWorkspace: vi.fn(async () => Promise.reject(new Error('workspace /gone is not a folder'))),
    });
    render(App, { backend });
    expect(await screen.findByText('workspace /gone is not a folder')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Open a workspace' })).toBeInTheDocument();
  });

  it('expands ~ and offers to create a missing folder', async () => {
    const { backend } = fakeBackend({
      inspectFolder: vi.fn(async () => ({ path: '/home/u/new/demo', exists: false, isDir: false })),
      createFolder: vi.fn(async () => '/home/u/new/demo'),
    });
    render(App, { backend });
    await userEvent.type(screen.getByLabelText('or type its path'), '~/new/demo{Enter}');
    expect(backend.inspectFolder).toHaveBeenCalledWith('~/new/demo');
    const offer = await screen.findByTestId('create-folder');
    expect(offer).toHaveTextContent('/home/u/new/demo does not exist.');
    expect(backend.openWorkspace).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Create it and open' }));
    expect(backend.createFolder).toHaveBeenCalledWith('/home/u/new/demo');
    expect(backend.openWorkspace).toHaveBeenCalledWith('/home/u/new/demo', '');
  });
});

/** Lets pending promises and the renders they cause run. */
async function settled() {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}

describe('App failures and grants', () => {
  const turn = (text: string): AgentEvent[] => [
    { type: 'TurnStarted', agent_id: 'main' },
    { type: 'UserMessage', agent_id: 'main', text },
  ];

  it('asks for a missing key in place and sends the prompt again once it is saved', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    await userEvent.type(box, 'Plot it{Enter}');
    emit([
      ...turn('Plot it'),
      {
        type: 'Failed',
        agent_id: 'main',
        error: 'no API key for google:gemini-x: set GEMINI_API_KEY',
        cause: 'api_key',
        summary: 'No API key for google:gemini-x.',
        fix: 'Set GEMINI_API_KEY.',
        key_env: 'GEMINI_API_KEY',
      },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    const card = await screen.findByTestId('failure');
    expect(card).toHaveTextContent('No API key for google:gemini-x.');
    // The prompt is back in the box: it is never lost.
    await vi.waitFor(() => expect(box.value).toBe('Plot it'));
    const key = screen.getByLabelText('GEMINI_API_KEY');
    await vi.waitFor(() => expect(document.activeElement).toBe(key));
    await userEvent.type(key, 'sk-123{Enter}');
    expect(backend.setAPIKey).toHaveBeenCalledWith('GEMINI_API_KEY', 'sk-123');
    await vi.waitFor(() => expect(backend.send).toHaveBeenLastCalledWith('Plot it', []));
    expect(screen.queryByTestId('failure')).not.toBeInTheDocument();
    expect(screen.queryByTestId('user-message')).not.toBeInTheDocument();
    expect(box.value).toBe('');
  });

  it('gives the prompt back when the turn fails before the send returns', async () => {
    // The turn's events and the reply to Send race: under load the
    // failure can arrive while Send is still on its way back.
    let answer: () => void = () => {};
    const { backend, emit } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      send: vi.fn(() => new Promise<void>((resolve) => (answer = resolve))),
    });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    await userEvent.type(box, 'Hello there{Enter}');
    await vi.waitFor(() => expect(backend.send).toHaveBeenCalledWith('Hello there', []));
    emit([
      ...turn('Hello there'),
      { type: 'Failed', agent_id: 'main', error: 'HTTP 503', cause: 'model', summary: 'The provider is busy.', fix: 'Try again.', status: 503 },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    await screen.findByTestId('failure');
    answer();
    await settled();
    expect(box.value).toBe('Hello there');
    // A Retry that fails the same way before its send returns keeps it too.
    (backend.send as ReturnType<typeof vi.fn>).mockImplementationOnce(() => new Promise<void>((resolve) => (answer = resolve)));
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    emit([
      ...turn('Hello there'),
      { type: 'Failed', agent_id: 'main', error: 'HTTP 503', cause: 'model', summary: 'Still busy.', fix: 'Try again.', status: 503 },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    await screen.findByText('Still busy.');
    answer();
    await settled();
    expect(backend.send).toHaveBeenCalledTimes(2);
    expect(box.value).toBe('Hello there');
  });

  it('says what a provider error means, retries with the prompt and links the model setting', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    emit([
      ...turn('Hi'),
      {
        type: 'Failed',
        agent_id: 'main',
        error: 'google:gemini-nope: HTTP 404 NOT_FOUND: models/gemini-nope is not found',
        cause: 'model',
        summary: 'The provider does not know the model "gemini-nope" (HTTP 404).',
        fix: 'Check the model name in Settings → Model, then try again.',
        status: 404,
      },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    const card = await screen.findByTestId('failure');
    expect(card).toHaveTextContent('does not know the model');
    expect(card).toHaveTextContent('models/gemini-nope is not found');
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(backend.send).toHaveBeenCalledWith('Hi', []);
    emit([...turn('Hi'), { type: 'Failed', agent_id: 'main', error: 'x', cause: 'model', summary: 'Again.', fix: 'f', status: 404 }]);
    await userEvent.click(await screen.findByRole('button', { name: 'Model settings' }));
    expect(await screen.findByRole('dialog', { name: 'Settings' })).toBeInTheDocument();
  });

  it('continues a turn that failed after its actions ran, instead of sending its prompt again', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await screen.findByText('Kernel ready');
    emit([
      ...turn('Count the runs'),
      {
        type: 'AutoApproved',
        agent_id: 'main',
        correlation_id: 'c1',
        tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'runs = 1' },
        by: 'session',
        rule: 'ipybox_execute_ipython_cell',
      },
      { type: 'CodeExecutionOutput', agent_id: 'main', correlation_id: 'c1', text: '', images: null },
      { type: 'ToolOutput', agent_id: 'main', correlation_id: 'c1', tool_name: 'ipybox_execute_ipython_cell', content: '' },
      {
        type: 'Failed',
        agent_id: 'main',
        error: 'HTTP 400: bad request',
        cause: 'model',
        summary: 'The provider refused the request (HTTP 400).',
        fix: 'Check the model settings.',
        status: 400,
        kept: true,
      },
      { type: 'TurnEnded', agent_id: 'main' },
    ]);
    const card = await screen.findByTestId('failure');
    expect(card).toHaveTextContent('they do not run again');
    // Its prompt does not come back to the box: sending it would run the
    // action again.
    expect(box.value).toBe('');
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(backend.continueTurn).toHaveBeenCalledTimes(1);
    expect(backend.send).not.toHaveBeenCalled();
    // The action stays in view; the failure stays as what happened, without
    // its buttons.
    expect(screen.getByRole('article', { name: 'Code action' })).toHaveTextContent('runs = 1');
    await vi.waitFor(() => expect(screen.queryByRole('button', { name: 'Continue' })).not.toBeInTheDocument());
    expect(screen.getByText('The provider refused the request (HTTP 400).')).toBeInTheDocument();
  });

  it('shows a call a rule allowed, with its code and who allowed it', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    emit([
      ...turn('go'),
      {
        type: 'AutoApproved',
        agent_id: 'main',
        correlation_id: 'c9',
        tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'print("auto")' },
        by: 'session',
        rule: 'ipybox_execute_ipython_cell',
      },
      { type: 'CodeExecutionOutputChunk', agent_id: 'main', correlation_id: 'c9', kind: 'stdout', text: 'auto\n' },
    ]);
    const card = await screen.findByRole('article', { name: 'Code action' });
    expect(card).toHaveTextContent('print("auto")');
    expect(card).toHaveTextContent('auto');
    expect(screen.getByTestId('auto-approved')).toHaveTextContent('session grant');
    expect(card).toHaveTextContent("Auto-approved by this session's grant: ipybox_execute_ipython_cell");
    await userEvent.click(screen.getAllByRole('button', { name: 'Copy code' })[0]!);
    expect(backend.copyText).toHaveBeenCalledWith('print("auto")');
  });

  it('counts the grants in the header and revokes one', async () => {
    const grant = { type: 'ShellAction', tool_name: 'bash', command: 'git *' };
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()), revokeGrant: vi.fn(async () => []) });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    emit([{ type: 'SessionGrants', agent_id: 'main', grants: [grant] }]);
    await userEvent.click(await screen.findByRole('button', { name: '1 session grant' }));
    await userEvent.click(screen.getByRole('button', { name: 'Revoke git *' }));
    expect(backend.revokeGrant).toHaveBeenCalledWith(grant);
    await vi.waitFor(() => expect(screen.queryByTestId('grants')).not.toBeInTheDocument());
  });

  it('keeps the conversation when switching sessions fails', async () => {
    const { backend, emit } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      sessions: vi.fn(async () => [{ id: 's2', created: '', last_active: '', title: 'Other', renamed: false, messages: 2 }]),
      resumeSession: vi.fn(async () => Promise.reject(new Error('a turn is running: stop it before switching sessions'))),
    });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    emit([...turn('keep me'), { type: 'Response', agent_id: 'main', text: 'kept' }]);
    await userEvent.click(screen.getByRole('button', { name: 'Sessions' }));
    await userEvent.click(await screen.findByRole('button', { name: /^Other/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('stop it before switching');
    expect(screen.getByTestId('user-message')).toHaveTextContent('keep me');
  });
});

describe('App kernel status', () => {
  it('says when the kernel died', async () => {
    let kernelCb: (s: KernelStatus) => void = () => {};
    const { backend } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      onKernel: (cb) => {
        kernelCb = cb;
        return () => {};
      },
    });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    kernelCb({ ...ready, state: 'died', message: 'the kernel died and its state was lost' });
    expect(await screen.findByRole('alert')).toHaveTextContent('The kernel died: the kernel died and its state was lost');
    expect(screen.getByTestId('kernel-status')).toHaveTextContent('Kernel died');
  });

  it('asks before restarting the kernel, which loses its variables', async () => {
    const { backend } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    await userEvent.click(screen.getAllByRole('button', { name: 'Restart kernel' })[0]!);
    const dialog = await screen.findByRole('alertdialog', { name: 'Restart the kernel?' });
    expect(dialog).toHaveAccessibleDescription(/variables, imports and loaded data are lost/);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(backend.restartKernel).not.toHaveBeenCalled();
    await userEvent.click(screen.getAllByRole('button', { name: 'Restart kernel' })[0]!);
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Restart kernel' }));
    expect(backend.restartKernel).toHaveBeenCalledOnce();
  });

  it('keeps a kernel status that arrived before OpenWorkspace returned', async () => {
    let kernelCb: (s: KernelStatus) => void = () => {};
    let finish: (w: WorkspaceInfo) => void = () => {};
    const { backend } = fakeBackend({
      onKernel: (cb) => {
        kernelCb = cb;
        return () => {};
      },
      openWorkspace: vi.fn(() => new Promise<WorkspaceInfo>((ok) => (finish = ok))),
    });
    render(App, { backend });
    await userEvent.type(screen.getByLabelText('or type its path'), '/tmp/w{Enter}');
    kernelCb({ ...ready, state: 'error', message: 'python not found' });
    finish({ ...ws('/tmp/w'), kernel: { ...ready, state: 'starting' } });
    expect(await screen.findByText('The kernel did not start.')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Retry' }).length).toBeGreaterThan(0);
  });

  it('says a conversation open in another window is that, not a kernel that did not start', async () => {
    let kernelCb: (s: KernelStatus) => void = () => {};
    const { backend } = fakeBackend({
      onKernel: (cb) => {
        kernelCb = cb;
        return () => {};
      },
      workspace: vi.fn(async () => ws()),
    });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    kernelCb({ ...ready, state: 'error', problem: 'busy', busyPid: 4242, summary: 'This conversation is open in another freeact window, pid 4242.' });
    await vi.waitFor(() => expect(box.placeholder).toMatch(/open in another freeact window/));
    expect(box.placeholder).not.toMatch(/did not start/);
    kernelCb({ ...ready, state: 'error', message: 'python not found' });
    await vi.waitFor(() => expect(box.placeholder).toMatch(/The kernel did not start/));
  });
});

describe('App keyboard', () => {
  async function openApp(over: Partial<Backend> = {}) {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()), ...over });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    return { backend, emit, box };
  }

  it('opens the shortcut sheet with F1 and Ctrl+/, and Esc returns to the message box', async () => {
    const { box } = await openApp();
    await userEvent.keyboard('{F1}');
    const sheet = screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(sheet).toHaveTextContent('New conversation');
    expect(sheet).toHaveTextContent('Search conversations');
    expect(screen.getByRole('button', { name: 'Close' })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(box).toHaveFocus();
    await userEvent.keyboard('{Control>}/{/Control}');
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeInTheDocument();
  });

  it('starts a new conversation, searches, opens settings and quits from the keyboard', async () => {
    const { backend, box } = await openApp();
    await userEvent.keyboard('{Control>}n{/Control}');
    expect(backend.newSession).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(box).toHaveFocus());
    await userEvent.keyboard('{Control>}k{/Control}');
    await vi.waitFor(() => expect(screen.getByLabelText('Search conversations')).toHaveFocus());
    await userEvent.keyboard('{Control>}l{/Control}');
    expect(box).toHaveFocus();
    await userEvent.keyboard('{Control>},{/Control}');
    expect(await screen.findByRole('dialog', { name: /Settings/ })).toBeInTheDocument();
    await userEvent.keyboard('{Control>}q{/Control}');
    expect(backend.quit).not.toHaveBeenCalled(); // the open dialog has the keys
    await userEvent.keyboard('{Escape}');
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(box).toHaveFocus();
    await userEvent.keyboard('{Control>}q{/Control}');
    expect(backend.quit).toHaveBeenCalledTimes(1);
  });

  it('starts a new conversation with Ctrl+N while a turn runs: the one left keeps running', async () => {
    const { backend, emit } = await openApp();
    emit([{ type: 'TurnStarted', agent_id: 'main' }]);
    await screen.findByRole('button', { name: 'Stop' });
    await userEvent.keyboard('{Control>}n{/Control}');
    expect(backend.newSession).toHaveBeenCalledTimes(1);
    expect(backend.cancel).not.toHaveBeenCalled();
  });

  it('the header goes to a conversation waiting elsewhere, whose approval takes the focus', async () => {
    let setLive: (c: LiveConversation[]) => void = () => {};
    const { backend, emit } = await openApp({
      onConversations: (cb) => {
        setLive = cb;
        return () => {};
      },
    });
    setLive([
      { sessionId: 's1', workspace: '/w', state: 'running', waiting: 0, inView: true },
      { sessionId: 's2', workspace: '/w', state: 'waiting', waiting: 1, inView: false },
    ]);
    vi.mocked(backend.resumeSession).mockImplementation(async () => {
      emit([
        { type: 'Reset', agent_id: 'main' },
        { type: 'TurnStarted', agent_id: 'main' },
        {
          type: 'ApprovalRequest',
          agent_id: 'main',
          correlation_id: 'c1',
          request_id: 'r1',
          tool_call: { type: 'CodeAction', tool_name: 'ipybox_execute_ipython_cell', code: 'print(1)' },
          suggested_pattern: 'ipybox_execute_ipython_cell',
        },
      ]);
    });
    await userEvent.click(await screen.findByRole('button', { name: '1 waiting elsewhere' }));
    expect(backend.resumeSession).toHaveBeenCalledWith('s2');
    await vi.waitFor(() => expect(screen.getByRole('button', { name: /^Yes/ })).toHaveFocus());
  });

  it('stops a running turn with Esc, or Ctrl+C when nothing is selected', async () => {
    const { backend, emit } = await openApp();
    emit([{ type: 'TurnStarted', agent_id: 'main' }]);
    await screen.findByRole('button', { name: 'Stop' });
    await userEvent.keyboard('{Escape}');
    expect(backend.cancel).toHaveBeenCalledTimes(1);
    await userEvent.keyboard('{Control>}c{/Control}');
    expect(backend.cancel).toHaveBeenCalledTimes(2);
  });

  it('names the conversation and the workspace in the window title', async () => {
    const { backend, emit } = await openApp();
    await vi.waitFor(() => expect(backend.setTitle).toHaveBeenLastCalledWith('proj — freeact'));
    emit([{ type: 'UserMessage', agent_id: 'main', text: 'Plot sin(x)' }]);
    await vi.waitFor(() => expect(backend.setTitle).toHaveBeenLastCalledWith('Plot sin(x) — proj — freeact'));
  });
});

describe('App MCP failures', () => {
  it('names a server that did not start and opens its settings', async () => {
    const failed = { ...ready, mcpFailures: [{ group: 'mcp_servers', server: 'files', error: 'exec: "no-such-server": not found' }] };
    const { backend } = fakeBackend({ workspace: vi.fn(async () => ({ ...ws(), kernel: failed })) });
    render(App, { backend });
    const banner = await screen.findByTestId('mcp-failure-files');
    expect(banner).toHaveTextContent('MCP server “files” did not start');
    expect(banner).toHaveTextContent('no-such-server');
    await userEvent.click(screen.getByRole('button', { name: 'Open its settings' }));
    expect(await screen.findByRole('tab', { name: /MCP/, selected: true })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss the failure of files' }));
    expect(screen.queryByTestId('mcp-failure-files')).not.toBeInTheDocument();
  });
});

describe('App long sessions', () => {
  const turnWithChanges: AgentEvent[] = [
    { type: 'TurnStarted', agent_id: 'main' },
    { type: 'UserMessage', agent_id: 'main', text: 'change files', turn: 1 },
    {
      type: 'ToolCall',
      agent_id: 'main',
      correlation_id: 'w1',
      tool_name: 'filesystem_write_text_file',
      args: { path: 'notes.txt', content: 'new' },
    },
    {
      type: 'FilesChanged',
      agent_id: 'main',
      correlation_id: 'w1',
      checkpoint: 'k1',
      turn_id: 't1',
      files: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1 }],
    },
    { type: 'ToolOutput', agent_id: 'main', correlation_id: 'w1', tool_name: 'filesystem_write_text_file', content: 'ok' },
    { type: 'Response', agent_id: 'main', text: 'Done.' },
    { type: 'TurnEnded', agent_id: 'main' },
  ];

  it('reviews and reverts a turn, and shows the revert with its undo', async () => {
    const { backend, emit } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      checkpointDiff: vi.fn(async () => [
        { path: 'notes.txt', status: 'modified', added: 1, removed: 1, diff: '--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old\n+new\n' },
      ]),
      planRevert: vi.fn(async () => ({
        restore: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1 }],
        conflicts: null,
        unrestorable: null,
        protected: null,
        unkept: null,
      })),
    });
    render(App, { backend });
    await screen.findByLabelText('Message to the agent');
    emit(turnWithChanges);
    const turn = await screen.findByTestId('turn-changes');
    await userEvent.click(within(turn).getByRole('button', { name: 'Review changes' }));
    expect(backend.checkpointDiff).toHaveBeenCalledWith('t1');
    const dialog = await screen.findByTestId('diff-dialog');
    expect(await within(dialog).findByText('+new')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revert this turn' }));
    const confirm = await screen.findByTestId('revert-dialog');
    await userEvent.click(await within(confirm).findByRole('button', { name: 'Revert 1 file' }));
    expect(backend.planRevert).toHaveBeenCalledWith('t1');
    expect(backend.revert).toHaveBeenCalledWith('t1', false, []);
    await vi.waitFor(() => expect(screen.queryByTestId('revert-dialog')).toBeNull());
    emit([
      {
        type: 'Reverted',
        agent_id: 'main',
        checkpoint: 'r1',
        reverts: ['k1'],
        label: 'Revert turn 1: change files',
        files: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1 }],
      },
    ]);
    const rev = await screen.findByTestId('revert-item');
    expect(rev).toHaveTextContent('Reverted: 1 file · Revert turn 1: change files');
    expect(within(screen.getByTestId('turn-changes')).getByTestId('reverted-badge')).toBeInTheDocument();
    await userEvent.click(within(rev).getByRole('button', { name: 'Undo' }));
    expect(await screen.findByRole('heading', { name: 'Undo this revert?' })).toBeInTheDocument();
  });

  it("forks at a prompt and puts the prompt in the fork's box, not the source's", async () => {
    let kernelCb: (s: KernelStatus) => void = () => {};
    const { backend, emit } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      forkSession: vi.fn(async () => ({ sessionId: 'f1', prompt: 'change files' })),
      onKernel: (cb) => {
        kernelCb = cb;
        return () => {};
      },
    });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    kernelCb({ ...ready, sessionId: 's1' });
    emit(turnWithChanges);
    await userEvent.click(await screen.findByRole('button', { name: 'Fork' }));
    expect(backend.forkSession).toHaveBeenCalledWith(1, '');
    await vi.waitFor(() => expect(backend.sessions).toHaveBeenCalledTimes(2));
    expect(box.value).toBe('');
    // The notice and the prompt belong to the fork: they show with it.
    expect(screen.queryByText(/Forked a new session before prompt 1/)).toBeNull();
    kernelCb({ ...ready, sessionId: 'f1' });
    await vi.waitFor(() => expect(box.value).toBe('change files'));
    expect(await screen.findByText(/Forked a new session before prompt 1/)).toBeInTheDocument();
    // Back in the source, its box is empty and the fork's notice gone;
    // the fork keeps its draft.
    kernelCb({ ...ready, sessionId: 's1' });
    await vi.waitFor(() => expect(box.value).toBe(''));
    expect(screen.queryByText(/Forked a new session before prompt 1/)).toBeNull();
    kernelCb({ ...ready, sessionId: 'f1' });
    await vi.waitFor(() => expect(box.value).toBe('change files'));
  });

  it('shows the meter, compacts on request and answers the budget', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    await screen.findByLabelText('Message to the agent');
    emit([
      ...turnWithChanges,
      {
        type: 'SessionUsage',
        agent_id: 'main',
        cost: 0.5,
        unpriced_calls: 0,
        budget: 1,
        context_tokens: 500,
        context_window: 1000,
        compact_at: 800,
      },
    ]);
    await userEvent.click(await screen.findByTestId('context-meter'));
    await userEvent.click(screen.getByRole('button', { name: 'Compact now' }));
    expect(backend.compactNow).toHaveBeenCalledOnce();
    emit([
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'BudgetRequest', agent_id: 'main', request_id: 'b1', spent: 1.02, budget: 1, estimate: 0.1 },
    ]);
    await userEvent.click(await screen.findByRole('button', { name: 'Continue (budget $2.00)' }));
    expect(backend.continueBudget).toHaveBeenCalledWith('b1', true);
    expect(screen.queryByTestId('budget-bar')).toBeNull();
  });

  it('asks before a large resource mention goes to the model whole', async () => {
    const big = { server: 'gated', uri: 'data://big', size: 5 * 1024 * 1024, limit: 256 * 1024 };
    const { backend } = fakeBackend({ workspace: vi.fn(async () => ws()), largeMentions: vi.fn(async () => [big]) });
    render(App, { backend });
    const box = await screen.findByLabelText<HTMLTextAreaElement>('Message to the agent');
    await vi.waitFor(() => expect(box.placeholder).toMatch(/Ask freeact/));
    await userEvent.type(box, 'summarise @gated:data://big {Escape}{Enter}');
    const ask = await screen.findByTestId('large-mention-confirm');
    expect(backend.largeMentions).toHaveBeenCalledWith('summarise @gated:data://big');
    expect(ask).toHaveTextContent('@gated:data://big is 5.0 MiB');
    expect(ask).toHaveTextContent('Mentions over 256 KiB go to the model whole');
    expect(backend.send).not.toHaveBeenCalled();
    // Cancel sends nothing and keeps the prompt.
    await userEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('large-mention-confirm')).toBeNull();
    expect(box.value).toBe('summarise @gated:data://big ');
    expect(backend.sendAllowingLarge).not.toHaveBeenCalled();
    // Attach and send sends it, allowing the large mention.
    box.focus();
    await userEvent.keyboard('{Enter}');
    await userEvent.click(
      within(await screen.findByTestId('large-mention-confirm')).getByRole('button', { name: 'Attach and send' }),
    );
    expect(backend.sendAllowingLarge).toHaveBeenCalledWith('summarise @gated:data://big', []);
    expect(backend.send).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(box.value).toBe(''));
  });

  it('a model call waiting for an MCP server shows it, and Skip goes on without it', async () => {
    const { backend, emit } = fakeBackend({ workspace: vi.fn(async () => ws()) });
    render(App, { backend });
    await screen.findByLabelText('Message to the agent');
    emit([
      { type: 'TurnStarted', agent_id: 'main' },
      { type: 'MCPWaiting', agent_id: 'main', request_id: 'w1', servers: ['slow'], limit_secs: 58 },
    ]);
    const bar = await screen.findByTestId('mcp-wait-bar');
    expect(bar.textContent).toContain('Waiting for MCP server slow to start (up to 58 s)');
    await userEvent.click(screen.getByRole('button', { name: 'Skip' }));
    expect(backend.skipMCPWait).toHaveBeenCalledWith('w1');
    expect(screen.queryByTestId('mcp-wait-bar')).toBeNull();
    emit([
      { type: 'MCPWaiting', agent_id: 'main', request_id: 'w2', servers: ['slow'] },
      { type: 'MCPWaiting', agent_id: 'main', servers: ['slow'], done: true },
    ]);
    await vi.waitFor(() => expect(screen.queryByTestId('mcp-wait-bar')).toBeNull());
  });
});

describe('App settings and grants', () => {
  it('a grant revoked in the settings panel leaves the header too', async () => {
    const grant = { type: 'ShellAction', tool_name: 'bash', command: 'git *' };
    const { backend, emit } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      permissions: vi.fn(async () => ({ always: { allow: [], ask: [] }, session: { allow: [grant], ask: [] } })),
      revokeSessionRule: vi.fn(async () => ({ always: { allow: [], ask: [] }, session: { allow: [], ask: [] } })),
    });
    render(App, { backend });
    await screen.findByText('Kernel ready');
    emit([{ type: 'SessionGrants', agent_id: 'main', grants: [grant] }]);
    expect(await screen.findByRole('button', { name: '1 session grant' })).toBeInTheDocument();
    await userEvent.keyboard('{Control>},{/Control}');
    await userEvent.click(await screen.findByRole('tab', { name: /Permissions/ }));
    await userEvent.click(await screen.findByRole('button', { name: /^Revoke .*git \*/ }));
    expect(backend.revokeSessionRule).toHaveBeenCalledWith(grant);
    await vi.waitFor(() => expect(screen.queryByRole('button', { name: '1 session grant' })).not.toBeInTheDocument());
  });
});

describe('App auto mode', () => {
  it('switches the approval mode in the header, shows the breaker and lists what ran', async () => {
    let state = { mode: 'rules', paused: false, sandbox: false, checkpoints: true };
    const { backend, emit } = fakeBackend({
      workspace: vi.fn(async () => ws()),
      approvalMode: vi.fn(async () => state),
      setApprovalMode: vi.fn(async (mode: string) => (state = { ...state, mode, paused: false })),
    });
    render(App, { backend });
    await userEvent.click(await screen.findByTestId('approval-mode'));
    await userEvent.click(await screen.findByRole('radio', { name: 'Auto' }));
    expect(backend.setApprovalMode).toHaveBeenCalledWith('auto');
    // Auto with the sandbox off says so in the header.
    await vi.waitFor(() => expect(screen.getByTestId('approval-mode')).toHaveTextContent('Auto · no sandbox'));
    // A call auto mode ran shows in the list, with its badge.
    emit([
      {
        type: 'AutoApproved',
        agent_id: 'main',
        correlation_id: 'c9',
        tool_call: { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: 'a.txt', content: 'x' },
        by: 'judge',
        reason: 'asked for',
      },
    ]);
    await vi.waitFor(() => expect(screen.getByTestId('approval-mode')).toHaveTextContent('· 1 new'));
    // The breaker paused auto mode: the header says so and resumes it.
    state = { ...state, paused: true };
    emit([
      {
        type: 'ApprovalRequest',
        agent_id: 'main',
        correlation_id: 'c10',
        request_id: 'r10',
        tool_call: { type: 'FileWrite', tool_name: 'filesystem_write_text_file', path: 'b.txt', content: 'x' },
        suggested_pattern: '',
        judge: 'paused',
        reason: 'Auto mode is paused',
      },
    ]);
    await vi.waitFor(() => expect(screen.getByTestId('approval-mode')).toHaveTextContent('Auto paused'));
    await userEvent.click(screen.getByTestId('approval-mode'));
    await userEvent.click(screen.getByRole('button', { name: 'Resume auto mode' }));
    expect(backend.setApprovalMode).toHaveBeenLastCalledWith('auto');
    await vi.waitFor(() => expect(screen.getByTestId('approval-mode')).not.toHaveTextContent('paused'));
  });
});
