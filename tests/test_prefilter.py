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


def test_a_comment_ending_with_a_dot_does_not_make_self_a_chain():
    # `x. self._y` (an attribute named `self`) passes the file; a comment's full stop above a
    # `self._y` line is not that, and must not keep every class with a commented method.
    commented = b"import torch\nclass A:\n    def f(self):\n        # Set it up.\n        self._y = 1\n"
    assert not TEXT.search(commented)
    chained = b"import torch\nclass A:\n    def f(self, x):\n        return (x.\n            self._y)\n"
    assert TEXT.search(chained)
    quoted = b"import torch\nclass A:\n    def f(self, x):\n        return ('#', x.\n            self._y)\n"
    assert TEXT.search(quoted)
