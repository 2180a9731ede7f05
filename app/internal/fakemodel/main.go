// Command fakemodel serves a scripted conversation on the Gemini wire (the
// modeltest fake) for the browser end-to-end tests: it prints the server's
// URL on its first line of output and serves until stdin closes or it is
// killed. Scenario mismatches are printed to stderr and make later requests
// fail, so the test sees them.
//
//	fakemodel scenario.yaml
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/freeact/desktop/agent/model/modeltest"
)

// reporter is the modeltest.T of a program: failures go to stderr.
type reporter struct{ cleanups []func() }

func (r *reporter) Helper() {}
func (r *reporter) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakemodel: "+format+"\n", args...)
}
func (r *reporter) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakemodel SCENARIO.yaml")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
	sc, err := modeltest.ParseScenario(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
	sc.AllowUnplayed = true
	r := &reporter{}
	srv := modeltest.NewGemini(r, sc)
	fmt.Println(srv.URL())
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	select {
	case <-done:
	case <-sigs:
	}
	srv.Close()
}
