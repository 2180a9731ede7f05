package agent

import (
	"context"
	"errors"

	"github.com/freeact/desktop/agent/variables"
	"github.com/freeact/desktop/kernel"
)

// inspector is the main kernel as an Inspector.
func (a *Agent) inspector() (variables.Inspector, error) {
	if a.kern == nil {
		return nil, errors.New("the agent is not started: call Start first")
	}
	in, ok := a.kern.(variables.Inspector)
	if !ok {
		return nil, variables.ErrNoInspector
	}
	return in, nil
}

// Variables lists the user variables of the main agent's kernel, for a
// variable inspector. It runs no cell, asks nothing and is recorded
// nowhere; while a cell runs, it answers after the cell.
func (a *Agent) Variables(ctx context.Context) (*kernel.Namespace, error) {
	in, err := a.inspector()
	if err != nil {
		return nil, err
	}
	return in.Variables(ctx)
}

// Describe tells more about one variable of the main agent's kernel (a
// DataFrame's columns and first rows), in the same silent way.
func (a *Agent) Describe(ctx context.Context, name string) (*kernel.VariableDetail, error) {
	in, err := a.inspector()
	if err != nil {
		return nil, err
	}
	return in.Describe(ctx, name)
}

// variableNotes describes the variables a prompt mentions (@name) for the
// model (variables.Notes); none when the kernel cannot list them.
func (a *Agent) variableNotes(ctx context.Context, prompt string) []string {
	if len(variables.Mentions(prompt)) == 0 {
		return nil
	}
	in, err := a.inspector()
	if err != nil {
		return nil
	}
	return variables.Notes(ctx, in, a.opts.log, prompt)
}
