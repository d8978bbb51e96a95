"""A lossless text prefilter: skip files that cannot hold a finding without parsing them.

Every finding needs one of these in the file's bytes: the word `torch` or another root of
a rule's path (imports and dotted paths are resolved from imports of those roots), a
distinctive member name that is flagged on any receiver, or the name of a tracked type (an
unresolved `DeviceMesh` annotation). Parsing is the expensive step, so files with none of
them are never parsed; astgate.py then reads the rest with CPython's parser.
"""

from __future__ import annotations

import re

from privlint.catalog import Catalog


def needles(catalog: Catalog) -> list[str]:
    words = {"torch"} | catalog.roots
    # Every member a member rule covers: a receiver typed by another module's function
    # (`get_mesh(n)._flatten("x")`) may show no other sign of torch in this file.
    words |= catalog.member_names
    for name in catalog.types:
        words.add(name.rsplit(".", 1)[-1])
    return sorted(words)


# The project's own modules can hand torch names on to a file that never says `torch`
# (`from .utils import dist`, `from .utils import *`), and the detector follows them.
_HANDED_ON = (rb"from\s+\.", rb"import\s+\*")


def build(catalog: Catalog) -> "re.Pattern[bytes]":
    return re.compile(b"|".join([re.escape(word.encode()) for word in needles(catalog)]
                                + list(_HANDED_ON)))
