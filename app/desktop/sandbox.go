package desktop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/kernel"
)

// sandboxFile is where the settings panel keeps custom sandbox rules,
// relative to the workspace.
var sandboxFile = filepath.Join(config.FreeactDir, config.SandboxFile)

// SandboxSettings is the settings panel's sandbox tab: the switch and the
// srt settings in force.
type SandboxSettings struct {
	Enabled bool `json:"enabled"`
	// Content is the custom settings file, or the default rules when
	// Custom is false.
	Content string `json:"content"`
	Custom  bool   `json:"custom"`
	// Path is the custom file (workspace-relative when inside it).
	Path string `json:"path"`
	// Defaults are the default rules, to start over from.
	Defaults string `json:"defaults"`
}

// Sandbox returns the workspace's sandbox settings.
func (d *Desktop) Sandbox() (SandboxSettings, error) {
	ws, err := d.current()
	if err != nil {
		return SandboxSettings{}, err
	}
	cfg, err := ws.open.Load()
	if err != nil {
		return SandboxSettings{}, err
	}
	defaults, err := json.MarshalIndent(kernel.DefaultSandboxSettings(ws.dir), "", "  ")
	if err != nil {
		return SandboxSettings{}, fmt.Errorf("default sandbox settings: %w", err)
	}
	s := SandboxSettings{Enabled: cfg.Options.Sandbox, Content: string(defaults), Defaults: string(defaults)}
	if p := cfg.Options.SandboxConfig; p != nil && *p != "" {
		file := *p
		if !filepath.IsAbs(file) {
			file = filepath.Join(ws.dir, file)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return s, fmt.Errorf("read the sandbox settings named by sandbox_config: %w", err)
		}
		s.Content, s.Custom, s.Path = string(data), true, *p
	}
	return s, nil
}

// SaveSandbox turns the sandbox on or off and keeps its rules: content equal
// to the defaults means the defaults (sandbox_config null); other content is
// checked and written to .freeact/sandbox-config.json. Nothing is written
// when the content is invalid. It applies when the kernel restarts.
func (d *Desktop) SaveSandbox(enabled bool, content string) ([]FieldError, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	current, err := d.Sandbox()
	if err != nil {
		return nil, err
	}
	configValue := "null"
	if !sameJSON(content, current.Defaults) {
		if _, err := kernel.ParseSandboxSettings([]byte(content)); err != nil {
			return []FieldError{{Key: "sandbox_config", Message: err.Error()}}, nil
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(content), "", "  "); err != nil {
			return nil, fmt.Errorf("format sandbox settings: %w", err)
		}
		pretty.WriteByte('\n')
		if err := atomicfile.Write(filepath.Join(ws.dir, sandboxFile), pretty.Bytes(), 0o600); err != nil {
			return nil, fmt.Errorf("write sandbox settings: %w", err)
		}
		configValue = strconv.Quote(sandboxFile)
	}
	fields, err := d.Settings()
	if err != nil {
		return nil, err
	}
	values := map[string]string{}
	for _, f := range fields {
		values[f.Key] = f.Value
	}
	values["sandbox"] = strconv.FormatBool(enabled)
	values["sandbox_config"] = configValue
	return d.SaveSettings(values)
}

// sameJSON reports whether two texts hold equal JSON values.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
