"""The names trec_eval prints for the retrieval measures (``P_10``, ``ndcg``, ``utility_2,-1,0,0``).

trec_eval names a measure with its parameters appended: cut-offs as ``_10`` (``P_10``,
``ndcg_cut_10``, ``success_1``), recall levels and multiples of R with two decimals
(``iprec_at_recall_0.10``, ``Rprec_mult_0.20``), and the other parameters as they are given on
its command line (``utility_2,-1,0,0``, ``set_F_0.5``, ``rbp_p=0.95``, ``ndcg_1=3,2=7``);
parameters at their defaults add nothing (``utility``, ``rbp``, ``ndcg``). Its global options
(``-l``, ``-c``, ``-J``, ``-N``) leave the names as they are. A metric whose parameters ask for
something trec_eval does not compute (``ties='input'``, ``gain='exp2'``, a cut-off of ``map`` it
has no measure for) has no trec_eval name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Params = Mapping[str, Any]

GLOBAL_OPTIONS = frozenset({"relevance_level", "missing", "judged_only", "num_docs"})
"""Parameters that are trec_eval's command-line options (-l, -c, -J, -N), not part of a measure's name."""


def _number(value: float) -> str:
    """A number as written on trec_eval's command line: ``2``, ``-1``, ``0.95``."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _plain(name: str) -> tuple[frozenset[str], Callable[[Params], str | None]]:
    return frozenset(), lambda p: name


def _cut(name: str) -> tuple[frozenset[str], Callable[[Params], str | None]]:
    """``name_k`` (``P_10``)."""
    return frozenset({"k"}), lambda p: f"{name}_{p['k']}"


def _whole_ranking(name: str, cut: str | None = None) -> tuple[frozenset[str], Callable[[Params], str | None]]:
    """``name`` without a cut-off, ``cut_k`` with one (``map`` / ``map_cut_10``); no name where
    trec_eval has no cut-off version (``cut`` None)."""
    def named(p: Params) -> str | None:
        if p["k"] is None:
            return name
        return f"{cut}_{p['k']}" if cut else None

    return frozenset({"k"}), named


def _two_decimals(name: str, param: str) -> tuple[frozenset[str], Callable[[Params], str | None]]:
    """``name_x`` with x to two decimals (``iprec_at_recall_0.10``), as trec_eval's ``%3.2f``."""
    return frozenset({param}), lambda p: f"{name}_{float(p[param]):.2f}"


def _ndcg(p: Params) -> str | None:
    gains = p["gains"]
    if p["k"] is not None:
        return None if gains else f"ndcg_cut_{p['k']}"  # trec_eval's ndcg_cut takes no gains
    if not gains:
        return "ndcg"
    return "ndcg_" + ",".join(f"{_number(grade)}={_number(gain)}" for grade, gain in sorted(gains.items()))


def _persistence(name: str) -> tuple[frozenset[str], Callable[[Params], str | None]]:
    """``rbp``, or ``rbp_p=0.95`` with another persistence (trec_eval's ``-m rbp.p=0.95``)."""
    return frozenset({"p"}), lambda p: name if p["p"] == 0.9 else f"{name}_p={_number(p['p'])}"


def _listed(name: str, param: str, default: Any) -> tuple[frozenset[str], Callable[[Params], str | None]]:
    """``name``, or ``name_a,b,..`` with other values (``utility_2,-1,0,0``, ``set_F_0.5``)."""
    def named(p: Params) -> str:
        value = p[param]
        if value == default:
            return name
        values = value if isinstance(value, (list, tuple)) else (value,)
        return f"{name}_" + ",".join(_number(v) for v in values)

    return frozenset({param}), named


NAMES: dict[str, tuple[frozenset[str], Callable[[Params], str | None]]] = {
    "num_q": _plain("num_q"), "num_ret": _plain("num_ret"), "num_rel": _plain("num_rel"),
    "num_rel_ret": _plain("num_rel_ret"), "num_nonrel_judged_ret": _plain("num_nonrel_judged_ret"),
    "map": _whole_ranking("map", "map_cut"), "gm_map": _whole_ranking("gm_map"),
    "mrr": _whole_ranking("recip_rank"),
    "r_precision": _plain("Rprec"), "bpref": _plain("bpref"), "gm_bpref": _plain("gm_bpref"),
    "infap": _plain("infAP"),
    "iprec_at_recall": _two_decimals("iprec_at_recall", "recall"),
    "r_precision_mult": _two_decimals("Rprec_mult", "multiple"),
    "precision": _cut("P"), "recall": _cut("recall"), "relative_precision": _cut("relative_P"),
    "hit_rate": _cut("success"), "unjudged": _cut("unj"),
    "utility": _listed("utility", "weights", (1.0, -1.0, 0.0, 0.0)),
    "eleven_point_avg": _plain("11pt_avg"), "bin_g": _plain("binG"), "g": _plain("G"),
    "ndcg": (frozenset({"k", "gains"}), _ndcg), "ndcg_rel": _plain("ndcg_rel"), "rndcg": _plain("Rndcg"),
    "set_precision": _plain("set_P"), "set_relative_precision": _plain("set_relative_P"),
    "set_recall": _plain("set_recall"), "set_map": _plain("set_map"), "set_f": _listed("set_F", "beta", 1.0),
    "rbp": _persistence("rbp"), "rbp_resid": _persistence("rbp_resid"),
}
"""Each trec_eval measure: the parameters its name shows, and how it shows them."""


def trec_eval_name(spec: Any, params: Params) -> str | None:
    """The name trec_eval prints for the metric of ``spec`` with ``params`` (bound, defaults
    included), or ``None`` when trec_eval has no measure that computes it."""
    found = NAMES.get(spec.name)
    if found is None:
        return None
    named, name = found
    for param in spec.params:
        if param.name not in named and param.name not in GLOBAL_OPTIONS and params.get(param.name) != param.default:
            return None
    return name(params)
