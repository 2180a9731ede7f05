// Package kernelserver owns settling where an agent's code actions run:
// the executors the caller gave, kernels on the Jupyter server of
// jupyter_url, or a local server it starts (provisioning Python when
// needed), inside the sandbox agent.json asks for.
package kernelserver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/executor"
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/remote"
	"github.com/freeact/desktop/agent/sandboxcfg"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/kernel"
)

// Jupyter starts executors as kernels on a Jupyter server.
type Jupyter struct{ Srv *kernel.Server }

// StartExecutor starts a kernel on the server.
func (j Jupyter) StartExecutor(ctx context.Context, opts kernel.KernelOptions) (executor.Executor, error) {
	k, err := j.Srv.StartKernel(ctx, opts)
	if err != nil {
		return nil, err // not a typed nil *kernel.Kernel in the interface
	}
	return k, nil
}

// Warm makes the server's warm pool keep a spare kernel from now on.
func (j Jupyter) Warm() { j.Srv.Warm() }

// spareAfter is how long a local server's warm pool waits, idle, before it
// starts its spare kernel: the memory of a second kernel is not spent at
// start, only once the app has settled or the first subagent starts
// (the agent warms the pool then), so the next subagents start at once.
const spareAfter = time.Minute

// Options say where an agent's code actions may run.
type Options struct {
	Config *config.Config
	// Given are the executors the caller gave (nil: start or connect).
	Given executor.Executors
	// Dirs are the app's folders; KernelDir, when set, holds the local
	// server's state instead of Dirs.Jupyter().
	Dirs      appdirs.Dirs
	KernelDir string
	// Hidden are paths sandboxed code may not read besides the app's
	// secret stores.
	Hidden []string
	// NoProvision makes a missing Python environment an error.
	NoProvision bool
	Progress    func(kernel.Progress)
	Log         *slog.Logger
}

// Place is where the code actions run.
type Place struct {
	// Server is a server started or connected to here (nil: none), to
	// close with the agent.
	Server    *kernel.Server
	Executors executor.Executors
	// Remote is the workspace on a remote server; nil locally.
	Remote *remote.Workspace
}

// Settle settles where code actions run: the executors of o, else
// kernels on the Jupyter server of jupyter_url, else on a local server it
// starts (provisioning Python when needed). What fails is a
// *failure.StartError.
func Settle(ctx context.Context, o Options) (Place, error) {
	if o.Given != nil {
		p := Place{Executors: o.Given}
		if j, ok := o.Given.(Jupyter); ok && j.Srv.Remote() {
			p.Remote = remote.New(j.Srv, o.Log)
		}
		return p, nil
	}
	opts := o.Config.Options
	sandbox, err := Sandbox(o.Config, o.Dirs, o.Hidden, o.KernelDir)
	if err != nil {
		return Place{}, &failure.StartError{Step: failure.StepSandbox, Err: err}
	}
	if opts.JupyterURL != nil && *opts.JupyterURL != "" {
		srv, err := remote.Connect(ctx, o.Config, o.Progress)
		if err != nil {
			return Place{}, &failure.StartError{Step: failure.StepServer, Err: fmt.Errorf("connect to Jupyter server %s: %w", redact.URL(*opts.JupyterURL), err)}
		}
		return Place{Server: srv, Executors: Jupyter{srv}, Remote: remote.New(srv, o.Log)}, nil
	}
	python := ""
	if opts.Python != nil {
		python = *opts.Python
	}
	env, err := kernel.ResolveEnv(ctx, kernel.EnvOptions{
		Python: python, Workspace: o.Config.Dir, DataDir: o.Dirs.Data, SharedDirs: o.Dirs.DataDirs,
		Provision: !o.NoProvision, Progress: o.Progress,
	})
	if err != nil {
		return Place{}, &failure.StartError{Step: failure.StepPython, Err: err}
	}
	sandboxcfg.ProtectServerEnv(sandbox, o.Config.Dir, env.Python)
	dir := o.KernelDir
	if dir == "" {
		dir = o.Dirs.Jupyter()
	}
	// Isolate: every agent (and every freeact process) keeps its kernelspec,
	// sandbox settings and runtime files in a directory of its own there.
	srv, err := kernel.StartServer(ctx, kernel.ServerOptions{
		Python: env.Python, Dir: dir, Isolate: true, Root: o.Config.Dir, RuntimeDir: o.Dirs.Kernels(),
		PythonPath: []string{o.Config.GeneratedDir()},
		WarmPool:   opts.KernelPool == nil && opts.EnableSubagents || opts.KernelPool != nil && *opts.KernelPool, Sandbox: sandbox,
		WarmAfter: spareAfter,
	})
	if err != nil {
		// Kernels are launched by the agent itself (over ZeroMQ), so what
		// fails here is the kernel's start, or the sandbox around it.
		step := failure.StepKernel
		if sandbox != nil {
			step = failure.StepSandbox
		}
		return Place{}, &failure.StartError{Step: step, Err: err}
	}
	return Place{Server: srv, Executors: Jupyter{srv}}, nil
}

// Sandbox returns the kernel sandbox that cfg's agent.json asks for, or
// nil (agent/sandboxcfg): it hides the app's secret stores, the folders
// the options moved one of them to (hidden), and the local server's
// folder kernelDir when set.
func Sandbox(cfg *config.Config, dirs appdirs.Dirs, hidden []string, kernelDir string) (*kernel.Sandbox, error) {
	return sandboxcfg.Settings(cfg, slices.Concat(dirs.SecretPaths(), hidden, []string{kernelDir}))
}
