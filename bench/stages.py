"""Where a cold run's time goes, stage by stage, in one process (no workers, no cache).

    python bench/stages.py [bench/corpus/src]

Runs the checker on every file as a `-j 1` cold run does (the text prefilter, then
`check_source`, with the collector run between files as the runner does), and times the
checker's own functions in place: CPython's parse and the gate's walk, slicing, libcst's parse
(slices, and whole files analysed for a fix), the detector, placing and fix plans. Nothing is
run twice, so the stages add up to the total, less what sits between them. Prints a table in
CPU seconds for RESULTS.md, and the lines handed to libcst.
"""

from __future__ import annotations

import ast
import gc
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import privlint.astgate as astgate  # noqa: E402
import privlint.checker as checker  # noqa: E402
import privlint.cstparse as cstparse  # noqa: E402
import privlint.detect as detect  # noqa: E402
import privlint.slicing as slicing  # noqa: E402
from privlint.catalog import load_catalog  # noqa: E402
from privlint.config import Settings  # noqa: E402

STAGES = [  # (module, function, what the table calls it)
    (ast, "parse", "CPython's parse (the gate's)"),
    (astgate, "_candidates", "the gate's walk"),
    (slicing, "slice_source", "slicing"),
    (cstparse, "parse_module", "libcst's parse"),
    (detect, "detect", "the detector"),
    (checker, "_place", "placing (positions, noqa, messages)"),
    (checker, "_with_plans", "fix plans"),
]


def main() -> int:
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "corpus" / "src"
    clock = time.process_time
    spent: dict[str, float] = {}
    handed = [0, 0]  # lines and parses handed to libcst

    def timed(function, label):
        def run(*args, **kwargs):
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + clock() - start
        return run

    for module, name, label in STAGES:
        setattr(module, name, timed(getattr(module, name), label))
    parse = cstparse.parse_module

    def counted(data):
        handed[0] += (data if isinstance(data, bytes) else data.encode()).count(b"\n")
        handed[1] += 1
        return parse(data)

    cstparse.parse_module = counted
    ctx = checker.Context.build(load_catalog(), Settings(project_root=src))
    files = sorted(src.rglob("*.py"))
    data = [(path, path.read_bytes()) for path in files]
    gc.freeze()
    kept = 0
    start = clock()
    for path, source in data:
        begin = clock()
        relevant = ctx.relevant.search(source, checker.origin_of(ctx, str(path)))
        spent["text prefilter"] = spent.get("text prefilter", 0.0) + clock() - begin
        if not relevant:
            continue
        kept += 1
        gc.disable()
        checker.check_source(source, str(path), ctx, None, relevant)
        gc.enable()
        gc.collect(0)
    total = clock() - start
    print("| stage | CPU s |")
    print("|---|---|")
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"| {label} | {seconds:.2f} |")
    print(f"| all of it ({len(files)} files, {kept} past the text prefilter) | {total:.2f} |")
    print(f"\nlibcst parsed {handed[0]} lines in {handed[1]} parses.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
