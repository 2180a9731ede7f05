package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// maxNegotiations bounds the handshakes of one connection attempt: the
// first, one after a server named the versions it speaks, and one more for a
// server that was still too slow to answer the probe the second time.
const maxNegotiations = 3

// negotiate settles the protocol version with a server and returns it.
//
// mcp-go first probes with server/discover (protocol 2026-07-28 and later)
// and falls back to the initialize handshake (2025-11-25 and earlier) when
// the probe fails or gets no answer within a few seconds. That fallback is
// what made connections depend on timing: a server that is only slow to
// start (a Python server under CPU load takes longer than the probe's 5 s to
// import its SDK) reads the probe late, commits the connection to the
// modern protocol, and then refuses the initialize that followed it, naming
// the versions it does speak. Such a refusal is not the end here: the
// handshake is tried again at the newest version both sides speak, so a
// slow modern server ends up modern and a legacy one ends up on the
// handshake. A server that speaks none of our versions gets an error naming
// the versions on both sides.
//
// probe bounds the first server/discover probe (0: mcp-go's default). Once a
// server has refused the handshake naming modern versions it is known to be
// modern and alive, so later probes wait as long as ctx allows.
func negotiate(ctx context.Context, cli *client.Client, clientName string, probe time.Duration) (string, error) {
	if probe > 0 {
		client.WithDiscoverTimeout(probe)(cli)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: "1"}
	preferred := mcp.LATEST_PROTOCOL_VERSION
	for range maxNegotiations {
		init.Params.ProtocolVersion = preferred
		res, err := cli.Initialize(ctx, init)
		if err == nil && mcp.IsModernProtocol(res.ProtocolVersion) && !speaksDiscover(ctx, cli) {
			// The server answered the probe with an empty result (some
			// answer every unknown method so): it is not modern.
			preferred = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			continue
		}
		if err == nil {
			return res.ProtocolVersion, nil
		}
		var refused mcp.UnsupportedProtocolVersionError
		if ctx.Err() != nil || !errors.As(err, &refused) {
			return "", err
		}
		next := mcp.NegotiateMutuallySupportedVersion(refused.Supported)
		if next == "" {
			return "", versionError(refused)
		}
		if mcp.IsModernProtocol(next) {
			client.WithDiscoverTimeout(-1)(cli)
		}
		preferred = next
	}
	return "", fmt.Errorf("no protocol version agreed after %d handshakes (this app speaks %s)", maxNegotiations, spoken())
}

// speaksDiscover asks server/discover again and reports whether the
// answer names the versions the server speaks, as a modern server's does.
func speaksDiscover(ctx context.Context, cli *client.Client) bool {
	res, err := cli.Discover(ctx, mcp.DiscoverRequest{})
	return err == nil && len(res.SupportedVersions) > 0
}

// versionError says which versions each side speaks.
func versionError(e mcp.UnsupportedProtocolVersionError) error {
	if len(e.Supported) == 0 {
		return fmt.Errorf("the server answered with protocol version %q, which this app does not speak (it speaks %s)", e.Version, spoken())
	}
	return fmt.Errorf("no protocol version in common: the server speaks %s, this app speaks %s (%w)",
		strings.Join(e.Supported, ", "), spoken(), e)
}

// spoken lists the protocol versions this app speaks, newest first.
func spoken() string { return strings.Join(mcp.ValidProtocolVersions, ", ") }

// ProtocolVersions are the MCP protocol versions this app speaks, newest
// first.
func ProtocolVersions() []string { return append([]string(nil), mcp.ValidProtocolVersions...) }
