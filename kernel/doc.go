// Package kernel runs Python code in a stateful IPython kernel over the
// Jupyter protocol. It owns the Python environment, the local Jupyter server
// (or a connection to a remote one), the websocket client and the in-kernel
// hooks through which running code asks its caller for approvals, tool calls
// and user input. It knows nothing about agents.
package kernel
