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


def directives(source: bytes, lines: set[int]) -> Directives:
    """Line -> suppressed codes, from the file's comments (never from inside strings).
    `lines`: the only lines the caller will ask about, and the only ones read: those that say
    "noqa" get their comment from prose.py, or, where it is unsure, from the tokenizer (which
    costs more than the parse of a sliced file)."""
    found: Directives = {}
    if b"noqa" not in source.lower():
        return found  # (most files: a copy in lower case costs less than a split into lines)
    rows = source.splitlines(keepends=True)
    said = [line for line in sorted(lines) if 0 < line <= len(rows) and b"noqa" in rows[line - 1].lower()]
    if not said:
        return found
    read = _from_prose(source, rows, said)
    if read is not None:
        return read
    last = max(lines)
    try:
        # (A lone `\r` ends a line for CPython, and for the line numbers asked: not for tokenize.)
        lines_read = source.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in source else source
        for token in tokenize.tokenize(io.BytesIO(lines_read).readline):
            if token.start[0] > last:
                break  # no line asked about is below: the rest of the file need not be read
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


def _from_prose(source: bytes, rows: list[bytes], said: list[int]) -> Directives | None:
    """The directives of the lines `said` (in order), each read from the comment prose.py finds
    ending it, the way CPython's tokenizer does, at a fraction of the tokenizer's cost; None
    where prose.py is unsure (the tokenizer decides)."""
    from privlint.prose import comment_start

    found: Directives = {}
    line, at = 1, 0
    for wanted in said:
        while line < wanted:
            at += len(rows[line - 1])
            line += 1
        end = at + len(rows[line - 1].rstrip(b"\r\n"))
        hash_at = comment_start(source, at, end)
        if hash_at is None:
            return None
        if hash_at >= 0:
            try:
                parsed = _parse(source[hash_at:end].decode("utf-8"))
            except UnicodeDecodeError:
                return None
            if parsed is not False:
                found[wanted] = parsed  # type: ignore[assignment]
    return found


def is_suppressed(found: Directives, lines: tuple[int, ...], codes: tuple[str, ...]) -> bool:
    for line in lines:
        if line in found:
            suppressed = found[line]
            if suppressed is None or any(code in suppressed for code in codes):
                return True
    return False


def add_noqa(findings, cwd) -> tuple[int, list[str]]:
    """Append `# noqa: CODES` to each finding's line (merging with an existing noqa comment)."""
    from pathlib import Path

    from privlint.writer import write_atomic

    by_path: dict[str, dict[int, set[str]]] = {}
    for finding in findings:
        if finding.code and finding.line:
            by_path.setdefault(finding.path, {}).setdefault(finding.line, set()).add(finding.code)
    added, failed = 0, []
    for display, lines in by_path.items():
        path = Path(cwd) / display
        try:
            original = path.read_bytes()
        except OSError:
            failed.append(display)
            continue
        rows = original.splitlines(keepends=True)
        for number, codes in lines.items():
            if number > len(rows):
                continue
            row = rows[number - 1]
            body = row.rstrip(b"\r\n")
            ending = row[len(body):]
            if body.rstrip().endswith(b"\\"):
                continue  # a comment after a line continuation would break the code
            existing = _NOQA.search(body.decode("utf-8", "replace"))
            if existing is not None and existing.group("codes") is None:
                continue  # a blanket noqa already covers it
            if existing is not None:
                codes = codes | {c.upper() for c in re.split(r"[\s,]+", existing.group("codes")) if c}
                body = body[: body.decode("utf-8", "replace").index(existing.group(0))
                            if body.isascii() else body.rfind(b"#")].rstrip()
            rows[number - 1] = body + b"  # noqa: " + ", ".join(sorted(codes)).encode() + ending
            added += 1
        try:
            write_atomic(path, original, b"".join(rows))
        except OSError:
            failed.append(display)
    return added, failed
