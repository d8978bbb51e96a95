"""Check the audit's minimal reproductions against privlint: one PASS/FAIL line per expectation.

    python bench/check_snippets.py [--privlint-src /work/main]

Each file in bench/realrepos_snippets/ marks lines with `# expect: none` (no finding on that line)
or `# expect: PREFIX [xN]` (a finding whose code starts with PREFIX; exactly N findings on the line
when xN is given).  privlint runs with that folder as cwd, so its pyproject (torch>=2.6) is used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SNIPPETS = HERE / "realrepos_snippets"
EXPECT = re.compile(r"#\s*expect:\s*(none|PRV\w*)(?:\s+x(\d+))?")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--privlint-src", type=Path, default=HERE.parent)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--update-doc", action="store_true",
                    help="also write the results as a table into bench/REALREPOS.md")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(args.privlint_src))
    proc = subprocess.run([args.python, "-m", "privlint", "check", ".", "--format", "json", "--no-cache"],
                          cwd=SNIPPETS, env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        print(f"privlint exited {proc.returncode}: {proc.stderr.strip()[-800:]}")
        return 2
    findings = json.loads(proc.stdout)["findings"]
    at: dict[tuple[str, int], list[str]] = {}
    for f in findings:
        at.setdefault((f["path"], f["line"]), []).append(f["code"])
    failed = 0
    table = ["| snippet:line | expects | privlint gave | |", "|---|---|---|---|"]
    for path in sorted(SNIPPETS.glob("*.py")):
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            m = EXPECT.search(line)
            if not m:
                continue
            got = at.get((path.name, lineno), [])
            want, count = m.group(1), m.group(2)
            if want == "none":
                ok = not got
            else:
                hits = [c for c in got if c.startswith(want)]
                ok = bool(hits) and (count is None or len(got) == int(count))
            failed += not ok
            print(f"{'PASS' if ok else 'FAIL'}  {path.name}:{lineno}  expect {want}"
                  f"{' x' + count if count else ''}  got {got or 'nothing'}")
            table.append(f"| `{path.name}:{lineno}` | {want}{' x' + count if count else ''} | "
                         f"{', '.join(got) or 'nothing'} | {'pass' if ok else '**FAIL**'} |")
    print(f"{failed} failing expectation(s)")
    if args.update_doc:
        head = subprocess.run(["git", "-C", str(args.privlint_src), "log", "-1", "--format=%h %cd",
                               "--date=format:%Y-%m-%d %H:%M"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(args.privlint_src), "status", "--short", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        table.insert(0, f"privlint `{head}`{' + uncommitted changes' if dirty else ''}: "
                        f"{failed} failing expectation(s).\n")
        doc = HERE / "REALREPOS.md"
        text = doc.read_text()
        begin, end = "<!-- snippets:begin -->", "<!-- snippets:end -->"
        start, stop = text.index(begin) + len(begin), text.index(end)
        doc.write_text(text[:start] + "\n" + "\n".join(table) + "\n" + text[stop:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
