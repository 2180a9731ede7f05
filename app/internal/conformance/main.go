// Command conformance is the client that the official MCP conformance suite
// runs (make test-mcp-conformance) to test freeact as users run it:
// `freeact run --json` with the suite's server in mcp_servers and a fake
// model (modeltest, on the Gemini wire) that calls the scenario's tools.
// It plays a script that answers the questions on stdin as a user who
// accepts: approvals yes, forms accepted as shown (the defaults), a
// sign-in accepted and its link opened with $BROWSER.
//
//	conformance -freeact PATH [-python PATH] SERVER_URL
//
// MCP_CONFORMANCE_SCENARIO names the scenario (it picks the tool calls)
// and MCP_CONFORMANCE_CONTEXT (JSON) carries what the scenario says a
// user would have configured, such as a pre-registered client.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/freeact/desktop/agent/model/modeltest"
)

// calls are the tool calls the model makes in each scenario, by the
// names of the scenario's tools; a scenario not listed only connects.
var calls = map[string][]call{
	"tools_call":                          {{"add_numbers", map[string]any{"a": 2, "b": 3}}},
	"elicitation-sep1034-client-defaults": {{"test_client_elicitation_defaults", map[string]any{}}},
	"sse-retry":                           {{"test_reconnection", map[string]any{}}},
}

type call struct {
	tool string
	args map[string]any
}

// server is the name of the suite's server in agent.json: its tools are
// conf_<tool>.
const server = "conf"

func main() {
	freeact := flag.String("freeact", "", "the freeact `binary`")
	python := flag.String("python", os.Getenv("FREEACT_TEST_PYTHON"), "the `python` with ipykernel the kernel runs in")
	flag.Parse()
	if *freeact == "" || flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: conformance -freeact PATH [-python PATH] SERVER_URL")
		os.Exit(2)
	}
	// Within the suite's timeout (run.sh gives 60 s), so that freeact is
	// stopped in good order rather than killed with the suite's shell.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	if err := run(ctx, *freeact, *python, flag.Arg(flag.NArg()-1)); err != nil {
		fmt.Fprintln(os.Stderr, "conformance (freeact run --json):", err)
		os.Exit(1)
	}
}

// reporter is the modeltest.T of a program: failures go to stderr.
type reporter struct{ failed bool }

func (r *reporter) Helper() {}
func (r *reporter) Errorf(format string, args ...any) {
	r.failed = true
	fmt.Fprintf(os.Stderr, "fake model: "+format+"\n", args...)
}
func (r *reporter) Cleanup(func()) {}

func run(ctx context.Context, freeact, python, url string) error {
	dir, err := os.MkdirTemp("", "mcp-conformance-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := serverConfig(url, dir)
	if err != nil {
		return err
	}
	ws := filepath.Join(dir, "ws")
	cfg := map[string]any{"mcp_servers": map[string]any{server: srv}, "enable_subagents": false}
	if python != "" {
		cfg["python"] = python
	}
	if err := writeJSON(filepath.Join(ws, ".freeact", "agent.json"), cfg); err != nil {
		return err
	}

	// The model calls the scenario's tools, then answers.
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	todo, ok := calls[scenario]
	if !ok && strings.HasPrefix(scenario, "auth/") {
		// The servers of the sign-in scenarios have one tool; a call
		// with too little scope is what a step-up needs.
		todo = []call{{"test-tool", map[string]any{}}}
	}
	var parts []modeltest.ReplyPart
	for i, c := range todo {
		parts = append(parts, modeltest.ReplyPart{Call: &modeltest.CallReply{ID: fmt.Sprintf("c%d", i+1), Name: server + "_" + c.tool, Args: c.args}})
	}
	sc := modeltest.Scenario{Name: scenario, AllowUnplayed: true}
	if len(parts) > 0 {
		sc.Turns = append(sc.Turns, modeltest.Turn{Reply: parts})
	}
	sc.Turns = append(sc.Turns, modeltest.Turn{Reply: []modeltest.ReplyPart{{Text: "Done."}}})
	rep := &reporter{}
	fake := modeltest.NewGemini(rep, sc)
	defer fake.Close()

	// A start opens no browser: a server that asks for a sign-in is
	// signed in to first, as a headless user does, with freeact mcp
	// login (its browser is $BROWSER). A sign-in a call needs later (a
	// step-up) is a SignInRequest question of the run. The scenario's
	// server judges the sign-in, so a refused one is not an error here.
	if browserSignIn(scenario) {
		login := exec.CommandContext(ctx, freeact, "mcp", "login", server, "--workspace", ws)
		login.Env = environment(dir, fake.URL())
		login.Stdout, login.Stderr = os.Stderr, os.Stderr
		if err := login.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "freeact mcp login:", err)
		}
	}

	cmd := exec.CommandContext(ctx, freeact, "run", "--json", "--workspace", ws, "--prompt", "Use the tools of the server conf.")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = environment(dir, fake.URL())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	answerErr := answer(ctx, stdout, stdin)
	stdin.Close()
	waitErr := cmd.Wait()
	switch {
	case answerErr != nil:
		return answerErr
	case waitErr != nil:
		return fmt.Errorf("freeact run: %w", waitErr)
	case rep.failed:
		return errors.New("the fake model's scenario did not play as written")
	}
	return nil
}

// answer reads freeact's events, echoes them to stdout, and answers each
// question as a user who accepts.
func answer(ctx context.Context, events io.Reader, answers io.Writer) error {
	sc := bufio.NewScanner(events)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(answers, "%s\n", b)
		return err
	}
	accept := func(id string) map[string]any { return map[string]any{"id": id, "action": "accept"} }
	var failures []string
	for sc.Scan() {
		fmt.Println(sc.Text())
		var ev struct {
			Type   string `json:"type"`
			ID     string `json:"id"`
			Mode   string `json:"mode"`
			URL    string `json:"url"`
			Error  string `json:"error"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("an event is not JSON: %q", sc.Text())
		}
		var err error
		switch ev.Type {
		case "ApprovalRequest", "BudgetRequest", "Confirm":
			err = send(accept(ev.ID))
		case "FormRequest":
			a := accept(ev.ID)
			if ev.Mode == "form" {
				a["content"] = map[string]any{} // the form as shown: its defaults
			}
			err = send(a)
		case "SignInRequest":
			// Accept first: the sign-in ends, and the question closes,
			// once the browser reaches the redirect.
			if err = send(accept(ev.ID)); err == nil {
				err = browse(ctx, ev.URL)
			}
		case "ReplayOffer", "InputRequest":
			err = send(map[string]any{"id": ev.ID, "action": "decline"})
		case "AnswerError":
			failures = append(failures, "an answer was refused: "+ev.Error)
		case "QuestionClosed":
			failures = append(failures, fmt.Sprintf("question %s closed unanswered: %s", ev.ID, ev.Reason))
		case "Failed":
			failures = append(failures, "the turn failed: "+ev.Error)
		}
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "; "))
	}
	return nil
}

// browserSignIn says whether the scenario signs in through the browser
// (authorization code), not with a grant of its own.
func browserSignIn(scenario string) bool {
	return strings.HasPrefix(scenario, "auth/") && !strings.HasPrefix(scenario, "auth/client-credentials") &&
		!strings.HasPrefix(scenario, "auth/cross-app")
}

// browse opens u with $BROWSER, the suite's user who approves.
func browse(ctx context.Context, u string) error {
	b := os.Getenv("BROWSER")
	if b == "" {
		return errors.New("a sign-in needs $BROWSER (scripts/mcp-conformance/browser.sh)")
	}
	cmd := exec.CommandContext(ctx, b, u)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("browser %s: %w", b, err)
	}
	return nil
}

// environment is freeact's: the fake model, folders of the run's own (no
// keyring: the session bus is left out, so nothing reaches the user's).
func environment(dir, model string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GEMINI_API_KEY" || k == "GOOGLE_API_KEY" || k == "DBUS_SESSION_BUS_ADDRESS" || strings.HasPrefix(k, "XDG_"):
		default:
			env = append(env, kv)
		}
	}
	return append(env, "GOOGLE_GEMINI_BASE_URL="+model, "GEMINI_API_KEY=fake-key", "NO_COLOR=1",
		"XDG_STATE_HOME="+dir+"/state", "XDG_CONFIG_HOME="+dir+"/config", "XDG_DATA_HOME="+dir+"/data", "XDG_CACHE_HOME="+dir+"/cache")
}

// serverConfig is the suite's server as agent.json has it, with what the
// scenario's context says the user configured (a private key goes in a
// file in dir).
func serverConfig(url, dir string) (map[string]any, error) {
	srv := map[string]any{"url": url}
	raw := os.Getenv("MCP_CONFORMANCE_CONTEXT")
	if raw == "" {
		// The scenario's authorization server accepts this client ID
		// metadata document (it stands for one the user hosts).
		srv["oauth"] = map[string]any{"client_metadata_url": "https://conformance-test.local/client-metadata.json"}
		return srv, nil
	}
	var c struct {
		ClientID      string `json:"client_id"`
		ClientSecret  string `json:"client_secret"`
		PrivateKeyPEM string `json:"private_key_pem"`
		Algorithm     string `json:"signing_algorithm"`
		IDPClientID   string `json:"idp_client_id"`
		IDToken       string `json:"idp_id_token"`
		IDPTokenURL   string `json:"idp_token_endpoint"`
	}
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	oauth := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			oauth[k] = v
		}
	}
	set("client_id", c.ClientID)
	set("client_secret", c.ClientSecret)
	set("signing_algorithm", c.Algorithm)
	if c.PrivateKeyPEM != "" {
		key := filepath.Join(dir, "client-key.pem")
		if err := os.WriteFile(key, []byte(c.PrivateKeyPEM), 0o600); err != nil {
			return nil, err
		}
		oauth["private_key_file"] = key
	}
	switch {
	case strings.HasPrefix(os.Getenv("MCP_CONFORMANCE_SCENARIO"), "auth/client-credentials"):
		oauth["grant"] = "client_credentials"
	case c.IDToken != "":
		oauth["grant"] = "enterprise"
		set("idp_client_id", c.IDPClientID)
		set("id_token", c.IDToken)
		set("idp_token_endpoint", c.IDPTokenURL)
	}
	srv["oauth"] = oauth
	return srv, nil
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
