package webview

// Config says what the guard allows and whom it tells. The callbacks run
// on the GTK main thread: they must not block (start a goroutine).
type Config struct {
	// Origin is the app's origin, "wails://wails" in the production
	// build; "" takes the origin of the address the web view was given
	// (the dev server's in a dev build).
	Origin string
	// Refused is told of a navigation refused; open says the user
	// clicked a link to a web page, which belongs in the browser.
	Refused func(uri string, open bool)
	// Capability is what every call of a bound method must carry
	// (CheckCall); "" refuses every call.
	Capability string
	// Dropped is told of a script message dropped because the page
	// shown, uri, is not the app's.
	Dropped func(uri string)
	// RefusedCall is told of a call of the app's page refused by
	// CheckCall: its callback id (to answer it with err) and why.
	RefusedCall func(callbackID string, err error)
	// Terminated is told that the web process ended, and why.
	Terminated func(reason string)
}
