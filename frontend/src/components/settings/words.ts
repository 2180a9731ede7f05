// Words the settings forms share: a key's default said plainly, and the
// shapes of names they check as they are typed.
import type { SettingField } from '../../lib/backend';

/** A variable name, as kernel_env and a server's env take it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The default of a key in words: "300 seconds", "On", "no limit". */
export function defaultText(f: SettingField): string {
  let v: unknown;
  try {
    v = JSON.parse(f.default);
  } catch {
    return f.default;
  }
  if (v === null) return f.info.null_label || 'none';
  if (typeof v === 'boolean') return v ? 'On' : 'Off';
  if (typeof v === 'number') return `${v.toLocaleString('en-US')}${f.info.number?.unit ? ' ' + f.info.number.unit : ''}`;
  if (typeof v === 'string') {
    const c = f.info.choices?.find((x) => x.value === v);
    return c ? c.label : v;
  }
  if (typeof v === 'object' && Object.keys(v as object).length === 0) return 'none';
  return '';
}

export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
