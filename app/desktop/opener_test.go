package desktop

import (
	"context"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/app/internal/fronttest"
)

// Links of the window go through the opener: only https (and http to
// this computer) reaches the browser, as a whole URL with an ASCII host;
// a browser that fails is reported.
func TestDesktopOpenLinkHandsOnlyCheckedURLsToTheBrowser(t *testing.T) {
	d, _, _ := testDesktop(t)
	opens := fronttest.RecordOpens(t, 0)
	for _, u := range []string{"file:///etc/passwd", "--renderer-cmd-prefix=/usr/bin/xterm", "javascript:alert(1)",
		"data:text/html;base64,PHNjcmlwdD4=", "http://example.com/", "/etc/passwd"} {
		if err := d.OpenLink(u); err == nil {
			t.Errorf("OpenLink(%q) was allowed", u)
		}
	}
	if got := opens(); len(got) != 0 {
		t.Fatalf("refused links reached the opener: %q", got)
	}
	if err := d.OpenLink("https://ехаmple.com/x"); err != nil {
		t.Fatal(err)
	}
	if got := opens(); len(got) != 1 || got[0][1] != "https://xn--mple-43d3a6i.com/x" {
		t.Errorf("the opener got %q, want the look-alike host in punycode", got)
	}
	fronttest.RecordOpens(t, 4)
	if err := d.OpenLink("https://example.com/"); err == nil || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("OpenLink with a failing opener = %v, want its failure", err)
	}
}

// A URL-mode form shows its host apart (punycode) and opens only a URL
// the opener allows: file:// and option-like text are refused on Accept,
// and nothing reaches the browser.
func TestDesktopURLFormOpensOnlyCheckedURLs(t *testing.T) {
	d, h, _ := testDesktop(t)
	opens := fronttest.RecordOpens(t, 0)
	u := d.mcpUser()
	ask := func(url string) (MCPRequest, chan mcp.Answer) {
		t.Helper()
		h.mu.Lock()
		from := len(h.mcp)
		h.mu.Unlock()
		got := make(chan mcp.Answer, 1)
		go func() {
			a, _ := u.elicit(context.Background(), nil, mcp.Form{Server: "srv", Message: "Open this", Mode: "url", URL: url})
			got <- a
		}()
		card, _ := h.waitMCP(t, from, "for "+url, func(r MCPRequest) bool { return r.Kind == "form" && r.State == MCPWaiting })
		return card, got
	}
	for _, bad := range []string{"file:///etc/passwd", "--renderer-cmd-prefix=/usr/bin/xterm"} {
		card, got := ask(bad)
		if card.Host != "" || card.URLProblem == "" {
			t.Errorf("card for %q = %+v, want a problem and no host", bad, card)
		}
		if err := d.AnswerForm(card.ID, "accept", nil); err == nil {
			t.Errorf("Accept opened %q", bad)
		}
		if err := d.AnswerForm(card.ID, "decline", nil); err != nil {
			t.Fatal(err)
		}
		if a := <-got; a.Action != "decline" {
			t.Errorf("answer %+v", a)
		}
	}
	if got := opens(); len(got) != 0 {
		t.Fatalf("refused URLs reached the opener: %q", got)
	}
	card, got := ask("https://ехаmple.com/verify")
	if card.Host != "xn--mple-43d3a6i.com" || card.URL != "https://xn--mple-43d3a6i.com/verify" || card.URLProblem != "" {
		t.Errorf("card = %+v, want the host apart in punycode", card)
	}
	if err := d.AnswerForm(card.ID, "accept", nil); err != nil {
		t.Fatal(err)
	}
	if a := <-got; a.Action != "accept" {
		t.Errorf("answer %+v", a)
	}
	if o := opens(); len(o) != 1 || len(o[0]) != 2 || o[0][1] != "https://xn--mple-43d3a6i.com/verify" {
		t.Errorf("the opener got %q", o)
	}
}
