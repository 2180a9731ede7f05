package jupyterwire

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
)

func parts() *Parts {
	return &Parts{Header: []byte(`{"msg_id":"a"}`), Parent: []byte(`{}`), Metadata: []byte(`{}`), Content: []byte(`{"code":"1"}`)}
}

// TestSignature checks the signature against HMAC-SHA256 computed here
// over the concatenated parts, as jupyter_client's Session.sign does.
func TestSignature(t *testing.T) {
	key := []byte("0123-key")
	frames := NewSigner(key).Encode(parts())
	m := hmac.New(sha256.New, key)
	for _, b := range frames[2:6] {
		m.Write(b)
	}
	if want := hex.EncodeToString(m.Sum(nil)); string(frames[1]) != want {
		t.Fatalf("signature %s, want %s", frames[1], want)
	}
	if !bytes.Equal(frames[0], Delimiter) || len(frames) != 6 {
		t.Fatalf("frames %q", frames)
	}
}

func TestDecode(t *testing.T) {
	s := NewSigner([]byte("k"))
	good := append([][]byte{[]byte("id1")}, s.Encode(parts())...)
	good = append(good, []byte("buf"))
	tamper := func(i int, b string) [][]byte {
		f := append([][]byte{}, good...)
		f[i] = []byte(b)
		return f
	}
	tests := []struct {
		name   string
		signer *Signer
		frames [][]byte
		err    error
	}{
		{"good", s, good, nil},
		{"no delimiter", s, good[2:], ErrNoDelimiter},
		{"short", s, good[:6], ErrShort},
		{"content changed", s, tamper(6, `{"code":"2"}`), ErrSignature},
		{"signature changed", s, tamper(2, "00"), ErrSignature},
		{"other key", NewSigner([]byte("x")), good, ErrSignature},
		{"no key, unsigned", NewSigner(nil), tamper(2, ""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, p, err := tt.signer.Decode(tt.frames)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if len(ids) != 1 || string(ids[0]) != "id1" || string(p.Content) != string(tt.frames[6]) || len(p.Buffers) != 1 {
				t.Fatalf("ids %q parts %+v", ids, p)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	s := NewSigner([]byte("k"))
	f.Add([]byte("<IDS|MSG>\x00sig\x00{}\x00{}\x00{}\x00{}"))
	f.Add(bytes.Join(s.Encode(parts()), []byte{0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := bytes.Split(data, []byte{0})
		ids, p, err := s.Decode(frames)
		if err != nil {
			return
		}
		// What decodes re-encodes to the same frames.
		again := append(append([][]byte{}, ids...), s.Encode(p)...)
		if len(again) != len(frames) {
			t.Fatalf("re-encoded %d frames, had %d", len(again), len(frames))
		}
		for i := range again {
			if !bytes.Equal(again[i], frames[i]) {
				t.Fatalf("frame %d: %q, had %q", i, again[i], frames[i])
			}
		}
	})
}
