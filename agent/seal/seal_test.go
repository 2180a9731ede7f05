package seal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
)

func TestKeyPerWorkspace(t *testing.T) {
	dir := t.TempDir()
	a, err := Load(dir, "/w/one")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Load(dir, "/w/one")
	if err != nil {
		t.Fatal(err)
	}
	other, err := Load(dir, "/w/two")
	if err != nil {
		t.Fatal(err)
	}
	r := model.Ran{By: "edited", Code: "x = 1"}
	a.Sign(&r, "c1")
	if !again.Valid(r, "c1") {
		t.Error("the key read back does not check its own record")
	}
	for name, bad := range map[string]func(model.Ran) (model.Ran, string){
		"code":    func(r model.Ran) (model.Ran, string) { r.Code = "x = 2"; return r, "c1" },
		"by":      func(r model.Ran) (model.Ran, string) { r.By = ""; return r, "c1" },
		"error":   func(r model.Ran) (model.Ran, string) { r.Error = true; return r, "c1" },
		"call id": func(r model.Ran) (model.Ran, string) { return r, "c2" },
		"no seal": func(r model.Ran) (model.Ran, string) { r.Seal = ""; return r, "c1" },
	} {
		if r2, id := bad(r); a.Valid(r2, id) {
			t.Errorf("a record with its %s changed passes", name)
		}
	}
	if other.Valid(r, "c1") {
		t.Error("another workspace's key checks the record")
	}
	var none *Key
	if none.Valid(r, "c1") {
		t.Error("a nil key trusts a record")
	}
	files, _ := filepath.Glob(filepath.Join(dir, Folder, "*"))
	if len(files) != 2 {
		t.Fatalf("key files %q, want one per workspace and no leftovers", files)
	}
	if info, err := os.Stat(files[0]); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode: %v %v", info, err)
	}
	if err := os.WriteFile(files[0], []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err1 := Load(dir, "/w/one")
	_, err2 := Load(dir, "/w/two")
	if (err1 == nil) == (err2 == nil) || !strings.Contains(errString(err1, err2), "is damaged: delete it") {
		t.Errorf("a damaged key: %v / %v", err1, err2)
	}
}

func errString(errs ...error) string {
	for _, e := range errs {
		if e != nil {
			return e.Error()
		}
	}
	return ""
}

// The seal covers every field of the record: changing any one of them
// (Run re-pointing a cell at another action's checkpoint record, a false
// Original, other Images) fails the check, and Whole says so.
func TestSealCoversTheWholeRecord(t *testing.T) {
	k := New([]byte("0123456789abcdef0123456789abcdef"))
	r := model.Ran{By: "notebook", Of: "nb1", Code: "x = 1", Run: "run-1", Original: "x = 0",
		Images: []string{"/ws/a.png", "/ws/b.png"}, ElapsedMS: 1500}
	k.Sign(&r, "")
	if !k.Valid(r, "") || !k.Whole(r, "") {
		t.Fatal("the key does not check its own whole record")
	}
	for name, change := range map[string]func(*model.Ran){
		"run":               func(r *model.Ran) { r.Run = "run-2" },
		"original":          func(r *model.Ran) { r.Original = "import os" },
		"original added":    func(r *model.Ran) { r.Original = ""; r.Code = "x = 0" },
		"an image":          func(r *model.Ran) { r.Images = []string{"/ws/a.png", "/etc/c.png"} },
		"images merged":     func(r *model.Ran) { r.Images = []string{"/ws/a.png/ws/b.png"} },
		"an image dropped":  func(r *model.Ran) { r.Images = r.Images[:1] },
		"elapsed":           func(r *model.Ran) { r.ElapsedMS = 2 },
		"run into original": func(r *model.Ran) { r.Run, r.Original = "", "run-1x = 0" },
	} {
		changed := r
		changed.Images = append([]string(nil), r.Images...)
		change(&changed)
		if k.Valid(changed, "") || k.Whole(changed, "") {
			t.Errorf("a record with its %s changed passes", name)
		}
	}
	var none *Key
	if none.Whole(r, "") {
		t.Error("a nil key trusts a whole record")
	}
}

// A record sealed before records were sealed whole (its seal over By,
// Of, Code and Error) still verifies its code, but is not whole: what it
// shows beyond its code is not trusted.
func TestOldSealStillVerifiesItsCode(t *testing.T) {
	k := New([]byte("0123456789abcdef0123456789abcdef"))
	r := model.Ran{By: "edited", Code: "x = 1"}
	r.Seal = k.mac1(r, "c1") // as the earlier Sign wrote it
	if !k.Valid(r, "c1") {
		t.Error("an old record no longer verifies")
	}
	if k.Whole(r, "c1") {
		t.Error("an old record is taken as sealed whole")
	}
	r.Run = "run-9" // not covered by the old seal
	if k.Whole(r, "c1") {
		t.Error("an old record with a Run added is taken as sealed whole")
	}
	r.Code = "x = 2"
	if k.Valid(r, "c1") {
		t.Error("an old record with its code changed passes")
	}
	// A new seal cannot be made to pass as an old one, nor the reverse.
	r = model.Ran{By: "edited", Code: "x = 1"}
	k.Sign(&r, "c1")
	r.Seal = strings.TrimPrefix(r.Seal, "v2:")
	if k.Valid(r, "c1") {
		t.Error("a whole seal without its version passes as an old one")
	}
}

// Who let a code action run without a click is sealed with its record:
// a badge added, changed or taken away no longer matches, and a record
// sealed whole before records kept it (no Approved) is still whole.
func TestSealCoversWhoApproved(t *testing.T) {
	k := New([]byte("0123456789abcdef0123456789abcdef"))
	old := model.Ran{Code: "print(1)", ElapsedMS: 12,
		Seal: "v2:76f3529fb9708a7be7b95d9edc6636135e390971c0521eb47ba6f2d6c47f0b1f"} // as written before
	if !k.Whole(old, "c1") {
		t.Error("a record sealed whole before records kept who approved it is no longer whole")
	}
	forged := old
	forged.Approved = &model.Approved{By: "sandbox"}
	if k.Valid(forged, "c1") {
		t.Error("a badge added to an older record passes")
	}
	r := model.Ran{Code: "print(1)", ElapsedMS: 12, Approved: &model.Approved{By: "judge", Reason: "the user asked"}}
	k.Sign(&r, "c1")
	if !k.Whole(r, "c1") {
		t.Fatal("the key does not check a record with who approved it")
	}
	for name, change := range map[string]func(*model.Ran){
		"by":            func(r *model.Ran) { r.Approved = &model.Approved{By: "rule", Reason: "the user asked"} },
		"reason":        func(r *model.Ran) { r.Approved = &model.Approved{By: "judge", Reason: "trust me"} },
		"rule":          func(r *model.Ran) { r.Approved = &model.Approved{By: "judge", Reason: "the user asked", Rule: "*"} },
		"badge removed": func(r *model.Ran) { r.Approved = nil },
		"into an image": func(r *model.Ran) { r.Approved, r.Images = nil, []string{"approved", "judge", "the user asked", ""} },
	} {
		changed := r
		change(&changed)
		if k.Valid(changed, "c1") {
			t.Errorf("a record with its %s changed passes", name)
		}
	}
}
