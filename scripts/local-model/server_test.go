//go:build localmodel

package localmodel_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// env returns a variable make test-local-model sets.
func env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run make test-local-model", name)
	}
	return v
}

// llama is a running llama-server.
type llama struct {
	URL     string // http://127.0.0.1:PORT
	Version string // llama-server --version
}

// startLlama starts llama-server on a free loopback port with the model and
// args (a chat template, a context size) and waits until it is ready; the
// test's cleanup stops it by its PID.
func startLlama(t *testing.T, args ...string) llama {
	t.Helper()
	bin := env(t, "LLAMA_SERVER")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	version := strings.Join(strings.Fields(string(out)), " ")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	args = append([]string{"-m", env(t, "LLAMA_MODEL"), "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--jinja", "-np", "1", "-t", "2", "--seed", "1", "--no-warmup"}, args...)
	cmd := exec.Command(bin, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start llama-server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return llama{URL: url, Version: version}
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("llama-server %v exited: %v\n%s", args, err, log.String())
		case <-ctx.Done():
			t.Fatalf("llama-server %v not ready within 5 minutes:\n%s", args, log.String())
		case <-time.After(200 * time.Millisecond): // polling a process we do not control
		}
	}
}
