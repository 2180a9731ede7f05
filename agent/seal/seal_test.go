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
