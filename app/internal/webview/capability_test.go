package webview

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckCallRefusesACallWithoutTheCapability(t *testing.T) {
	const capability = "c0ffee"
	for _, c := range []struct {
		name    string
		message string
		have    string
		refused bool
		id      string
	}{
		{"the right capability", `C{"name":"desktop.Desktop.RunCell","args":["x"],"callbackID":"cb-1","capability":"c0ffee"}`, capability, false, ""},
		{"no capability", `C{"name":"desktop.Desktop.RunCell","args":["x"],"callbackID":"cb-1"}`, capability, true, "cb-1"},
		{"a wrong one", `C{"name":"desktop.Desktop.SetAPIKey","args":["k","v"],"callbackID":"cb-2","capability":"c0ffef"}`, capability, true, "cb-2"},
		{"a prefix of it", `C{"name":"desktop.Desktop.Approve","callbackID":"cb-3","capability":"c0ff"}`, capability, true, "cb-3"},
		{"a call by id without it", `c{"id":7,"args":[],"callbackID":"cb-4"}`, capability, true, "cb-4"},
		{"an empty capability on both sides", `C{"name":"desktop.Desktop.RunCell","callbackID":"cb-5","capability":""}`, "", true, "cb-5"},
		{"a call that is not JSON", `C{"name":`, capability, true, ""},
		{"an event of the runtime", `EE{"name":"x","data":[]}`, capability, false, ""},
		{"the window's title", `WT:freeact`, capability, false, ""},
		{"an empty message", ``, capability, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := CheckCall(c.message, c.have)
			if (err != nil) != c.refused {
				t.Fatalf("CheckCall(%q) = %v, refused want %v", c.message, err, c.refused)
			}
			if id != c.id {
				t.Errorf("callback id %q, want %q", id, c.id)
			}
			if c.refused && c.id != "" && !errors.Is(err, ErrNoCapability) {
				t.Errorf("error %v does not say the capability is missing", err)
			}
		})
	}
}

func TestNewCapabilityIsRandomAndLong(t *testing.T) {
	a, err := NewCapability(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewCapability(nil)
	if len(a) != 64 || a == b {
		t.Errorf("capabilities %q and %q: want two different 64-digit values", a, b)
	}
	if _, err := NewCapability(strings.NewReader("short")); err == nil {
		t.Error("a capability from 5 random bytes was made")
	}
}

func TestInjectCapabilityPutsTheMetaTagIntoTheHead(t *testing.T) {
	got, err := InjectCapability([]byte("<!doctype html><html><head><title>x</title></head></html>"), "abc")
	if err != nil {
		t.Fatal(err)
	}
	if want := `<head><meta name="freeact-capability" content="abc"><title>`; !strings.Contains(string(got), want) {
		t.Errorf("page %s does not hold %s", got, want)
	}
	if _, err := InjectCapability([]byte("<html></html>"), "abc"); err == nil {
		t.Error("a page without a head got no error")
	}
}
