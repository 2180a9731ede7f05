package config

import "reflect"

// restartKeys are the agent.json keys a running agent cannot take over
// (agent.Agent.Reconfigure keeps their running values): they shape the kernel, its server, the MCP connections, tool search or
// the session store, which are made at Start. field returns a pointer to
// the key's field.
var restartKeys = []struct {
	key   string
	field func(*Options) any
}{
	{"python", func(o *Options) any { return &o.Python }},
	{"jupyter_url", func(o *Options) any { return &o.JupyterURL }},
	{"jupyter_token", func(o *Options) any { return &o.JupyterToken }},
	{"jupyter_workdir", func(o *Options) any { return &o.JupyterWorkdir }},
	{"jupyter_headers", func(o *Options) any { return &o.JupyterHeaders }},
	{"jupyter_ca_file", func(o *Options) any { return &o.JupyterCAFile }},
	{"jupyter_reconnect_timeout", func(o *Options) any { return &o.JupyterReconnectTimeout }},
	{"kernel_name", func(o *Options) any { return &o.KernelName }},
	{"jupyter_server_name", func(o *Options) any { return &o.JupyterServerName }},
	{"kernel_pool", func(o *Options) any { return &o.KernelPool }},
	{"kernel_env", func(o *Options) any { return &o.KernelEnv }},
	{"images_dir", func(o *Options) any { return &o.ImagesDir }},
	{"execution_timeout", func(o *Options) any { return &o.ExecutionTimeout }},
	{"sandbox", func(o *Options) any { return &o.Sandbox }},
	{"sandbox_config", func(o *Options) any { return &o.SandboxConfig }},
	{"mcp_servers", func(o *Options) any { return &o.MCPServers }},
	{"ptc_servers", func(o *Options) any { return &o.PTCServers }},
	{"tool_search", func(o *Options) any { return &o.ToolSearch }},
	{"enable_persistence", func(o *Options) any { return &o.EnablePersistence }},
	{"tool_result_inline_max_bytes", func(o *Options) any { return &o.ToolResultInlineMaxBytes }},
	{"tool_result_preview_chars", func(o *Options) any { return &o.ToolResultPreviewChars }},
}

// RestartDiff lists the keys whose values differ between cur and next,
// among those only a new agent takes over: what a start with cur (one that
// failed, or is still under way) would not have of next.
func RestartDiff(cur, next Options) []string {
	var keys []string
	for _, k := range restartKeys {
		if !reflect.DeepEqual(reflect.ValueOf(k.field(&cur)).Elem().Interface(), reflect.ValueOf(k.field(&next)).Elem().Interface()) {
			keys = append(keys, k.key)
		}
	}
	return keys
}

// RestartKeys lists the agent.json keys a running agent takes over only
// when it is started again.
func RestartKeys() []string {
	out := make([]string, len(restartKeys))
	for i, k := range restartKeys {
		out[i] = k.key
	}
	return out
}

// KeepRestartKeys sets the restart keys of next to their values in cur.
func KeepRestartKeys(next *Options, cur Options) {
	for _, k := range restartKeys {
		reflect.ValueOf(k.field(next)).Elem().Set(reflect.ValueOf(k.field(&cur)).Elem())
	}
}
