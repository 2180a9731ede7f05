// A server's form (MCP elicitation) as the form card edits it: the values
// it starts with (the defaults, SEP-1034), what is wrong with them, field
// by field, and the answer it sends.
import type { FormField } from './stores/mcp.svelte';
import { visibleLine } from './render/visible';

/** What an input holds: text for text and number inputs, a flag for a
 * boolean, the picked values of a multi-select. */
export type FormValue = string | boolean | string[];

/** A field's label: the server's title (or name) as one visible line. */
export function label(f: FormField): string {
  return visibleLine(f.title || f.name);
}

/** The values a form starts with: each field's default, else empty. */
export function initialValues(fields: FormField[]): Record<string, FormValue> {
  const out: Record<string, FormValue> = {};
  for (const f of fields) {
    const d = f.default;
    if (f.multi) out[f.name] = Array.isArray(d) ? d.map(String) : [];
    else if (f.type === 'boolean') out[f.name] = d === true;
    else out[f.name] = d === undefined || d === null ? '' : String(d);
  }
  return out;
}

const FORMATS: Record<string, { test: (s: string) => boolean; want: string }> = {
  email: { test: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), want: 'an email address such as name@example.org' },
  uri: { test: (s) => /^[a-z][a-z0-9+.-]*:\S+$/i.test(s), want: 'an address with a scheme, such as https://example.org' },
  date: { test: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)), want: 'a date such as 2026-01-31' },
  'date-time': {
    test: (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
    want: 'a date and time such as 2026-01-31T09:30:00Z',
  },
};

/** A hint of what a field takes, shown under it. */
export function hint(f: FormField): string {
  const parts: string[] = [];
  const format = f.format ? FORMATS[f.format] : undefined;
  if (format) parts.push(format.want);
  if (f.minLength !== undefined && f.maxLength !== undefined) parts.push(`${f.minLength} to ${f.maxLength} characters`);
  else if (f.minLength !== undefined) parts.push(`at least ${f.minLength} characters`);
  else if (f.maxLength !== undefined) parts.push(`at most ${f.maxLength} characters`);
  if (f.minimum !== undefined && f.maximum !== undefined) parts.push(`${f.minimum} to ${f.maximum}`);
  else if (f.minimum !== undefined) parts.push(`at least ${f.minimum}`);
  else if (f.maximum !== undefined) parts.push(`at most ${f.maximum}`);
  return parts.join('; ');
}

/** What is wrong with each field (by name); empty when nothing is. */
export function validate(fields: FormField[], values: Record<string, FormValue>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.name];
    const name = label(f);
    if (f.multi) {
      const picked = (v as string[]) ?? [];
      if (f.required && picked.length === 0 && f.default === undefined) errors[f.name] = `Choose at least one ${name}.`;
      else if (f.minItems !== undefined && picked.length < f.minItems) errors[f.name] = `Choose at least ${f.minItems}.`;
      else if (f.maxItems !== undefined && picked.length > f.maxItems) errors[f.name] = `Choose at most ${f.maxItems}.`;
      continue;
    }
    if (f.type === 'boolean') continue;
    const s = String(v ?? '').trim();
    if (s === '') {
      if (f.required) errors[f.name] = `${name} is required.`;
      continue;
    }
    if (f.options?.length) {
      if (!f.options.some((o) => o.value === s)) errors[f.name] = `Choose one of the values.`;
      continue;
    }
    if (f.type === 'number' || f.type === 'integer') {
      const x = Number(s);
      if (!Number.isFinite(x)) errors[f.name] = `${name} must be a number.`;
      else if (f.type === 'integer' && !Number.isInteger(x)) errors[f.name] = `${name} must be a whole number.`;
      else if (f.minimum !== undefined && x < f.minimum) errors[f.name] = `${name} must be at least ${f.minimum}.`;
      else if (f.maximum !== undefined && x > f.maximum) errors[f.name] = `${name} must be at most ${f.maximum}.`;
      continue;
    }
    const n = [...s].length;
    const format = f.format ? FORMATS[f.format] : undefined;
    if (f.minLength !== undefined && n < f.minLength) errors[f.name] = `${name} needs at least ${f.minLength} characters.`;
    else if (f.maxLength !== undefined && n > f.maxLength) errors[f.name] = `${name} takes at most ${f.maxLength} characters.`;
    else if (format && !format.test(s)) errors[f.name] = `${name} must be ${format.want}.`;
  }
  return errors;
}

/** The answer of a valid form: typed values; empty fields left out (the
 * server's defaults apply). */
export function answer(fields: FormField[], values: Record<string, FormValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.multi) {
      if ((v as string[]).length > 0) out[f.name] = v;
    } else if (f.type === 'boolean') out[f.name] = v === true;
    else {
      const s = String(v ?? '').trim();
      if (s === '') continue;
      out[f.name] = f.type === 'number' || f.type === 'integer' ? Number(s) : s;
    }
  }
  return out;
}

/** Spreads the backend's refusal ("name: want …" a line) over the fields;
 * what names no field is returned under ''. */
export function backendErrors(fields: FormField[], message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of message.split('\n')) {
    const i = line.indexOf(': ');
    const name = i > 0 ? line.slice(0, i) : '';
    if (fields.some((f) => f.name === name)) out[name] = line.slice(i + 2);
    else out[''] = out[''] ? `${out['']} ${line}` : line;
  }
  return out;
}
