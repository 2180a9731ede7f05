// Numbers as the window shows them: money and token counts.

/** US dollars: cents from a dollar up, else up to four decimals
 * ($12.35, $0.015, $0.0323), as the Go side's longsession.FormatUSD. */
export function formatUSD(v: number): string {
  if (v >= 1 || v === 0) return `$${v.toFixed(2)}`;
  let s = v.toFixed(4).replace(/0+$/, '');
  const decimals = s.length - s.indexOf('.') - 1;
  if (decimals < 2) s += '0'.repeat(2 - decimals);
  return `$${s}`;
}

/** A token count, short: 950, 12.3k, 1.05M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}
