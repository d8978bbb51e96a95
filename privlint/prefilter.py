"""A lossless text prefilter: skip files that cannot hold a finding, without parsing them.

A finding sits where the code writes a private name (detect.py), on a receiver the detector
can type. Without parsing, a file may hold one only if its bytes have one of:

- a private attribute (`x._y`, `f()._y`, `a.b._y`) on a receiver the text may type, or one a
  member rule covers (`self._flatten`: flagged on any receiver);
- `getattr(x, "_y")` on such a receiver, or with a member name;
- a private name imported from a catalog root (`from torch.distributed import _x`), or a
  star import from one.

`self` and `cls` are typed by a class's tracked base, or as plain names the file binds. A
tracked type's short name (`DeviceMesh`) in the text lets its name type more: what it may
annotate (`mesh: DeviceMesh`) or narrow (`isinstance(mesh, DeviceMesh)`), `self` under a base
that may be one, and anything at all after a cast or a star import.

A receiver's head name is followed to what the file binds it to; a name another module hands
on (`from .utils import dist`) counts when the project index says that module binds it to a
torch path or a function returning a tracked type, as the gate and the detector ask it, or
when it is the project's own module, package or typed function, through which a call may be
typed (`from pkg import utils` then `utils.make_pg()`, `import pkg.utils`); a name from any
other module (`from transformers import logging`) types nothing.

Regular expressions at C speed answer each; astgate.py then reads what passes with CPython's
parser. Comments and strings are told apart from code only where the text is sure (a one-line
string in a bracket, a comment with no quote before its dot); anywhere else they are read as
code, which only lets more through.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from privlint.catalog import Catalog, has_private_part
from privlint.prose import comment_start, declares_another_encoding, fields_close, in_code, in_prose

if TYPE_CHECKING:
    from privlint.astgate import Origin
    from privlint.project import ProjectIndex

# Quantifiers are possessive: a comment banner (`#####`) must not make the engine backtrack.
# The tail of a private name: `_x`, `__x`, `_` (not a dunder such as `__init__`).
_PRIVATE_TAIL = rb"_(?:(?!_\w*__(?!\w))\w|(?!\w))"
_GAP = rb"(?:[\s\\]|#[^\n]*+)*+"  # what may stand between a dot and a name inside brackets
_ACCESS = re.compile(rb"\." + _GAP + rb"(" + _PRIVATE_TAIL + rb"\w*)")
_GAP_COMMENT = re.compile(rb"\.[\s\\]*+#")  # a dot, then a gap that holds a comment
# A private name at the head of a chain (`_C.foo`, `(_C).foo`, `_C  # c` then `.foo`): not
# after a name's byte or a dot. (The `_` first, the look behind after it: the engine finds a
# literal at C speed, where a pattern that starts with a look behind is tried at every byte.)
_PRIVATE_HEAD = re.compile(rb"_(?<![\w\x80-\xff.]_)(?:(?!_\w*__(?!\w))\w|(?!\w))[\w\x80-\xff]*+"
                           rb"(?:[\s\\)]|#[^\n]*+)*+\.")
# Patterns start with a literal (`getattr(`, `from`) where they can: the engine then finds their
# starts at C speed, where a leading alternation (`(?:self|cls)`) makes it try every byte.
_DOTTED_SELF = re.compile(rb"\." + _GAP + rb"(?:self|cls)" + _GAP + rb"\." + _GAP + _PRIVATE_TAIL)  # `x. self. _y`
# `getattr(`, and `(getattr)(`.
_GETATTR = re.compile(rb"getattr[ \t\x0c)]*\(")
# `getattr` with its bracket on a line below (after a continuation, a comment or in brackets).
_GETATTR_OVER_LINES = re.compile(rb"getattr[ \t\x0c)]*(?:\\\r?\n|#[^\n]*+\r?\n|\r?\n)(?:[\s\\)]|#[^\n]*+)*+\(")
# A string that starts with `_`, or with an escape (`"\x5fx"` is `"_x"` to the detector): a
# quote then `_` or `\`, found with `bytes.find` (a pattern that starts with a class of bytes
# makes the engine try every byte, and quotes are everywhere); after `_`, not a dunder's
# `_x__"` (the rest of `"__init__"`).
_PRIVATE_STRING_STARTS = (b'"_', b"'_", b'"\\', b"'\\")
_DUNDER_REST = re.compile(rb"_\w*__[\"']")
# A private string's value, whatever it holds (`"_données"`, `"_x-y"`, `"_x "`: getattr takes any).
_PRIVATE_STRING_VALUE = re.compile(rb"[\"'](_(?!_\w*__[\"'])[^\"'\\\n]*)[\"']")
_PRIVATE_NAME = re.compile(rb"(?<![\w.])" + _PRIVATE_TAIL)
_BEFORE_NAME = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") \
    | frozenset(range(128, 256))
# Bytes of a name: ASCII letters, digits, `_`, and any non-ASCII byte (`données` is a name).
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") \
    | frozenset(range(128, 256))
_SPACE = frozenset(b" \t\n\r\x0c\\")  # a form feed and a carriage return are space to CPython
# `class Name`, and what may stand before its base list; a name chain in the base list
# (`torch.distributed.ProcessGroup`).
_CLASS_NAME = re.compile(rb"class[\s\\]+[A-Za-z_\x80-\xff][\w\x80-\xff]*[\s\\]*")
_CHAIN = re.compile(rb"(?<![\w.])[A-Za-z_\x80-\xff][\w\x80-\xff]*(?:[\s\\]*\.[\s\\]*[A-Za-z_\x80-\xff][\w\x80-\xff]*)*")
_CLOSERS, _OPENERS = frozenset(b")]"), frozenset(b"([")
# An ASCII name, and `.name` after one with space on its line around the dot (a non-ASCII name is
# read by CPython in its NFKC form, which may be another's).
_ASCII_NAME = rb"[A-Za-z_]\w*"
_ASCII_ATTRIBUTE = rb"[ \t]*\.[ \t]*[A-Za-z_]\w*"
# An f-string's or a t-string's prefix ends with `f` or `t`, or with `r` after one (`rf"`,
# `fr"`), before its quote: a pattern for each letter, as one that starts with a class of
# letters, or with the quote and a look behind, is tried at every letter or every quote (most
# of the file's), at several times the cost.
_FSTRING_ENDS = tuple(re.compile(letter + rb"[rR]?[\"']") for letter in (b"f", b"F", b"t", b"T"))
_FSTRING_PREFIXES = frozenset({b"f", b"fr", b"rf", b"t", b"tr", b"rt"})
_CAST_CALL = re.compile(rb"cast(?:[\s\\]|#[^\n]*+)*+\(")
# `self` and `cls` as plain names: bound by a `:`, `=`, `:=` or ` in` after them (each pattern
# starts with its literal, so the engine finds starts at C speed), by an import's `as`, or
# narrowed after `isinstance(`.
_BINDING_TAILS = {name: re.compile(name + rb"(?:(?:[\s\\]|#[^\n]*+)*+(?::|=(?!=)|in(?![\w\x80-\xff]))"
                                          rb"|(?:[\s\\)]|#[^\n]*+)*+(?:=(?!=)|in(?![\w\x80-\xff])))")
                  for name in (b"self", b"cls")}  # `(self) = v`, `for (self) in`, not `def f(self):`
_DEF_SELF = re.compile(rb"def(?:[\s\\]|#[^\n]*+)+(?:self|cls)(?![\w\x80-\xff])")  # `def self(): return pg`
_SELF_WORD = re.compile(rb"(?<![\w\x80-\xff.])(?:self|cls)(?![\w\x80-\xff])")
_NARROWS = {name: re.compile(rb"isinstance(?:[\s\\)]|#[^\n]*+)*+\((?:[\s\\(]|#[^\n]*+)*+" + name + rb"(?![\w\x80-\xff])")
            for name in (b"self", b"cls")}

# `from <module> import`: the module's dots and names may have spaces and line continuations
# between them (`from . utils import x`), and names may be non-ASCII (their bytes are >= 0x80).
_FROM_IMPORT = re.compile(rb"from(?:[\s\\]+|(?=\.))((?:\.[\s\\]*)*+(?:[\w\x80-\xff]++(?:[\s\\]*\.[\s\\]*[\w\x80-\xff]++)*+)?)"
                          rb"[\s\\]*import\b"
                          rb"((?:(?:[ \t\x0c]|\\\r?\n)*\((?:[^)#]|#[^\n]*+)*+\)?)|(?:[^\n\\]|\\[\s\S])*+)")
_IMPORT = re.compile(rb"import(?:[ \t\x0c]|\\\r?\n)+((?:[^\n\r\\;#]|\\[\s\S])*+)")
_STAR_IMPORT = re.compile(rb"import[\s\\(]*\*")
_LONE_CR = re.compile(rb"\r(?!\n)")
# An escape that may spell a letter or `_` (code points 0x40-0x7f) inside a string: a string
# annotation may name a tracked type no plain text of the file names (`"Process\x47roup"`).
_LETTER_ESCAPE = re.compile(rb"\\(?:x[4-7]|u00[4-7]|U0000[4-7]|N\{|1[0-7][0-7])")
# A backslash ending a line between two letters: in a string, the lines' text joins up
# (`"Process\` then `Group"` at the next line's start).
# (The pattern starts with its literal, so the engine finds starts at C speed; the byte
# before is looked at by hand.)
_SPLIT_WORD = re.compile(rb"\\\r?\n[A-Za-z0-9_]")


def _has_private_string(data: bytes) -> bool:
    """Whether a string in the text may start with `_` (not a dunder's) or with an escape."""
    for start in _PRIVATE_STRING_STARTS:
        at = data.find(start)
        while at >= 0:
            if start[1] == 92 or _DUNDER_REST.match(data, at + 2) is None:
                return True
            at = data.find(start, at + 2)
    return False


def _import_positions(data: bytes) -> "tuple[int, ...]":
    """Where each `import` stands in the text (a word's part too: `importlib`), found at C
    speed. Read once per file (TextFilter._search): the star reading, the clauses and the
    statements all walk these."""
    found = []
    at = data.find(b"import")
    while at >= 0:
        found.append(at)
        at = data.find(b"import", at + 6)
    return tuple(found)


def _star_import(data: bytes, imports_at: "tuple[int, ...]") -> bool:
    """Whether the text may hold a star import (`import *`, `import (*`): _STAR_IMPORT tried
    where each `import` stands (`imports_at`), where a search reads every byte."""
    return any(_STAR_IMPORT.match(data, at) is not None for at in imports_at)


def may_spell_a_name(data: bytes) -> bool:
    """Whether a string here may spell a name no plain text of the file holds: an escape that
    may be a letter or `_`, or a word split by a backslash at a line's end. (Both start with a
    backslash: a file without one, most, is told at C speed, where a pattern reads every byte.)"""
    return b"\\" in data and (
        _LETTER_ESCAPE.search(data) is not None
        or any(match.start() and data[match.start() - 1] in _WORD_BYTES
               for match in _SPLIT_WORD.finditer(data)))


_NAME = re.compile(rb"[A-Za-z_\x80-\xff][\w\x80-\xff]*")


_UNTYPED = (b"", None)  # a receiver nothing types
_FROM_ROOT_ONLY = b""  # no name is empty: see _Values.imports
_THE_MODULE = b"."  # nor is any `.`: the name a plain import binds to the module itself
# Words before a bracket that make it a parenthesised value, not a call: `return (dist)._x`
# is `dist`'s attribute (not the soft keywords `match`, `case`, `type`, which are names too).
# `match (dist)._x:` is a statement, and `match(dist)._x` a call: the text cannot tell which.
_SOFT_KEYWORDS = frozenset({b"match", b"case"})
_KEYWORDS = frozenset(b"and assert await del elif else except for from if in is lambda not or raise "
                      b"return while with yield".split())


def _receiver(data: bytes, dot: int) -> tuple[bytes, bytes | None] | None:
    """The head name of the receiver before the `.` at `dot`, and the attribute after it when
    the head is `self` (`self.pg.inner._x` -> (b"self", b"pg"); `f(a)._x` -> (b"f", None)).
    None when the text does not say (a string, a bracket holding a string the text cannot
    skip, an odd shape)."""
    j = dot - 1
    while j >= 0 and data[j] in _SPACE:
        j -= 1
    if data.find(b"\n", j + 1, dot) >= 0:
        return None  # a chain over lines: what ends the line above may be a comment
    first: bytes | None = None
    bracketed = False  # the word found next stands before a bracket
    while j >= 0:
        if data[j] in _CLOSERS:  # a call or a subscript: the value is the callee's
            depth, k = 0, j
            while k >= 0:
                if data[k] in _CLOSERS:
                    depth += 1
                elif data[k] in _OPENERS:
                    depth -= 1
                    if depth == 0:
                        break
                elif data[k] in b"\"'":
                    k = _string_start(data, k)  # `d["key"]._x`: the string, skipped whole
                    if k is None:
                        return None  # brackets inside strings would mislead the count
                elif data[k] == 35:  # `#`
                    return None  # brackets inside comments would mislead the count
                elif data[k] == 10 and data.find(b"#", data.rfind(b"\n", 0, k) + 1, k) >= 0:
                    return None  # the line above holds a comment, and maybe brackets in it
                k -= 1
            if k < 0:
                return None
            j = k - 1
            while j >= 0 and data[j] in b" \t":
                j -= 1
            first = None
            bracketed = True
            if j < 0 or data[j] not in _WORD_BYTES:
                return None
            continue
        if data[j] not in _WORD_BYTES:
            # No expression the detector types ends in anything else: a string or a literal
            # (`"a"._x`, `{}._x`), `..._x`, a relative import (`from ._x`), or prose.
            return _UNTYPED
        k = j
        while k >= 0 and data[k] in _WORD_BYTES:
            k -= 1
        word = data[k + 1:j + 1]
        if bracketed and (word in _KEYWORDS or word in _SOFT_KEYWORDS):
            return None  # `return (dist)._x`: the value inside the brackets, which is not followed
        if word[:1].isdigit() or (not bracketed and word in _KEYWORDS):
            return _UNTYPED  # a number (`1.5._x` is not code), or `from ._x import y`
        m = _code_before(data, k + 1)
        if m is None:
            return None
        if m >= 0 and data[m] == 46:  # `.`: an attribute of something before it
            if data.find(b"\n", m + 1, k + 1) >= 0:
                return None  # a chain over lines, or a sentence's end the text cannot tell from one
            first = word
            bracketed = False
            j = _code_before(data, m)  # `(dist  # note` above `.new_group()._x)`: `dist`
            if j is None:
                return None
            continue
        return word, first
    return None


class _Values:
    """What one file may give its names, asked lazily. A name costs a scan of the file, so after
    LIMIT questions the answer is "maybe": a hostile file with thousands of receivers is passed
    on to the `ast` gate rather than scanned thousands of times."""

    LIMIT = 64

    def __init__(self, data: bytes, roots: frozenset[bytes], results: frozenset[bytes],
                 origin: "Callable[[], Origin] | None" = None, types: tuple[bytes, ...] = (),
                 imports_at: "tuple[int, ...] | None" = None) -> None:
        self.data = data
        self.imports_at = _import_positions(data) if imports_at is None else imports_at
        self.roots = roots
        self.results = results  # the callee names whose calls may be typed (_untyped_call)
        self._foreign_words: frozenset[bytes] | None = None
        self._paths: dict[bytes, bool] = {}  # head name -> whether it may be a project path
        self._origin_of = origin
        # The tracked types' names, in a file that names one: what it annotates or narrows,
        # and `self` under a base that may be one, may then be typed. Empty otherwise.
        self.types = types
        self._self_typed: bool | None = None
        self._self_value: bool | None = None
        self.asked = 0
        self._imports: dict[bytes, list[tuple[bytes, bytes | None]]] | None = None
        self._sources: dict[bytes, tuple[str, ProjectIndex | None, str]] = {}
        # Answers already worked out, by name (`self.<attribute>` for an attribute): receivers
        # share the names their values come from, and each question rescans the file.
        self._known: dict[bytes, bool] = {}

    def typed_name(self, name: bytes, seen: set[bytes] | None = None) -> bool:
        """Whether the file may give `name` a value the detector types: an import (`from .utils
        import dist`, `import torch.distributed as dist`), a `def` (its returns), a walrus, or
        an assignment or a loop whose value or iterable is not plainly untyped; in a file that
        names a tracked type, also an annotation or an `isinstance` of it."""
        known = self._known.get(name)
        if known is not None:
            return known
        asking, seen = seen is None, set() if seen is None else seen
        if name in seen:
            return False
        seen.add(name)
        self.asked += 1
        typed = self.asked > self.LIMIT or self.imported_typed(name) \
            or bool(self.types and (_annotated(self.data, name) or _narrowed(self.data, name))) \
            or any(value is None or cut or self.typed_value(value, seen)
                   for value, cut in _bindings(self.data, name, self.types))
        return self._settle(name, typed, seen if asking else None)

    def typed_attribute(self, attribute: bytes, seen: set[bytes] | None = None) -> bool:
        """Whether `self.<attribute>` may be typed: what the file assigns to it; in a file that
        names a type, also an annotation of it (`self.mesh: DeviceMesh`), and any attribute of
        a `self` whose class may have a tracked base (the resolver types it as the base)."""
        key = b"self." + attribute
        known = self._known.get(key)
        if known is not None:
            return known
        asking, seen = seen is None, set() if seen is None else seen
        if key in seen:
            return False
        seen.add(key)
        self.asked += 1
        typed = self.asked > self.LIMIT or self.self_may_be_typed() \
            or bool(self.types and _annotated(self.data, attribute, on_self=True)) \
            or any(value is None or cut or self.typed_value(value, seen)
                   for value, cut in _self_bindings(self.data, attribute))
        return self._settle(key, typed, seen if asking else None)

    def _settle(self, key: bytes, typed: bool, asked: set[bytes] | None) -> bool:
        """Remember an answer. "Maybe" holds wherever it was reached. "No" is certain only for
        a question asked from outside (`asked`: every name it looked at): inside one, a name
        already being looked at counts as no, to end a cycle, so a no there may be partial;
        but when the whole question ends in no, no name it looked at can be typed."""
        if typed:
            self._known[key] = True
        elif asked is not None:
            self._known.update(dict.fromkeys(asked, False))
        return typed

    def self_may_be_typed(self) -> bool:
        """Whether `self` (or `cls`) may hold a tracked value: in a class whose base may be a
        tracked type (self_typed), or as a plain name the file binds (`self = dist.new_group()`,
        `import ... as self`) or, in a file that names a tracked type, annotates or narrows
        (`def patch(self: ProcessGroup)`): the resolver reads it as any other name."""
        if self._self_value is None:
            self._self_value = True  # asked again while this is worked out: "maybe"
            self._self_value = self.self_typed() or (
                _bound_as_name(self.data, bool(self.types), self.imports_at)
                and (self.typed_name(b"self") or self.typed_name(b"cls")))
        return self._self_value

    def self_typed(self) -> bool:
        """Whether, in a file that names a tracked type, a class's base may be one, so that
        `self` may be typed: a base list holding a type's name, or a bare name the file binds
        (`PG` after `... import ProcessGroup as PG`, `Base = dist.ProcessGroup`), or one the
        text cannot read (a quote or a comment inside it). A dotted base types only through
        its last name, which is then a type's own; a name a plain import binds is that name."""
        if not self.types:
            return False
        if self._self_typed is None:
            self._self_typed = any(self._may_be_tracked(bases) for bases in _class_bases(self.data))
        return self._self_typed

    def _may_be_tracked(self, bases: bytes | None) -> bool:
        if bases is None or any(name in bases for name in self.types):
            return True
        for chain in _CHAIN.finditer(bases):
            name, rest = chain.group(0), bases[chain.end():].lstrip()
            if b"." in name or (rest[:1] == b"=" and rest[1:2] != b"="):
                continue  # a dotted name types only as a type's own; `metaclass=` names no base
            if _renamed(self.data, name) or any(True for _ in _bindings(self.data, name, None)):
                return True
        return False

    def typed_value(self, value: bytes, seen: set[bytes]) -> bool:
        """Whether an assigned value (the rest of its line) may be typed. A literal is not; a
        value that starts with a name chain (`dist.new_group()`, `self.pg.inner[0]`, `f(x)`) is
        as typed as its head name (or `self.<attr>`), as the resolver and the gate infer values:
        its calls, attributes and subscripts type only what their head's value reaches. A
        `cast`, or a start the text cannot read (a bracket, a keyword), may be typed. (A value
        that reads a distinctive member, `m._get_root_mesh()`, is typed too, but a file that
        reads one is passed before any value is asked about.)"""
        value = value.strip()
        if not value or value[:1] in _LITERAL_STARTS or value.split(b"#")[0].strip() in _CONSTANTS:
            return False
        if _casts(value):
            return True  # a cast is typed by its first argument
        head = _HEAD.match(value)
        if head is None or head.group(1) in _VALUE_KEYWORDS:
            return True  # `(a or b)`, `await f()`, `lambda: x`: the text does not say
        if self._untyped_call(value):
            return False  # `nn.Linear(8, 8)`, `model.modules()`: nothing the resolver tracks
        if head.group(1) in (b"self", b"cls") and head.group(2) is None \
                and value[head.end():].lstrip(b" \t\x0c")[:1] in (b"\\", b"."):
            return True  # `self \\` then `.pg` below, `self.\\`, `self\x0c.pg`: which attribute is unsaid
        if head.group(1) in (b"self", b"cls"):  # `pg = self.pg`, or `pg = self` itself
            return self.typed_attribute(head.group(2), seen) if head.group(2) is not None \
                else self.self_may_be_typed()
        return self.typed_name(head.group(1), seen)

    def _untyped_call(self, value: bytes) -> bool:
        """Whether a value starts with a call the resolver types as nothing, as the gate reads
        one (astgate's `_untyped_call`): a call through an attribute whose name is not in
        `results` (`nn.Linear(8, 8)`, `model.modules()`), on a head name that no import of
        anything but torch binds, directly or through an alias (`u = utils`), which would make
        it a path to a project function that may be annotated to return a tracked type. What
        the value goes on with adds nothing: a chain's calls and subscripts stop at that call,
        and any other expression (`f() or pg`, `f() if c else pg`, `f(), pg`) types nothing.
        (A distinctive member read along the chain types it, but a file that reads one in code
        is passed before any value is asked about.) Only ASCII names on one line are read. A
        star import binds a project module's torch paths and typed functions, no module, so
        the names it binds are no such head either."""
        call = _ATTRIBUTE_CALL.match(value)
        if call is None or call.group(2) in self.results:
            return False
        return not self._may_be_path(call.group(1))

    def _may_be_path(self, head: bytes) -> bool:
        """Whether a head name may be bound to a path the resolver follows into the project:
        `self` or `cls` bound as a plain name, a name an import of anything but torch binds, or
        one assigned what may be such a name. Each name is asked once per file, and counts
        towards LIMIT like any other question (past it, "maybe")."""
        known = self._paths.get(head)
        if known is None:
            self.asked += 1
            if head in (b"self", b"cls"):
                known = _bound_as_name(self.data, bool(self.types), self.imports_at)
            else:
                known = self.asked > self.LIMIT or head in self.foreign_import_words() \
                    or any(value is None or cut or _may_be_alias(value)
                           for value, cut in _bindings(self.data, head, self.types))
            self._paths[head] = known
        return known

    def foreign_import_words(self) -> frozenset[bytes]:
        """Every word in an import statement that may bind a name to anything but torch (a
        project module, a library): all but `from torch... import` and `import torch...`
        clauses, read exactly. What the text takes for an import inside a string or a word
        (`importlib`) counts as well, which only keeps more names."""
        if self._foreign_words is None:
            words: set[bytes] = set()
            for start, end in _import_statements(self.data, self.imports_at):
                words.update(_foreign_words(self.data, start, end))
            self._foreign_words = frozenset(words)
        return self._foreign_words

    def imported_typed(self, name: bytes) -> bool:
        """Whether an import binds `name` to what may hold a typed value: any name a `from`
        import takes from a catalog root, one a project module hands on (astgate's
        `_add_handed_on` asks the same), or a plain import's of a catalog root (`import numpy`
        binds no such). Only the names a receiver needs are looked up in the project index."""
        for module, original in self.imports().get(name, ()):
            kind, project, absolute_module = self._source(module)
            if original == _THE_MODULE:  # `import pkg.utils`: only the project's calls type
                if project is not None and project.calls_may_be_typed(absolute_module):
                    return True
                continue
            if kind == "any":
                return True  # a catalog root, or no project index to ask: any name counts
            if project is None or original == _FROM_ROOT_ONLY:
                continue
            if original is None:
                return True
            if project.import_may_type(absolute_module, original.decode("utf-8", "replace")):
                return True  # `from .utils import dist`; `from pkg import utils`, then `utils.make_pg()`
        return False

    def imports(self) -> "dict[bytes, list[tuple[bytes, bytes | None]]]":
        """Each name the file's imports may bind -> (the module, the name taken from it). The
        name taken is None for a clause this reading does not know (any project name counts),
        and _FROM_ROOT_ONLY for words that bind nothing themselves (`a` and `as` in `a as b`),
        which count only from a catalog root, as every word of its clause does."""
        if self._imports is None:
            found: dict[bytes, list[tuple[bytes, bytes | None]]] = {}
            for match in _from_imports(_FROM_IMPORT, self.data):
                module = match.group(1)
                for item in re.sub(rb"#[^\n]*", b"", match.group(2)).split(b","):
                    parts = _NAME.findall(item)
                    if len(parts) == 3 and parts[1] == b"as":
                        pairs = [(parts[2], parts[0]), (parts[0], _FROM_ROOT_ONLY),
                                 (parts[1], _FROM_ROOT_ONLY)]
                    elif len(parts) == 1:
                        pairs = [(parts[0], parts[0])]
                    else:
                        pairs = [(part, None) for part in parts]
                    for local, original in pairs:
                        found.setdefault(local, []).append((module, original))
            for _, clause in _import_clauses(self.data, self.imports_at):
                words = _NAME.findall(clause)
                if not words:
                    continue
                renamed = len(words) > 2 and words[-2] == b"as"
                # `import torch.distributed as dist` binds `dist`; `import torch.x`, `torch`
                local = words[-1] if renamed else words[0]
                if words[0] in self.roots:
                    found.setdefault(local, []).append((words[0], None))
                else:  # `import pkg.utils as u` binds the module, `import pkg.utils` the package
                    found.setdefault(local, []).append((b".".join(words[:-2]) if renamed else words[0],
                                                        _THE_MODULE))
            self._imports = found
        return self._imports

    @functools.cached_property
    def origin(self) -> "Origin | None":
        """Where the file is: asked only when a `from` import matters (it walks up the folders)."""
        return self._origin_of() if self._origin_of is not None else None

    def _source(self, module: bytes) -> "tuple[str, ProjectIndex | None, str]":
        if module not in self._sources:
            self._sources[module] = self._find_source(module)
        return self._sources[module]

    def _find_source(self, module: bytes) -> "tuple[str, ProjectIndex | None, str]":
        """Where `from <module> import` takes names from: ("any", None, "") for a catalog root
        or when the project index cannot be asked (any name may be typed), ("none", None, "")
        for no module the index can read, else ("project", index, absolute module name)."""
        from privlint.project import absolute

        module = _joined(module)
        level = len(module) - len(module.lstrip(b"."))
        try:
            path = module[level:].decode("utf-8")
        except UnicodeDecodeError:
            return "any", None, ""
        if not level and path.split(".")[0].encode() in self.roots:
            return "any", None, ""
        origin = self.origin
        if origin is None or origin.project is None:
            return "any", None, ""
        if level and origin.module is None:
            return "none", None, ""  # a relative import outside a package: nothing the detector follows
        current, is_package = origin.module or ("", False)
        absolute_module = absolute(path, level, current, is_package)
        if not absolute_module:
            return "none", None, ""  # `from . import x` above the top package
        if absolute_module.split(".")[0].encode() in self.roots:
            return "any", None, ""  # a relative import inside torch itself
        return "project", origin.project, absolute_module

    def binds_private_path(self) -> bool:
        """Whether an import may bind a name to a torch path with a private part, from a module
        other than torch's own: one a project module hands on (`from .compat import _C` or `C`,
        where compat has `from torch import _C as C`), a relative import inside torch, or a
        star import's. The detector reports a chain headed by a private name that holds such a
        path (`_C.foo()`, or `_D = C` then `_D.foo()`) though it writes no private attribute
        (astgate's `_private_paths_given` asks the same). Torch's own import of a private path
        is let through by the text's other readings."""
        for sources in self.imports().values():
            for module, original in sources:
                if original == _THE_MODULE or original == _FROM_ROOT_ONLY:
                    continue  # `import pkg.x as p` binds no torch path; `a`, `as` bind nothing
                if _joined(module).split(b".")[0] == b"torch":
                    continue  # torch's own import (the resolver asks the project of other roots')
                kind, project, absolute_module = self._source(module)
                if kind == "any" or (kind == "project" and original is None):
                    return True  # no project to ask, a relative import inside torch, a clause not read
                if project is not None and original is not None:
                    handed = project.exported(absolute_module, original.decode("utf-8", "replace"))
                    if handed is not None and handed[0] == "path" and has_private_part(handed[1]):
                        return True
        if not _star_import(self.data, self.imports_at):
            return False
        for kind, project, module in self._star_sources():
            handed = project.star_names(module).values() if project is not None else ()
            if kind == "any" or any(given == "path" and has_private_part(value) for given, value in handed):
                return True
        return False

    def star_may_type(self) -> bool:
        """Whether a star import here may bind a typed name: one from a catalog root, or from
        a project module that hands on a torch path or a typed function (as the gate asks)."""
        return any(kind == "any" or (project is not None and project.star_names(module))
                   for kind, project, module in self._star_sources())

    def _star_sources(self):
        """_source's answer for each star import's module."""
        for match in _from_imports(_FROM_IMPORT, self.data):
            if b"*" in re.sub(rb"#[^\n]*", b"", match.group(2)):
                yield self._source(match.group(1))


@dataclass(frozen=True)
class TextFilter:
    members: frozenset[bytes]            # member names a member rule covers
    types: tuple[bytes, ...]             # tracked types' short names
    from_root: "re.Pattern[bytes]"       # `from <root>... import <names>`
    from_module: "re.Pattern[bytes]"     # `from <root>.<module path> import`
    roots: frozenset[bytes]              # the catalog's roots: {b"torch"}
    results: frozenset[bytes]            # callee names whose calls may be typed (call_result_names)

    def search(self, data: bytes, origin: "Callable[[], Origin] | None" = None) -> bool:
        """False only when no finding can be in these bytes. `origin`: where the file is, for
        the names other modules of the project hand on (without it, any such name counts). A
        file that declares an encoding other than UTF-8 may be any file: its bytes are not the
        text CPython reads (in Shift-JIS a letter may end with the byte of `}`; in UTF-7,
        `+ACI-` is a quote)."""
        if declares_another_encoding(data):
            return True
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]  # a byte order mark is not part of the first name
        if b"\r" in data and _LONE_CR.search(data) is not None:
            # CPython ends a line, and a comment, at a lone `\r` too; the patterns here read `\n`.
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        try:
            return self._search(data, origin)
        except Unsure:
            return True

    def _search(self, data: bytes, origin: "Callable[[], Origin] | None") -> bool:
        accesses = _accesses(data)
        private_string = b"getattr" in data and _has_private_string(data)
        # A file that names a tracked type may type a receiver through it: an annotation, an
        # `isinstance`, a base class (`self`), a cast. (Substrings: `DTensorSpec` also says
        # `DTensor`, which only lets more by; so does an escape that may spell a letter.)
        named = bool(accesses or private_string) and (any(name in data for name in self.types)
                                                      or may_spell_a_name(data))
        imports_at = _import_positions(data)
        star = _star_import(data, imports_at)
        if named and (star or _casts(data)):
            return True  # a cast, or a name a star import may bind, types what the text cannot follow
        # What the file gives its names, asked lazily and once for attributes and getattr alike.
        values = _Values(data, self.roots, self.results, origin, self.types if named else (), imports_at)
        if accesses:
            if any(not in_prose(data, match.start()) for match in _overlapping(_DOTTED_SELF, data)):
                return True  # `x. self._y`: an attribute named `self`, not the method's own
            if self._typed_access(data, accesses, values):
                return True
        if (accesses or b"getattr" in data) and star and values.star_may_type():
            # A star import may bind any name, a tracked type too, under any name: a base class
            # may then type `self` (`from .compat import *` where compat has `PG`).
            return True
        if private_string and self._typed_getattr(data, values):
            return True
        if _PRIVATE_HEAD.search(data) is not None and values.binds_private_path():
            return True  # `_C.foo()` after `from .compat import _C`
        if not any(root in data for root in self.roots):
            return False  # what follows reads imports from a root, which name it
        if self._imports_private(data, imports_at):
            return True
        for match in _from_imports(self.from_root, data):
            names = match.group(1)
            if ((b"*" in names and accesses) or _PRIVATE_NAME.search(names)) \
                    and not in_prose(data, match.start()):
                return True
        return False

    def _imports_private(self, data: bytes, imports_at: "tuple[int, ...]") -> bool:
        """`import torch._dynamo`, `import os, torch._C as C`, `from torch._C import x`."""
        for at, clause in _import_clauses(data, imports_at):
            if not any(root in clause for root in self.roots):
                continue  # most clauses: a cheap look before the names are read
            words = _NAME.findall(clause)
            if words and words[0] in self.roots and _PRIVATE_NAME.search(clause.replace(b".", b" ")) \
                    and not in_prose(data, at):
                return True
        for match in _from_imports(self.from_module, data):
            if _PRIVATE_NAME.search(match.group(1).replace(b".", b" ")) and not in_prose(data, match.start()):
                return True
        return False

    def _typed_access(self, data: bytes, accesses: "list[re.Match[bytes]]", values: "_Values") -> bool:
        """Whether any private attribute (`accesses`: _ACCESS's matches) sits on a receiver the
        detector may type: its head name is one the file may bind to a typed value,
        `self.<attr>` with `<attr>` assigned, or the text cannot tell; in a file that names a
        tracked type (`named`), also what it may annotate or narrow, and `self` when a class's
        base may be a tracked type. Most are `self._x` and `super()._x`, which nothing else
        types: each is told by the bytes before its dot. A candidate that would let the file
        through is asked last whether it is prose (in a comment or a docstring: prose.py), so
        most files are never read for that."""
        heads: dict[bytes, list[int]] = {}        # head name -> the dots of its accesses
        attributes: dict[bytes, list[int]] = {}   # `<attr>` of `self.<attr>._x` -> the dots
        on_self: list[int] = []  # the dots of `self._x` and `cls._x`
        for match in accesses:
            dot = match.start()
            if match.group(1) in self.members:
                if not in_prose(data, dot):
                    return True  # a member rule's name is flagged on any receiver
                continue
            if data[dot - 4:dot] == b"self" and (dot < 5 or data[dot - 5] not in _BEFORE_NAME):
                on_self.append(dot)  # the common `self._x`: typed only by a tracked base
                continue
            if _in_comment(data, dot):
                continue  # `# (see model.py).` above `_TABLE = {`: prose
            found = _receiver(data, dot)
            if found is None:
                if not in_prose(data, dot):
                    return True
                continue
            head, first = found
            if head in (b"self", b"cls"):
                if first is not None:
                    attributes.setdefault(first, []).append(dot)
                else:
                    on_self.append(dot)
            elif head and (head != b"super" or first is not None):
                heads.setdefault(head, []).append(dot)

        def in_code(dots: list[int]) -> bool:
            return any(not in_prose(data, dot) for dot in dots)

        return any(values.typed_name(head) and in_code(dots) for head, dots in heads.items()) \
            or any(values.typed_attribute(attribute) and in_code(dots) for attribute, dots in attributes.items()) \
            or (bool(on_self) and values.self_may_be_typed() and in_code(on_self))

    def _typed_getattr(self, data: bytes, values: "_Values") -> bool:
        """Whether a `getattr(x, "_y")` may be reported: `_y` is a member a rule covers, or `x`
        is a receiver the detector may type (as for attributes); a call the line does not
        show whole counts as typed."""
        if any((not match.start() or data[match.start() - 1] not in _BEFORE_NAME)
               and not in_prose(data, match.start()) for match in _overlapping(_GETATTR_OVER_LINES, data)):
            return True  # `getattr` then `(` on a line below: the arguments are not on its line
        for match in _GETATTR.finditer(data):
            start = match.start()
            if start and data[start - 1] in _BEFORE_NAME:
                continue  # `obj.getattr(`, `my_getattr(`: not the builtin
            if self._getattr_may_report(data, match, values) and not in_prose(data, start):
                return True
        return False

    def _getattr_may_report(self, data: bytes, match: "re.Match[bytes]", values: "_Values") -> bool:
        """Whether the `getattr(` that `match` found may be reported, if it is code: its
        arguments, read to the bracket that closes the call (over lines: _call_arguments), hold
        a private string and either a member's name or a receiver the detector may type. A
        backslash among them may be an escape that spells any name (`"_\\x61"`); a string in a
        comment among them only adds one more."""
        arguments = _call_arguments(data, data.find(b"(", match.start()))  # (`(getattr)(`: its own)
        if arguments is None or b"\\" in arguments:
            return True
        strings = _PRIVATE_STRING_VALUE.findall(arguments)
        if not strings:
            return False
        if any(member in self.members for member in strings):
            return True
        receiver = _FIRST_ARGUMENT.match(arguments)
        if receiver is None:
            return True  # `getattr(f(), "_y")`: a receiver the text does not show
        head, first = receiver.group(1), receiver.group(2)
        if head in (b"self", b"cls"):
            return values.typed_attribute(first) if first else values.self_may_be_typed()
        return values.typed_name(head)


# A call's first argument when it is a dotted name: its head and first attribute (space between
# the parts may hold line ends: the arguments are inside the call's brackets).
_FIRST_ARGUMENT = re.compile(rb"\s*([A-Za-z_]\w*)(?:\s*\.\s*(\w+))?(?:\s*\.\s*\w+)*\s*,")
_ARGUMENTS_LIMIT = 4096  # bytes: a call whose arguments go on longer is not read


def _joined(module: bytes) -> bytes:
    """A module's name as written in an import (`. utils`, `pkg \\` then `.x`), without its gaps."""
    return re.sub(rb"[\s\\]+", b"", module)


def _call_arguments(data: bytes, opened: int) -> bytes | None:
    """The text between the bracket at `opened`, which stands in code, and the bracket that
    closes it, over lines; None when the text cannot tell where that is: a triple quote, an
    f-string or a t-string that a field may hold its own quote in (prose.fields_close), a
    string its line does not close, or more than _ARGUMENTS_LIMIT bytes. From code, a quote
    opens a string that ends at the same quote on its line, and a `#` outside a string starts
    a comment that ends with its line, as CPython's tokenizer reads them. (A backslash may
    escape a quote or go on to the next line: the caller takes any backslash in the text as
    unsure.)"""
    depth, at, size = 1, opened + 1, min(len(data), opened + _ARGUMENTS_LIMIT)
    while at < size:
        byte = data[at]
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
            if not depth:
                return data[opened + 1:at]
        elif byte == 35:  # `#`: a comment, to its line's end
            line_end = data.find(b"\n", at, size)
            if line_end < 0:
                return None
            at = line_end
        elif byte in b"'\"":
            prefix = at
            while prefix > opened + 1 and data[prefix - 1] in _WORD_BYTES:
                prefix -= 1
            if data[at:at + 3] == bytes([byte]) * 3:
                return None
            line_end = data.find(b"\n", at, size)
            close = data.find(bytes([byte]), at + 1, size if line_end < 0 else line_end)
            if close < 0 or (any(letter in b"fFtT" for letter in data[prefix:at])
                             and not fields_close(data, at + 1, close)):
                return None
            at = close
        at += 1
    return None


def _after_gap(data: bytes, at: int) -> int:
    """Where the first byte from `at` stands that is not space, a line continuation or a comment."""
    size = len(data)
    while at < size:
        if data[at] in _SPACE:
            at += 1
        elif data[at] == 35:  # `#`: to the line's end
            end = data.find(b"\n", at)
            at = size if end < 0 else end
        else:
            break
    return at


def _annotated(data: bytes, name: bytes, on_self: bool = False) -> bool:
    """Whether `name` (or `self.<name>`, `cls.<name>`) stands before a `:` that is not a walrus:
    an annotation of a parameter or a variable (a dict key or a slice only lets more by)."""
    for start, end in _whole_names(data, name):
        if on_self:
            if not _self_heads(data, start):
                continue
        elif start and data[start - 1] in _BEFORE_NAME:
            continue  # `x.name:`
        colon = _after_gap(data, end)
        if colon < len(data) and data[colon] == 58 and data[colon + 1:colon + 2] != b"=":
            return True
    return False


def _narrowed(data: bytes, name: bytes) -> bool:
    """Whether `name` stands as the first argument of an `isinstance(`, which narrows it to the
    type named after it. Between them only space and brackets may stand (`isinstance((pg), T)`);
    a comment on the lines crossed makes the text unsure, which counts as narrowed."""
    for start, end in _whole_names(data, name):
        comma = _after_gap(data, end)
        while comma < len(data) and data[comma] == 41:  # `)`: `isinstance((pg), T)`
            comma = _after_gap(data, comma + 1)
        if comma >= len(data) or data[comma] != 44:  # `,`
            continue
        j, opened = start - 1, False
        while j >= 0 and (data[j] in _SPACE or data[j] == 40):  # space and `(`
            opened = opened or data[j] == 40
            j -= 1
        while opened and j >= 0 and (data[j] in _SPACE or data[j] == 41):
            j -= 1  # `)`: a bracketed callee, `(isinstance)(pg, T)`
        if opened and data.endswith(b"isinstance", 0, j + 1):
            return True
        if data.find(b"#", data.rfind(b"\n", 0, j + 1) + 1, start) >= 0:
            return True  # `isinstance(  # a note` above the name: the text cannot tell
    return False


def _casts(data: bytes) -> bool:
    """Whether the text may call a `cast` (`typing.cast(PG, x)`, `cast(PG, x)`): the word `cast`
    (not `broadcast`, `autocast`), then a bracket."""
    return any(match.start() == 0 or data[match.start() - 1] not in _WORD_BYTES
               for match in _CAST_CALL.finditer(data))


def _bound_as_name(data: bytes, named: bool, imports_at: "tuple[int, ...]") -> bool:
    """Whether the text may bind `self` or `cls` itself, not one of its attributes (`self = v`,
    `(self) = v`, `self := v`, `self: T`, `for self in`, `import ... as self`, `def self():`),
    or, in a file that names a tracked type (`named`), narrow it (`isinstance(self, T)`). (A
    name the text lacks, `cls` in most files, is told at C speed before a pattern reads it.)"""
    present = [name for name in (b"self", b"cls") if name in data]
    return any(start == 0 or data[start - 1] not in _BEFORE_NAME for name in present
               for start in (match.start() for match in _BINDING_TAILS[name].finditer(data))) \
        or _import_binds(data, imports_at) or _DEF_SELF.search(data) is not None \
        or (named and any(_NARROWS[name].search(data) for name in present))


def _import_binds(data: bytes, imports_at: "tuple[int, ...]") -> bool:
    """Whether an import statement may bind `self` or `cls` (`import a as self`, `from a import
    (b as cls)`, `from torch import self`): the text after each `import` up to its line's end,
    or its bracket's close, holds the name as a word. Imports are few, so this costs far less
    than a scan of the file."""
    return any(_SELF_WORD.search(data, start, end) is not None
               for start, end in _import_statements(data, imports_at))


def _import_statements(data: bytes, imports_at: "tuple[int, ...]"):
    """(where `import` stands, where its names end: _statement_end) for each `import` in the
    text (`imports_at`), a word's part (`importlib`) or a string's too, which only reads more."""
    for start in imports_at:
        yield start, _statement_end(data, start + 6)


def _statement_end(data: bytes, at: int) -> int:
    """The end of the import whose names start at `at`: a bracket's close, else the line's end
    (with its backslash continuations)."""
    opened = _after_gap(data, at)
    if data[opened:opened + 1] == b"(":
        close = data.find(b")", opened)
        # An import's names hold no string, so a `#` before a `)` on its line starts a comment
        # (`from m import (  # see f()`): that `)` does not close the brackets.
        while close >= 0 and data.find(b"#", max(opened, data.rfind(b"\n", 0, close) + 1), close) >= 0:
            line_end = data.find(b"\n", close)
            close = -1 if line_end < 0 else data.find(b")", line_end)
        return len(data) if close < 0 else close
    end = at
    while True:
        end = data.find(b"\n", end)
        if end < 0:
            return len(data)
        if data[end - 1:end] != b"\\" and data[end - 2:end] != b"\\\r":
            return end
        end += 1


def _renamed(data: bytes, name: bytes) -> bool:
    """Whether an import binds `name` under it (`import a as name`, `from a import b as name`)."""
    return any(_follows(data, start, _SPACE, b"as") for start, _ in _whole_names(data, name))


def _class_bases(data: bytes):
    """The text inside the brackets after each `class Name` or `class Name[T]` (None when a
    quote or a comment inside them makes the text unsure where they end)."""
    start = data.find(b"class")
    while start >= 0:
        match = None if start and data[start - 1] in _BEFORE_NAME else _CLASS_NAME.match(data, start)
        start = data.find(b"class", start + 5)  # `dataclass\nclass X(`: each is tried where it stands
        if match is None:
            continue  # `subclass`, `a.class`: not the keyword
        at = match.end()
        if data[at:at + 1] == b"[":  # type parameters (Python 3.12)
            end = _bracket_end(data, at + 1)
            if end is None:
                yield None
                continue
            at = _after_gap(data, end)
        if data[at:at + 1] != b"(":
            continue
        end = _bracket_end(data, at + 1)
        yield None if end is None else data[at + 1:end - 1]


def _bracket_end(data: bytes, at: int) -> int | None:
    """Just past the bracket that closes the one opened before `at`; None when a quote or a
    comment inside makes the text unsure, or none closes it."""
    depth = 1
    while at < len(data):
        byte = data[at]
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
            if not depth:
                return at + 1
        elif byte in b"\"'#":
            return None
        at += 1
    return None


def _string_start(data: bytes, end: int) -> int | None:
    """Where the one-line string literal whose closing quote is at `end` opens (`"key"`,
    `'it\\'s'` is not read): None when the text cannot tell (an escaped quote, a quote that
    opens nothing on its line, a triple quote, an f-string)."""
    quote = data[end]
    if end and data[end - 1] == 92:  # `\`: an escaped quote, not a closing one
        return None
    line_start = data.rfind(b"\n", 0, end) + 1
    start = data.rfind(bytes([quote]), line_start, end)
    if start < 0 or (start and data[start - 1] in (92, quote)) or data[start + 1:end].count(bytes([92])):
        return None
    if next(_fstring_opens(data, line_start, end), None) is not None or _multiline_fstrings(data):
        return None  # an f-string on the line, or one over lines: its fields may hold quotes of its own kind (3.12)
    return start


def _in_comment(data: bytes, dot: int) -> bool:
    """Whether a dot stands in a comment: after a `#` on its line, with no quote on the line
    before the dot (which might open or close a string around the `#`). A line of a multi-line
    string may look like one too: that is prose as well, unless the string is an f-string,
    whose fields are code (`f\"\"\"` ... `# {dist._x}`), so in a file with one, none is; and a
    line continued from a backslash may be a one-line string's (`f"a \\` then `# {pg._x}"`)."""
    line_start = data.rfind(b"\n", 0, dot) + 1
    return data.find(b"#", line_start, dot) >= 0 and data.find(b"'", line_start, dot) < 0 \
        and data.find(b'"', line_start, dot) < 0 and not _multiline_fstrings(data) \
        and not _continued(data, line_start)


def _fstring_opens(data: bytes, start: int, end: int):
    """Where the quote of each f-string (or t-string) opening between `start` and `end` stands:
    its prefix is a name of its own (`it's`, `for"` open none), in no particular order."""
    for pattern in _FSTRING_ENDS:
        for match in pattern.finditer(data, max(0, start - 2), end):
            quote = match.end() - 1
            if quote < start:
                continue
            first = match.start()
            while first and data[first - 1] in _WORD_BYTES:
                first -= 1
            if data[first:quote].lower() in _FSTRING_PREFIXES:
                yield quote


@functools.lru_cache(maxsize=1)  # asked for each comment-like line of one file, in turn
def _multiline_fstrings(data: bytes) -> bool:
    """Whether the text may hold an f-string (or a t-string) over lines, whose fields are code
    on whatever line they stand: a triple-quoted one (`f\"\"\"`, `rt'''`), or one of one quote
    that its own line may not close (Python 3.12 lets a field go on over lines: `f"{1` then
    `}#{pg._x}"`): no same quote later on its line, or a backslash or an open field before it."""
    for quote in _fstring_opens(data, 0, len(data)):
        if data[quote:quote + 3] in (b'\"\"\"', b"'''"):
            return True
        line_end = data.find(b"\n", quote)
        close = data.find(data[quote:quote + 1], quote + 1, len(data) if line_end < 0 else line_end)
        if close < 0 or data.find(b"\\", quote + 1, close) >= 0 or not fields_close(data, quote + 1, close):
            return True
    return False


def _may_close_a_string(data: bytes, line_start: int, end: int) -> bool:
    """Whether a line that starts with `#` may be inside a string and close it: a triple quote
    in it, a backslash ending the line above (a one-line string continued), or a multi-line
    f-string in the file (its fields are code)."""
    line = data[line_start:end + 1]
    return b'\"\"\"' in line or b"'''" in line or _continued(data, line_start) or _multiline_fstrings(data)


def _continued(data: bytes, line_start: int) -> bool:
    """Whether the line above the one starting at `line_start` ends with a backslash (this line
    may go on with its string)."""
    return data[max(0, line_start - 3):line_start].rstrip(b"\r\n")[-1:] == b"\\"


def _code_before(data: bytes, at: int) -> int | None:
    """Where the last byte before `at` stands that is not space, a line continuation or, on the
    lines above, a comment (-1 if none): `# Reset the state.` above `State._reset()` does not
    make `State` an attribute of what the comment's dot ends. A line that starts with `#` is a
    comment whatever quotes it holds, unless it may close a string (_may_close_a_string); None
    when a line above holds code, a `#` and a quote: which of them opens a string the text
    cannot say."""
    j = at - 1
    while j >= 0 and data[j] in _SPACE:
        j -= 1
    while j >= 0 and data.find(b"\n", j, at) >= 0:
        line_start = data.rfind(b"\n", 0, j) + 1
        hash_at = data.find(b"#", line_start, j + 1)
        if hash_at < 0:
            return j
        if (data.find(b"'", line_start, j + 1) >= 0 or data.find(b'"', line_start, j + 1) >= 0) and (
                data[line_start:hash_at].strip(b" \t\x0c") or _may_close_a_string(data, line_start, j)):
            return None  # a quote, and a `#` whose string it may be in: the text cannot tell
        if _multiline_fstrings(data):  # the line may stand in an f-string's text: as the tokens say
            line_end = data.find(b"\n", j)
            hash_at = comment_start(data, line_start, len(data) if line_end < 0 else line_end)
            if hash_at is None:
                return None
            if hash_at < 0:
                return j
        at, j = hash_at, hash_at - 1
        while j >= 0 and data[j] in _SPACE:
            j -= 1
    return j


def _bindings(data: bytes, name: bytes, types: "tuple[bytes, ...] | None"):
    """Where a file may give `name` a value, and whether that was read from inside an annotation
    (see _cut_short): for an assignment, the rest of its line (a keyword argument or default
    looks the same, which only counts more); for a loop target, the rest of the line after `in`
    (its iterable); for a `def`, what its calls may give (_returned: `types`, the tracked types'
    names, as for _Values), or None with `types` None (a `def` binds the name all the same);
    None for a walrus or an iterable the line does not show.
    Annotations alone type nothing the text does not name."""
    size = len(data)
    for start, end in _whole_names(data, name):
        if start and data[start - 1] in _BEFORE_NAME:
            continue  # `x.name =`
        if end == size or data[end] in _TAIL_STARTS:  # else `name.x`, `name(`: only a `def` binds it
            assigned = _ASSIGN_TAIL.match(data, end)
            if assigned is not None:
                yield _assigned(assigned)
                continue
            if _annotation_goes_on(data, end):
                yield None, False  # `x: Optional[` ... `] = v`: a value the line does not show
                continue
            looped = _LOOP_TAIL.match(data, end)
            if looped is not None and _follows(data, start, b" \t\n\r\f\v(\\", b"for"):
                # A loop target is as typed as its iterable's head (`for m in model.modules()`),
                # as the gate reads it; an iterable on the lines below is not read.
                iterable = looped.group(1)
                yield (None if not iterable.strip() or iterable.lstrip()[:1] == b"\\" else iterable), False
                continue
            if _WALRUS_TAIL.match(data, end):
                yield None, False
                continue
        if _follows(data, start, b" \t\x0c\\\r\n", b"def"):
            if types is None:
                yield None, False
            else:
                yield from _returned(data, start, end, types)


# A `def` at its line's start, and the next `def` or `class` at a line's start (its indentation
# in group 1), which ends the body of a function indented as much or more.
_DEF_LINE = re.compile(rb"([ \t]*)(?:async[ \t]+)?def[ \t]+")
_BODY_END = re.compile(rb"\n([ \t]*)(?:async[ \t]+def|def|class)(?![\w\x80-\xff])")
# What follows a function's parameters on their bracket's line: its return annotation, if any,
# then the `:` that ends the header (a string, comment or backslash there: not read).
_HEADER_END = re.compile(rb"[ \t]*(?:->([^:#'\"\\\n]*))?:")
_RETURN = re.compile(rb"return(?![\w\x80-\xff])")
_DOTTED = re.compile(rb"[ \t]*" + _ASCII_NAME + rb"(?:" + _ASCII_ATTRIBUTE + rb")+[ \t]*")


def _returned(data: bytes, start: int, end: int, types: tuple[bytes, ...]):
    """What a call of the function whose `def` names it at `start`..`end` may give, as
    (value, cut) pairs: the value of each `return` in its body (the rest of its line), as the
    gate and the resolver type a call by its function's returns; one None instead when its
    return annotation may name a tracked type (anything but `None` or a dotted name whose
    last part is no tracked type's name: `-> torch.Tensor`), or when the text cannot tell where
    its header ends (the `:` after the parameters' bracket, on that bracket's line) or where
    its body does. The body ends at the next `def` or `class` indented as much or less that
    stands in code (prose.py: no string's or comment's, and not after a line that a backslash
    continues); every `return` found after the header, in code or not, gives the rest of its
    line, so one after the body's real end, or in a string, only adds a value. A file that may hold an f-string over lines is not read (a line of its text may
    look like a `def`)."""
    line_start = data.rfind(b"\n", 0, start) + 1
    header = _DEF_LINE.fullmatch(data, line_start, start)
    if header is None or data[end:end + 1] != b"(" or _multiline_fstrings(data):
        yield None, False
        return
    parameters = _call_arguments(data, end)
    if parameters is None or b"\\" in parameters:
        yield None, False
        return
    closed = end + 2 + len(parameters)  # just after the parameters' `)`
    line_end = data.find(b"\n", closed)
    header_end = _HEADER_END.match(data, closed, len(data) if line_end < 0 else line_end)
    annotation = None if header_end is None else header_end.group(1)
    if header_end is None or (annotation is not None and annotation.strip() != b"None" and (
            _DOTTED.fullmatch(annotation) is None
            or any(name in annotation for name in types))):
        yield None, False
        return
    indent = header.group(1)
    stop = len(data)
    for later in _BODY_END.finditer(data, header_end.end()):
        if indent.startswith(later.group(1)) and not _continued(data, later.start() + 1) \
                and in_code(data, later.start() + 1):
            stop = later.start()  # (after a backslash, the line goes on one indented more)
            break
    for found in _RETURN.finditer(data, header_end.end(), stop):
        if data[found.start() - 1] not in _BEFORE_NAME:  # (`noreturn = 0; return pg`: the next)
            line_end = data.find(b"\n", found.end())
            yield data[found.end():len(data) if line_end < 0 else line_end], False


def _annotation_goes_on(data: bytes, end: int) -> bool:
    """Whether the name ending at `end` stands before an annotation that goes on past its line
    (a bracket left open, a backslash at the line's end), so that a value after it, if any,
    is on a line below (a parameter's annotation looks the same, which only counts more). A
    one-line string's brackets do not count, nor a comment's. A quote the line does not close
    is code only before a backslash (then the string goes on); otherwise the text is a
    string's or a comment's, where no annotation stands."""
    start = _ANNOTATION_START.match(data, end)
    if start is None:
        return False
    depth, at, size = 0, start.end(), len(data)
    while at < size:
        byte = data[at]
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
            if depth < 0:
                return False  # a parameter's annotation, ended by its list's bracket
        elif byte in b"\r\n#":
            break  # the line's end, or its comment's
        elif byte == 92:  # `\\`: a line continued
            return True
        elif byte in b"'\"":
            if data[at:at + 3] == bytes([byte]) * 3:
                return True  # a triple-quoted string may go on below
            line_end = data.find(b"\n", at)
            line_end = size if line_end < 0 else line_end
            close = data.find(bytes([byte]), at + 1, line_end)
            if close < 0:  # a one-line string open at the line's end: continued, or not code
                return data[at:line_end].rstrip(b"\r").endswith(b"\\")
            if 92 in data[at + 1:close]:
                return True  # an escaped quote: where the string ends, the text cannot say
            at = close
        at += 1
    return depth > 0


def _self_bindings(data: bytes, attribute: bytes):
    """Where a file may give `self.<attribute>` (or `cls.`) a value: as `_bindings`."""
    size = len(data)
    for start, end in _whole_names(data, attribute):
        if end < size and data[end] not in _TAIL_STARTS:
            continue  # `self.pg.x`, `self.pg(`: no store, whatever stands before it
        heads = _self_heads(data, start)
        if not heads:
            continue
        assigned = _ASSIGN_TAIL.match(data, end)
        if assigned is not None:
            yield _assigned(assigned)
        elif _annotation_goes_on(data, end):
            yield None, False
        elif _SELF_LOOP_TAIL.match(data, end) \
                and any(_follows(data, head, b" \t\x0c\\\r\n(", b"for") for head in heads):
            yield None, False


def _self_heads(data: bytes, start: int) -> list[int]:
    """Where `self` or `cls` may start when the name at `start` is its attribute (`self.pg`,
    with space, a line continuation, a comment or `)` around the dot); none if it is not one.
    A `#` on a line above may be a comment's or a string's (`tag = "#"; self.\\`): read first
    as neither, then, where a `#` stands in what that reading walked over, from where the
    file's tokens say each line's comment starts; each reading may find a head (the first may
    find a word ending a comment: `# the group of self` then `).pg`)."""
    head, stop = _self_head_read(data, start, NO_COMMENTS)
    heads = [] if head is None else [head]
    if data.find(b"#", data.rfind(b"\n", 0, max(stop, 0)) + 1, start) >= 0:
        other, _ = _self_head_read(data, start, COMMENTS)
        if other is not None and other not in heads:
            heads.append(other)
    return heads


def _self_head_read(data: bytes, start: int, comments: int) -> tuple[int | None, int]:
    """One reading of _self_heads: the head it finds, and where it stopped."""
    j = _before_gap(data, start, comments)
    if j < 0 or data[j] != 46:  # `.`
        return None, j
    j = _before_gap(data, j, comments)
    while j >= 0 and data[j] == 41:  # `)`: `(self).pg`
        j = _before_gap(data, j, comments)
    for head in (b"self", b"cls"):
        if data.endswith(head, 0, j + 1):
            return j + 1 - len(head), j
    return None, j


# How _before_gap reads a `#` on a line above: as no comment's (which needs no reading of the
# file's strings), or as the file's tokens say (`tag = "#"  # see #12`: prose.py).
NO_COMMENTS, COMMENTS = 0, 1


class Unsure(Exception):
    """A comment's start was needed where the file's tokens cannot be read for sure: the
    text prefilter then lets the file through."""


def _before_gap(data: bytes, at: int, comments: int, gap: "frozenset[int] | bytes" = _SPACE) -> int:
    """Where the last byte before `at` stands that is not in `gap` (space and line
    continuations), nor, with COMMENTS, a comment ending a line above it (`(self  # the group`
    then `).pg`); -1 if none. Raises Unsure when a comment's start cannot be told.

    A line with no quote starts where it ends, in code, so its comment starts at its first
    `#`: this walk reaches a line's end only over space and whole comments from code at `at`
    (a name in a string finds nothing that matters), and no string opens or closes on such a
    line. A line with a quote is read as the file's tokens say (prose.py)."""
    j = at - 1
    while j >= 0 and data[j] in gap:
        if comments and data[j] == 10:  # a line's end: the line may end in a comment
            line_start = data.rfind(b"\n", 0, j) + 1
            hash_at = data.find(b"#", line_start, j)
            if hash_at >= 0 and (data.find(b'"', line_start, j) >= 0 or data.find(b"'", line_start, j) >= 0
                                 or _multiline_fstrings(data)):
                hash_at = comment_start(data, line_start, j)
                if hash_at is None:
                    raise Unsure
            if hash_at >= 0:
                j = hash_at
        j -= 1
    return j


def _assigned(match: "re.Match[bytes]") -> tuple[bytes | None, bool]:
    """An _ASSIGN_TAIL match as (value, cut short): a walrus (`x := v`, an annotation of just
    `:`) gives no value the text reads, as its value may start on the line below."""
    annotation = match.group(1)
    if annotation == b":":
        return None, False
    return match.group(2), _cut_short(annotation)


def _whole_names(data: bytes, name: bytes):
    """(start, end) of each place `name` stands in the text not as part of a longer name. A
    name is found with `bytes.find`, at C speed; a pattern per name would cost a compile for
    every name asked (a millisecond each: more than all the finding)."""
    size = len(name)
    start = data.find(name)
    while start >= 0:
        end = start + size
        if (not start or data[start - 1] not in _WORD_BYTES) \
                and (end == len(data) or data[end] not in _WORD_BYTES):
            yield start, end
        start = data.find(name, start + 1)


def _follows(data: bytes, start: int, gap: bytes, word: bytes) -> bool:
    """Whether `word` and then one or more of the bytes in `gap` stand just before `start`; a
    gap over lines may hold comments too (`for (  # each` then `pg) in`), and a `#` may be a
    comment's or a string's: read as no comment's, then, where a `#` stands in what that
    walked over, as the file's tokens say (_before_gap's two readings)."""
    j = start  # (_before_gap's first reading, inline: this runs for most names a file binds)
    while j > 0 and data[j - 1] in gap:
        j -= 1
    if j < start and data.endswith(word, 0, j):
        return True
    if 10 in gap and data.find(b"\n", j, start) >= 0 \
            and data.find(b"#", data.rfind(b"\n", 0, j) + 1, start) >= 0:  # (10: a line end)
        j = _before_gap(data, start, COMMENTS, gap) + 1
        if j < start and data.endswith(word, 0, j):
            return True
    return False


# What follows a name that a line binds: `= value` or `: annotation = value` (group 1 the
# annotation, group 2 the rest of the line), a walrus, or ` in` after a loop target.
# (An annotation may hold a comparison, `x: "==" = v`: its `==`, `!=`, `<=`, `>=` are not the `=`.)
_ASSIGN_TAIL = re.compile(rb"(?:[\s)]|\\\r?\n|#[^\n]*+)*+(:(?:[=!<>]=|[^=\n])*)?=(?!=)([^\n]*)")  # `(pg) = v`, `pg \\`
_ANNOTATION_START = re.compile(rb"(?:[ \t\x0c)]|\\\r?\n)*+:(?!=)")
_WALRUS_TAIL = re.compile(rb"[\s\\]*:=")
_LOOP_TAIL = re.compile(rb"(?:[\s)\\]|#[^\n]*+)+in\b([^\n]*)")  # group 1: the iterable, to the line's end
_SELF_LOOP_TAIL = re.compile(rb"(?:[\s)\\]|#[^\n]*+)+in\b")  # `for (self.pg  # c` ... `) in`
# The bytes the five patterns above may start with (`\s` is [ \t\n\r\x0b\x0c] to `re`): a name
# followed by any other byte (`pg.x`, `pg(`, `pg,`) is bound by none of them.
_TAIL_STARTS = frozenset(b" \t\n\r\x0b\x0c)\\#:=")


_LITERAL_STARTS = frozenset(bytes([c]) for c in b"\"'0123456789[{-+~")  # literals, negations
_CONSTANTS = frozenset({b"None", b"True", b"False", b"...", b"()", b"[]", b"{}"})
# The start of a value: its head name, and the attribute after it (for `self.<attr>`).
_HEAD = re.compile(rb"([A-Za-z_\x80-\xff][\w\x80-\xff]*)(?:[ \t]*\.[ \t]*([A-Za-z_\x80-\xff][\w\x80-\xff]*))?")
_VALUE_KEYWORDS = frozenset(b"await lambda not yield".split())


# A value that starts with a call through an attribute: its head name, and the callee's name
# (`nn.Linear(`, `self.model.modules (`); ASCII names only.
_ATTRIBUTE_CALL = re.compile(rb"(" + _ASCII_NAME + rb")(?:" + _ASCII_ATTRIBUTE + rb")*[ \t]*\.[ \t]*("
                             + _ASCII_NAME + rb")[ \t]*\(")
_CALL_START = re.compile(_ASCII_NAME + rb"(?:" + _ASCII_ATTRIBUTE + rb")*[ \t]*\(")
# The text before an `import` on its line that makes the statement `from torch... import`.
_FROM_TORCH = re.compile(rb"[ \t]*from[ \t]+torch(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*[ \t]+")


def _may_be_alias(value: bytes) -> bool:
    """Whether an assigned value (the rest of its line) may be a name or a dotted name, which
    makes the name assigned an alias of its head (`u = utils`, `h = pkg.sub`): anything but a
    value that starts with a call (`f(x)`, `a.b(x)`) or a literal."""
    value = value.strip()
    return value[:1] not in _LITERAL_STARTS and _CALL_START.match(value) is None


def _foreign_words(data: bytes, start: int, end: int) -> list[bytes]:
    """The words of the import statement whose `import` stands at `start` (to `end`), unless
    each of its names is bound to torch: `from torch.x import a, b as c` and `import torch.x as
    y, os` (whose `os` clause counts). Anything else before `import` on its line (`from pkg`),
    or a line above going on into it (`from pkg \\`), makes every word count."""
    line_start = data.rfind(b"\n", 0, start) + 1
    before = data[line_start:start]
    names = data[start + 6:end]
    if _FROM_TORCH.fullmatch(before) is not None:
        return []  # every name a `from torch` import binds is torch's (a line above that goes
        # on into this one ends with `;`, or the statement would not parse)
    if before.strip(b" \t") or _continued(data, line_start):
        return _NAME.findall(data, line_start, end)  # not plainly `import a.b as c, d` on its own
    # (What only looks like an import, in a string or a word, adds words and takes none away:
    # each real statement is read at its own `import`.)
    words: list[bytes] = []
    for clause in names.split(b","):
        found = _NAME.findall(clause)
        if found and found[0] != b"torch":
            words.extend(found)
    return words


_LAMBDA = re.compile(rb"(?<![\w\x80-\xff])lambda(?![\w\x80-\xff])")


def _cut_short(annotation: bytes | None) -> bool:
    """Whether an annotation read up to the first `=` after it was cut short: it opens a bracket
    or a string it does not close, so that `=` was inside it (`x: Literal["a=b"] = v`,
    `x: Annotated[T, f(end=1)] = v`) and what follows is not the value; or it holds a lambda,
    whose default's `=` stands outside brackets (`x: lambda a=1: a = v`)."""
    if not annotation:
        return False
    if _LAMBDA.search(annotation) is not None:
        return True
    depth = 0
    for byte in annotation:
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
    return depth > 0 or annotation.count(b"'") % 2 == 1 or annotation.count(b'"') % 2 == 1


def _accesses(data: bytes) -> "list[re.Match[bytes]]":
    """_ACCESS's matches, and those that start inside one's gap: a gap reads a `#` as a
    comment's, so a dot in a string can take in the next one in code (`("a.#", m.` then
    `_x`), and each is judged by its own dot (a dot in prose drops only its own)."""
    found = list(_ACCESS.finditer(data))
    if _GAP_COMMENT.search(data) is None:
        return found  # no gap holds a comment, so none holds a dot (most files)
    for match in list(found):
        if data.find(b".", match.start() + 1, match.start(1)) >= 0:
            found.extend(_overlapping(_ACCESS, data, match.start() + 1, match.end()))
    return found


def _from_imports(pattern: "re.Pattern[bytes]", data: bytes):
    """Each match of a pattern of `from ... import`, and each that starts at a `from` inside one:
    a `from` in a comment or a string may run into the import below it (`# adapted from torch`
    above `from torch._C import x`). (Searched from each match's end otherwise, as `finditer`
    does: a search from just after every match's start read the text again and again.)"""
    match = pattern.search(data)
    while match is not None:
        yield match
        inner = data.find(b"from", match.start() + 4, match.end())
        match = pattern.search(data, inner if inner >= 0 else match.end())


def _overlapping(pattern: "re.Pattern[bytes]", data: bytes, start: int = 0, end: int | None = None):
    """Every match of `pattern` that starts from `start` (and ends by `end`), overlapping ones
    too: one that starts in prose may run into code, where the next one starts."""
    end = len(data) if end is None else end
    match = pattern.search(data, start, end)
    while match is not None:
        yield match
        match = pattern.search(data, match.start() + 1, end)


def _import_clauses(data: bytes, imports_at: "tuple[int, ...]"):
    """The clauses of every `import a.b as c, d` statement (not `from ... import`), each with
    where its `import` stands (`imports_at`): one where a statement may start, at a line's start
    (after any indentation; a line continued onto it is one too), or after `;` or a header's `:`."""
    # Each `import` is tried where it stands: one that is not a statement's (in a comment that
    # ends with a backslash) must not swallow the next line's.
    for start in imports_at:
        j = start - 1
        while j >= 0 and data[j] in b" \t\x0c":
            j -= 1
        if j < 0 or data[j] in b"\n\r;:":
            match = _IMPORT.match(data, start)
            if match is not None:
                yield from ((start, clause) for clause in match.group(1).split(b","))


def _shortest(names) -> tuple[bytes, ...]:
    """The names none of the others is part of: a text holds one of these exactly when it
    holds one of all (`DTensorSpec` holds `DTensor`), with fewer scans."""
    unique = set(names)
    return tuple(sorted(name for name in unique if not any(other in name for other in unique - {name})))


def build(catalog: Catalog) -> TextFilter:
    roots = b"|".join(re.escape(root.encode()) for root in sorted(catalog.roots))
    return TextFilter(
        frozenset(name.encode() for name in catalog.member_names),
        _shortest(name.rsplit(".", 1)[-1].encode() for name in catalog.type_names),
        # The names after `import`: a parenthesised list (up to its `)`) or the rest of the
        # line with its backslash continuations.
        re.compile(rb"from[\s\\]+(?:" + roots + rb")\b[\w.\s\\]*?\bimport\b"
                   rb"((?:(?:[ \t\x0c]|\\\r?\n)*\((?:[^)#]|#[^\n]*+)*+\)?)|(?:[^\n\\]|\\[\s\S])*+)"),
        re.compile(rb"from[\s\\]+((?:" + roots + rb")\b[\w.\s\\]*?)\bimport\b"),
        frozenset(root.encode() for root in catalog.roots),
        frozenset(name.encode() for name in catalog.call_result_names))
