"""``checks/syntax``: balanced brackets and quotes, or a real parse: Python and JSON always, other
languages with tree-sitter grammars when installed (the dsrs SyntaxMetric)."""

from __future__ import annotations

import ast
import json
import warnings

from evalcore.plugin import InputError, Record, SampleMetric, Score

from . import treesitter
from ._inputs import field_text

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
QUOTES = "\"'"  # the dsrs document's quotes; a backtick counts only when asked


def check_delimiters(code: str, *, brackets: bool = True, quotes: bool = True, backtick: bool = False) -> str | None:
    """``None`` when brackets ``()[]{}`` and quotes ``" '`` (and `` ` `` with ``backtick``)
    balance, else what is wrong.

    Text inside quotes is not scanned for brackets; a backslash escapes the next character
    inside quotes. With ``quotes`` off, quote characters are ordinary text (an apostrophe
    starts no string); with ``brackets`` off, brackets are not checked.
    """
    quote_chars = (QUOTES + "`" if backtick else QUOTES) if quotes else ""
    stack: list[tuple[str, int]] = []
    quote: str | None = None
    quote_at = 0
    escaped = False
    for index, ch in enumerate(code):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in quote_chars:
            quote, quote_at = ch, index
        elif ch in _OPENERS:
            stack.append((ch, index))
        elif ch in _CLOSERS and brackets:
            if not stack or stack[-1][0] != _CLOSERS[ch]:
                return f"unmatched {ch!r} at offset {index}"
            stack.pop()
    if quote is not None:
        return f"unclosed {quote} quote opened at offset {quote_at}"
    if stack and brackets:
        opener, at = stack[-1]
        return f"unclosed {opener!r} opened at offset {at}"
    return None


def check_python(code: str) -> str | None:
    """``None`` when ``code`` parses as Python (``ast.parse``), else the syntax error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(code)
    except SyntaxError as exc:
        return f"Python syntax error: {exc.msg} (line {exc.lineno}, column {exc.offset})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"Python cannot parse it: {type(exc).__name__}: {exc}"
    return None


def check_json(code: str) -> str | None:
    """``None`` when ``code`` is a JSON document (``json.loads``), else the error."""
    try:
        json.loads(code)
    except ValueError as exc:
        return f"invalid JSON: {exc}"
    except RecursionError:
        return "invalid JSON: nested too deeply"
    return None


class SyntaxCheck(SampleMetric):
    """1.0 when the code at ``field`` passes the check for its language, else 0.0."""

    def score(self, example: Record, prediction: Record) -> Score:
        code = field_text(prediction, self.params["field"])
        language = (self.params["language"] or "").lower()
        if not code.strip():
            return Score(0.0, feedback="no code found", details={"checker": "none"})
        grammar = treesitter.grammar_name(language)
        use_tree_sitter = grammar is not None and self.params["parser"] != "delimiters" and (
            self.params["parser"] == "tree_sitter" or treesitter.available(grammar))
        if self.params["parser"] == "tree_sitter" and grammar is None and language not in ("python", "json"):
            raise InputError(f"no tree-sitter grammar for {language or 'no language'!r}; known: "
                             f"{', '.join(sorted(treesitter.GRAMMARS))}", field="params.language")
        if language == "python":
            checker, problem = "python", check_python(code)
        elif language == "json":
            checker, problem = "json", check_json(code)
        elif use_tree_sitter:
            try:
                checker, problem = "tree_sitter", treesitter.check_tree_sitter(code, grammar)
            except ImportError as exc:
                raise InputError(f"tree-sitter grammar for {grammar} is not installed ({exc}); "
                                 f"{treesitter.INSTALL_HINT}", field="params.parser") from None
        else:
            checker = "delimiters"
            problem = check_delimiters(
                code, brackets=self.params["check_balanced_brackets"],
                quotes=self.params["check_balanced_quotes"], backtick=self.params["backtick_quotes"],
            )
        details = {"checker": checker, "language": language or None}
        if problem is None:
            return Score(1.0, feedback="syntax ok", details=details)
        return Score(0.0, feedback=problem, details=details)
