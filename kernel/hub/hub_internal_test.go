package hub

import (
	"strings"
	"testing"
)

// The spawner's messages are shown on one line, without markup or control
// characters, clipped.
func TestSpawnerTextIsOneVisibleLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Server ready at <a href=\"/user/ada/\">/user/ada/</a>", "Server ready at /user/ada/"},
		{"pulling\nimage\x1b[2J  x\u202e", "pulling image [2J x"},
		{strings.Repeat("é", 400), strings.Repeat("é", 250) + "…"},
	}
	for _, tc := range tests {
		if got := spawnerText(tc.in); got != tc.want {
			t.Errorf("spawnerText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A Hub's key store name comes from its host, port and path.
func TestTokenNameFromTheHubsAddress(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://hub.example.org/", "JUPYTERHUB_TOKEN_HUB_EXAMPLE_ORG"},
		{"https://hub.example.org/hub/", "JUPYTERHUB_TOKEN_HUB_EXAMPLE_ORG"},
		{"http://127.0.0.1:8000/jh/", "JUPYTERHUB_TOKEN_127_0_0_1_8000_JH"},
	}
	for _, tc := range tests {
		base, err := Base(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := TokenName(base); got != tc.want {
			t.Errorf("TokenName(%s) = %q, want %q", tc.url, got, tc.want)
		}
	}
	if _, err := Base("ftp://x/"); err == nil {
		t.Error("Base took an ftp URL")
	}
}

// Scopes count unfiltered, for the user, or for one of the user's servers.
func TestHasScope(t *testing.T) {
	tests := []struct {
		scopes []string
		want   bool
	}{
		{[]string{"servers"}, true},
		{[]string{"servers!user"}, true},
		{[]string{"servers!user=ada"}, true},
		{[]string{"servers!server=ada/gpu"}, true},
		{[]string{"servers!user=bob"}, false},
		{[]string{"read:servers!user=ada"}, false},
		{[]string{"admin:servers"}, false},
	}
	for _, tc := range tests {
		if got := hasScope(tc.scopes, "servers!user", "ada"); got != tc.want {
			t.Errorf("hasScope(%v) = %v, want %v", tc.scopes, got, tc.want)
		}
	}
}
