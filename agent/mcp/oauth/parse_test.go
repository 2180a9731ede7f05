package oauth

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseWWWAuthenticate(t *testing.T) {
	tests := []struct {
		in   string
		want []Challenge
	}{
		{`Bearer`, []Challenge{{Scheme: "Bearer", Params: map[string]string{}}}},
		{`Bearer resource_metadata="https://a/.well-known/oauth-protected-resource", scope="files:read files:write"`,
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://a/.well-known/oauth-protected-resource", "scope": "files:read files:write"}}}},
		{`Basic realm="x", Bearer error=insufficient_scope, scope="a \"b\""`,
			[]Challenge{{Scheme: "Basic", Params: map[string]string{"realm": "x"}}, {Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": `a "b"`}}}},
		{`Bearer REALM="r"`, []Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "r"}}}},
		{`Bearer scope="unterminated`, []Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "unterminated"}}}},
		{``, nil},
	}
	for _, tc := range tests {
		if got := ParseWWWAuthenticate(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseWWWAuthenticate(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
	if p := BearerChallenge([]string{`Basic realm=x`, `Bearer scope="s"`}); p["scope"] != "s" {
		t.Errorf("BearerChallenge found %v, want the Bearer challenge of the second header", p)
	}
}

func TestParseMetadataRefusesBadEndpoints(t *testing.T) {
	for _, doc := range []string{
		`{"issuer":"https://a","authorization_endpoint":"javascript:alert(1)","token_endpoint":"https://a/t"}`,
		`{"issuer":"https://a"}`,
		`not json`,
	} {
		if _, err := ParseServerMetadata([]byte(doc)); err == nil {
			t.Errorf("ParseServerMetadata(%s) accepted it", doc)
		}
	}
	if _, err := ParseResourceMetadata([]byte(`{"resource":"https://a","authorization_servers":["file:///etc"]}`)); err == nil {
		t.Error("ParseResourceMetadata accepted a file: authorization server")
	}
}

func TestResourceMatches(t *testing.T) {
	tests := []struct {
		resource, server string
		want             bool
	}{
		{"https://a/mcp", "https://a/mcp", true},
		{"https://a", "https://a/mcp", true},
		{"https://A/mcp/", "https://a/mcp", true},
		{"https://a/m", "https://a/mcp", false},
		{"https://evil/mcp", "https://a/mcp", false},
		{"http://a/mcp", "https://a/mcp", false},
	}
	for _, tc := range tests {
		if got := resourceMatches(tc.resource, tc.server); got != tc.want {
			t.Errorf("resourceMatches(%q, %q) = %v, want %v", tc.resource, tc.server, got, tc.want)
		}
	}
}

func FuzzParseWWWAuthenticate(f *testing.F) {
	for _, s := range []string{`Bearer realm="a", scope="b c"`, `Basic, Bearer error="x"`, `Bearer "`, `a=b=c,,=`, "Bearer \\\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range ParseWWWAuthenticate(s) {
			if c.Scheme == "" || strings.ContainsAny(c.Scheme, " \t,=\"") {
				t.Fatalf("scheme %q from %q", c.Scheme, s)
			}
			for k := range c.Params {
				if k == "" || k != strings.ToLower(k) {
					t.Fatalf("parameter name %q from %q", k, s)
				}
			}
		}
	})
}

func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte(`{"issuer":"https://a","authorization_endpoint":"https://a/a","token_endpoint":"https://a/t","code_challenge_methods_supported":["S256"]}`))
	f.Add([]byte(`{"resource":"https://a/mcp","authorization_servers":["https://a"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := ParseServerMetadata(b); err == nil {
			for _, u := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
				if u != "" && checkEndpointURL(u) != nil {
					t.Fatalf("accepted endpoint %q", u)
				}
			}
		}
		if m, err := ParseResourceMetadata(b); err == nil {
			for _, u := range m.AuthorizationServers {
				if checkEndpointURL(u) != nil {
					t.Fatalf("accepted authorization server %q", u)
				}
			}
		}
	})
}
