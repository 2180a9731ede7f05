#!/usr/bin/python3
"""The journey suite's eyes: reads the desktop window the way a screen
reader does, through the AT-SPI accessibility bus (and the GTK clipboard),
and answers one JSON request a line on stdin with one JSON line on stdout.

Requests:
  {"op": "find", "app": "freeact", "role": "push button", "name": "Send",
   "text": "...", "all": false}
      nodes whose role is role (if given), whose accessible name contains
      name and whose text contains text (if given); each with its role,
      name, text and screen extents x, y, w, h. Nodes without a size are
      left out (they are not on screen).
  {"op": "dump", "app": "freeact"}      every node, for failure messages
  {"op": "clipboard"}                    the clipboard's text and image size
  {"op": "copy_image", "path": "a.png"}  puts an image on the clipboard, as
                                         an image viewer's Copy does

Debian's python3-gi, gir1.2-atspi-2.0 and gir1.2-gtk-3.0 provide what it
uses. It must run with /usr/bin/python3 (the system's gi).
"""
import json
import sys

import gi

gi.require_version("Atspi", "2.0")
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Atspi, Gdk, GdkPixbuf, GLib, Gtk  # noqa: E402

MAX_TEXT = 4000


def node_text(node):
    try:
        t = node.get_text_iface()
        if t is not None:
            n = t.get_character_count()
            return (t.get_text(0, min(n, MAX_TEXT)) if n > 0 else "").replace("\ufffc", "")
    except Exception:
        pass
    return ""


def node_info(node, depth, role=None, text=None):
    """Everything a test reads of node; role and text when already read."""
    if role is None:
        role = node.get_role_name() or ""
    name = node.get_name() or ""
    if text is None:
        text = node_text(node)
    if role == "application":
        return {"role": role, "name": name, "text": "", "x": 0, "y": 0, "w": 0, "h": 0, "depth": depth, "focused": False, "showing": True}
    e = node.get_extents(Atspi.CoordType.SCREEN)
    states = node.get_state_set()
    return {
        "role": role,
        "name": name,
        "text": text,
        "description": node.get_description() or "",
        "x": e.x,
        "y": e.y,
        "w": e.width,
        "h": e.height,
        "depth": depth,
        "focused": states.contains(Atspi.StateType.FOCUSED),
        "showing": states.contains(Atspi.StateType.SHOWING),
        "enabled": states.contains(Atspi.StateType.ENABLED),
    }


def walk(node, depth, out, want, first):
    """Appends what want returns for node and those below it (pre-order),
    up to the first if first; want returns None for a node it leaves out."""
    try:
        info = want(node, depth)
    except Exception:
        return False
    if info is not None:
        out.append(info)
        if first:
            return True
    try:
        n = node.get_child_count()
    except Exception:
        return False
    for i in range(n):
        try:
            c = node.get_child_at_index(i)
        except Exception:
            continue
        if c is not None and walk(c, depth + 1, out, want, first):
            return True
    return False


def apps(name):
    desk = Atspi.get_desktop(0)
    for i in range(desk.get_child_count()):
        a = desk.get_child_at_index(i)
        if a is not None and (a.get_name() or "") == name:
            yield a


def find(req):
    role, name, text = req.get("role"), req.get("name"), req.get("text")
    exact = req.get("exact", False)

    def match(s, want):
        return s == want if exact else want in s

    # Every read of a node is a call over the bus to the web process: the
    # role and name (which the bus caches) rule a node out before its
    # text is read, and its place and states are read only for a node
    # that matches.
    def want(node, depth):
        r = node.get_role_name() or ""
        if role and r != role:
            return None
        if name is not None and not match(node.get_name() or "", name):
            return None
        t = node_text(node) if text is not None else None
        if text is not None and text not in t:
            return None
        info = node_info(node, depth, r, t)
        if info["w"] <= 0 or info["h"] <= 0:
            return None
        return info

    out = []
    for a in apps(req.get("app", "freeact")):
        if walk(a, 0, out, want, not req.get("all", False)) and not req.get("all", False):
            break
    return {"nodes": out}


def dump(req):
    out = []
    for a in apps(req.get("app", "freeact")):
        walk(a, 0, out, node_info, False)
    return {"nodes": out}


def clipboard(_req):
    cb = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
    text = cb.wait_for_text()
    image = cb.wait_for_image() if cb.wait_is_image_available() else None
    return {
        "text": text or "",
        "image": None if image is None else {"w": image.get_width(), "h": image.get_height()},
    }


def copy_image(req):
    pixbuf = GdkPixbuf.Pixbuf.new_from_file(req["path"])
    cb = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
    cb.set_image(pixbuf)
    return {"w": pixbuf.get_width(), "h": pixbuf.get_height()}


OPS = {"find": find, "dump": dump, "clipboard": clipboard, "copy_image": copy_image}


def on_input(source, _condition):
    line = source.readline()
    if not line:
        Gtk.main_quit()
        return False
    line = line.strip()
    if line:
        try:
            req = json.loads(line)
            resp = OPS[req["op"]](req)
        except Exception as e:  # reported to the test, which fails with it
            resp = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(resp), flush=True)
    return True


def main():
    # A GTK main loop, so that the clipboard this process owns is served
    # to the app when it pastes.
    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_input)
    print(json.dumps({"ready": True}), flush=True)
    Gtk.main()


if __name__ == "__main__":
    main()
