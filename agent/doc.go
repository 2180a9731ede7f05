// Package agent is the freeact SDK: the Agent type, its typed events, tool
// calls and approvals, the turn loop and subagents. Front ends in package app
// drive it; the state, model and tool packages beneath it do the work.
package agent
