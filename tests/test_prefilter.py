"""The text prefilter (privlint/prefilter.py) on shapes the generated programs do not reach."""

from __future__ import annotations

import time

from privlint.catalog import load_catalog
from privlint.prefilter import build

TEXT = build(load_catalog())


def test_thousands_of_receivers_are_passed_on_not_scanned_one_by_one():
    # Each untyped receiver costs a scan of the file: past a bound, the file goes on to the
    # `ast` gate (which then rejects it) instead of costing thousands of scans.
    names = 5000
    data = b"".join(b"a%d = %d\na%d._x\n" % (i, i, i) for i in range(names))
    start = time.process_time()
    assert TEXT.search(data)  # "maybe": the bound was reached
    assert time.process_time() - start < 30  # a guard against a hang, not a benchmark
    few = b"".join(b"a%d = %d\na%d._x\n" % (i, i, i) for i in range(10))
    assert not TEXT.search(few)  # under the bound each is judged: literals type nothing
