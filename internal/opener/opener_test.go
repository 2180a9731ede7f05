package opener

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCheckURLAllowsOnlyHTTPSAndLoopbackHTTP(t *testing.T) {
	tests := []struct {
		name, raw string
		url, host string // "" url: refused
		intl      bool
		why       string // part of the refusal
	}{
		{name: "https", raw: "https://example.com/a?b=1#c", url: "https://example.com/a?b=1#c", host: "example.com"},
		{name: "scheme and host lower-cased", raw: "HTTPS://Example.COM/X", url: "https://example.com/X", host: "example.com"},
		{name: "loopback http", raw: "http://127.0.0.1:8080/callback", url: "http://127.0.0.1:8080/callback", host: "127.0.0.1:8080"},
		{name: "loopback range", raw: "http://127.1.2.3/", url: "http://127.1.2.3/", host: "127.1.2.3"},
		{name: "localhost", raw: "http://localhost:3000/x", url: "http://localhost:3000/x", host: "localhost:3000"},
		{name: "ipv6 loopback", raw: "http://[::1]:9/x", url: "http://[::1]:9/x", host: "[::1]:9"},
		{name: "look-alike host in punycode", raw: "https://ехаmple.com/login", url: "https://xn--mple-43d3a6i.com/login", host: "xn--mple-43d3a6i.com", intl: true},
		{name: "international name", raw: "https://bücher.de/", url: "https://xn--bcher-kva.de/", host: "xn--bcher-kva.de", intl: true},
		{name: "remote http", raw: "http://example.com/", why: "not encrypted"},
		{name: "http to a private address", raw: "http://192.168.1.1/", why: "not encrypted"},
		{name: "localhost look-alike", raw: "http://localhost.example.com/", why: "not encrypted"},
		{name: "file", raw: "file:///etc/passwd", why: "file: links are not opened"},
		{name: "javascript", raw: "javascript:alert(1)", why: "javascript: links are not opened"},
		{name: "data", raw: "data:text/html,<script>alert(1)</script>", why: "data: links are not opened"},
		{name: "data without spaces", raw: "data:text/html;base64,PHNjcmlwdD4=", why: "data: links are not opened"},
		{name: "option", raw: "--renderer-cmd-prefix=xterm", why: "begins with \"-\""},
		{name: "short option", raw: "-x", why: "begins with \"-\""},
		{name: "relative", raw: "example.com/x", why: "no scheme"},
		{name: "path", raw: "/etc/passwd", why: "no scheme"},
		{name: "user before host", raw: "https://accounts.example.com@evil.test/", why: "user name before its host"},
		{name: "no host", raw: "https:///x", why: "no host"},
		{name: "opaque", raw: "https:example.com", why: "no host"},
		{name: "newline", raw: "https://example.com/\n--x", why: "control characters"},
		{name: "space", raw: "https://example.com/ -x", why: "spaces"},
		{name: "empty", raw: "", why: "empty"},
		{name: "ssh", raw: "ssh://example.com", why: "ssh: links are not opened"},
		{name: "invalid name", raw: "https://exa_mple..com/", why: "not a valid name"},
		{name: "zone", raw: "http://[fe80::1%25eth0]/", why: "not a valid name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckURL(tt.raw)
			if tt.url == "" {
				if err == nil || !strings.Contains(err.Error(), tt.why) {
					t.Fatalf("CheckURL(%q) = %+v, %v; want a refusal saying %q", tt.raw, got, err, tt.why)
				}
				return
			}
			if err != nil {
				t.Fatalf("CheckURL(%q): %v", tt.raw, err)
			}
			if got.URL != tt.url || got.Host != tt.host || got.International != tt.intl {
				t.Errorf("CheckURL(%q) = %+v; want url %q host %q international %v", tt.raw, got, tt.url, tt.host, tt.intl)
			}
		})
	}
}

func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/", "http://127.0.0.1:1/x", "file:///etc/passwd", "-x", "javascript:1",
		"https://ехаmple.com", "https://a@b/", "http://[::1]/", "HTTPS://X.Y", "https://xn--80ak6aa92e.com/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		l, err := CheckURL(raw)
		if err != nil {
			return
		}
		// What is handed over is a plain absolute URL that no program
		// reads as an option, and checking it again gives it back.
		if !strings.HasPrefix(l.URL, "https://") && !strings.HasPrefix(l.URL, "http://") {
			t.Fatalf("CheckURL(%q) allowed %q", raw, l.URL)
		}
		if strings.HasPrefix(l.URL, "http://") && !loopback(strings.Trim(strings.TrimSuffix(l.Host, ":"+portOf(l.Host)), "[]")) {
			t.Fatalf("CheckURL(%q) allowed http to %q", raw, l.Host)
		}
		for _, r := range l.URL {
			if r <= ' ' || r == 0x7f {
				t.Fatalf("CheckURL(%q) = %q holds a space or control character", raw, l.URL)
			}
		}
		for _, r := range l.Host {
			if r > 0x7e {
				t.Fatalf("CheckURL(%q) host %q is not ASCII", raw, l.Host)
			}
		}
		if strings.Contains(l.Host, "@") {
			t.Fatalf("CheckURL(%q) host %q has a user", raw, l.Host)
		}
		again, err := CheckURL(l.URL)
		if err != nil || again.Host != l.Host {
			t.Fatalf("CheckURL(%q) = %q, which checks as %+v, %v", raw, l.URL, again, err)
		}
	})
}

func portOf(hostport string) string {
	i := strings.LastIndex(hostport, ":")
	if i < 0 || strings.HasSuffix(hostport, "]") {
		return ""
	}
	return hostport[i+1:]
}

// workspace makes a workspace with a few files and links.
func workspace(t *testing.T) (string, Roots) {
	t.Helper()
	ws := t.TempDir()
	write := func(rel string, mode os.FileMode) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("report.html", 0o644)
	write("out/table.csv", 0o644)
	write("Plot.PNG", 0o644)
	write("launch.desktop", 0o644)
	write("run.sh", 0o644)
	write("tool.py", 0o644)
	write("README", 0o644)
	write("exec.pdf", 0o755)
	for link, target := range map[string]string{
		"passwd.txt": "/etc/passwd",
		"inside.csv": filepath.Join(ws, "out", "table.csv"),
		"etc":        "/etc",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "pipe.dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws, Roots{ws}
}

func TestRootsFileAllowsOnlyListedTypesBelowTheWorkspaceWithoutLinks(t *testing.T) {
	ws, roots := workspace(t)
	tests := []struct {
		path string
		ok   bool
		why  string
	}{
		{path: "report.html", ok: true},
		{path: "out/table.csv", ok: true},
		{path: "./out/../out/table.csv", ok: true},
		{path: filepath.Join(ws, "Plot.PNG"), ok: true},
		{path: "passwd.txt", why: "symbolic link"},
		{path: "inside.csv", why: "symbolic link"},
		{path: "etc/passwd", why: "symbolic link"},
		{path: "/etc/passwd", why: "outside the workspace"},
		{path: "../x.txt", why: "outside the workspace"},
		{path: "launch.desktop", why: ".desktop files are not opened"},
		{path: "run.sh", why: ".sh files are not opened"},
		{path: "tool.py", why: ".py files are not opened"},
		{path: "README", why: "no file type"},
		{path: "exec.pdf", why: "executable"},
		{path: "pipe.dir", why: "not a regular file"},
		{path: "missing.txt", why: "no such file"},
		{path: "", why: "no file"},
		{path: "a\x00.txt", why: "not a valid path"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := roots.File(tt.path)
			if !tt.ok {
				if err == nil || !strings.Contains(err.Error(), tt.why) {
					t.Fatalf("File(%q) = %q, %v; want a refusal saying %q", tt.path, got, err, tt.why)
				}
				return
			}
			if err != nil {
				t.Fatalf("File(%q): %v", tt.path, err)
			}
			if !filepath.IsAbs(got) || !strings.HasPrefix(got, ws+"/") {
				t.Errorf("File(%q) = %q, want an absolute path in %s", tt.path, got, ws)
			}
		})
	}
	if _, err := (Roots{}).File("report.html"); err == nil {
		t.Error("a file was allowed with no workspace")
	}
}

func TestRootsItemTakesFoldersButNoLinks(t *testing.T) {
	ws, roots := workspace(t)
	images := t.TempDir()
	if err := os.WriteFile(filepath.Join(images, "a.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	roots = append(roots, images)
	for path, want := range map[string]string{
		"out":                          filepath.Join(ws, "out"),
		"launch.desktop":               filepath.Join(ws, "launch.desktop"),
		ws:                             ws,
		filepath.Join(images, "a.png"): filepath.Join(images, "a.png"),
	} {
		if got, err := roots.Item(path); err != nil || got != want {
			t.Errorf("Item(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{"etc", "passwd.txt", "/etc/passwd", filepath.Dir(ws)} {
		if got, err := roots.Item(path); err == nil {
			t.Errorf("Item(%q) = %q, want a refusal", path, got)
		}
	}
}

// standIn puts programs named names on a fresh PATH that record their
// argument vector (one argument a line, then a line "--end--") in log
// and exit with status; it returns the log's path.
func standIn(t *testing.T, status int, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "argv.log")
	script := "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\" >> " + log + "; done\necho --end-- >> " + log +
		"\necho 'cannot open it: no application for this type' >&2\nexit " + string(rune('0'+status)) + "\n"
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return log
}

// calls reads the argument vectors the stand-ins recorded.
func calls(t *testing.T, log string) [][]string {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "--end--" {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	return out
}

func TestOpenURLHandsOnlyCheckedURLsToTheBrowser(t *testing.T) {
	log := standIn(t, 0, "xdg-open", "browser")
	t.Setenv("BROWSER", "")
	ctx := context.Background()
	var o Opener
	for _, raw := range []string{"file:///etc/passwd", "--renderer-cmd-prefix=/bin/sh -c id", "-x", "javascript:alert(1)",
		"data:text/html;base64,PHNjcmlwdD4=", "http://example.com/", "https://a.example@evil.test/"} {
		if _, err := o.OpenURL(ctx, raw); err == nil {
			t.Errorf("OpenURL(%q) was allowed", raw)
		}
	}
	if got := calls(t, log); len(got) != 0 {
		t.Fatalf("refused URLs reached a program: %q", got)
	}
	if l, err := o.OpenURL(ctx, "https://ехаmple.com/login"); err != nil || l.Host != "xn--mple-43d3a6i.com" {
		t.Fatalf("OpenURL of a look-alike host = %+v, %v", l, err)
	}
	t.Setenv("BROWSER", "browser --new-tab:other")
	if _, err := o.OpenURL(ctx, "http://127.0.0.1:8080/cb?x=1"); err != nil {
		t.Fatal(err)
	}
	got := calls(t, log)
	want := [][]string{
		{filepath.Join(filepath.Dir(log), "xdg-open"), "https://xn--mple-43d3a6i.com/login"},
		{filepath.Join(filepath.Dir(log), "browser"), "--new-tab", "http://127.0.0.1:8080/cb?x=1"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("the programs got %q, want %q", got, want)
	}
	// The target is never what a program could read as an option.
	for _, c := range got {
		if last := c[len(c)-1]; strings.HasPrefix(last, "-") {
			t.Errorf("option-like target %q", last)
		}
	}
	// A browser that fails is reported, and so is having none.
	t.Setenv("BROWSER", "")
	standIn(t, 1, "xdg-open")
	if _, err := o.OpenURL(ctx, "https://example.com/?token=s3cr3t"); err == nil || !strings.Contains(err.Error(), "exit status 1") ||
		!strings.Contains(err.Error(), "copy the link") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("OpenURL with a failing xdg-open = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := o.OpenURL(ctx, "https://example.com/"); !errors.Is(err, ErrNoBrowser) {
		t.Errorf("OpenURL without a browser = %v", err)
	}
}

func TestOpenFileHandsAnAbsolutePathAndReportsFailure(t *testing.T) {
	ws, roots := workspace(t)
	ctx := context.Background()
	var o Opener

	log := standIn(t, 0, "xdg-open")
	if err := o.OpenFile(ctx, roots, "out/table.csv"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"passwd.txt", "launch.desktop", "run.sh", "/etc/passwd", "-x.txt", "--help"} {
		if err := o.OpenFile(ctx, roots, p); err == nil {
			t.Errorf("OpenFile(%q) was allowed", p)
		}
	}
	got := calls(t, log)
	if len(got) != 1 || len(got[0]) != 2 || got[0][1] != filepath.Join(ws, "out", "table.csv") {
		t.Fatalf("xdg-open got %q, want one call with the absolute path", got)
	}

	// xdg-open is there but cannot open the file: the error says so, with
	// what it wrote and what to do.
	standIn(t, 3, "xdg-open")
	err := o.OpenFile(ctx, roots, "report.html")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "no application for this type") ||
		!strings.Contains(err.Error(), "copy the path") {
		t.Errorf("OpenFile with a failing xdg-open = %v", err)
	}

	// Without any program it says what to install.
	t.Setenv("PATH", t.TempDir())
	if err := o.OpenFile(ctx, roots, "report.html"); err == nil || !strings.Contains(err.Error(), "xdg-open was not found") {
		t.Errorf("OpenFile without xdg-open = %v", err)
	}
}

func TestOpenTakesAProgramStillRunningAsStarted(t *testing.T) {
	dir := t.TempDir()
	// A browser that stays open: its exit status is not awaited forever.
	script := "#!/bin/sh\nexec sleep 30\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	t.Setenv("BROWSER", "")
	start := time.Now()
	if _, err := (Opener{Wait: 100 * time.Millisecond}).OpenURL(context.Background(), "https://example.com/"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("OpenURL waited %v for a browser that stays open", d)
	}
}

func TestShowInFolderFallsBackToTheFolder(t *testing.T) {
	ws, roots := workspace(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	log := standIn(t, 0, "xdg-open")
	ctx := context.Background()
	if err := (Opener{}).ShowInFolder(ctx, roots, "out/table.csv"); err != nil {
		t.Fatal(err)
	}
	if err := (Opener{}).ShowInFolder(ctx, roots, "etc/passwd"); err == nil {
		t.Error("ShowInFolder through a link was allowed")
	}
	if got := calls(t, log); len(got) != 1 || got[0][1] != filepath.Join(ws, "out") {
		t.Errorf("xdg-open got %q, want the file's folder", got)
	}
	t.Setenv("PATH", t.TempDir())
	if err := (Opener{}).ShowInFolder(ctx, roots, "out/table.csv"); err == nil || !strings.Contains(err.Error(), "no file manager answers") {
		t.Errorf("ShowInFolder with neither = %v", err)
	}
}
