// Package acp is freeact as an Agent Client Protocol agent (`freeact acp`):
// editors and notebooks host the same agent the window and the terminal
// use, over JSON-RPC on stdio. It adapts; the agent decides: approvals
// become session/request_permission, the events of a turn become
// session/update notifications, and sessions are the workspace's own.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/modelopen"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/appdirs"
)

// Options are what the command line hands the server.
type Options struct {
	// Workspace, when set, is the folder every session works in whatever
	// cwd the client sends (--workspace); "" uses the client's cwd.
	Workspace string
	// Dirs are the app's folders (keys, locks, kernels).
	Dirs appdirs.Dirs
	// Keys is the app's key store; nil uses none.
	Keys *config.AppStore
	// Log receives diagnostics; it must not write to the protocol's
	// stdout.
	Log *slog.Logger
	// Version is the build's version, sent as agentInfo.
	Version string
	// AgentOptions are added to every agent started (tests).
	AgentOptions []agent.Option
}

// Server is one connection's agent side: the sessions it opened.
type Server struct {
	o    Options
	conn *sdk.AgentSideConnection
	// life ends when the client goes away; agents run under it, not
	// under the request that started them.
	life context.Context

	mu     sync.Mutex
	client sdk.ClientCapabilities
	// rawAsObject: the client takes a tool call's rawOutput only as an
	// object (Toad); others get the text itself.
	rawAsObject bool
	sessions    map[string]*acpSession
	starting    map[string]bool // ids being loaded or resumed
}

var (
	_ sdk.Agent       = (*Server)(nil)
	_ sdk.AgentLoader = (*Server)(nil)
)

// Serve speaks ACP on in and out until the client goes away or ctx ends;
// then it stops every turn and agent it started.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	life, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{o: o, life: life, sessions: map[string]*acpSession{}, starting: map[string]bool{}}
	w := &lockedWriter{w: out}
	s.conn = sdk.NewAgentSideConnection(s, w, guard(in, w, func(err error) { o.Log.Error("read the client's messages", "err", err) }))
	s.conn.SetLogger(o.Log)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	cancel()
	s.closeAll()
	return nil
}

// closeAll stops every session's turn and agent: the client went away.
func (s *Server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*acpSession{}
	s.mu.Unlock()
	for _, ss := range all {
		ss.close(s.o.Log)
	}
}

// Authentication methods: the ways freeact holds a model key.
const (
	AuthEnv      = "env"
	AuthDotEnv   = "dotenv"
	AuthKeyStore = "keystore"
)

// Initialize answers with freeact's capabilities.
func (s *Server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.rawAsObject = p.ClientInfo != nil && strings.EqualFold(p.ClientInfo.Name, "toad")
	s.mu.Unlock()
	desc := func(t string) *string { return &t }
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "freeact", Title: desc("freeact"), Version: s.o.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{
			{Agent: &sdk.AuthMethodAgent{Id: AuthEnv, Name: "Environment", Description: desc("the model's API key in the environment freeact acp starts in (e.g. GEMINI_API_KEY)")}},
			{Agent: &sdk.AuthMethodAgent{Id: AuthDotEnv, Name: "Workspace .env", Description: desc("the model's API key in the workspace's .env file")}},
			{Agent: &sdk.AuthMethodAgent{Id: AuthKeyStore, Name: "freeact key store", Description: desc("the key saved in the freeact app's settings (open freeact, Settings, API keys)")}},
		},
	}, nil
}

// Authenticate checks that the model has a key by the method chosen. The
// key itself never crosses the protocol: freeact reads it where it is.
func (s *Server) Authenticate(_ context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	switch p.MethodId {
	case AuthEnv, AuthDotEnv, AuthKeyStore:
	default:
		return sdk.AuthenticateResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown method %q: use %s, %s or %s", p.MethodId, AuthEnv, AuthDotEnv, AuthKeyStore)})
	}
	if s.o.Workspace == "" {
		// The workspace comes with session/new; its key is checked there.
		return sdk.AuthenticateResponse{}, nil
	}
	ws, err := s.open(s.o.Workspace)
	if err != nil {
		return sdk.AuthenticateResponse{}, err
	}
	if err := modelopen.Check(ws.Config); err != nil {
		return sdk.AuthenticateResponse{}, authRequired(err)
	}
	return sdk.AuthenticateResponse{}, nil
}

func authRequired(err error) error {
	return sdk.NewAuthRequired(map[string]any{"error": err.Error()})
}

// workspaceDir is the folder a session works in: --workspace, else the
// client's cwd, which must be absolute.
func (s *Server) workspaceDir(cwd string) (string, error) {
	if s.o.Workspace != "" {
		return s.o.Workspace, nil
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path: send the folder to work in as an absolute path", cwd)})
	}
	return filepath.Clean(cwd), nil
}

func (s *Server) open(dir string) (*agent.Workspace, error) {
	ws, err := agent.OpenWorkspace(dir, agent.WorkspaceOptions{Keys: s.o.Keys, Log: s.o.Log, Dirs: s.o.Dirs})
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return ws, nil
}

// NewSession opens the workspace at cwd (creating .freeact/ as freeact
// init does) and starts an agent in a new session.
func (s *Server) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	ss, err := s.start(p.Cwd, p.McpServers, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	ss.advertise()
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(ss.id), Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// LoadSession reopens a session and streams its history back as updates.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is empty: give the id session/list shows"})
	}
	ss, err := s.start(p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	ss.replayHistory(ctx)
	ss.advertise()
	return sdk.LoadSessionResponse{Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// ResumeSession reopens a session without streaming its history.
func (s *Server) ResumeSession(_ context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.ResumeSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is empty: give the id session/list shows"})
	}
	ss, err := s.start(p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	ss.advertise()
	return sdk.ResumeSessionResponse{Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// start opens the workspace and starts an agent in the session id ("": a
// new one).
func (s *Server) start(cwd string, servers []sdk.McpServer, id string) (*acpSession, error) {
	if id != "" {
		// The id is taken before the agent starts, so that two loads of
		// one session on this connection cannot both open it.
		s.mu.Lock()
		_, open := s.sessions[id]
		open = open || s.starting[id]
		if !open {
			s.starting[id] = true
		}
		s.mu.Unlock()
		if open {
			return nil, sdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf("session %s is already open on this connection: use it, or session/close it first", id)})
		}
		defer func() {
			s.mu.Lock()
			delete(s.starting, id)
			s.mu.Unlock()
		}()
	}
	dir, err := s.workspaceDir(cwd)
	if err != nil {
		return nil, err
	}
	ws, err := s.open(dir)
	if err != nil {
		return nil, err
	}
	cfg := ws.Config
	if err := addClientServers(cfg, servers); err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ss := &acpSession{srv: s, dir: ws.Dir, cfg: cfg}
	a, err := adapter.StartAgent(s.life, adapter.AgentSpec{
		Workspace: ws, Config: cfg, SessionID: id, CheckModel: true,
		Warn:   func(w config.Warning) { s.o.Log.Warn("workspace configuration", "warning", w) },
		SignIn: mcp.SignInOptions{Browser: ss.signIn}, Forms: ss.elicit,
		Options: append(ss.agentOptions(), s.o.AgentOptions...),
	})
	var noModel *adapter.ModelError
	switch {
	case errors.As(err, &noModel):
		return nil, authRequired(err)
	case errors.Is(err, session.ErrBusy):
		return nil, sdk.NewInvalidRequest(map[string]any{"error": err.Error(), "sessionId": id})
	case err != nil:
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	ss.a, ss.id = a, a.SessionID()
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

// session looks up an open session.
func (s *Server) session(id sdk.SessionId) (*acpSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no open session %q: open it with session/new, session/load or session/resume first", id)})
	}
	return ss, nil
}

// Prompt runs one turn of the session.
func (s *Server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return ss.prompt(ctx, p.Prompt)
}

// Cancel stops the session's turn and interrupts its cell, as Stop does;
// a cancel when no turn runs does nothing.
func (s *Server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return nil // a notification has no answer; nothing runs there
	}
	ss.cancel()
	return nil
}

// CloseSession stops the session's turn and its agent.
func (s *Server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s.mu.Lock()
	ss, ok := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if !ok {
		return sdk.CloseSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no open session %q", p.SessionId)})
	}
	ss.close(s.o.Log)
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions lists the workspace's sessions, most recent first. It
// reads; it creates nothing.
func (s *Server) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	if cwd == "" && s.o.Workspace == "" {
		// No filter: the folder the client started freeact acp in.
		wd, err := os.Getwd()
		if err != nil {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": "no cwd, and the working folder is unknown: give the workspace folder whose sessions to list"})
		}
		cwd = wd
	}
	dir, err := s.workspaceDir(cwd)
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	cfg := &config.Config{Dir: dir, FreeactDir: filepath.Join(dir, config.FreeactDir)}
	list, err := session.List(cfg.SessionsDir(), adapter.SessionTitle)
	if err != nil && len(list) == 0 {
		return sdk.ListSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, info := range list {
		title, updated := info.Title, info.LastActive.UTC().Format("2006-01-02T15:04:05Z")
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(info.ID), Cwd: dir, Title: &title, UpdatedAt: &updated})
	}
	return out, nil
}

// addClientServers adds the MCP servers the client passes to agent.json's
// (JSON tools, mcp_servers); a name agent.json already uses is an error,
// so the client cannot replace a server the workspace trusts.
func addClientServers(cfg *config.Config, servers []sdk.McpServer) error {
	for _, srv := range servers {
		var name string
		var c config.Server
		switch {
		case srv.Stdio != nil:
			name = srv.Stdio.Name
			if srv.Stdio.Command == "" {
				return fmt.Errorf("MCP server %q has no command", name)
			}
			c = config.Server{Command: srv.Stdio.Command, Args: srv.Stdio.Args}
			if len(srv.Stdio.Env) > 0 {
				c.Env = map[string]string{}
				for _, e := range srv.Stdio.Env {
					c.Env[e.Name] = e.Value
				}
			}
		case srv.Http != nil:
			name = srv.Http.Name
			c = config.Server{URL: srv.Http.Url}
			if len(srv.Http.Headers) > 0 {
				c.Headers = map[string]string{}
				for _, h := range srv.Http.Headers {
					c.Headers[h.Name] = h.Value
				}
			}
		default:
			return errors.New("an MCP server of a transport freeact does not take (it takes stdio and http)")
		}
		if name == "" {
			return errors.New("an MCP server without a name: give each server a name")
		}
		if _, ok := cfg.Options.MCPServers[name]; ok {
			return fmt.Errorf("MCP server %q is already in the workspace's agent.json: give the client's server another name", name)
		}
		if _, ok := cfg.Options.PTCServers[name]; ok {
			return fmt.Errorf("MCP server %q is already in the workspace's agent.json: give the client's server another name", name)
		}
		if cfg.Options.MCPServers == nil {
			cfg.Options.MCPServers = map[string]config.Server{}
		}
		cfg.Options.MCPServers[name] = c
	}
	return nil
}
