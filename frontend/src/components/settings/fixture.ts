// Test fixtures of the settings panel: the backend's own description of a
// workspace of defaults (app/desktop/testdata/settings-form.json, written by
// go test ./app -run TestSettingsFormGolden -update), and a backend double
// over it that checks values the way the form needs for its tests.
import { vi } from 'vitest';
import golden from '../../../../app/desktop/testdata/settings-form.json';
import type { APIKeys, Backend, FieldError, PermissionRules, SettingField, SettingsSchema } from '../../lib/backend';

export const fields = golden.fields as unknown as SettingField[];
export const schema = golden.schema as unknown as SettingsSchema;

/** The golden fields with some values changed (key -> JSON text). */
export function withValues(values: Record<string, string> = {}, readOnly: string[] = []): SettingField[] {
  return fields.map((f) => ({ ...f, value: values[f.key] ?? f.value, read_only: readOnly.includes(f.key) }));
}

export const apiKeys: APIKeys = {
  storage: { kind: 'keyring', where: 'the system keyring (Secret Service)' },
  keys: [
    { name: 'GEMINI_API_KEY', providers: ['Google Gemini'], source: 'keyring', stored: 'keyring' },
    { name: 'ANTHROPIC_API_KEY', providers: ['Anthropic Claude'], source: '', stored: '' },
    { name: 'OPENAI_API_KEY', providers: ['OpenAI'], source: 'environment', stored: '' },
  ],
};

export const noRules: PermissionRules = { always: { allow: [], ask: [] }, session: { allow: [], ask: [] } };

/** A backend double: checkSettings and saveSettings answer with the errors given by key. */
export function settingsBackend(opts: { fields?: SettingField[]; errors?: FieldError[]; rules?: PermissionRules; keys?: APIKeys } = {}) {
  const errors = opts.errors ?? [];
  const only = (values: Record<string, string>) => errors.filter((e) => e.key in values);
  return {
    settings: vi.fn(async () => opts.fields ?? withValues()),
    settingsSchema: vi.fn(async () => schema),
    localModels: vi.fn(async () => ({ models: [{ name: 'qwen3:8b-on-server' }], error: '' })),
    settingsSource: vi.fn(async () => ({ file: '.freeact/agent.json', format: 'agent.json', description: 'Settings read from agent.json.', notes: [] })),
    apiKeys: vi.fn(async () => opts.keys ?? apiKeys),
    permissions: vi.fn(async () => opts.rules ?? noRules),
    checkSettings: vi.fn(async (values: Record<string, string>) => only(values)),
    saveSettings: vi.fn(async (values: Record<string, string>) => only(values)),
    pendingRestart: vi.fn(async () => [] as string[]),
    applySettings: vi.fn(async () => {}),
    setAPIKey: vi.fn(async () => ({ kind: 'keyring', where: 'the system keyring (Secret Service)' })),
    previewRule: vi.fn(async () => ({ rule: { type: 'ShellAction', tool_name: 'bash' }, summary: 'Shell commands matching', covers_call: false, matches: [], misses: [] })),
    revokeSessionRule: vi.fn(async () => noRules),
    savePermissions: vi.fn(async () => {}),
    sandbox: vi.fn(async () => ({ enabled: false, content: '{}', custom: false, path: '', defaults: '{}' })),
    saveSandbox: vi.fn(async () => []),
    testMCPServer: vi.fn(async () => ['read_file']),
    regenerateMCPTools: vi.fn(async () => '.freeact/generated/mcptools/x'),
    mcpServers: vi.fn(async () => []),
    hubStatus: vi.fn(async () => ({ url: '', is_hub: false, token_name: '', token_page: '', user: '', has_token: false, oauth: false, problem: '' })),
    onMCP: vi.fn(() => () => {}),
  } as unknown as Backend & Record<string, ReturnType<typeof vi.fn>>;
}
