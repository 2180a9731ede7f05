package agent

import (
	"context"

	"github.com/freeact/desktop/agent/executor"
	"github.com/freeact/desktop/kernel"
)

// Executor runs the code actions of one agent (executor.Executor).
type Executor = executor.Executor

// Executors start the executors of an agent and of its subagents
// (executor.Executors).
type Executors = executor.Executors

// jupyter starts kernels on a Jupyter server.
type jupyter struct{ srv *kernel.Server }

func (j jupyter) StartExecutor(ctx context.Context, opts kernel.KernelOptions) (Executor, error) {
	k, err := j.srv.StartKernel(ctx, opts)
	if err != nil {
		return nil, err // not a typed nil *kernel.Kernel in the interface
	}
	return k, nil
}

// Warm starts the server's spare kernel now, if its warm pool holds one back.
func (j jupyter) Warm() { j.srv.Warm() }
