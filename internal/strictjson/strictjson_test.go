package strictjson_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/strictjson"
)

type target struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Inner *struct {
		On bool `json:"on"`
	} `json:"inner"`
}

func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     target
		err      string // substring; "" means success
	}{
		{"plain", `{"name": "a", "count": 2}`, target{Name: "a", Count: 2}, ""},
		{"byte order mark", "\xef\xbb\xbf{\"name\": \"bom\"}", target{Name: "bom"}, ""},
		{"trailing space", "{}\n\t ", target{}, ""},
		{"unknown key", `{"name": "a", "colour": "red"}`, target{}, `unknown key "colour"`},
		{"unknown nested key", `{"inner": {"on": true, "off": 1}}`, target{}, `unknown key "off"`},
		{"unicode key", `{"naïve": 1}`, target{}, `unknown key "naïve"`},
		{"trailing value", `{} {}`, target{}, "unexpected content after the JSON value"},
		{"trailing garbage", `{}x`, target{}, "unexpected content after the JSON value"},
		{"wrong type", `{"count": "two"}`, target{}, "cannot unmarshal string"},
		{"empty", ``, target{}, "EOF"},
		{"bom only", "\xef\xbb\xbf", target{}, "EOF"},
		{"bom in the middle", "{\"name\": \"a\"}\xef\xbb\xbf", target{}, "after the JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got target
			err := strictjson.Unmarshal([]byte(tc.in), &got)
			if tc.err == "" {
				if err != nil || got.Name != tc.want.Name || got.Count != tc.want.Count {
					t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestUnknownKeyErrorNamesTheKey(t *testing.T) {
	err := strictjson.Unmarshal([]byte(`{"tool-search": "basic"}`), &target{})
	var uk *strictjson.UnknownKeyError
	if !errors.As(err, &uk) || uk.Key != "tool-search" {
		t.Fatalf("err = %#v, want an UnknownKeyError for tool-search", err)
	}
	if err := strictjson.Unmarshal([]byte(`{} 1`), &target{}); !errors.Is(err, strictjson.ErrTrailingData) {
		t.Fatalf("err = %v, want ErrTrailingData", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{`{"name":"a"}`, "\xef\xbb\xbf{}", `{"x":1}`, `{} {}`, `[`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v target
		err := strictjson.Unmarshal(data, &v)
		var uk *strictjson.UnknownKeyError
		if errors.As(err, &uk) && !strings.Contains(string(data), uk.Key) {
			t.Fatalf("unknown key %q is not in the input %q", uk.Key, data)
		}
	})
}
