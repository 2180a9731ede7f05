// The model string split the way the backend reads it (agent/model's
// ParseModelString), for the model picker, and model_settings edited by
// path.

export interface ModelChoice {
  /** A provider id of the picker ("google", "anthropic", ..., "url"). */
  provider: string;
  name: string;
  /** The base URL of an OpenAI-compatible server ("url"). */
  base: string;
}

const ALIASES: Record<string, string> = { 'google-gla': 'google', 'openai-chat': 'openai', 'openai-responses': 'openai' };

export function splitModel(s: string): ModelChoice {
  s = s.trim();
  if (/^https?:\/\//.test(s)) {
    const i = s.indexOf('#');
    return i < 0 ? { provider: 'url', base: s, name: '' } : { provider: 'url', base: s.slice(0, i), name: s.slice(i + 1) };
  }
  const i = s.indexOf(':');
  if (i < 0) return { provider: 'google', name: s, base: '' };
  const prefix = s.slice(0, i);
  return { provider: ALIASES[prefix] ?? prefix, name: s.slice(i + 1), base: '' };
}

export function joinModel(c: ModelChoice): string {
  if (c.provider === 'url') return `${c.base}#${c.name}`;
  if (c.provider === 'google') return c.name;
  return `${c.provider}:${c.name}`;
}

type Obj = Record<string, unknown>;

/** The value at a dotted path of model_settings, or undefined. */
export function getPath(obj: Obj, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

/** A copy of obj with path set, or removed when value is undefined (and an emptied object with it). */
export function setPath(obj: Obj, path: string, value: unknown): Obj {
  const [head = '', ...rest] = path.split('.');
  const out: Obj = { ...obj };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
    return out;
  }
  const inner = setPath((out[head] as Obj) ?? {}, rest.join('.'), value);
  if (Object.keys(inner).length === 0) delete out[head];
  else out[head] = inner;
  return out;
}

/** What forSetting needs of a model setting's description. */
interface SettingScope {
  families: string[];
  models?: string;
  not_models?: string;
}

/** Whether a model setting applies to the model: its provider's family
 * uses it and the model has it (as model.SettingKey.For decides in Go). */
export function forModel(k: SettingScope, family: string, name: string): boolean {
  if (!k.families.includes(family)) return false;
  if (k.models && !new RegExp(k.models).test(name)) return false;
  return !k.not_models || !new RegExp(k.not_models).test(name);
}

/** A model setting's description for the provider family: with what
 * leaving it unset gives there, where that differs between providers
 * (model.SettingKey.Unset), so no provider reads another's default. */
export function settingDescription(k: { description: string; unset?: Record<string, string> }, family: string): string {
  const unset = k.unset?.[family];
  return unset ? `${k.description} Unset: ${unset}.` : k.description;
}
