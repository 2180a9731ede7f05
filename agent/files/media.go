package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

const (
	// MaxImageSide is the longest side, in pixels, of an image sent to the model.
	MaxImageSide = 1024
	// MaxImagePixels refuses images whose decoded size (width × height)
	// would exceed it: 64 Mpx take 256 MiB once decoded.
	MaxImagePixels = 64 << 20
	// MaxMediaFileBytes is the largest image file read.
	MaxMediaFileBytes = 64 << 20
	// MaxInlineMediaBytes is the largest PDF, audio or video file read:
	// model providers refuse larger inline data.
	MaxInlineMediaBytes = 20 << 20
	jpegQuality         = 90
)

// Image is an encoded image ready for the model.
type Image struct {
	Data     []byte
	MIMEType string // image/png, image/jpeg or image/webp
	Width    int    // of Data
	Height   int
	// SourceWidth and SourceHeight are the size before any downscaling.
	SourceWidth  int
	SourceHeight int
}

// Scaled reports whether the image was scaled down.
func (im Image) Scaled() bool { return im.Width != im.SourceWidth || im.Height != im.SourceHeight }

// ErrNotImage is wrapped by FitImage's error when data is not a PNG, JPEG,
// GIF or WEBP image.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WEBP image")

// FitImage prepares an encoded image for a model. It decodes the image
// fully, so corrupt data is an error here rather than at the provider. When
// neither side exceeds maxSide the data is returned as it is, otherwise the image is scaled down
// with its aspect ratio kept until the longer side is maxSide. Scaled JPEGs
// stay JPEG; other scaled images become PNG, or JPEG for opaque WEBP (there is
// no WEBP encoder). GIFs always become PNG (first frame), because not every
// model provider accepts GIF. The desktop app uses it for attachments.
func FitImage(data []byte, maxSide int) (Image, error) {
	if maxSide < 1 {
		return Image{}, fmt.Errorf("fit image: maximum side must be positive, got %d", maxSide)
	}
	cfg, format, err := decodeConfig(data)
	if err != nil {
		return Image{}, err
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return Image{}, fmt.Errorf("fit image: %s image has no pixels (%d×%d)", format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return Image{}, fmt.Errorf("fit image: %d×%d pixels is more than the %d megapixels this tool decodes", cfg.Width, cfg.Height, MaxImagePixels>>20)
	}
	// Decode even an image that fits: a corrupt image would make the
	// model provider refuse the whole request.
	src, err := decode(data, format)
	if err != nil {
		return Image{}, err
	}
	out := Image{Width: cfg.Width, Height: cfg.Height, SourceWidth: cfg.Width, SourceHeight: cfg.Height}
	if cfg.Width <= maxSide && cfg.Height <= maxSide && format != "gif" {
		out.Data, out.MIMEType = data, "image/"+format
		return out, nil
	}
	dst := Downscale(src, maxSide)
	b := dst.Bounds()
	out.Width, out.Height = b.Dx(), b.Dy()
	var buf bytes.Buffer
	if format == "jpeg" || format == "webp" && isOpaque(dst) {
		out.MIMEType = "image/jpeg"
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality})
	} else {
		out.MIMEType = "image/png"
		err = png.Encode(&buf, dst)
	}
	if err != nil {
		return Image{}, fmt.Errorf("fit image: encode %s: %w", out.MIMEType, err)
	}
	out.Data = buf.Bytes()
	return out, nil
}

// Downscale returns img scaled down, aspect ratio kept, so that neither side
// exceeds maxSide. An image that already fits is returned unchanged. Large
// reductions first halve the image (bilinear sampling at exactly half size
// averages each 2×2 block) until at most a factor of two remains, then
// Catmull-Rom resampling makes the final size: close to a pure Catmull-Rom
// result at a fraction of its cost for multi-megapixel photos.
func Downscale(img image.Image, maxSide int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if maxSide < 1 || w <= maxSide && h <= maxSide {
		return img
	}
	nw, nh := fitSize(w, h, maxSide)
	src, sr := img, b
	for sr.Dx() > 2*nw && sr.Dy() > 2*nh {
		half := image.NewRGBA(image.Rect(0, 0, sr.Dx()/2, sr.Dy()/2))
		draw.ApproxBiLinear.Scale(half, half.Bounds(), src, sr, draw.Src, nil)
		src, sr = half, half.Bounds()
	}
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, sr, draw.Src, nil)
	return dst
}

// fitSize scales w×h so the longer side becomes maxSide, rounding the other.
func fitSize(w, h, maxSide int) (int, int) {
	if w >= h {
		return maxSide, max(1, int((int64(h)*int64(maxSide)+int64(w)/2)/int64(w)))
	}
	return max(1, int((int64(w)*int64(maxSide)+int64(h)/2)/int64(h))), maxSide
}

func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// imageFormats are the formats an image may come in, by name; its MIME
// type is "image/" and the name.
var imageFormats = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"png":  {png.DecodeConfig, png.Decode},
	"jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode},
	"webp": {webp.DecodeConfig, webp.Decode},
}

// decodeConfig reads an image's size and format without decoding its pixels.
func decodeConfig(data []byte) (image.Config, string, error) {
	kind := http.DetectContentType(data)
	format, isImage := strings.CutPrefix(kind, "image/")
	f, ok := imageFormats[format]
	if !isImage || !ok {
		return image.Config{}, "", fmt.Errorf("%w (the data looks like %s)", ErrNotImage, describeKind(data, kind))
	}
	cfg, err := f.config(bytes.NewReader(data))
	if err != nil {
		return image.Config{}, "", fmt.Errorf("decode %s image: %w", strings.ToUpper(format), err)
	}
	return cfg, format, nil
}

// decode decodes an image of a format decodeConfig returned.
func decode(data []byte, format string) (image.Image, error) {
	img, err := imageFormats[format].decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode %s image: %w", strings.ToUpper(format), err)
	}
	return img, nil
}

// describeKind names what non-image data looks like, for error messages.
func describeKind(data []byte, kind string) string {
	head := bytes.ToLower(data[:min(len(data), 512)])
	switch {
	case len(data) == 0:
		return "an empty file"
	case bytes.Contains(head, []byte("<svg")):
		return "an SVG image, which is text"
	}
	return kind
}

// ReadMedia reads an image file for the model, scaled down to MaxImageSide,
// or a PDF, audio or video file as it is when AcceptMedia takes its type.
// It returns the media and a one-line description for the tool result.
func (w *Workspace) ReadMedia(ctx context.Context, a ReadMediaArgs, approved bool) (Image, string, error) {
	p, err := w.resolve(ctx, a.Path, approved)
	if err != nil {
		return Image{}, "", err
	}
	return w.readMedia(ctx, p)
}

func (w *Workspace) readMedia(ctx context.Context, p Path) (Image, string, error) {
	f, err := w.openRegular(ctx, p)
	if err != nil {
		return Image{}, "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxMediaFileBytes+1))
	if err != nil {
		return Image{}, "", fmt.Errorf("read %s: %w", p.Display(), err)
	}
	if len(data) > MaxMediaFileBytes {
		return Image{}, "", fmt.Errorf("%s is larger than %d MiB; %s reads images up to that size", p.Display(), MaxMediaFileBytes>>20, ReadMediaFile)
	}
	if err := ctx.Err(); err != nil {
		return Image{}, "", fmt.Errorf("read %s: %w", p.Display(), err)
	}
	img, err := FitImage(data, MaxImageSide)
	if errors.Is(err, ErrNotImage) {
		if kind, mime := mediaKind(data, p.Display()); kind != "" {
			return w.otherMedia(data, p.Display(), kind, mime)
		}
		return Image{}, "", fmt.Errorf("%s: %w; for text files use %s", p.Display(), err, ReadTextFile)
	}
	if err != nil {
		return Image{}, "", fmt.Errorf("%s: %w", p.Display(), err)
	}
	desc := fmt.Sprintf("Image %s (%d×%d, %s).", p.Display(), img.Width, img.Height, img.MIMEType)
	if img.Scaled() {
		desc = fmt.Sprintf("Image %s, scaled down from %d×%d to %d×%d (%s).", p.Display(), img.SourceWidth, img.SourceHeight, img.Width, img.Height, img.MIMEType)
	}
	return img, desc, nil
}

// otherMedia passes a PDF, audio or video file on as it is, when the model
// reads its type.
func (w *Workspace) otherMedia(data []byte, display, kind, mime string) (Image, string, error) {
	if w.AcceptMedia == nil || !w.AcceptMedia(mime) {
		return Image{}, "", fmt.Errorf("%s is %s (%s), which this model cannot be given; %s passes images (PNG, JPEG, GIF, WEBP) to every model, PDFs, audio and video only to models that read them (Gemini reads all three, Claude and OpenAI PDFs)",
			display, kind, mime, ReadMediaFile)
	}
	if len(data) > MaxInlineMediaBytes {
		return Image{}, "", fmt.Errorf("%s is %d MiB; %s passes PDF, audio and video files up to %d MiB", display, len(data)>>20, ReadMediaFile, MaxInlineMediaBytes>>20)
	}
	return Image{Data: data, MIMEType: mime}, fmt.Sprintf("%s %s (%s, %s).", strings.ToUpper(kind[:1])+kind[1:], display, mime, sizeText(len(data))), nil
}

// mediaKind names what a non-image file is when it is a PDF, audio or
// video, by its content or else its extension: ("a PDF document",
// "application/pdf"), ...; "" otherwise.
func mediaKind(data []byte, name string) (kind, mime string) {
	mime = http.DetectContentType(data)
	switch mime {
	case "audio/wave":
		mime = "audio/wav"
	case "application/ogg":
		mime = "audio/ogg"
	case "video/avi":
		mime = "video/x-msvideo"
	}
	if mime == "application/octet-stream" || strings.HasPrefix(mime, "text/plain") {
		if byExt := mimeByExt[strings.ToLower(filepath.Ext(name))]; byExt != "" {
			mime = byExt
		}
	}
	switch {
	case mime == "application/pdf":
		return "a PDF document", mime
	case strings.HasPrefix(mime, "audio/"):
		return "an audio file", mime
	case strings.HasPrefix(mime, "video/"):
		return "a video", mime
	}
	return "", ""
}

// mimeByExt are the types of media files whose content
// http.DetectContentType does not recognise.
var mimeByExt = map[string]string{
	".pdf": "application/pdf", ".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac", ".flac": "audio/flac",
	".wav": "audio/wav", ".ogg": "audio/ogg", ".opus": "audio/ogg", ".mp4": "video/mp4", ".m4v": "video/mp4",
	".mov": "video/quicktime", ".webm": "video/webm", ".mkv": "video/x-matroska", ".avi": "video/x-msvideo",
	".mpeg": "video/mpeg", ".mpg": "video/mpeg", ".3gp": "video/3gpp",
}

// sizeText is a byte count for people: "812 bytes", "14 KiB", "3.2 MiB".
func sizeText(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
