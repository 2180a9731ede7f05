// Command fakemodel serves a scripted conversation on the Gemini wire (the
// modeltest fake) for the browser and journey tests and for trying the app
// by hand: it prints the server's URL on its first line of output and
// serves until stdin closes or it is killed. Scenario mismatches are
// printed to stderr and make later requests fail, so the test sees them.
// With -log, every request is appended to a file as one JSON object a line
// (modeltest.Logged), so a test can check what the model received.
//
//	fakemodel [-log requests.jsonl] scenario.yaml
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
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
	logFile := flag.String("log", "", "append each request to this `file` as a JSON line")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: fakemodel [-log FILE] SCENARIO.yaml")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
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
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemodel:", err)
			os.Exit(1)
		}
		defer f.Close()
		var mu sync.Mutex
		srv.OnRequest(func(n int, req modeltest.Request) {
			b, err := json.Marshal(req.Log(n))
			if err != nil {
				fmt.Fprintln(os.Stderr, "fakemodel: log request:", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			// One write a line, synced: a reader never sees half of one.
			if _, err := f.Write(append(b, '\n')); err != nil {
				fmt.Fprintln(os.Stderr, "fakemodel: log request:", err)
			}
			_ = f.Sync()
		})
	}
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
