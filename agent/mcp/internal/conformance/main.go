// Command conformance is the client that the official MCP conformance suite
// (npm @modelcontextprotocol/conformance, make test-mcp-conformance) runs:
// it connects to the server URL the suite gives as its last argument
// through agent/mcp's Manager — the same code the agent uses for a server
// in mcp_servers — lists the tools and calls each one with arguments made
// from its input schema. The user's part (the browser step of a sign-in,
// answering an elicitation) is played as a user who accepts: $BROWSER is
// expected to follow the redirect, and an elicitation form is accepted
// with its defaults.
//
// MCP_CONFORMANCE_CONTEXT (JSON) carries what the scenario says a user
// would have configured, such as a pre-registered client.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance SERVER_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := config.Server{URL: url}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
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
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
		srv.OAuth = &config.OAuth{ClientID: c.ClientID, ClientSecret: c.ClientSecret, PrivateKeyPEM: c.PrivateKeyPEM, SigningAlgorithm: c.Algorithm}
		switch {
		case strings.HasPrefix(os.Getenv("MCP_CONFORMANCE_SCENARIO"), "auth/client-credentials"):
			srv.OAuth.Grant = "client_credentials"
		case c.IDToken != "":
			srv.OAuth.Grant = "enterprise"
			srv.OAuth.IDPClientID, srv.OAuth.IDToken, srv.OAuth.IDPTokenEndpoint = c.IDPClientID, c.IDToken, c.IDPTokenURL
		}
	} else {
		// The scenario's authorization server accepts this client ID
		// metadata document (it stands for one the user hosts).
		srv.OAuth = &config.OAuth{ClientMetadataURL: "https://conformance-test.local/client-metadata.json"}
	}
	dir, err := os.MkdirTemp("", "mcp-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m := mcp.NewManager(map[string]config.Server{"conf": srv}, mcp.Options{
		Log: log, ClientName: "freeact-conformance",
		// A fresh store: the run must not read or write the user's keyring.
		SignIn: mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(dir)},
		// A user who accepts each form as it is shown, with its defaults.
		Elicit: func(context.Context, mcp.Form) (mcp.Answer, error) { return mcp.Answer{Action: "accept"}, nil },
	})
	defer m.Close()
	tools, err := m.ServerTools(ctx, "conf")
	if err != nil {
		return err
	}
	for _, t := range tools {
		args, err := json.Marshal(sampleArgs(t.InputSchema))
		if err != nil {
			return err
		}
		res, err := m.Call(ctx, "conf", t.Name, args)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s\n", t.Name, res.ModelText())
	}
	return nil
}

// sampleArgs makes arguments that satisfy an object schema: each required
// (and each other) property gets a value of its type.
func sampleArgs(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type    any   `json:"type"`
			Default any   `json:"default"`
			Enum    []any `json:"enum"`
		} `json:"properties"`
	}
	out := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return out
	}
	for name, p := range s.Properties {
		switch {
		case p.Default != nil:
			out[name] = p.Default
		case len(p.Enum) > 0:
			out[name] = p.Enum[0]
		default:
			switch p.Type {
			case "number", "integer":
				out[name] = 1
			case "boolean":
				out[name] = true
			case "array":
				out[name] = []any{}
			case "object":
				out[name] = map[string]any{}
			default:
				out[name] = "test"
			}
		}
	}
	return out
}
