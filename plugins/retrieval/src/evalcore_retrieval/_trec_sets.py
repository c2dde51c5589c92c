"""trec_eval's ``-m all_trec`` set, as the names trec_eval prints (each resolves to one metric)."""

from __future__ import annotations

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = tuple(f"{x / 10:.2f}" for x in range(11))
_MULTIPLES = tuple(f"{x / 10:.2f}" for x in range(2, 21, 2))

ALL_TREC: tuple[str, ...] = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{x}" for x in _RECALL_LEVELS),
    *(f"P_{k}" for k in _CUTOFFS),
    *(f"recall_{k}" for k in _CUTOFFS),
    "infAP", "gm_bpref",
    *(f"Rprec_mult_{x}" for x in _MULTIPLES),
    "utility", "11pt_avg", "binG", "G", "ndcg(k=None)", "ndcg_rel", "Rndcg",
    *(f"ndcg_cut_{k}" for k in _CUTOFFS),
    *(f"map_cut_{k}" for k in _CUTOFFS),
    *(f"relative_P_{k}" for k in _CUTOFFS),
    "success_1", "success_5", "success_10",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20",
)
"""Every measure of ``trec_eval -m all_trec``, in the order trec_eval prints them."""
