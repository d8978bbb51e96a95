"""`# noqa` and `# noqa: PRV101, PRV102` comments, read from real comment tokens."""

from __future__ import annotations

import io
import re
import tokenize

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*[,\s]\s*[A-Z]+[0-9]+)*))?",
                   re.IGNORECASE)

Directives = dict[int, "frozenset[str] | None"]  # line -> codes, or None for a blanket noqa


def _parse(comment: str) -> frozenset[str] | None | bool:
    match = _NOQA.search(comment)
    if not match:
        return False
    codes = match.group("codes")
    if not codes:
        return None
    return frozenset(code.upper() for code in re.split(r"[\s,]+", codes.strip()) if code)


def directives(source: bytes) -> Directives:
    """Line -> suppressed codes, from the file's comments (never from inside strings)."""
    found: Directives = {}
    if b"noqa" not in source.lower():
        return found
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            if token.type == tokenize.COMMENT:
                parsed = _parse(token.string)
                if parsed is not False:
                    found[token.start[0]] = parsed  # type: ignore[assignment]
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        # A file libcst parsed but tokenize cannot (newer syntax): fall back to lines.
        for number, line in enumerate(source.decode("utf-8", "replace").splitlines(), 1):
            if "#" in line:
                parsed = _parse(line[line.index("#"):])
                if parsed is not False:
                    found[number] = parsed  # type: ignore[assignment]
    return found


def is_suppressed(found: Directives, lines: tuple[int, ...], codes: tuple[str, ...]) -> bool:
    for line in lines:
        if line in found:
            suppressed = found[line]
            if suppressed is None or any(code in suppressed for code in codes):
                return True
    return False
