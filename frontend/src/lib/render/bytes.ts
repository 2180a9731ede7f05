// Sizes as people read them, the way the Go side writes them for the model
// (variables.FormatBytes): 512 B, 1.5 kB, 2.0 GB.
export function formatBytes(n: number): string {
  if (n < 0) return '?';
  if (n < 1000) return `${n} B`;
  const units = 'kMGTPE';
  let div = 1000;
  let exp = 0;
  for (let m = Math.floor(n / 1000); m >= 1000; m = Math.floor(m / 1000)) {
    div *= 1000;
    exp++;
  }
  return `${(n / div).toFixed(1)} ${units[exp]}B`;
}
