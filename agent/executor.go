package agent

import (
	"github.com/freeact/desktop/agent/executor"
)

// Executor runs the code actions of one agent (executor.Executor).
type Executor = executor.Executor

// Executors start the executors of an agent and of its subagents
// (executor.Executors).
type Executors = executor.Executors
