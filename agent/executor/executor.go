// Package executor is where the agent meets what runs its code actions:
// the Executor of one agent and the Executors that start one per agent.
// The agent holds them through these interfaces; *kernel.Kernel is the
// app's, agent/agenttest's fake the tests'.
package executor

import (
	"context"

	"github.com/freeact/desktop/kernel"
)

// Executor runs the code actions of one agent: a stateful IPython kernel
// (*kernel.Kernel) in the app, a scripted fake in tests (agent/agenttest).
// Cells run one at a time; Interrupt, Restart and Close may be called from
// any goroutine. While a cell runs, the executor asks the kernel.Host it was
// started with about shell commands, programmatic tool calls and input.
type Executor interface {
	// Execute runs code and waits until it is done; onChunk gets output as
	// it comes. A cell that raises is not an error (Result.Error); the
	// error is for failures around the cell (kernel.ErrKernelDied, a
	// cancelled ctx, which interrupts the cell), with the partial Result.
	Execute(ctx context.Context, code string, onChunk func(kernel.Chunk)) (*kernel.Result, error)
	// Interrupt stops the running cell, ending the host requests it waits
	// for.
	Interrupt(ctx context.Context) error
	// Restart starts afresh: all state is lost.
	Restart(ctx context.Context) error
	// Close shuts the executor down.
	Close() error
}

// Executors start the executors of an agent and of its subagents, one each.
type Executors interface {
	StartExecutor(ctx context.Context, opts kernel.KernelOptions) (Executor, error)
}
