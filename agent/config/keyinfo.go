package config

// KeyInfo describes an agent.json key for settings forms generated from it:
// what kind of value it takes, its bounds and unit, and what it does.
type KeyInfo struct {
	Name string `json:"name"`
	// Kind is "bool", "integer", "number", "string" or "object".
	Kind string `json:"kind"`
	// Nullable keys take null (shown as "none").
	Nullable bool `json:"nullable"`
	// Min and Max bound numbers, when set.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Unit of a number: "USD", "bytes", "share of the context window".
	Unit string `json:"unit,omitempty"`
	Doc  string `json:"doc"`
}

// keyInfos describe the keys that have metadata so far (the long-session
// keys); forms show the others as JSON.
var keyInfos = []KeyInfo{
	{Name: "models", Kind: "object", Doc: `Context windows and prices (US dollars per million tokens) of models, by model string or name, over the app's own table: {"ollama:qwen3": {"context_window": 32768, "input_price": 0, "output_price": 0, "thinking_price": 0, "cached_price": 0}}.`},
	{Name: "max_cost_per_session", Kind: "number", Nullable: true, Min: ptr(0.01), Unit: "USD", Doc: "A budget for the session: the turn pauses and asks before the model call that would go over it. None: no budget."},
	{Name: "compaction_threshold", Kind: "number", Nullable: true, Min: ptr(0.1), Max: ptr(1), Unit: "share of the context window", Doc: "When a request would fill this share of the model's context window, older turns are summarised. None: only when the provider refuses a request as too large."},
	{Name: "checkpoints", Kind: "bool", Doc: "Record the workspace's files before each code action and file change, so every change can be reviewed and reverted."},
	{Name: "checkpoint_max_file_bytes", Kind: "integer", Min: ptr(1), Unit: "bytes", Doc: "Files larger than this are left out of checkpoints (their changes are listed but cannot be reverted)."},
}

func ptr(v float64) *float64 { return &v }

// KeyInfos returns the metadata of the agent.json keys that have it.
func KeyInfos() []KeyInfo { return append([]KeyInfo(nil), keyInfos...) }
