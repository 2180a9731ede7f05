package adapter

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5"
	for _, tc := range []struct {
		name, linked, release string
		settings              []debug.BuildSetting
		version, commit       string
	}{
		{"make names it", "0.3.0+git4.1a2b3c4", "0.3.0\n", vcs(rev, "false"), "0.3.0+git4.1a2b3c4", "1a2b3c4d5e6f"},
		{"plain go build", "", "0.3.0\n", vcs(rev, "false"), "0.3.0+git.1a2b3c4", "1a2b3c4d5e6f"},
		{"plain go build, changed tree", "", "0.3.0", vcs(rev, "true"), "0.3.0+git.1a2b3c4.dirty", "1a2b3c4d5e6f"},
		{"no vcs information (go run)", "", "0.3.0", nil, "0.3.0+dev", ""},
		{"nothing at all", "", "", nil, "dev", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, c := buildVersion(tc.linked, tc.release, tc.settings)
			if v != tc.version || c != tc.commit {
				t.Errorf("buildVersion = %q, %q; want %q, %q", v, c, tc.version, tc.commit)
			}
		})
	}
}
