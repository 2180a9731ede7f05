// Vite empties dist/ on every build, but the Go binary embeds it with
// `//go:embed all:frontend/dist`, which needs the tracked placeholder to exist
// even before a build. Put it back.
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('../dist/.gitkeep', import.meta.url), '');
