package adapter

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// VersionInfo describes the running binary.
type VersionInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	Commit    string `json:"commit"`
}

// Version describes the binary b was built into.
func Version(b Build) VersionInfo {
	v := VersionInfo{GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	v.Version, v.Commit = buildVersion(b.Version, b.Release, settings)
	return v
}

// buildVersion is the version a binary reports and the commit it was built
// from. A version set at link time wins; without one (a plain go build) it
// is the embedded release plus the commit Go's build info records, in the
// form scripts/version.sh uses: 0.3.0+git.1a2b3c4, ".dirty" when the tree
// had changes. Without either it is "dev".
func buildVersion(linked, release string, settings []debug.BuildSetting) (version, commit string) {
	var revision string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(revision) >= 12 {
		commit = revision[:12]
	}
	release = strings.TrimSpace(release)
	switch {
	case linked != "":
		return linked, commit
	case release == "":
		return "dev", commit
	case len(revision) >= 7:
		version = release + "+git." + revision[:7]
		if modified {
			version += ".dirty"
		}
		return version, commit
	default:
		return release + "+dev", commit
	}
}

func (v VersionInfo) String() string {
	s := fmt.Sprintf("%s %s (%s, %s)", AppName, v.Version, v.GoVersion, v.Platform)
	if v.Commit != "" {
		s += " commit " + v.Commit
	}
	return s
}
