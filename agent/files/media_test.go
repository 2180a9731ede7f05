package files

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/webp"
)

var (
	red  = color.RGBA{R: 255, A: 255}
	blue = color.RGBA{B: 255, A: 255}
)

// halves returns a w×h image whose left half is red and right half blue, so
// tests can check that scaling kept the picture and not just the size.
func halves(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	row := img.Pix[:img.Stride]
	for x := range w {
		c := red
		if x >= w/2 {
			c = blue
		}
		copy(row[4*x:], []uint8{c.R, c.G, c.B, c.A})
	}
	for y := 1; y < h; y++ {
		copy(img.Pix[y*img.Stride:], row)
	}
	return img
}

func encodePNG(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	// The input's compression is not what is tested; BestSpeed saves most
	// of the time this table took.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, halves(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, halves(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeGIF(t testing.TB, w, h int) []byte {
	// The halves, as indexes of a two-colour palette (drawing them onto a
	// large palette searches it for every pixel).
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{red, blue})
	for y := range h {
		for x := w / 2; x < w; x++ {
			img.Pix[y*img.Stride+x] = 1
		}
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readFixture(t testing.TB, name string) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "media", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// pngHeader returns the start of a PNG file whose header claims w×h pixels:
// enough for DecodeConfig, the way a decompression bomb starts.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func near(c color.Color, want color.RGBA) bool {
	r, g, b, a := c.RGBA()
	d := func(x uint32, y uint8) bool { return int(x>>8)-int(y) < 40 && int(y)-int(x>>8) < 40 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B) && d(a, want.A)
}

func TestFitImage(t *testing.T) {
	tests := []struct {
		name      string
		data      []byte
		mime      string // of the result
		w, h      int    // of the result
		unchanged bool   // the input bytes come back as they are
		opaque    bool   // the picture is the red/blue halves
	}{
		{"small png", encodePNG(t, 300, 200), "image/png", 300, 200, true, true},
		{"exact 1024 png", encodePNG(t, 1024, 1024), "image/png", 1024, 1024, true, true},
		{"1025 wide png", encodePNG(t, 1025, 10), "image/png", 1024, 10, false, true},
		{"wide png", encodePNG(t, 2100, 1050), "image/png", 1024, 512, false, true},
		{"tall png", encodePNG(t, 600, 2400), "image/png", 256, 1024, false, true},
		{"thin png", encodePNG(t, 5000, 2), "image/png", 1024, 1, false, true},
		{"small jpeg", encodeJPEG(t, 640, 480), "image/jpeg", 640, 480, true, true},
		{"big jpeg", encodeJPEG(t, 2048, 1536), "image/jpeg", 1024, 768, false, true},
		{"small gif", encodeGIF(t, 100, 50), "image/png", 100, 50, false, true},
		{"big gif", encodeGIF(t, 1400, 700), "image/png", 1024, 512, false, true},
		{"small webp", readFixture(t, "small-600x200.webp"), "image/webp", 600, 200, true, true},
		{"big webp", readFixture(t, "wide-2000x1000.webp"), "image/jpeg", 1024, 512, false, true},
		{"webp with alpha", readFixture(t, "alpha-1200x1300.webp"), "image/png", 945, 1024, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := FitImage(tt.data, MaxImageSide)
			if err != nil {
				t.Fatal(err)
			}
			if img.MIMEType != tt.mime || img.Width != tt.w || img.Height != tt.h {
				t.Fatalf("got %s %d×%d, want %s %d×%d", img.MIMEType, img.Width, img.Height, tt.mime, tt.w, tt.h)
			}
			if same := bytes.Equal(img.Data, tt.data); same != tt.unchanged {
				t.Errorf("data returned unchanged = %v, want %v", same, tt.unchanged)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatalf("result does not decode: %v", err)
			}
			if "image/"+format != tt.mime || cfg.Width != tt.w || cfg.Height != tt.h {
				t.Errorf("encoded result is %s %d×%d, Image says %s %d×%d", format, cfg.Width, cfg.Height, tt.mime, tt.w, tt.h)
			}
			decoded, _, err := image.Decode(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatal(err)
			}
			b := decoded.Bounds()
			left, right := decoded.At(b.Min.X+b.Dx()/4, b.Dy()/2), decoded.At(b.Min.X+b.Dx()*3/4, b.Dy()/2)
			if tt.opaque && (!near(left, red) || !near(right, blue)) {
				t.Errorf("picture changed: left quarter %v (want red), right quarter %v (want blue)", left, right)
			}
			if !tt.opaque {
				if _, _, _, a := right.RGBA(); a != 0 {
					t.Errorf("transparent half has alpha %d after scaling", a>>8)
				}
				if _, _, _, a := left.RGBA(); a>>8 < 100 || a>>8 > 155 {
					t.Errorf("half-transparent half has alpha %d, want about 128", a>>8)
				}
			}
		})
	}
}

func init() { image.RegisterFormat("webp", "RIFF????WEBPVP8", webp.Decode, webp.DecodeConfig) }

func TestFitImageErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"text", []byte("hello, world\n"), "text/plain"},
		{"pdf", []byte("%PDF-1.7\n%..."), "application/pdf"},
		{"svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`), "SVG"},
		{"empty", nil, "empty"},
		{"truncated png", encodePNG(t, 50, 50)[:60], "decode PNG image"},
		{"huge png", pngHeader(20000, 20000), "20000×20000 pixels is more than the 64 megapixels"},
		{"zero size png", pngHeader(0, 10), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FitImage(tt.data, MaxImageSide)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := FitImage([]byte("plain"), 100); !errors.Is(err, ErrNotImage) {
		t.Errorf("text: error %v does not wrap ErrNotImage", err)
	}
	if _, err := FitImage(encodePNG(t, 4, 4), 0); err == nil {
		t.Error("maxSide 0 accepted")
	}
}

func TestDownscale(t *testing.T) {
	small := halves(40, 30)
	if got := Downscale(small, 40); got != image.Image(small) {
		t.Error("an image that fits was not returned as it is")
	}
	// A sub-image with a non-zero origin scales from its own bounds.
	big := halves(400, 300).SubImage(image.Rect(200, 0, 400, 300)) // all blue, 200×300
	got := Downscale(big, 30)
	if b := got.Bounds(); b != image.Rect(0, 0, 20, 30) {
		t.Fatalf("bounds %v, want 20×30 at the origin", b)
	}
	if c := got.At(10, 15); !near(c, blue) {
		t.Errorf("pixel %v, want blue", c)
	}

	// A one-pixel checkerboard shrunk fourfold must average to even grey
	// everywhere; sampling without filtering would give black, white or moiré.
	board := image.NewGray(image.Rect(0, 0, 2048, 2048))
	for i := range board.Pix {
		if (i%2048+i/2048)%2 == 0 {
			board.Pix[i] = 255
		}
	}
	grey := Downscale(board, 512)
	gb := grey.Bounds()
	if gb.Dx() != 512 || gb.Dy() != 512 {
		t.Fatalf("checkerboard scaled to %v", gb)
	}
	for y := range gb.Dy() {
		for x := range gb.Dx() {
			if r, _, _, _ := grey.At(x, y).RGBA(); r>>8 < 118 || r>>8 > 137 {
				t.Fatalf("pixel (%d,%d) = %d, want about 127: the scaler aliases", x, y, r>>8)
			}
		}
	}
}

func TestReadMedia(t *testing.T) {
	w := newWorkspace(t)
	put(t, w, "photos/big.jpg", encodeJPEG(t, 2048, 1536))
	put(t, w, "icon.png", encodePNG(t, 64, 32))
	put(t, w, "notes.txt", []byte("not an image\n"))

	img, desc, err := w.ReadMedia(context.Background(), ReadMediaArgs{Path: "photos/big.jpg"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if img.MIMEType != "image/jpeg" || img.Width != 1024 || img.Height != 768 || !img.Scaled() {
		t.Errorf("got %+v", img)
	}
	if want := "Image photos/big.jpg, scaled down from 2048×1536 to 1024×768 (image/jpeg)."; desc != want {
		t.Errorf("description %q, want %q", desc, want)
	}

	res, err := w.Run(context.Background(), ReadMediaArgs{Path: "icon.png"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Image == nil || res.Image.Scaled() || res.Text != "Image icon.png (64×32, image/png)." {
		t.Errorf("got %q, %+v", res.Text, res.Image)
	}

	for path, want := range map[string]string{
		"notes.txt":   "notes.txt: not a PNG, JPEG, GIF or WEBP image (the data looks like text/plain; charset=utf-8); for text files use filesystem_read_text_file",
		"missing.png": "missing.png does not exist",
		"photos":      "photos is a directory",
	} {
		if _, _, err := w.ReadMedia(context.Background(), ReadMediaArgs{Path: path}, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error = %v, want %q", path, err, want)
		}
	}
}

func BenchmarkFitImage(b *testing.B) {
	for _, bc := range []struct {
		name string
		data []byte
	}{
		{"jpeg-4000x3000", encodeJPEG(b, 4000, 3000)},
		{"png-2560x1440", encodePNG(b, 2560, 1440)},
		{"png-800x600-unchanged", encodePNG(b, 800, 600)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := FitImage(bc.data, MaxImageSide); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// PDFs, audio and video pass as they are to a model that reads them, and
// are refused with a reason otherwise.
func TestReadOtherMedia(t *testing.T) {
	w := newWorkspace(t)
	pdf := []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n")
	put(t, w, "docs/paper.pdf", pdf)
	put(t, w, "song.mp3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00 not really music"))
	put(t, w, "clip.webm", []byte("\x1a\x45\xdf\xa3 a webm header and some bytes"))
	put(t, w, "big.pdf", append([]byte("%PDF-1.7\n"), make([]byte, MaxInlineMediaBytes)...))

	// Images only (no AcceptMedia): a PDF is refused, saying why.
	if _, _, err := w.ReadMedia(context.Background(), ReadMediaArgs{Path: "docs/paper.pdf"}, false); err == nil ||
		!strings.Contains(err.Error(), "docs/paper.pdf is a PDF document (application/pdf), which this model cannot be given") {
		t.Errorf("err = %v", err)
	}

	accepted := map[string]bool{}
	w.AcceptMedia = func(mime string) bool {
		accepted[mime] = true
		return mime == "application/pdf" || mime == "audio/mpeg"
	}
	res, err := w.Run(context.Background(), ReadMediaArgs{Path: "docs/paper.pdf"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Image == nil || res.Image.MIMEType != "application/pdf" || string(res.Image.Data) != string(pdf) ||
		res.Text != fmt.Sprintf("A PDF document docs/paper.pdf (application/pdf, %d bytes).", len(pdf)) {
		t.Errorf("got %q, %+v", res.Text, res.Image)
	}
	img, desc, err := w.ReadMedia(context.Background(), ReadMediaArgs{Path: "song.mp3"}, false)
	if err != nil || img.MIMEType != "audio/mpeg" || !strings.HasPrefix(desc, "An audio file song.mp3") {
		t.Errorf("mp3: %+v %q %v", img.MIMEType, desc, err)
	}
	if _, _, err := w.ReadMedia(context.Background(), ReadMediaArgs{Path: "clip.webm"}, false); err == nil || !strings.Contains(err.Error(), "a video (video/webm)") {
		t.Errorf("webm: %v", err)
	}
	if !accepted["video/webm"] {
		t.Error("the model was not asked about video/webm")
	}
	if _, _, err := w.ReadMedia(context.Background(), ReadMediaArgs{Path: "big.pdf"}, false); err == nil || !strings.Contains(err.Error(), "up to 20 MiB") {
		t.Errorf("big.pdf: %v", err)
	}
}
