package files

import (
	"context"
	"fmt"
)

// Write creates or overwrites a text file with the given content, creating
// missing parent folders. The file is replaced atomically and keeps the
// permissions of the file it replaces.
func (w *Workspace) Write(ctx context.Context, a WriteArgs, approved bool) (string, error) {
	p, err := w.resolve(ctx, a.Path, approved)
	if err != nil {
		return "", err
	}
	return w.write(ctx, a, p)
}

func (w *Workspace) write(ctx context.Context, a WriteArgs, p Path) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("write %s: %w", p.Display(), err)
	}
	defer w.lock(p.Abs)()
	created, err := w.writeFile(ctx, p, []byte(a.Content))
	if err != nil {
		return "", err
	}
	verb := "Overwrote"
	if created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%d bytes).", verb, p.Display(), len(a.Content)), nil
}
