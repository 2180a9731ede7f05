// Package kernel runs Python code in a stateful IPython kernel over the
// Jupyter protocol. It owns the Python environment, local kernels (launched
// directly and reached over ZeroMQ, kernel/zmqwire, or behind a local
// Jupyter server), the connection to a remote server (its websocket in
// kernel/wswire, and the files of a workspace there) and the in-kernel
// hooks through which running code asks its caller for approvals, tool calls
// and user input. It knows nothing about agents.
//
// Typical use:
//
//	env, err := kernel.ResolveEnv(ctx, kernel.EnvOptions{Python: cfg.Python, Workspace: ws, Provision: true, Progress: show})
//	srv, err := kernel.StartServer(ctx, kernel.ServerOptions{Python: env.Python, Dir: stateDir, Root: ws, WarmPool: true})
//	// or: srv, err := kernel.ConnectServer(ctx, url, token, kernel.RemoteOptions{})
//	k, err := srv.StartKernel(ctx, kernel.KernelOptions{Workspace: ws, Host: host, ExecutionTimeout: 300 * time.Second})
//	res, err := k.Execute(ctx, code, func(c kernel.Chunk) { ... })
//	defer srv.Close() // shuts down every kernel (and a server process group)
//
// A remote server keeps its kernels through network trouble (the websocket
// is restored to the same kernel; see kernel/wswire), and its files are
// reached with Files, for a workspace that lives on the server:
//
//	files, err := srv.OpenFiles(ctx, k, "projects/x") // made when missing
//	err = k.SetWorkspace(ctx, files.Root(), []string{files.Root() + "/.freeact/generated"})
//
// Code in the kernel reaches the Host (implemented by the caller) for every
// shell command (`!cmd`, `x = !cmd`, %%bash/%%perl/%%script cells, and any
// other way IPython starts a process), every programmatic tool call (`from
// freeact_runtime import call_tool`) and every input()/getpass(). Approved
// `!` commands run with bash, scripts with the interpreter shown. These
// requests travel on the Jupyter stdin channel: an input_request whose
// prompt is a marker plus JSON, answered by an input_reply holding JSON (see
// hooks/freeact_kernel.py), so they work for remote kernels and in a
// sandbox without network. Python code of a cell that starts processes
// itself (subprocess, os.system) is not intercepted: the Sandbox is the
// boundary for that.
//
// In the kernel, call_tool raises freeact_runtime.ToolRejected, ToolTimeout
// or ToolFailed (all ToolCallError); a host request that gets no answer
// before its deadline raises CallbackTimeout (a TimeoutError); a request
// from a thread or task whose cell has ended is refused (CellEnded).
package kernel
