#!/bin/sh
# The browser of the conformance runs ($BROWSER): a user who approves at
# once. It opens the authorization URL and follows its redirects, the last
# of which reaches the client's loopback listener with the code.
exec curl -sS -o /dev/null -L --max-redirs 5 "$1"
