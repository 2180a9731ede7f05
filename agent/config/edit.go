package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
)

// DefaultValues returns the default of every key of agent.json as compact
// JSON, for the forms' "Default" hints and resets.
func DefaultValues() map[string]json.RawMessage {
	data, err := Defaults().Marshal()
	if err != nil {
		panic("config: the defaults do not marshal: " + err.Error())
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		panic("config: the defaults do not unmarshal: " + err.Error())
	}
	for k, v := range raw {
		raw[k] = CompactJSON(v)
	}
	return raw
}

// SaveValues writes values (agent.json keys and their JSON, as the settings
// panel edits them, one tab's keys at a time) into the workspace's
// .freeact/agent.json. Every value is checked first, and the file as it
// would be written: when anything is invalid nothing is written, and the
// errors come back by key. Keys the values leave out keep what the file
// holds. Keys that come from freeact 0.11's config.toml are not written
// (that file never is). This app's own keys are written only when they
// differ from their defaults or are in the file already, so freeact 0.10
// still reads the file. A ${VAR} reference that the workspace's variables
// (opts) cannot replace is an error too: the workspace would not load.
func SaveValues(dir string, values map[string]json.RawMessage, opts LoadOptions) ([]*KeyError, error) {
	if errs := CheckValues(values); len(errs) > 0 {
		return errs, nil
	}
	errs, err := CheckReferences(dir, values, opts)
	if err != nil || len(errs) > 0 {
		return errs, err
	}
	_, src, err := RawSettings(dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, FreeactDir, AgentFile)
	var existing map[string]json.RawMessage
	switch data, err := os.ReadFile(file); {
	case err == nil:
		if err := strictjson.Unmarshal(data, &existing); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON (%v): fix it in an editor", file, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	defaults := DefaultValues()
	var obj bytes.Buffer
	obj.WriteString("{\n")
	n := 0
	for _, k := range keys {
		value, given := values[k.Name]
		old, inFile := existing[k.Name]
		switch {
		case !given || slices.Contains(src.ReadOnly, k.Name):
			if !inFile {
				continue
			}
			value = old
		case k.AppOnly && !inFile && bytes.Equal(CompactJSON(value), defaults[k.Name]):
			continue
		}
		if n > 0 {
			obj.WriteString(",\n")
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, bytes.TrimSpace(value), "  ", "  "); err != nil {
			pretty.Write(value)
		}
		fmt.Fprintf(&obj, "  %q: %s", k.Name, pretty.Bytes())
		n++
	}
	obj.WriteString("\n}\n")
	if _, err := ParseOptions(obj.Bytes(), AgentFile); err != nil {
		var ke *KeyError
		if errors.As(err, &ke) {
			ke.File = ""
			return []*KeyError{ke}, nil
		}
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, fmt.Errorf("write settings: %w", err)
	}
	if err := atomicfile.Write(file, obj.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("write settings: %w", err)
	}
	return nil, nil
}

// CompactJSON returns raw without insignificant space; empty is null.
func CompactJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// CheckReferences checks that every ${VAR} reference in values (valid
// values, as CheckValues passes them) can be replaced from the variables of
// the workspace at dir: the environment, its .env file and opts.APIKeys.
// The errors name the key and where in the value the reference is.
func CheckReferences(dir string, values map[string]json.RawMessage, opts LoadOptions) ([]*KeyError, error) {
	lookup := opts.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	dotFile := filepath.Join(dir, DotEnvFile)
	dotenv, err := ReadDotEnv(dotFile)
	if err != nil {
		return nil, err
	}
	env := NewEnv(lookup, dotenv, dotFile)
	if len(opts.APIKeys) > 0 {
		env = env.WithFallback(opts.APIKeys)
	}
	o := Defaults()
	for _, k := range keys {
		if v, ok := values[k.Name]; ok {
			if err := k.decode(v, &o); err != nil {
				return []*KeyError{err}, nil
			}
		}
	}
	var errs []*KeyError
	for _, e := range expandOptions(&o, env, dir) {
		if _, ok := values[e.Key]; ok {
			errs = append(errs, e)
		}
	}
	return errs, nil
}
