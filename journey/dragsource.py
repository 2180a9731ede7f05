#!/usr/bin/python3
"""A drag source like a file manager's: a small GTK window that offers the
files named on the command line as text/uri-list when dragged with mouse
button 1. The journey suite drags from it to the app with xdotool, so the
drop travels through X, GTK and WebKit exactly as a real one does.

    dragsource.py X Y FILE...

It opens its window at X, Y and prints lines the test waits for: "ready"
once the window is shown, "sent" when the target asked for the data,
"ended" when the drag is over.
"""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402


def main():
    x, y, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    uris = [GLib.filename_to_uri(p, None) for p in paths]
    win = Gtk.Window(title="freeact-journey-drag-source")
    win.set_default_size(140, 90)
    win.move(x, y)
    box = Gtk.EventBox()
    box.add(Gtk.Label(label=f"{len(paths)} file(s)"))
    win.add(box)
    targets = Gtk.TargetList.new([])
    targets.add_uri_targets(0)
    box.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
    box.drag_source_set_target_list(targets)

    def on_get(_w, _ctx, data, _info, _time):
        data.set_uris(uris)
        print("sent", flush=True)

    box.connect("drag-data-get", on_get)
    box.connect("drag-end", lambda *_: print("ended", flush=True))
    win.connect("destroy", Gtk.main_quit)
    win.connect("map-event", lambda *_: print("ready", flush=True))
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
