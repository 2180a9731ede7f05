package desktop

import (
	"context"
	"errors"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/kernel"
)

// inspectWait bounds how long the variable inspector waits for the kernel,
// which answers after a running cell.
const inspectWait = 3 * time.Second

// errKernelBusy answers an inspection that the running cell held up.
var errKernelBusy = errors.New("the kernel is busy running a cell: the variables refresh when it ends")

// inspecting returns the agent to read variables from, and a context for it.
func (d *Desktop) inspecting() (*agent.Agent, context.Context, context.CancelFunc, error) {
	return d.running(inspectWait, "the kernel is not ready yet")
}

// running returns the workspace's agent and a context of wait for asking
// it; notReady is the error while the agent starts.
func (d *Desktop) running(wait time.Duration, notReady string) (*agent.Agent, context.Context, context.CancelFunc, error) {
	ws, err := d.current()
	if err != nil {
		return nil, nil, nil, err
	}
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a == nil {
		return nil, nil, nil, errors.New(notReady)
	}
	ctx, cancel := context.WithTimeout(d.host.context(), wait)
	return a, ctx, cancel, nil
}

func inspectError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errKernelBusy
	}
	return err
}

// Variables lists the kernel's user variables for the inspector. Reading
// them runs no cell and asks nothing.
func (d *Desktop) Variables() (*kernel.Namespace, error) {
	a, ctx, cancel, err := d.inspecting()
	if err != nil {
		return nil, err
	}
	defer cancel()
	ns, err := a.Variables(ctx)
	if err != nil {
		return nil, inspectError(ctx, err)
	}
	return ns, nil
}

// DescribeVariable tells more about one variable: a DataFrame's columns and
// first rows, an array's dtype, a longer repr.
func (d *Desktop) DescribeVariable(name string) (*kernel.VariableDetail, error) {
	a, ctx, cancel, err := d.inspecting()
	if err != nil {
		return nil, err
	}
	defer cancel()
	v, err := a.Describe(ctx, name)
	if err != nil {
		return nil, inspectError(ctx, err)
	}
	return v, nil
}
