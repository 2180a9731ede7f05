package opener

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/idna"

	"github.com/freeact/desktop/internal/redact"
)

// Link is a URL checked to be handed to the browser.
type Link struct {
	// URL is what the browser gets: absolute, beginning with "https://"
	// or "http://", its host in ASCII.
	URL string `json:"url"`
	// Host is the host (and port) as the browser will reach it, in ASCII:
	// an international name in punycode ("xn--..."). Show it apart from
	// the rest of the URL.
	Host string `json:"host"`
	// International is set when the host was given with letters outside
	// ASCII (it may imitate another name: Cyrillic "е" for Latin "e").
	International bool `json:"international,omitempty"`
}

// CheckURL parses raw and says whether it may be handed to the browser:
// https anywhere, http only to a loopback host, nothing else (no file:,
// javascript:, data:, no relative or option-like text), no user name
// before the host. The error says what is wrong.
func CheckURL(raw string) (Link, error) {
	shown := redact.URL(raw)
	if raw == "" {
		return Link{}, errors.New("the link is empty")
	}
	if strings.HasPrefix(raw, "-") {
		return Link{}, fmt.Errorf("%q is not a link (it begins with \"-\"): only https:// addresses are opened", shown)
	}
	for _, r := range raw {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return Link{}, fmt.Errorf("%q holds spaces or control characters: only a plain https:// address is opened", shown)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Link{}, fmt.Errorf("%q is not a valid link: only https:// addresses are opened", shown)
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "":
		return Link{}, fmt.Errorf("%q has no scheme: only https:// addresses are opened", shown)
	case scheme != "https" && scheme != "http":
		return Link{}, fmt.Errorf("%s: links are not opened (only https://, and http:// to this computer): copy the address if you trust it", scheme)
	case u.Opaque != "" || u.Host == "":
		return Link{}, fmt.Errorf("%q has no host: only https://HOST/... addresses are opened", shown)
	case u.User != nil:
		return Link{}, fmt.Errorf("%q has a user name before its host (user@host), which can disguise where it leads: it is not opened", shown)
	}
	host, port := u.Hostname(), u.Port()
	if strings.Contains(u.Host, "%") {
		return Link{}, fmt.Errorf("%q: the host %q is not a valid name: it holds %%-escapes", shown, u.Host)
	}
	if host == "" {
		return Link{}, fmt.Errorf("%q has no host: only https://HOST/... addresses are opened", shown)
	}
	ascii, intl, err := asciiHost(host)
	if err != nil {
		return Link{}, fmt.Errorf("%q: the host %q is not a valid name: %v", shown, host, err)
	}
	if scheme == "http" && !loopback(ascii) {
		return Link{}, fmt.Errorf("http://%s is not encrypted: only https:// addresses are opened (http:// only to this computer)", hostPort(ascii, port))
	}
	u.Scheme = scheme
	u.Host = hostPort(ascii, port)
	link := Link{URL: u.String(), Host: u.Host, International: intl}
	if !strings.HasPrefix(link.URL, scheme+"://") {
		return Link{}, fmt.Errorf("%q cannot be put in a plain form: it is not opened", shown)
	}
	return link, nil
}

// asciiHost returns host in the ASCII form the browser reaches (an IP
// address as it is, a name lower-cased and, with letters outside ASCII,
// in punycode) and whether it had such letters.
func asciiHost(host string) (string, bool, error) {
	if ip := net.ParseIP(host); ip != nil {
		return ip.String(), false, nil
	}
	if strings.ContainsAny(host, "%[]") {
		return "", false, errors.New("an address with a zone or brackets")
	}
	intl := false
	for _, r := range host {
		if r > unicode.MaxASCII {
			intl = true
			break
		}
	}
	a, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", false, err
	}
	if a == "" || strings.HasPrefix(a, "-") {
		return "", false, errors.New("an empty or option-like name")
	}
	// The ASCII form must read back as a valid name (no label that only
	// looks like punycode).
	if _, err := idna.Lookup.ToUnicode(a); err != nil {
		return "", false, err
	}
	return a, intl, nil
}

// loopback reports whether host (ASCII) is this computer: localhost,
// 127.0.0.0/8 or ::1.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func hostPort(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}
