"""A small, safe evaluator for boolean expressions over run fields (seed 004's ``custom_scriptable``).

Expressions are parsed with Python's :mod:`ast` and evaluated by walking the tree with a
strict whitelist; nothing is ever passed to ``eval`` or ``compile``. Allowed:

* literals: numbers, strings, ``True``/``False``/``None``, lists and tuples of them;
* names, resolved against the data given to :meth:`Expression.evaluate`;
* data lookup with a constant key or index: ``usage["total_tokens"]``, ``items[0]``;
* arithmetic on numbers (``+ - * / // % **``, unary ``+ -``);
* comparisons (``== != < <= > >= in not in``; ``is``/``is not`` only against ``None``);
* boolean operators ``and``, ``or``, ``not``.

Everything else (attribute access, calls, imports, lambdas, comprehensions, f-strings,
the walrus operator, slices, ...) is rejected with an :class:`ExpressionError` naming the
construct and its column. Size limits (characters, nodes, nesting depth) and guards on
arithmetic (huge powers and products) stop pathological input.
"""

from __future__ import annotations

import ast
import math
import operator
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError

MAX_CHARS = 1_000
MAX_NODES = 300
MAX_DEPTH = 40
MAX_INT_BITS = 256
MAX_FLOAT = 1e300

_BIN_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE_OPS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_UNARY_OPS: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos,
}
_CONSTANT_TYPES = (bool, int, float, str, type(None))

# What a rejected node is called in error messages.
_FORBIDDEN_NAMES: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access", ast.Call: "function calls", ast.Lambda: "lambdas",
    ast.ListComp: "comprehensions", ast.SetComp: "comprehensions", ast.DictComp: "comprehensions",
    ast.GeneratorExp: "generator expressions", ast.JoinedStr: "f-strings",
    ast.FormattedValue: "f-strings", ast.NamedExpr: "assignment expressions (:=)",
    ast.Slice: "slices", ast.Starred: "starred expressions", ast.IfExp: "conditional expressions",
    ast.Dict: "dict literals", ast.Set: "set literals", ast.Await: "await",
    ast.Yield: "yield", ast.YieldFrom: "yield",
}


class ExpressionError(InputError):
    """An expression that is not allowed, does not parse, or fails to evaluate."""


class Expression:
    """A parsed and checked expression; build with :func:`compile_expression`."""

    def __init__(self, source: str, tree: ast.Expression) -> None:
        self.source = source
        self._tree = tree
        self.names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"

    def evaluate(self, lookup: Callable[[str], Any]) -> Any:
        """Evaluate with ``lookup(name)`` giving each name's value (it raises for unknown names)."""
        return _Evaluator(lookup).visit(self._tree.body)


def compile_expression(source: Any) -> Expression:
    """Parse and check ``source``; :class:`ExpressionError` says what is not allowed and where."""
    if not isinstance(source, str):
        raise ExpressionError(f"an expression must be a string; got {type(source).__name__}")
    if not source.strip():
        raise ExpressionError("the expression is empty")
    if len(source) > MAX_CHARS:
        raise ExpressionError(f"the expression is too long ({len(source)} characters; at most {MAX_CHARS})")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse the expression: {exc.msg} (column {exc.offset})") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise ExpressionError(f"cannot parse the expression: {type(exc).__name__}") from None
    _check_size(tree)
    for node in ast.walk(tree):
        _check_node(node)
    return Expression(source, tree)


def _check_size(tree: ast.AST) -> None:
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ExpressionError(f"the expression is too large (more than {MAX_NODES} syntax nodes)")
        if depth > MAX_DEPTH:
            raise ExpressionError(f"the expression is nested too deeply (more than {MAX_DEPTH} levels)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _where(node: ast.AST) -> str:
    col = getattr(node, "col_offset", None)
    return f" (column {col + 1})" if col is not None else ""


def _check_node(node: ast.AST) -> None:
    if isinstance(node, (ast.Expression, ast.Load, ast.boolop, ast.cmpop)):
        return
    if isinstance(node, ast.operator):
        if type(node) not in _BIN_OPS:
            raise ExpressionError(f"operator {type(node).__name__} is not allowed")
        return
    if isinstance(node, ast.unaryop):
        if type(node) not in _UNARY_OPS:
            raise ExpressionError(f"operator {type(node).__name__} is not allowed")
        return
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, _CONSTANT_TYPES):
            raise ExpressionError(f"{type(node.value).__name__} literals are not allowed{_where(node)}")
        return
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            raise ExpressionError(f"names starting with '_' are not allowed: {node.id!r}{_where(node)}")
        return
    if isinstance(node, (ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.List, ast.Tuple)):
        return
    if isinstance(node, ast.Compare):
        for op, right, left in zip(node.ops, node.comparators, [node.left, *node.comparators]):
            if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                isinstance(side, ast.Constant) and side.value is None for side in (left, right)
            ):
                raise ExpressionError(f"'is' and 'is not' may only compare with None{_where(node)}")
        return
    if isinstance(node, ast.Subscript):
        key = node.slice
        if not (isinstance(key, ast.Constant) and isinstance(key.value, (str, int))
                and not isinstance(key.value, bool)):
            raise ExpressionError(
                f"subscripts must be a constant string key or integer index{_where(node)}"
            )
        return
    what = _FORBIDDEN_NAMES.get(type(node), f"{type(node).__name__} nodes")
    raise ExpressionError(f"{what} are not allowed{_where(node)}")


class _Evaluator:
    def __init__(self, lookup: Callable[[str], Any]) -> None:
        self.lookup = lookup

    def visit(self, node: ast.AST) -> Any:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:  # unreachable after compile_expression's checks
            raise ExpressionError(f"{type(node).__name__} is not allowed{_where(node)}")
        return method(node)

    def visit_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def visit_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id)

    def visit_List(self, node: ast.List) -> list[Any]:
        return [self.visit(e) for e in node.elts]

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.visit(e) for e in node.elts)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        container = self.visit(node.value)
        key = node.slice.value  # type: ignore[attr-defined]  # checked: a constant
        if isinstance(container, Mapping):
            if key not in container:
                raise ExpressionError(f"key {key!r} is not present{_where(node)}")
            return container[key]
        if isinstance(container, Sequence) and not isinstance(container, str) and isinstance(key, int):
            if not -len(container) <= key < len(container):
                raise ExpressionError(f"index {key} is out of range{_where(node)}")
            return container[key]
        raise ExpressionError(
            f"cannot look up {key!r} in a {type(container).__name__}{_where(node)}"
        )

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        value: Any = None
        for operand in node.values:
            value = self.visit(operand)
            if bool(value) is not is_and:
                return value
        return value

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.visit(node.operand)
        if not isinstance(node.op, ast.Not):
            _require_number(operand, node)
        return _UNARY_OPS[type(node.op)](operand)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.visit(node.left), self.visit(node.right)
        _require_number(left, node)
        _require_number(right, node)
        _guard_size(node.op, left, right, node)
        try:
            result = _BIN_OPS[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ExpressionError(f"division by zero{_where(node)}") from None
        except (OverflowError, ValueError) as exc:
            raise ExpressionError(f"arithmetic failed: {exc}{_where(node)}") from None
        if isinstance(result, complex):
            raise ExpressionError(f"the result is a complex number{_where(node)}")
        if isinstance(result, float) and not math.isfinite(result):
            raise ExpressionError(f"the result is not a finite number{_where(node)}")
        return result

    def visit_Compare(self, node: ast.Compare) -> bool:
        left = self.visit(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = self.visit(comparator)
            try:
                ok = _COMPARE_OPS[type(op)](left, right)
            except TypeError:
                raise ExpressionError(
                    f"cannot compare {type(left).__name__} with {type(right).__name__}{_where(node)}"
                ) from None
            except RecursionError:
                raise ExpressionError(f"the values are nested too deeply to compare{_where(node)}") from None
            if not ok:
                return False
            left = right
        return True


def _require_number(value: Any, node: ast.AST) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(
            f"arithmetic needs numbers; got {type(value).__name__} {preview(value)}{_where(node)}"
        )


def preview(value: Any) -> str:
    """The start of ``value``'s repr, without building the whole of a huge or deep one."""
    if isinstance(value, (Mapping, list, tuple)) and len(value) > 20:
        return f"of {len(value)} items"
    try:
        return f"{value!r:.40}"
    except RecursionError:
        return "(nested too deeply to show)"


def _magnitude_bits(value: int | float) -> float:
    return math.log2(abs(value)) if value else 0.0


def _guard_size(op: ast.operator, left: int | float, right: int | float, node: ast.AST) -> None:
    """Refuse operations whose result would be absurdly large (before computing them)."""
    if isinstance(op, ast.Pow):
        if abs(left) > 1 and right > 0:
            bits = right * _magnitude_bits(left)
            if bits > MAX_INT_BITS and (isinstance(left, int) and isinstance(right, int)
                                        or bits > math.log2(MAX_FLOAT)):
                raise ExpressionError(f"the power is too large{_where(node)}")
        if abs(right) > 10_000:
            raise ExpressionError(f"the exponent is too large{_where(node)}")
    elif isinstance(op, ast.Mult) and isinstance(left, int) and isinstance(right, int):
        if _magnitude_bits(left) + _magnitude_bits(right) > MAX_INT_BITS:
            raise ExpressionError(f"the product is too large{_where(node)}")
