package apigen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// schema is a JSON schema node, decoded loosely: servers send all sorts.
type schema struct {
	raw   map[string]json.RawMessage
	props []string // property names in the schema's own order
}

func parseSchema(data json.RawMessage) (*schema, error) {
	s := &schema{raw: map[string]json.RawMessage{}}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "true" || string(data) == "null" {
		return s, nil
	}
	if err := json.Unmarshal(data, &s.raw); err != nil {
		return nil, fmt.Errorf("a schema must be a JSON object: %w", err)
	}
	if p, ok := s.raw["properties"]; ok {
		keys, err := objectKeys(p)
		if err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
		s.props = keys
	}
	return s, nil
}

// objectKeys returns the keys of a JSON object in their order.
func objectKeys(data json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return slices.Compact(keys), nil
}

func (s *schema) child(key string) (*schema, error) {
	v, ok := s.raw[key]
	if !ok {
		return nil, nil
	}
	return parseSchema(v)
}

func (s *schema) property(name string) (*schema, error) {
	var props map[string]json.RawMessage
	if err := json.Unmarshal(s.raw["properties"], &props); err != nil {
		return nil, err
	}
	return parseSchema(props[name])
}

func (s *schema) list(key string) ([]*schema, error) {
	v, ok := s.raw[key]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	out := make([]*schema, 0, len(items))
	for _, it := range items {
		c, err := parseSchema(it)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *schema) str(key string) string {
	var v string
	_ = json.Unmarshal(s.raw[key], &v)
	return v
}

// types returns the "type" keyword as a list ("string" or ["string", "null"]).
func (s *schema) types() []string {
	v, ok := s.raw["type"]
	if !ok {
		return nil
	}
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(v, &many)
	return many
}

func (s *schema) required() []string {
	var r []string
	_ = json.Unmarshal(s.raw["required"], &r)
	return r
}

// values decodes a keyword holding JSON values (enum, const, default).
func (s *schema) value(key string) (any, bool, error) {
	v, ok := s.raw[key]
	if !ok {
		return nil, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, false, fmt.Errorf("%s: %w", key, err)
	}
	return out, true, nil
}

// description is the description, or the title when there is none.
func (s *schema) description() string {
	if d := strings.TrimSpace(s.str("description")); d != "" {
		return d
	}
	return strings.TrimSpace(s.str("title"))
}
