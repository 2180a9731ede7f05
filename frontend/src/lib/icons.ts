// The app's icons: SVG paths drawn on a 24×24 grid with round strokes,
// bundled with the app so that no icon depends on a font (an emoji font is
// missing on many machines and shows a blank box).

const circle = (cx: number, cy: number, r: number) => `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;

// A cog of eight teeth around the centre of the grid.
const cog = (() => {
  const points: string[] = [];
  for (let i = 0; i < 8; i++) {
    const a = (i * Math.PI) / 4;
    for (const [da, r] of [
      [-0.3, 7],
      [-0.17, 9.5],
      [0.17, 9.5],
      [0.3, 7],
    ] as const) {
      points.push(`${(12 + r * Math.cos(a + da)).toFixed(2)} ${(12 + r * Math.sin(a + da)).toFixed(2)}`);
    }
  }
  return `M${points.join('L')}z`;
})();

export const ICONS = {
  close: ['M6 6l12 12M18 6L6 18'],
  menu: ['M4 7h16M4 12h16M4 17h16'],
  settings: [cog, circle(12, 12, 3)],
  download: ['M12 4v11M7 10l5 5 5-5M5 20h14'],
  trash: ['M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13M10 11v6M14 11v6'],
  pencil: ['M4 20l4-1L19 8l-3-3L5 16l-1 4zM14 7l3 3'],
  refresh: ['M19.5 12a7.5 7.5 0 1 1-2.2-5.3M19.5 4v5h-5'],
  image: ['M4 5h16v14H4z', circle(9, 10, 1.5), 'M4 17l5-5 4 4 3-3 4 4'],
  more: ['M5 12h.01M12 12h.01M19 12h.01'],
  'arrow-down': ['M12 5v14M6 13l6 6 6-6'],
  check: ['M5 12.5l4.5 4.5L19 7.5'],
} satisfies Record<string, string[]>;

export type IconName = keyof typeof ICONS;
