package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/freeact/desktop/internal/strictjson"
)

// The Python freeact's settings files. Up to 0.10 it kept its settings in
// agent.json (the same keys this app reads, minus the app's own); from 0.11
// in config.toml ([agent] and [terminal] tables), which it never rewrites.
const (
	ConfigTOML   = "config.toml"
	TerminalJSON = "terminal.json" // freeact 0.10's terminal settings
)

// Source says which files a workspace's settings come from, in the order
// Load reads them:
//
//  1. .freeact/config.toml, when it exists, holds freeact's keys: freeact
//     0.11 reads only that file, so it is the workspace's truth. agent.json
//     next to it supplies only this app's own keys (python, jupyter_url,
//     jupyter_token, sandbox, sandbox_config); its other keys are not read.
//  2. Otherwise .freeact/agent.json, this app's file and freeact 0.10's.
//  3. Otherwise the defaults.
//
// config.toml and every file of freeact's are only read, never written.
type Source struct {
	// File is the file freeact's keys were read from (absolute), or "" for
	// the defaults.
	File string
	// Format is "config.toml (freeact 0.11)", "agent.json" or "defaults".
	Format string
	// ReadOnly lists the keys this app cannot save: they come from
	// config.toml.
	ReadOnly []string
	// Notes say what was accepted and has no effect here, and which files
	// were not read, for the log and the settings panel.
	Notes []string
}

// The values of Source.Format.
const (
	formatTOML     = "config.toml (freeact 0.11)"
	formatJSON     = "agent.json"
	formatDefaults = "defaults"
)

// Description is one line for the settings panel.
func (s Source) Description() string {
	switch s.Format {
	case formatTOML:
		return "Settings read from config.toml (freeact 0.11), which this app never writes: edit that file to change them. " +
			"This app's own keys (python, jupyter_url, jupyter_token, sandbox, sandbox_config) are saved to agent.json."
	case formatJSON:
		return "Settings read from agent.json. freeact 0.10 reads this file too and refuses keys it does not know, " +
			"so this app's own keys are written only when they are set."
	}
	return "No settings file yet: the defaults apply, and saving writes agent.json."
}

// readSettings reads the settings files of the workspace's .freeact folder
// fd into Options (nothing expanded yet) and says where they came from.
func readSettings(fd string) (Options, Source, error) {
	raw, jsonData, src, err := rawSettings(fd)
	if err != nil {
		return Options{}, Source{}, err
	}
	var o Options
	switch src.Format {
	case formatDefaults:
		return Defaults(), src, nil
	case formatJSON:
		o, err = ParseOptions(jsonData, src.File) // the file's own bytes, for exact errors
	default:
		var data []byte
		if data, err = json.Marshal(raw); err == nil {
			o, err = ParseOptions(data, src.File)
		}
	}
	if err != nil {
		return Options{}, Source{}, err
	}
	src.Notes = append(src.Notes, o.ignoredNotes()...)
	return o, src, nil
}

// RawSettings returns the settings of the workspace at dir as agent.json
// values, key by key (the JSON of each value as the files hold it, ${VAR}
// not expanded, not validated), and where they come from, for the settings
// panel. Keys the files do not set are absent. The Source lacks the notes
// on keys without effect, which need the values parsed (Load has them).
func RawSettings(dir string) (map[string]json.RawMessage, Source, error) {
	raw, jsonData, src, err := rawSettings(filepath.Join(dir, FreeactDir))
	if err == nil && jsonData != nil {
		var obj map[string]json.RawMessage
		if jerr := strictjson.Unmarshal(jsonData, &obj); jerr != nil {
			err = fmt.Errorf("%s is not valid JSON (%v): fix it in an editor", src.File, jerr)
		}
	}
	return raw, src, err
}

// rawSettings reads the settings files of fd (see Source for the order):
// the values by key, the bytes of agent.json when it is the source, and
// the Source.
func rawSettings(fd string) (map[string]json.RawMessage, []byte, Source, error) {
	tomlFile, jsonFile := filepath.Join(fd, ConfigTOML), filepath.Join(fd, AgentFile)
	tomlData, err := readIfExists(tomlFile)
	if err != nil {
		return nil, nil, Source{}, err
	}
	jsonData, err := readIfExists(jsonFile)
	if err != nil {
		return nil, nil, Source{}, err
	}
	var src Source
	raw := map[string]json.RawMessage{}
	switch {
	case tomlData != nil:
		src = Source{File: tomlFile, Format: formatTOML}
		if raw, src.Notes, err = agentTable(tomlData, tomlFile); err != nil {
			return nil, nil, Source{}, err
		}
		for _, k := range keys {
			if !k.AppOnly {
				src.ReadOnly = append(src.ReadOnly, k.Name)
			}
		}
		if jsonData != nil {
			app, notes, err := appKeys(jsonData, jsonFile)
			if err != nil {
				return nil, nil, Source{}, err
			}
			maps.Copy(raw, app)
			src.Notes = append(src.Notes, notes...)
		}
		jsonData = nil
	case jsonData != nil:
		src = Source{File: jsonFile, Format: formatJSON}
		// A file that is no JSON object leaves raw empty: ParseOptions
		// (Load) and RawSettings say what is wrong with it.
		_ = strictjson.Unmarshal(jsonData, &raw)
	default:
		return raw, nil, Source{Format: formatDefaults}, nil
	}
	if _, err := os.Stat(filepath.Join(fd, TerminalJSON)); err == nil {
		src.Notes = append(src.Notes, TerminalJSON+": freeact 0.10's terminal settings have no effect here (not read)")
	}
	return raw, jsonData, src, nil
}

func readIfExists(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load workspace: %w", err)
	}
	return data, nil
}

// appKeys returns the keys of this app from an agent.json that lies next to
// config.toml, and a note naming the other keys it holds, which are not
// read.
func appKeys(data []byte, file string) (map[string]json.RawMessage, []string, error) {
	if _, err := ParseOptions(data, file); err != nil {
		return nil, nil, err
	}
	var raw map[string]json.RawMessage
	if err := strictjson.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	app := map[string]json.RawMessage{}
	var skipped []string
	for _, k := range keys {
		v, ok := raw[k.Name]
		switch {
		case !ok:
		case k.AppOnly:
			app[k.Name] = v
		default:
			skipped = append(skipped, k.Name)
		}
	}
	var notes []string
	if len(skipped) > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s not read: %s holds freeact's settings (freeact 0.11 reads only that file)",
			AgentFile, strings.Join(skipped, ", "), ConfigTOML))
	}
	return app, notes, nil
}

// agentTable turns config.toml into the keys of agent.json: the [agent]
// table with tools.discovery as tool_search and a timeout of 0 as none
// (null). Keys freeact does not know are errors, as they are for freeact;
// [terminal] and the tool presets this app has no servers for are notes.
func agentTable(data []byte, file string) (map[string]json.RawMessage, []string, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, nil, fmt.Errorf("%s: line %d: %s (fix the TOML syntax)", file, perr.Position.Line, perr.Message)
		}
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		switch k {
		case "agent":
		case "terminal":
			notes = append(notes, ConfigTOML+": [terminal]: freeact's terminal settings have no effect here (ignored)")
		default:
			return nil, nil, fmt.Errorf("%s: unknown table [%s] (freeact 0.11 knows [agent] and [terminal])", file, k)
		}
	}
	agent := map[string]any{}
	if a, ok := doc["agent"]; ok {
		if agent, ok = a.(map[string]any); !ok {
			return nil, nil, fmt.Errorf("%s: agent is not a table: write [agent]", file)
		}
	}
	out := map[string]json.RawMessage{}
	for _, k := range slices.Sorted(maps.Keys(agent)) {
		v := agent[k]
		switch k {
		case "tools":
			t, ok := v.(map[string]any)
			if !ok {
				return nil, nil, fmt.Errorf("%s: [agent] tools is not a table: write [agent.tools]", file)
			}
			tn, err := toolPresets(t, file, out)
			if err != nil {
				return nil, nil, err
			}
			notes = append(notes, tn...)
			continue
		case "execution_timeout", "approval_timeout":
			// freeact 0.11 writes 0 for "none"; agent.json has null.
			if n, ok := v.(int64); ok && n == 0 {
				v = nil
			} else if f, ok := v.(float64); ok && f == 0 {
				v = nil
			}
		default:
			if slices.ContainsFunc(keys, func(o OptionKey) bool { return o.Name == k && o.AppOnly }) {
				return nil, nil, fmt.Errorf("%s: [agent]: %q is this app's own key, which freeact 0.11 refuses in %s: set it in .freeact/%s instead (the settings panel does)",
					file, k, ConfigTOML, AgentFile)
			}
			if !IsOptionKey(k) || k == "tool_search" {
				return nil, nil, fmt.Errorf("%s: [agent]: unknown key %q (freeact 0.11's keys: %s)", file, k, tomlAgentKeys())
			}
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: [agent] %s: %w", file, k, err)
		}
		out[k] = raw
	}
	return out, notes, nil
}

// toolPresets reads [agent.tools]: discovery becomes tool_search; search
// and fetch switch on freeact's own bundled servers, which this app does
// not have.
func toolPresets(t map[string]any, file string, out map[string]json.RawMessage) ([]string, error) {
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(t)) {
		switch v := t[k]; k {
		case "discovery":
			d, ok := v.(string)
			if !ok || !slices.Contains([]string{"basic", "hybrid", "off"}, d) {
				return nil, fmt.Errorf("%s: [agent.tools] discovery = %v: want \"basic\", \"hybrid\" or \"off\"", file, v)
			}
			out["tool_search"], _ = json.Marshal(d)
		case "search", "fetch":
			on, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s: [agent.tools] %s = %v: want true or false", file, k, v)
			}
			if on {
				what := map[string]string{"search": "Google search", "fetch": "web fetch"}[k]
				notes = append(notes, fmt.Sprintf("%s: [agent.tools] %s = true: freeact's bundled %s server is not part of this app (ignored); add an MCP server for it to ptc_servers",
					ConfigTOML, k, what))
			}
		default:
			return nil, fmt.Errorf("%s: [agent.tools]: unknown key %q (known: search, fetch, discovery)", file, k)
		}
	}
	return notes, nil
}

func tomlAgentKeys() string {
	names := []string{"tools"}
	for _, k := range keys {
		if !k.AppOnly && k.Name != "tool_search" {
			names = append(names, k.Name)
		}
	}
	return strings.Join(names, ", ")
}

// ignoredNotes names the keys that were accepted and have no effect here.
func (o Options) ignoredNotes() []string {
	var notes []string
	if ig := o.ModelSettings.IgnoredKeys(); len(ig) > 0 {
		notes = append(notes, fmt.Sprintf("model_settings: %s: no effect in this app (ignored)", strings.Join(ig, ", ")))
	}
	var unused []string
	for _, k := range slices.Sorted(maps.Keys(o.ProviderSettings)) {
		if !slices.Contains(ProviderSettingKeys, k) {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		notes = append(notes, fmt.Sprintf("provider_settings: %s: no effect in this app (ignored; %s are used)", strings.Join(unused, ", "), strings.Join(ProviderSettingKeys, ", ")))
	}
	for _, group := range []struct {
		key     string
		servers map[string]Server
	}{{"mcp_servers", o.MCPServers}, {"ptc_servers", o.PTCServers}} {
		for _, name := range slices.Sorted(maps.Keys(group.servers)) {
			if ig := group.servers[name].Ignored; len(ig) > 0 {
				notes = append(notes, fmt.Sprintf("%s.%s: %s: no effect in this app (ignored)", group.key, name, strings.Join(ig, ", ")))
			}
		}
	}
	return notes
}
