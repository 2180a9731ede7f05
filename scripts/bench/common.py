"""What the benchmark rounds of the reference (ref.py) and the floor
(floor.py) share."""

import os
from pathlib import Path

BIG_CELL = "line = 'z' * 99\nfor _ in range(100000): print(line)"


def tree_rss(pid: int) -> int:
    """Resident memory of process pid and all its descendants, in bytes."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 1 :].split()
        children.setdefault(int(fields[1]), []).append(int(name))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total
