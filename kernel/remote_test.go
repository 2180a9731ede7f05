package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/nofollow"
	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/internal/testenv"
)

// fakeJupyter answers the REST calls ConnectServer makes, recording the
// requests, and starts "kernels" it never runs.
type fakeJupyter struct {
	mu       sync.Mutex
	auth     []string
	bodies   []map[string]any
	contents bool
}

func (f *fakeJupyter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if got := r.Header.Get("Authorization"); got != "token secret-token" && got != "Bearer hub-secret" {
		http.Error(w, `{"message": "Forbidden"}`, http.StatusForbidden)
		return
	}
	switch {
	case r.URL.Path == "/base/api/kernelspecs":
		_, _ = io.WriteString(w, `{"default": "python3", "kernelspecs": {"python3": {}, "spark": {}}}`)
	case r.URL.Path == "/base/api/contents" && f.contents:
		_, _ = io.WriteString(w, `{"type": "directory"}`)
	case r.URL.Path == "/base/api/kernels" && r.Method == http.MethodPost:
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		http.Error(w, `{"message": "no kernels here"}`, http.StatusServiceUnavailable)
	default:
		http.NotFound(w, r)
	}
}

// ConnectServer's settings, against a fake server: the token from the
// URL, headers, the kernel name, KERNEL_* variables in the start request,
// certificates, and no error that shows a secret.
func TestConnectServerSettings(t *testing.T) {
	fake := &fakeJupyter{contents: true}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.Background()

	t.Run("token in the URL, /lab dropped", func(t *testing.T) {
		s, err := ConnectServer(ctx, srv.URL+"/base/lab?token=secret-token", "", RemoteOptions{
			KernelName: "spark", KernelEnv: map[string]string{"KERNEL_USERNAME": "ada", "OTHER": "x"},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.URL() != srv.URL+"/base/" || !s.HasContents() || !s.Remote() {
			t.Fatalf("url %s contents %v", s.URL(), s.HasContents())
		}
		_, err = s.StartKernel(ctx, KernelOptions{})
		if err == nil || !strings.Contains(err.Error(), "HTTP 503") {
			t.Fatalf("start: %v", err)
		}
		want := map[string]any{"name": "spark", "path": "", "env": map[string]any{"KERNEL_USERNAME": "ada"}}
		if got := fake.bodies[len(fake.bodies)-1]; !jsonEqual(got, want) {
			t.Errorf("start request %v, want %v", got, want)
		}
	})
	t.Run("Authorization header instead of the token", func(t *testing.T) {
		s, err := ConnectServer(ctx, srv.URL+"/base/", "", RemoteOptions{Header: map[string]string{"Authorization": "Bearer hub-secret"}})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
	for _, c := range []struct {
		name, url, token string
		opts             RemoteOptions
		want             string
	}{
		{"wrong token", srv.URL + "/base/", "wrong-secret", RemoteOptions{}, "authentication failed"},
		{"wrong header", srv.URL + "/base/", "", RemoteOptions{Header: map[string]string{"Authorization": "Bearer wrong-secret"}}, "authentication failed"},
		{"two tokens", srv.URL + "/base/?token=wrong-secret", "secret-token", RemoteOptions{}, "carries a token (?token=...) and another token is set"},
		{"unknown kernel", srv.URL + "/base/", "secret-token", RemoteOptions{KernelName: "r"}, `it has no kernel "r"; its kernels are: python3, spark`},
		{"unreachable", "http://127.0.0.1:1/x?token=wrong-secret", "", RemoteOptions{}, "connection refused"},
		{"not http", "ftp://host/?token=wrong-secret", "", RemoteOptions{}, "is not an http(s) URL"},
		{"no CA file", srv.URL + "/base/", "secret-token", RemoteOptions{CAFile: filepath.Join(t.TempDir(), "missing.pem")}, "read the CA certificates"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ConnectServer(ctx, c.url, c.token, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}

	tlsSrv := httptest.NewTLSServer(fake)
	defer tlsSrv.Close()
	t.Run("untrusted certificate", func(t *testing.T) {
		_, err := ConnectServer(ctx, tlsSrv.URL+"/base/", "secret-token", RemoteOptions{})
		if !errors.Is(err, ErrUntrustedCertificate) {
			t.Fatalf("error %v, want ErrUntrustedCertificate", err)
		}
	})
	t.Run("CA file", func(t *testing.T) {
		ca := filepath.Join(t.TempDir(), "ca.pem")
		cert := tlsSrv.Certificate()
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ConnectServer(ctx, tlsSrv.URL+"/base/", "secret-token", RemoteOptions{CAFile: ca})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if err := os.WriteFile(ca, []byte("not a certificate"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ConnectServer(ctx, tlsSrv.URL+"/base/", "secret-token", RemoteOptions{CAFile: ca}); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
			t.Fatalf("bad CA file: %v", err)
		}
	})
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// connectRemote connects to rs and starts a kernel there.
func connectRemote(t *testing.T, rs *remotetest.Server, url string, opts RemoteOptions) (*Server, *Kernel) {
	t.Helper()
	opts.CAFile = rs.CAFile
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := ConnectServer(ctx, url, rs.Token, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	k, err := s.StartKernel(ctx, KernelOptions{Host: &testHost{}})
	if err != nil {
		t.Fatal(err)
	}
	return s, k
}

// Files on each kind of server: through the kernel on the gateways and
// for what jupyter_server's Contents API refuses (hidden files), through
// the Contents API otherwise.
func TestRemoteFiles(t *testing.T) {
	for _, kind := range remotetest.Kinds {
		t.Run(string(kind), func(t *testing.T) {
			rs := remotetest.Start(t, kind, remotetest.Options{})
			s, k := connectRemote(t, rs, rs.URL, RemoteOptions{})
			ctx := context.Background()
			f, err := s.OpenFiles(ctx, k, "ws/inner")
			if err != nil {
				t.Fatal(err)
			}
			root := path.Join(rs.Root, "ws", "inner")
			if f.Root() != root || f.Home() != rs.Home {
				t.Errorf("root %s home %s", f.Root(), f.Home())
			}
			if f.Contents() != (kind == remotetest.JupyterServer) {
				t.Errorf("Contents() = %v", f.Contents())
			}
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				t.Fatalf("workdir not made: %v", err)
			}

			// Plain files, and hidden ones (through the kernel on
			// jupyter_server, which refuses them).
			for _, rel := range []string{"a/b.txt", ".freeact/c.txt"} {
				p := path.Join(root, rel)
				created, err := f.WriteFile(ctx, p, []byte("v1"))
				if err != nil || !created {
					t.Fatalf("write %s: %v %v", rel, created, err)
				}
				if created, err = f.WriteFile(ctx, p, []byte("v2")); err != nil || created {
					t.Fatalf("rewrite %s: %v %v", rel, created, err)
				}
				if got := readRemote(t, f, p); got != "v2" {
					t.Errorf("%s holds %q", rel, got)
				}
				if b, _ := os.ReadFile(p); string(b) != "v2" {
					t.Errorf("%s on the server's disk: %q", rel, b)
				}
				if m, err := f.Lstat(ctx, p); err != nil || !m.IsRegular() {
					t.Errorf("lstat %s: %v %v", rel, m, err)
				}
			}
			if m, err := f.Lstat(ctx, path.Join(root, "a")); err != nil || !m.IsDir() {
				t.Errorf("lstat a: %v %v", m, err)
			}
			for _, c := range []struct {
				rel  string
				want error
			}{{"missing.txt", fs.ErrNotExist}, {"a", syscall.EISDIR}} {
				_, err := f.Open(ctx, path.Join(root, c.rel))
				if c.want == syscall.EISDIR && kind != remotetest.JupyterServer {
					c.want = nofollow.ErrNotRegular // found by the kernel when opened
				}
				if !errors.Is(err, c.want) {
					t.Errorf("open %s: %v, want %v", c.rel, err, c.want)
				}
			}
			if _, err := f.WriteFile(ctx, path.Join(root, "a"), []byte("x")); !errors.Is(err, syscall.EISDIR) {
				t.Errorf("write over a folder: %v", err)
			}

			// A file larger than one piece, through the kernel.
			big := bytes.Repeat([]byte("0123456789abcdef"), (remoteChunk+remoteChunk/2)/16)
			bigPath := path.Join(root, ".freeact", "big.bin")
			if _, err := f.WriteFile(ctx, bigPath, big); err != nil {
				t.Fatal(err)
			}
			if got := readRemote(t, f, bigPath); got != string(big) {
				t.Errorf("big file: read %d bytes, want %d", len(got), len(big))
			}
			if hashes, err := f.Hashes(ctx, path.Join(root, ".freeact")); err != nil || len(hashes) != 2 || hashes["c.txt"] == "" {
				t.Errorf("hashes %v %v", hashes, err)
			}
			if err := f.Put(ctx, map[string][]byte{path.Join(root, "p/1.txt"): []byte("1"), path.Join(root, "p/q/2.txt"): []byte("2")}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "p", "q", "2.txt")); string(b) != "2" {
				t.Errorf("put: %q", b)
			}
			// Permissions of a replaced file are kept.
			run(t, k, "import os; os.chmod("+pyString(path.Join(root, ".freeact", "c.txt"))+", 0o640)")
			if _, err := f.WriteFile(ctx, path.Join(root, ".freeact", "c.txt"), []byte("v3")); err != nil {
				t.Fatal(err)
			}
			if st, _ := os.Stat(filepath.Join(root, ".freeact", "c.txt")); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v after a write, want 0640", st.Mode().Perm())
			}

			// Links, where the kernel is the way (the Contents API cannot
			// see them): resolved, and never followed when met later.
			outside := path.Join(rs.Root, "outside")
			run(t, k, "import os\nos.makedirs("+pyString(outside)+", exist_ok=True)\nopen("+pyString(outside+"/secret.txt")+", 'w').write('s')\n"+
				"os.symlink("+pyString(outside)+", "+pyString(path.Join(root, ".freeact", "out"))+")\n"+
				"os.symlink("+pyString(outside+"/secret.txt")+", "+pyString(path.Join(root, ".freeact", "link.txt"))+")")
			if got, err := f.Resolve(ctx, path.Join(root, ".freeact", "out", "secret.txt")); err != nil || got != outside+"/secret.txt" {
				t.Errorf("resolve through a link: %q %v", got, err)
			}
			if got, err := f.Resolve(ctx, path.Join(root, ".freeact", "out", "new", "x")); err != nil || got != outside+"/new/x" {
				t.Errorf("resolve a new path through a link: %q %v", got, err)
			}
			if m, err := f.Lstat(ctx, path.Join(root, ".freeact", "link.txt")); err != nil || m&fs.ModeSymlink == 0 {
				t.Errorf("lstat of a link: %v %v", m, err)
			}
			for _, p := range []string{path.Join(root, ".freeact", "link.txt"), path.Join(root, ".freeact", "out", "secret.txt")} {
				if _, err := f.Open(ctx, p); !errors.Is(err, nofollow.ErrLinkSwapped) {
					t.Errorf("open %s: %v, want ErrLinkSwapped", p, err)
				}
				if _, err := f.WriteFile(ctx, p, []byte("owned")); !errors.Is(err, nofollow.ErrLinkSwapped) {
					t.Errorf("write %s: %v, want ErrLinkSwapped", p, err)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "s" {
				t.Errorf("a write went through a link: %q", b)
			}
			leftovers, _ := filepath.Glob(filepath.Join(root, "*", ".*.tmp"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

func readRemote(t *testing.T, f *Files, p string) string {
	t.Helper()
	r, err := f.Open(context.Background(), p)
	if err != nil {
		t.Fatalf("open %s: %v", p, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}

// A broken connection: the kernel is reported gone only when the server
// says so, and lost (maybe still running) when the server stays silent
// past the reconnect window.
func TestRemoteConnectionLost(t *testing.T) {
	rs := remotetest.Start(t, remotetest.KernelGateway, remotetest.Options{})
	proxy := remotetest.NewProxy(t, strings.TrimPrefix(strings.TrimSuffix(rs.URL, "/"), "http://"))
	url := "http://" + proxy.Addr + "/"
	ctx := context.Background()

	// sleeper runs a cell that sleeps, and calls during once it runs.
	sleeper := func(k *Kernel, during func()) error {
		started := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := k.Execute(ctx, "import time\nprint('started', flush=True)\ntime.sleep(60)", func(c Chunk) {
				if strings.Contains(c.Text, "started") {
					close(started)
				}
			})
			done <- err
		}()
		<-started
		during()
		return <-done
	}
	t.Run("silent past the window", func(t *testing.T) {
		s, k := connectRemote(t, rs, url, RemoteOptions{ReconnectWindow: 2 * time.Second})
		// The outage lasts until the kernel is reported lost (proxy.Up
		// below), however long a loaded machine takes to notice.
		err := sleeper(k, func() { proxy.Blip(time.Hour) })
		if !errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrKernelDied) || !strings.Contains(err.Error(), "may still run there") {
			t.Fatalf("error %v, want ErrConnectionLost", err)
		}
		proxy.Up()
		// The kernel was not gone: the next cell starts a fresh one, and
		// the old one is shut down.
		if res := run(t, k, "print('fresh')"); !strings.Contains(res.Text, "fresh") {
			t.Errorf("after the outage: %q", res.Text)
		}
		s.Close()
		if ids, err := rs.Kernels(); err != nil || len(ids) != 0 {
			t.Errorf("kernels left: %v %v", ids, err)
		}
	})
	t.Run("interrupted during a blip", func(t *testing.T) {
		_, k := connectRemote(t, rs, url, RemoteOptions{})
		run(t, k, "x = 1")
		cctx, cancel := context.WithCancel(ctx)
		started := make(chan struct{})
		var once sync.Once
		done := make(chan error, 1)
		go func() {
			_, err := k.Execute(cctx, "import time\nprint('started', flush=True)\ntime.sleep(60)", func(c Chunk) {
				if strings.Contains(c.Text, "started") {
					once.Do(func() { close(started) })
				}
			})
			done <- err
		}()
		<-started
		proxy.Blip(2 * time.Second)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want the cancellation", err)
		}
		if res := run(t, k, "print('x is', x)"); !strings.Contains(res.Text, "x is 1") {
			t.Errorf("the kernel was lost: %q", res.Text)
		}
	})
	t.Run("server restarted", func(t *testing.T) {
		_, k := connectRemote(t, rs, url, RemoteOptions{})
		run(t, k, "x = 1")
		err := sleeper(k, func() {
			rs.Kill()
			rs.Restart()
		})
		if !errors.Is(err, ErrKernelDied) || !strings.Contains(err.Error(), "no longer has the kernel") {
			t.Fatalf("error %v, want ErrKernelDied", err)
		}
		if res := run(t, k, "print('x' in dir())"); !strings.Contains(res.Text, "False") {
			t.Errorf("after the restart: %q", res.Text)
		}
	})
}

// Closing through an outage: the kernel and the spare kernel are shut
// down once the server answers again (a spare used to be left running).
func TestRemoteCloseDuringOutage(t *testing.T) {
	rs := remotetest.Start(t, remotetest.KernelGateway, remotetest.Options{})
	proxy := remotetest.NewProxy(t, strings.TrimPrefix(strings.TrimSuffix(rs.URL, "/"), "http://"))
	s, k := connectRemote(t, rs, "http://"+proxy.Addr+"/", RemoteOptions{WarmPool: true})
	run(t, k, "1")
	// The spare is started in the background: wait until the server has two.
	testenv.Eventually(t, time.Minute, func() error {
		if ids, err := rs.Kernels(); err != nil || len(ids) != 2 {
			return fmt.Errorf("kernels %v %v, want the kernel and a spare", ids, err)
		}
		return nil
	})
	start := time.Now() // the outage ends 3 s after this at the earliest
	proxy.Blip(3 * time.Second)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if ids, err := rs.Kernels(); err != nil || len(ids) != 0 {
		t.Fatalf("kernels left after Close: %v %v", ids, err)
	}
	if waited := time.Since(start); waited < 2*time.Second {
		t.Errorf("Close returned after %s, before the outage ended", waited)
	}
}

// docs/remote.md gives users the server setting the benchmark measures.
func TestRemoteDocsNoDelayLine(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "remote.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "\n"+remotetest.NoDelay+"\n") {
		t.Errorf("docs/remote.md does not give the server setting as the tests use it:\n%s", remotetest.NoDelay)
	}
}
