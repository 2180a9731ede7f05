// Package apigen generates the Python modules of code mode: for each tool of
// an MCP server in ptc_servers, .freeact/generated/mcptools/<server>/<tool>.py
// holds a Params dataclass built from the tool's input schema (nested
// objects, arrays, enums as Literal, optional fields with their defaults,
// descriptions as docstrings), a Result dataclass when the tool declares an
// output schema, and run(params), which calls the tool through the kernel
// runtime's call_tool and returns a Result or the tool's text.
//
// Generated code uses only the Python standard library, so it runs in any
// kernel environment. Names that are not Python identifiers are mapped
// deterministically (ModuleName); every text taken from a server reaches the
// source as an escaped string literal, so names and descriptions cannot
// inject code.
package apigen
