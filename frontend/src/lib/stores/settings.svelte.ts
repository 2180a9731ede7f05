// The settings form's state: every agent.json key as JSON text, what was
// loaded, what the backend says is wrong (checked as the user types, by
// agent.json's own rules), what a control could not even read (a number
// typed as words), and which tabs have unsaved changes. Each tab saves its
// own keys.
import type { Backend, FieldError, NumberBounds, SettingField } from '../backend';

export type Section = 'model' | 'agent' | 'kernel' | 'mcp' | 'sandbox';

/** How long typing pauses before the backend checks the values. */
export const CHECK_DELAY_MS = 250;

/** The same JSON value, whatever its spacing. */
export function sameJSON(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

export class SettingsForm {
  fields: SettingField[] = $state([]);
  /** The current value of each key, as JSON text. */
  values: Record<string, string> = $state({});
  /** The value as loaded or last saved. */
  saved: Record<string, string> = $state({});
  /** The backend's errors by key (several for the parts of an object). */
  errors: Record<string, FieldError[]> = $state({});
  /** What a control could not read, by key (nothing reaches the backend then). */
  local: Record<string, string> = $state({});
  /** An error of a save that belongs to no key. */
  general = $state('');

  #backend: Backend;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  async load(): Promise<void> {
    const fields = await this.#backend.settings();
    this.fields = fields;
    this.values = Object.fromEntries(fields.map((f) => [f.key, f.value]));
    this.saved = { ...this.values };
    this.errors = {};
    this.local = {};
  }

  /** Reads a section's keys again (after another editor wrote them), keeping the other tabs' edits. */
  async refresh(section: Section): Promise<void> {
    const fields = await this.#backend.settings();
    for (const f of fields) {
      if (f.info.section !== section) continue;
      this.values[f.key] = f.value;
      this.saved[f.key] = f.value;
      delete this.errors[f.key];
      delete this.local[f.key];
    }
  }

  field(key: string): SettingField | undefined {
    return this.fields.find((f) => f.key === key);
  }

  keysOf(section: Section): string[] {
    return this.fields.filter((f) => f.info.section === section && !f.read_only).map((f) => f.key);
  }

  /** Sets a key's value (JSON text) and checks it once typing pauses. */
  set(key: string, json: string): void {
    this.values[key] = json;
    delete this.local[key];
    this.#scheduleCheck();
  }

  /** A control reports input it cannot turn into a value (or null when it can again). */
  setLocal(key: string, message: string | null): void {
    if (message === null) delete this.local[key];
    else this.local[key] = message;
  }

  dirtyKeys(section: Section): string[] {
    return this.keysOf(section).filter((k) => !sameJSON(this.values[k] ?? '', this.saved[k] ?? '') || k in this.local);
  }

  dirty(section: Section): boolean {
    return this.dirtyKeys(section).length > 0;
  }

  invalid(section: Section): boolean {
    return this.keysOf(section).some((k) => k in this.local || (this.errors[k]?.length ?? 0) > 0);
  }

  /** The first error of a key at path ("" for the whole value), or of any path when path is undefined. */
  error(key: string, path?: string): string {
    if (path === undefined && this.local[key]) return this.local[key];
    const errs = this.errors[key] ?? [];
    const e = path === undefined ? errs[0] : errs.find((x) => x.path === path);
    return e?.message ?? '';
  }

  revert(section: Section): void {
    for (const k of this.keysOf(section)) {
      this.values[k] = this.saved[k] ?? 'null';
      delete this.local[k];
      delete this.errors[k];
    }
  }

  #scheduleCheck(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.check(), CHECK_DELAY_MS);
  }

  /** Asks the backend about every changed value; a newer check wins. */
  async check(): Promise<void> {
    clearTimeout(this.#timer);
    const gen = ++this.#generation;
    const changed: Record<string, string> = {};
    for (const f of this.fields) {
      const v = this.values[f.key] ?? 'null';
      if (!f.read_only && !(f.key in this.local) && !sameJSON(v, this.saved[f.key] ?? '')) {
        changed[f.key] = v;
      }
    }
    const errs = Object.keys(changed).length > 0 ? await this.#backend.checkSettings(changed) : [];
    if (gen !== this.#generation) return;
    this.errors = group(errs);
  }

  /**
   * Saves one tab's keys. Returns true when they were written; otherwise
   * the errors are set by key and nothing was written.
   */
  async save(section: Section): Promise<boolean> {
    clearTimeout(this.#timer);
    this.#generation++;
    this.general = '';
    if (Object.keys(this.local).some((k) => this.keysOf(section).includes(k))) return false;
    const keys = this.keysOf(section);
    const values = Object.fromEntries(keys.map((k) => [k, this.values[k] ?? 'null']));
    const errs = await this.#backend.saveSettings(values);
    if (errs.length > 0) {
      this.errors = group(errs);
      const stray = errs.filter((e) => !keys.includes(e.key));
      if (stray.length > 0) this.general = stray.map((e) => (e.key ? `${e.key}: ${e.message}` : e.message)).join('\n');
      return false;
    }
    for (const k of keys) {
      this.saved[k] = this.values[k] ?? 'null';
      delete this.errors[k];
    }
    return true;
  }
}

function group(errs: FieldError[]): Record<string, FieldError[]> {
  const out: Record<string, FieldError[]> = {};
  for (const e of errs) (out[e.key] ??= []).push(e);
  return out;
}

/** Parses a number as typed; null with the reason when it is not one. */
export function parseNumber(text: string, integer: boolean, unit: string): { value: number } | { error: string } {
  const t = text.trim().replace(/_/g, '');
  const example = integer ? '60' : '1.5';
  const what = unit ? `the ${unit}` : 'the number';
  if (t === '') return { error: `Empty: type ${what} in digits, e.g. ${example}.` };
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) {
    return { error: `“${text.trim()}” is not a number: type ${what} in digits, e.g. ${example}.` };
  }
  const value = Number(t);
  if (integer && !Number.isInteger(value)) return { error: `${t} is not a whole number: type ${what} without a fraction.` };
  return { value };
}

/** Whether v lies inside a key's bounds (the same rule as the backend's). */
export function inBounds(v: number, b: NumberBounds): boolean {
  if (!Number.isFinite(v)) return false;
  if (b.min !== undefined && b.min !== null && (v < b.min || (b.min_exclusive && v === b.min))) return false;
  if (b.max !== undefined && b.max !== null && v > b.max) return false;
  return true;
}
