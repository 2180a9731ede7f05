package mcp

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheckAnswer(t *testing.T) {
	fields, err := ParseForm(map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
		"name":  map[string]any{"type": "string", "minLength": 2, "maxLength": 5},
		"email": map[string]any{"type": "string", "format": "email"},
		"site":  map[string]any{"type": "string", "format": "uri"},
		"day":   map[string]any{"type": "string", "format": "date"},
		"when":  map[string]any{"type": "string", "format": "date-time"},
		"n":     map[string]any{"type": "integer", "minimum": 1, "maximum": 3},
		"x":     map[string]any{"type": "number"},
		"ok":    map[string]any{"type": "boolean", "default": true},
		"pick":  map[string]any{"type": "string", "enum": []any{"a", "b"}},
		"many":  map[string]any{"type": "array", "minItems": 1, "maxItems": 2, "items": map[string]any{"anyOf": []any{map[string]any{"const": "p"}, map[string]any{"const": "q"}, map[string]any{"const": "r"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		values map[string]any
		want   map[string]any
		errs   []string
	}{
		{"minimal", map[string]any{"name": "Ada"}, map[string]any{"name": "Ada"}, nil},
		{"all good", map[string]any{"name": "Ada", "email": "a@b.org", "site": "https://x.org", "day": "2026-01-31", "when": "2026-01-31T09:30:00Z",
			"n": 2.0, "x": 1.5, "ok": false, "pick": "b", "many": []any{"p", "r"}},
			map[string]any{"name": "Ada", "email": "a@b.org", "site": "https://x.org", "day": "2026-01-31", "when": "2026-01-31T09:30:00Z",
				"n": int64(2), "x": 1.5, "ok": false, "pick": "b", "many": []any{"p", "r"}}, nil},
		{"required missing", map[string]any{}, nil, []string{"name: name is required"}},
		{"bounds", map[string]any{"name": "A", "n": 4.0, "many": []any{"p", "q", "r"}}, nil,
			[]string{"name: want at least 2 characters", "n: want at most 3", "many: choose at most 2"}},
		{"types", map[string]any{"name": 3.0, "n": 1.5, "ok": "yes", "x": "one"}, nil,
			[]string{"name: want text", "n: want a whole number", "ok: want yes or no", "x: want a number"}},
		{"formats", map[string]any{"name": "Ada", "email": "ada", "site": "x.org", "day": "31.1.2026", "when": "today"}, nil,
			[]string{"email: want an email address", "site: want an address with a scheme", "day: want a date", "when: want a date and time"}},
		{"choices", map[string]any{"name": "Ada", "pick": "c", "many": []any{"z"}}, nil, []string{`pick: "c" is not one of the choices`, "many: z is not one of the choices"}},
		{"unknown field", map[string]any{"name": "Ada", "extra": 1.0}, nil, []string{"extra: the form has no such field"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckAnswer(fields, tc.values)
			if tc.errs == nil {
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("CheckAnswer = %#v, %v; want %#v", got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckAnswer = %#v, want errors %v", got, tc.errs)
			}
			for _, e := range tc.errs {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("error %q lacks %q", err, e)
				}
			}
		})
	}
}
