"""Where a cold run's time goes, stage by stage, in one process (no workers, no cache).

    python bench/stages.py [bench/corpus/src]

For every file: the text prefilter, then for those it keeps CPython's `ast` gate, then for those
the slice, libcst's parse of what is handed to it, and the detector with placing (the rest of
`check_source`). Prints files and lines in and out of each stage and its CPU seconds, so that
RESULTS.md can say what is left. The checker's own code does the work; this only times it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from privlint import astgate, slicing  # noqa: E402
from privlint.catalog import load_catalog  # noqa: E402
from privlint.checker import Context, check_source  # noqa: E402
from privlint.config import Settings  # noqa: E402


def main() -> int:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "corpus" / "src"
    ctx = Context.build(load_catalog(), Settings())
    files = sorted(src.rglob("*.py"))
    clock = time.process_time
    spent = {"read": 0.0, "text": 0.0, "gate": 0.0, "slice": 0.0, "libcst parse": 0.0,
             "whole check (gate to placed findings)": 0.0}
    counts = {"files": len(files), "text kept": 0, "gate kept": 0, "sliced": 0}
    lines = {"all": 0, "gate kept": 0, "handed to libcst": 0}
    import gc

    from privlint.cstparse import parse_module

    gc.freeze()
    for path in files:
        gc.collect(0)  # as the runner does: the collector runs between files, not inside one
        gc.disable()
        start = clock()
        data = path.read_bytes()
        spent["read"] += clock() - start
        lines["all"] += data.count(b"\n")
        start = clock()
        kept = ctx.relevant.search(data)
        spent["text"] += clock() - start
        if not kept:
            continue
        counts["text kept"] += 1
        start = clock()
        reading = astgate.read(data, ctx.gate)
        spent["gate"] += clock() - start
        if not reading.maybe:
            continue
        counts["gate kept"] += 1
        lines["gate kept"] += data.count(b"\n")
        source = data
        if reading.tree is not None:
            start = clock()
            piece = slicing.slice_source(data, reading.tree, reading.lines)
            spent["slice"] += clock() - start
            if piece is not None:
                counts["sliced"] += 1
                source = piece.source
        lines["handed to libcst"] += sum(1 for line in source.split(b"\n") if line.strip())
        start = clock()
        try:
            parse_module(source)
        except Exception:  # noqa: BLE001 - a file libcst rejects is timed all the same
            pass
        spent["libcst parse"] += clock() - start
        start = clock()
        check_source(data, str(path), ctx)
        spent["whole check (gate to placed findings)"] += clock() - start
        gc.enable()
    print("| stage | files in | CPU s |")
    print("|---|---|---|")
    print(f"| read | {counts['files']} | {spent['read']:.2f} |")
    print(f"| text prefilter | {counts['files']} (keeps {counts['text kept']}) | {spent['text']:.2f} |")
    print(f"| `ast` gate | {counts['text kept']} (keeps {counts['gate kept']}) | {spent['gate']:.2f} |")
    print(f"| slice | {counts['gate kept']} (sliced {counts['sliced']}) | {spent['slice']:.2f} |")
    print(f"| libcst parse (of what is handed to it) | {counts['gate kept']} | {spent['libcst parse']:.2f} |")
    print(f"| check_source on the gate's files (gate, slice, parse, detect, place) | "
          f"{counts['gate kept']} | {spent['whole check (gate to placed findings)']:.2f} |")
    print(f"\nLines: {lines['all']} in all; {lines['gate kept']} in the files the gate keeps; "
          f"{lines['handed to libcst']} non-blank lines handed to libcst.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
