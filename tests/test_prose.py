"""Where a file's bytes are surely prose (privlint/prose.py), checked against CPython's own
tokenizer: every span it calls prose must be exactly a comment or a plain string's inside."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlint.prose import comment_start, in_prose, prose_spans

ROOT = Path(__file__).resolve().parent.parent


def _tokenizer_prose(data: bytes) -> set[tuple[int, int]] | None:
    """CPython's reading: each comment, and each plain (not f-) string's inside, as byte
    offsets; None when the tokenizer rejects the text."""
    try:
        text = data.decode("utf-8")
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (UnicodeDecodeError, tokenize.TokenError, SyntaxError):
        return None
    lines = io.StringIO(text).readlines()  # the lines tokenize reads (`\x1e` ends none)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode()))

    def offset(row: int, column: int) -> int:
        return offsets[row - 1] + len(lines[row - 1][:column].encode()) if row <= len(lines) else offsets[-1]

    found: set[tuple[int, int]] = set()
    for token in tokens:
        start, end = offset(*token.start), offset(*token.end)
        if token.type == tokenize.COMMENT:
            found.add((start, end))
        elif token.type == tokenize.STRING:
            quote = min(i for i in (token.string.find('"'), token.string.find("'")) if i >= 0)
            prefix = token.string[:quote].lower()
            width = 3 if token.string[quote:quote + 3] in ('"""', "'''") and len(token.string) - quote >= 6 else 1
            if "f" not in prefix and "t" not in prefix:
                found.add((start + quote + width, end - width))
    return found


def _assert_only_prose(data: bytes) -> list[tuple[int, int]] | None:
    spans = prose_spans(data)
    truth = _tokenizer_prose(data)
    if spans is None or truth is None:
        return None
    marked = list(zip(*spans))
    assert set(marked) <= truth, sorted(set(marked) - truth)[:3]
    return marked


def test_privlints_own_files_read_as_the_tokenizer_reads_them():
    files = sorted((ROOT / "privlint").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    for path in files:
        data = path.read_bytes()
        marked = _assert_only_prose(data)
        assert marked is not None, path  # every one of these is read to its end
        assert set(marked) == _tokenizer_prose(data), path  # and all its prose found


CASES = {
    # name: (source, the prose it holds, as the text of each span)
    "a comment": (b"x = 1  # dist._x\n", [b"# dist._x"]),
    "a docstring": (b'def f():\n    """Uses dist._x."""\n', [b"Uses dist._x."]),
    "prefixes": (b"a = rb'\\x'\nb = U'q'\nc = Br\"r\"\n", [b"\\x", b"q", b"r"]),
    "a quote escaped": (b"a = 'it\\'s # no'  # yes\n", [b"it\\'s # no", b"# yes"]),
    "a string over a line's end": (b"a = 'a\\\n# b'\n", [b"a\\\n# b"]),
    "a hash in a string": (b"tag = '#'  # see #12\n", [b"#", b"# see #12"]),
    "triple quotes holding quotes": (b'a = """#"b"""; c  # d #\n', [b'#"b', b"# d #"]),
    "four quotes": (b'a = """x""""y"\n', [b"x", b"y"]),
    "a keyword before a string": (b"if'x':pass\n", []),  # not a prefix: left as it is
    "an f-string's text and fields": (b'a = f"{x._y} #"  # c\n', [b"# c"]),
    "an f-string's field holding a string": (b"a = f\"{d['k']}\"; b = 'p'\n", [b"p"]),
    "braces doubled in an f-string": (b'a = f"{{x}}"; b = "p"\n', [b"p"]),
    'a dict display in a field, then a string': (b'a = f"{ {\'k\': 1}[\'k\'] }"; b = \'p\'\n', [b'p']),
    'a nested field in a format spec': (b'a = f"{x:{\'>\'}{w}}"; b = \'p\'\n', [b'p']),
    'UTF-8 declared': (b'# -*- coding: utf8 -*-\na = 1  # x\n', [b'# -*- coding: utf8 -*-', b'# x']),
}


def test_what_is_prose_in_each_shape():
    for name, (data, expected) in CASES.items():
        spans = prose_spans(data)
        assert spans is not None, name
        assert [data[start:end] for start, end in zip(*spans)] == expected, name
        _assert_only_prose(data)


UNREADABLE = {
    "Python 3.12's quotes inside a field": b'a = f"{x["k"]}"  # c\n',
    "a comment inside a field": b'a = f"""{x  # c\n}"""\n',
    "a backslash inside a field": b'a = f"{chr(92)!r:\\>3}"\n',
    "a format spec holding #": b'a = f"{x:#x}"\n',
    'a triple quote inside a field': b'a = f"{\'\'\'a\'}\'\'\'+""+b+""}"\n',
    'an escaped quote inside a field': b'a = f"{\'\\\'\'+\'}\'+""+b+""}"\n',
    'a quote in a format spec': b'a = f"{x:\'}{\'}\'+""+b+""}"\n',
    'an encoding declared twice, the first not UTF-8': b'# coding: utf-7 -*- coding: utf-8\na = 1  # x\n',
    "a lone brace": b'a = f"}"\n',
    "a string not closed": b"a = 'x\n",
    "a backslash before a quote in code": b'a = \\"x"\n',
    "a backslash before a comment in code": b"a = 1 \\# x\n",
    "a null byte": b"a = 1\0\n",
    "bytes that are not UTF-8": b"a = '\xff'\n",
    "another encoding declared": b"# -*- coding: latin-1 -*-\na = 1  # x\n",
}


def test_what_cannot_be_read_for_sure_is_not_prose():
    for name, data in UNREADABLE.items():
        assert prose_spans(data) is None, name
        assert not any(in_prose(data, at) for at in range(len(data))), name


def test_what_stands_before_an_unreadable_string_is_still_read():
    data = b'# dist._x\na = f"{x["k"]}"  # c\n'
    assert in_prose(data, 3)                    # the first comment: read before the f-string
    assert not in_prose(data, data.index(b"# c") + 1)  # past it: unsure
    assert comment_start(data, 0, data.index(b"\n")) == 0
    second = data.index(b"\n") + 1
    assert comment_start(data, second, len(data) - 1) is None


def test_a_lines_comment_starts_where_the_tokens_say():
    for newline in (b"\n", b"\r\n"):
        data = b'tag = "#"; t = """#"b"""  # see #12' + newline + b"x = 1" + newline
        end = data.index(b"\n")
        assert comment_start(data, 0, end) == data.index(b"# see")
        assert comment_start(data, end + 1, len(data) - 1) == -1


# Programs built from the pieces that mislead a reading one quote at a time.
PIECES = [b"x", b" ", b"(", b")", b"\n", b"\\\n", b"#", b"# c", b"'", b'"', b"'''", b'"""', b"\\", b"{", b"}",
          b"f", b"r", b"b", b"rb", b"u", b"if", b"=", b"._y", b"'#'", b'"a#b"', b"f'{x}'", b"f\"{d['k']}\"",
          b"f'{{'", b"'it\\'s'", b'"""doc # x"""', b"\t", b"\x0c", b"\xc3\xa9"]


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_generated_texts_are_prose_only_where_the_tokenizer_says(pieces):
    _assert_only_prose(b"".join(pieces) + b"\n")


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_generated_programs_are_prose_only_where_the_tokenizer_says(program):
    _assert_only_prose(program.encode("utf-8", "surrogatepass"))
