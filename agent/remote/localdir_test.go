package remote

import "testing"

func TestLocalDirOfALocalKernelIsItsOwnFolder(t *testing.T) {
	var r *Workspace // a local kernel
	for dir, want := range map[string]string{
		"":              "",
		"sub/dir":       "",
		"/ws/sub/../x/": "/ws/x",
		"/elsewhere":    "/elsewhere",
	} {
		if got := r.LocalDir(dir, "/ws"); got != want {
			t.Errorf("LocalDir(%q) = %q, want %q", dir, got, want)
		}
	}
}

func TestLocalDirBeforeTheRemoteWorkspaceIsOpenIsTheWorkspace(t *testing.T) {
	r := New(nil, nil)
	if got := r.LocalDir("/home/jovyan/ws/sub", "/ws"); got != "" {
		t.Errorf("LocalDir = %q, want the workspace (\"\")", got)
	}
}
