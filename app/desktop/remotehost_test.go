package desktop

import "testing"

// The window says where code runs: the host of jupyter_url, never what
// could carry a token (user information, path, query).
func TestRemoteHostShowsOnlyTheHost(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		url  *string
		want string
	}{
		{nil, ""},
		{s(""), ""},
		{s("https://hub.example.org/"), "hub.example.org"},
		{s("http://127.0.0.1:8888/user/ada/?token=secret"), "127.0.0.1:8888"},
		{s("https://ada:secret@jupyter.example.org/lab"), "jupyter.example.org"},
		{s("${JUPYTER_URL}"), "a Jupyter server"},
	} {
		if got := remoteHost(tc.url); got != tc.want {
			t.Errorf("remoteHost(%v) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
