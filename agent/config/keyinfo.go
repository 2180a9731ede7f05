package config

// KeyInfo describes the value of an agent.json key for settings forms
// generated from it: its kind, bounds and unit (OptionKey has what the key
// does).
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
}

// keyInfos describe the keys that have metadata so far (the long-session
// keys); forms show the others as JSON.
var keyInfos = []KeyInfo{
	{Name: "models", Kind: "object"},
	{Name: "max_cost_per_session", Kind: "number", Nullable: true, Min: ptr(0.01), Unit: "USD"},
	{Name: "compaction_threshold", Kind: "number", Nullable: true, Min: ptr(0.1), Max: ptr(1), Unit: "share of the context window"},
	{Name: "checkpoints", Kind: "bool"},
	{Name: "checkpoint_max_file_bytes", Kind: "integer", Min: ptr(1), Unit: "bytes"},
}

func ptr(v float64) *float64 { return &v }

// KeyInfos returns the metadata of the agent.json keys that have it.
func KeyInfos() []KeyInfo { return append([]KeyInfo(nil), keyInfos...) }
