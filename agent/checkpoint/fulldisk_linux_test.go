package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// smallDisk mounts a tmpfs of size bytes on a new folder, unmounted at
// cleanup; it skips the test where it cannot (not root, no mount).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk is a small tmpfs, and mounting one needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s): the full-disk test needs CAP_SYS_ADMIN", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// fill takes the free space of the file system at dir but keep bytes, in
// a file it returns.
func fill(t *testing.T, dir string, keep int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	p := filepath.Join(dir, "filler")
	if err := os.WriteFile(p, make([]byte, max(0, free-keep)), 0o600); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	return p
}

func bigFiles(n, size int) map[string]string {
	out := map[string]string{}
	for i := range n {
		out[fmt.Sprintf("big%02d.bin", i)] = strings.Repeat(fmt.Sprint(i%10), size)
	}
	return out
}

// A checkpoint store on a full disk: the snapshot fails saying so, the
// records stay whole, and once there is room again it works.
func TestStoreOnFullDisk(t *testing.T) {
	disk := smallDisk(t, "4m")
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n"})
	s, err := Open(filepath.Join(disk, "store"), ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := action(t, s, Info{TurnID: "t1", Label: "small"}, func() { write(t, ws, map[string]string{"a.txt": "A\n"}) })
	filler := fill(t, disk, 64<<10)
	write(t, ws, bigFiles(10, 200<<10))
	_, err = s.Snapshot(context.Background())
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Snapshot on a full disk = %v, want ENOSPC", err)
	}
	if _, err := s.Begin(context.Background(), Info{Label: "x"}, Snapshot{Root: r.After}); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Begin: %v", err)
	}
	rs, err := s.Records()
	if err != nil || len(rs) != 1 || rs[0].ID != r.ID {
		t.Fatalf("records after the full disk: %v, %v", rs, err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(context.Background()); err != nil {
		t.Fatalf("with room again: %v", err)
	}
	if _, _, err := s.Revert(context.Background(), rs, Info{}, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, ws, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q", got)
	}
}

// A revert that runs out of space halfway is rolled back: the workspace
// is as before the revert, no journal is left, and with room it succeeds.
func TestRevertOutOfSpaceHalfway(t *testing.T) {
	ws := smallDisk(t, "4m")
	files := bigFiles(10, 200<<10)
	write(t, ws, files)
	s := open(t, ws, Options{})
	r := action(t, s, Info{TurnID: "t1", Label: "delete"}, func() {
		for name := range files {
			if err := os.Remove(filepath.Join(ws, name)); err != nil {
				t.Fatal(err)
			}
		}
		write(t, ws, map[string]string{"note.txt": "deleted them\n"})
	})
	filler := fill(t, ws, 900<<10) // room for four of the ten files
	before := tree(t, ws)
	_, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if err == nil || !strings.Contains(err.Error(), "put back as they were") || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Revert on a full disk = %v", err)
	}
	if got := tree(t, ws); !maps.Equal(got, before) {
		t.Fatalf("the failed revert left %d files, want %d as before it", len(got), len(before))
	}
	if in, err := s.InterruptedRevert(); in != nil || err != nil {
		t.Fatalf("a journal was left: %+v, %v", in, err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, false); err != nil {
		t.Fatal(err)
	}
	got := tree(t, ws)
	for name, content := range files {
		if got[name] != content {
			t.Fatalf("%s not restored", name)
		}
	}
	if _, ok := got["note.txt"]; ok {
		t.Fatal("note.txt not removed")
	}
}
