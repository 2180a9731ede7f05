package acp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/app/internal/fronttest"
)

// editor is a client's files: buffers that differ from the disk, and
// writes that the editor saves.
type editor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []sdk.WriteTextFileRequest
}

func (e *editor) ReadTextFile(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reads = append(e.reads, r.Path)
	if b, ok := e.buffers[r.Path]; ok {
		return sdk.ReadTextFileResponse{Content: b}, nil
	}
	data, err := os.ReadFile(r.Path)
	return sdk.ReadTextFileResponse{Content: string(data)}, err
}

func (e *editor) WriteTextFile(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writes = append(e.writes, r)
	return sdk.WriteTextFileResponse{}, os.WriteFile(r.Path, []byte(r.Content), 0o644)
}

// TestACPFilesThroughTheClient: a client that offers fs.readTextFile and
// fs.writeTextFile gets the file tools' reads and writes: the model sees
// the editor's unsaved buffer, the write goes through the editor, and
// the action's checkpoint still records the file it changed.
func TestACPFilesThroughTheClient(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _, fake := fronttest.EnvServer(t, `
turns:
  - reply: [{call: {id: r1, name: filesystem_read_text_file, args: {path: "notes.txt"}}}]
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: "out.txt", content: "written by the model\n"}}}]
  - reply: [{text: "Done."}]
`)
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("what the disk holds\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		t.Fatal(err)
	}
	ed := &editor{buffers: map[string]string{filepath.Join(real, "notes.txt"): "the unsaved buffer\n"}}
	p := startACP(t, bin, environ)
	p.c.fs = ed
	if _, err := p.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	p.c.answer = pick("allow_once")
	id := p.newSession(t, ws)
	if _, err := p.prompt(t, id, "Copy my notes"); err != nil {
		t.Fatalf("prompt: %v; stderr:\n%s", err, p.stderr.String())
	}
	reqs := fake.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), "the unsaved buffer") || strings.Contains(string(reqs[1].Body), "what the disk holds") {
		t.Errorf("the model was not sent the editor's buffer; request 2:\n%s", reqs[len(reqs)-1].Body)
	}
	ed.mu.Lock()
	reads, writes := ed.reads, ed.writes
	ed.mu.Unlock()
	if len(reads) != 1 || reads[0] != filepath.Join(real, "notes.txt") {
		t.Errorf("reads through the editor %v", reads)
	}
	if len(writes) != 1 || writes[0].Path != filepath.Join(real, "out.txt") || writes[0].Content != "written by the model\n" || writes[0].SessionId != id {
		t.Fatalf("writes through the editor %+v", writes)
	}
	list := exec.Command(bin, "checkpoints", "list", "--workspace", ws)
	list.Env = environ
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("checkpoints list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "out.txt") {
		t.Errorf("the write's checkpoint does not record out.txt:\n%s", out)
	}
}
