"""Where a file's bytes are surely prose: its comments and the insides of its plain strings.

The text prefilter (prefilter.py) finds candidates in raw bytes, so a docstring that shows
`torch.optim.lr_scheduler._LRScheduler`, or a comment quoting `mesh._flatten()`, read to it
like code, and the file was parsed for nothing; and where a line's comment starts decides how
it reads a receiver over lines (a triple-quoted string holding `#` and a quote, then a comment,
on the line above `).pg = ...`). The file's
tokens are read here the way CPython's tokenizer finds them, left to right: outside a string,
a `#` starts a comment to the line's end and a quote starts a string, which ends at the first
same quote (or three) that no backslash escapes. A private name in prose is never a finding:
the detector reports what the code writes (a `getattr` string is an argument in code, and the
prefilter reads it as such; a `getattr(` call written in a docstring is prose).

Only what is sure is prose:
- an f-string's (or a t-string's) fields are code, so nothing in it is prose; CPython 3.12
  lets a field hold the string's own quote (`f"{d["k"]}"`), so where the string ends is taken
  as sure only when every field it opens closes before its first closing quote, with no
  comment or backslash in a field and every string in a field closed there too;
- a string after a name that is not a prefix (`if"x"`, `ur"x"`) is left as it is;
- what it cannot read as CPython would (a string that does not close, a lone `}` in an
  f-string, a backslash outside a string before a quote or a `#`) leaves everything from there
  on unsure: no byte there is prose, and a comment's start there cannot be told. So does, for
  the whole file, a null byte, a lone `\r`, bytes that are not UTF-8 or an encoding declared
  other than UTF-8.

The file is read from its start only as far as a question needs: most files the prefilter
lets through hold a candidate in code well before their end.
"""

from __future__ import annotations

import codecs
import functools
import re
from bisect import bisect_right

_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") \
    | frozenset(range(128, 256))
_PREFIXES = frozenset({b"", b"r", b"u", b"b", b"br", b"rb", b"f", b"fr", b"rf", b"t", b"tr", b"rt"})
_TRIPLES = (b'"""', b"'''")
# The rest of a string after its opening quote, with its closing one: for strings that hold a
# backslash or (one-quote strings) a line's end; the others end at the first same quote.
_REST = {
    b'"': re.compile(rb'(?:[^"\\\n]++|\\(?:\r\n|(?s:.)))*+"'),
    b"'": re.compile(rb"(?:[^'\\\n]++|\\(?:\r\n|(?s:.)))*+'"),
    b'"""': re.compile(rb'(?:[^"\\]++|\\(?:\r\n|(?s:.))|"(?!""))*+"""'),
    b"'''": re.compile(rb"(?:[^'\\]++|\\(?:\r\n|(?s:.))|'(?!''))*+'''"),
}
_FIELD_BYTES = re.compile(rb"[{}'\"\\#:]")
_COOKIE = re.compile(rb"[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")  # PEP 263's, as CPython reads it
_LONE_CR = re.compile(rb"\r(?!\n)")
_NOWHERE = 1 << 62


def in_prose(data: bytes, at: int) -> bool:
    """Whether byte `at` is surely in a comment or inside a plain string (False when unsure)."""
    tokens = _tokens(data)
    return tokens.reach(at) and _inside(tokens.starts, tokens.ends, at)


def in_code(data: bytes, at: int) -> bool:
    """Whether byte `at` is surely in no comment and no string, prose or not (an f-string, a
    string after a word that is no prefix: `if"x"`); False when unsure."""
    tokens = _tokens(data)
    return tokens.reach(at) and not _inside(tokens.starts, tokens.ends, at) \
        and not _inside(tokens.string_starts, tokens.string_ends, at)


def _inside(starts: list[int], ends: list[int], at: int) -> bool:
    """Whether `at` falls in one of the spans (in order, none overlapping) these give."""
    index = bisect_right(starts, at) - 1
    return index >= 0 and at < ends[index]


def comment_start(data: bytes, line_start: int, line_end: int) -> int | None:
    """Where the comment that ends the line `line_start`..`line_end` starts (its `#`), -1 when
    the line ends in none, None when the text cannot be read for sure."""
    if line_end > line_start and data[line_end - 1] == 13:
        line_end -= 1  # a `\r\n` line: its comment ends before the `\r`
    tokens = _tokens(data)
    if not tokens.reach(line_end - 1):
        return None
    index = bisect_right(tokens.starts, line_end - 1) - 1
    if index >= 0 and tokens.starts[index] >= line_start and tokens.ends[index] == line_end \
            and data[tokens.starts[index]] == 35:
        return tokens.starts[index]
    return -1


def prose_spans(data: bytes) -> tuple[list[int], list[int]] | None:
    """The starts and ends of the prose in `data`, in order (a comment from its `#`, a string
    between its quotes), or None when the text cannot be read for sure to its end."""
    tokens = _Tokens(data)
    return (tokens.starts, tokens.ends) if tokens.reach(len(data)) else None


# Asked for each candidate and each comment a reading crosses, of one file in turn.
@functools.lru_cache(maxsize=1)
def _tokens(data: bytes) -> "_Tokens":
    return _Tokens(data)


class _Tokens:
    """A file's comments and strings, read from its start only as far as asked: a file that
    holds a candidate in code near its top is not read to its end. Every byte before `upto`
    is read; `stuck`: the text cannot be read for sure past `upto`."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts: list[int] = []
        self.ends: list[int] = []
        # The other strings, which are not prose (an f-string, `if"x"`): from quote to end.
        self.string_starts: list[int] = []
        self.string_ends: list[int] = []
        self.stuck = not _readable(data)
        find = data.find
        # The next `#`, `"` and `'` from where the reading stands, each looked for again only
        # once the reading has passed it (one inside a string or a comment is not a token).
        self.hash_at, self.double, self.single = (_NOWHERE if at < 0 else at
                                                  for at in (find(b"#"), find(b'"'), find(b"'")))
        self.upto = 0 if self.stuck else min(self.hash_at, self.double, self.single)

    def reach(self, at: int) -> bool:
        """Read on past byte `at`; False if the text cannot be read for sure that far."""
        if at < self.upto:
            return True
        if self.stuck:
            return False
        data, starts, ends = self.data, self.starts, self.ends
        find = data.find
        hash_at, double, single = self.hash_at, self.double, self.single
        while self.upto <= at:
            if hash_at < double and hash_at < single:
                if hash_at and data[hash_at - 1] == 92:
                    self.stuck = True  # `\#` outside a string: not Python
                    break
                end = find(b"\n", hash_at)
                end = len(data) if end < 0 else end - (data[end - 1] == 13)  # (before `\r\n`)
                starts.append(hash_at)
                ends.append(end)
            else:
                quote = double if double < single else single
                found = _string(data, quote)
                if found is None:
                    self.stuck = True
                    break
                inside, close, end = found
                if inside:
                    starts.append(inside)
                    ends.append(close)
                else:
                    self.string_starts.append(quote)
                    self.string_ends.append(end)
            if hash_at < end:
                hash_at = find(b"#", end)
                hash_at = _NOWHERE if hash_at < 0 else hash_at
            if double < end:
                double = find(b'"', end)
                double = _NOWHERE if double < 0 else double
            if single < end:
                single = find(b"'", end)
                single = _NOWHERE if single < 0 else single
            self.upto = min(hash_at, double, single)  # what stands before the next token is code
        self.hash_at, self.double, self.single = hash_at, double, single
        return at < self.upto


def declares_another_encoding(data: bytes) -> bool:
    """Whether the file's first encoding declaration (PEP 263: a comment on one of its first
    two lines) names an encoding other than UTF-8, or one Python does not know. (Asked of every
    file the text prefilter reads: only the first two lines are looked at.)"""
    first = data.find(b"\n")
    second = -1 if first < 0 else data.find(b"\n", first + 1)
    head = data if second < 0 else data[:second]
    if b"coding" not in head:
        return False
    for line in head.split(b"\n"):
        cookie = _COOKIE.match(line)
        if cookie is not None:  # the first one counts
            try:
                return codecs.lookup(cookie.group(1).decode("ascii")).name != "utf-8"
            except (LookupError, UnicodeDecodeError):
                return True
    return False


def _readable(data: bytes) -> bool:
    """Whether the bytes are what CPython would read as UTF-8 source text."""
    if b"\0" in data or (b"\r" in data and _LONE_CR.search(data) is not None):
        return False  # (a lone `\r` ends a line too: the prefilter reads such text as `\n`)
    if declares_another_encoding(data):
        return False  # its bytes may stand for quotes and backslashes
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _string(data: bytes, at: int) -> tuple[int, int, int] | None:
    """The string whose first quote is at `at`: where its inside starts if that is prose (0
    when it is not), where its closing quote starts, and where the string ends; None when the
    text cannot be read for sure."""
    quote = data[at:at + 3]
    if quote not in _TRIPLES:
        quote = quote[:1]
    width = len(quote)
    close = data.find(quote, at + width)
    if close < 0:
        return None
    if data.find(b"\\", at + width, close) >= 0 or (width == 1 and data.find(b"\n", at + width, close) >= 0):
        rest = _REST[quote].match(data, at + width)
        if rest is None:
            return None  # not closed: CPython cannot read this file either
        close = rest.end() - width
    start = at
    while start and data[start - 1] in _NAME_BYTES:
        start -= 1
    if start == at and at and data[at - 1] == 92:
        return None  # `\"` outside a string: not Python
    prefix = data[start:at].lower()
    if b"f" in prefix or b"t" in prefix:
        if not fields_close(data, at + width, close):
            return None
        return 0, close, close + width
    return (at + width if prefix in _PREFIXES else 0), close, close + width


def fields_close(data: bytes, start: int, end: int) -> bool:
    """Whether an f-string's text between `start` and `end` (its first closing quote) closes
    every field it opens. In a field only a one-quote string with no backslash, closed there,
    is read over; whatever else may hide the closing quote leaves it unsure: a triple quote, a
    backslash, a comment, or a quote after a `:` inside the same brace (a format spec's text:
    `{x:'^9}`)."""
    colons: list[bool] = []  # each brace open in a field: whether a `:` came after it
    at = start
    while True:
        match = _FIELD_BYTES.search(data, at, end)
        if match is None:
            return not colons
        at = match.start()
        byte = data[at]
        if not colons:
            if byte == 123 or byte == 125:  # `{`, `}`: doubled, a brace of the text
                if at + 1 < end and data[at + 1] == byte:
                    at += 2
                elif byte == 123:
                    colons.append(False)
                    at += 1
                else:
                    return False  # a lone `}`
            elif byte == 92:  # a backslash in the text escapes the next byte, but not a brace
                if at + 1 < end and data[at + 1] in b"{}":
                    return False
                at += 2
            else:
                at += 1  # a quote, a `#` or a `:` in the text is text
        elif byte == 123:
            colons.append(False)
            at += 1
        elif byte == 125:
            colons.pop()
            at += 1
        elif byte == 58:  # `:`
            colons[-1] = True
            at += 1
        elif (byte == 34 or byte == 39) and not colons[-1] and data[at:at + 3] not in _TRIPLES:
            close = data.find(data[at:at + 1], at + 1, end)
            if close < 0 or data.find(b"\\", at + 1, close) >= 0:
                return False
            at = close + 1
        else:
            return False
