// What the user approves is what runs: model-written text shown in an
// approval (code, commands, paths, arguments) has every character that
// could hide, reorder or overwrite other text replaced by a visible escape.
// The rules are those of the Go side (internal/visible), which the terminal
// uses; internal/visible/testdata pins them for both.

// Control characters other than tab and newline, format characters (bidi
// controls, zero-width characters, BOM, tags), line and paragraph
// separators, default-ignorable code points and variation selectors.
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Variation_Selector}]|[\uD800-\uDFFF]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

/** Reports whether the character (one code point) is shown as an escape. */
export function isHidden(ch: string): boolean {
  return ch !== '\t' && ch !== '\n' && HIDDEN.test(ch);
}

/** The escape visible() writes for one hidden code point. */
export function escapeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp === 0x0d) return '\\r';
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp > 0xffff) return `\\u{${cp.toString(16)}}`;
  return `\\u${cp.toString(16).padStart(4, '0')}`;
}

/**
 * Returns text with each hidden character written as an escape: \r for a
 * carriage return, \xHH for other C0 controls and DEL, \uHHHH or \u{HHHHH}
 * for the rest (a lone surrogate too). Tabs, newlines and all other
 * characters stay.
 */
export function visible(text: string): string {
  if (!HIDDEN.test(text)) return text;
  return text.replace(HIDDEN_ALL, (ch) => (ch === '\t' || ch === '\n' ? ch : escapeChar(ch)));
}

/**
 * Text an MCP server (or a tool's own metadata) wrote, shown where it names
 * or asks something: a form's title and message, a field's label, an
 * option, a server's name, a tool's name and title. It is one visible line:
 * hidden characters escaped as visible() does (bidi controls as \u202e,
 * zero-width ones as \u200b), and line breaks and tabs collapsed into one
 * space, so no server string can reorder, hide or add lines to the card
 * around it.
 */
export function visibleLine(text: string): string {
  return visible(text).replace(/[\t\n]+/g, ' ');
}
