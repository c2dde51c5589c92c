"""BERTScore computed as the ``bert-score`` package computes it, on a local model.

Per text: the token embeddings of layer ``num_layers`` (texts stripped, encoded with
special tokens, truncated at the tokenizer's maximum length). Per pair: greedy matching
of L2-normalised token embeddings; precision weights candidate tokens, recall weights
reference tokens, by idf (``log((M + 1) / (df + 1))`` over the M references, with ``[CLS]``
and ``[SEP]`` weighted 0) or uniformly. Optional rescaling with a baseline
``(x - b) / (1 - b)`` read from a bert-score baseline file (columns LAYER, P, R, F).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from .models import load_transformer, require

VERSION = "evalcore-semantic-1"


@attrs.frozen
class PRF:
    precision: float
    recall: float
    f1: float


class BertScorer:
    """Scores candidate/reference pairs with one local model and layer."""

    def __init__(self, model: str, *, num_layers: int | None = None, idf: bool = False,
                 baseline: tuple[float, float, float] | None = None, device: str = "cpu",
                 batch_size: int = 64, allow_download: bool = False) -> None:
        self.model = model
        self.tokenizer, self.network = load_transformer(model, device, allow_download)
        self.num_layers = self.layer(num_layers)
        self.idf = idf
        self.baseline = baseline
        self.device = device
        self.batch_size = batch_size
        self.special = {self.tokenizer.cls_token_id, self.tokenizer.sep_token_id} - {None}

    def layer(self, num_layers: int | None) -> int:
        """The layer ``num_layers`` names (``None``: the last); ``ValueError`` if the model has none such."""
        depth = self.network.config.num_hidden_layers
        if num_layers is None:
            return depth
        if not 0 <= num_layers <= depth:
            raise ValueError(f"num_layers must be between 0 and {depth} for this model; got {num_layers}")
        return num_layers

    def signature(self) -> str:
        """Model, layer, idf, rescaling and versions, in bert-score's hash style."""
        transformers = require("transformers")
        text = f"{self.model}_L{self.num_layers}_{'idf' if self.idf else 'no-idf'}"
        text += f"_version={VERSION}(hug_trans={transformers.__version__})"
        return text + ("-rescaled" if self.baseline else "")

    def encode_ids(self, text: str) -> list[int]:
        text = text.strip()
        if not text:
            return self.tokenizer.build_inputs_with_special_tokens([])
        return self.tokenizer.encode(text, add_special_tokens=True, max_length=self.tokenizer.model_max_length,
                                     truncation=True)

    def idf_weights(self, references: Sequence[str]) -> defaultdict[int, float]:
        """Token idf over ``references`` (documents counted once per token; unseen tokens as df 0)."""
        counts: Counter[int] = Counter()
        for ref in references:
            counts.update(set(self.encode_ids(ref)))
        total = len(references)
        weights: defaultdict[int, float] = defaultdict(lambda: math.log(total + 1))
        weights.update({token: math.log((total + 1) / (count + 1)) for token, count in counts.items()})
        return weights

    def embed(self, texts: Sequence[str]) -> dict[str, Any]:
        """Normalised token embeddings by text (computed once per distinct text)."""
        torch = require("torch")
        distinct = sorted(set(texts), key=lambda t: len(t.split(" ")), reverse=True)
        out: dict[str, Any] = {}
        pad = self.tokenizer.pad_token_id or 0
        with torch.inference_mode():
            for start in range(0, len(distinct), self.batch_size):
                batch = distinct[start:start + self.batch_size]
                ids = [self.encode_ids(t) for t in batch]
                width = max(len(i) for i in ids)
                tokens = torch.full((len(ids), width), pad, dtype=torch.long)
                mask = torch.zeros((len(ids), width), dtype=torch.long)
                for row, seq in enumerate(ids):
                    tokens[row, :len(seq)] = torch.tensor(seq)
                    mask[row, :len(seq)] = 1
                hidden = self.network(tokens.to(self.device), attention_mask=mask.to(self.device),
                                      output_hidden_states=True).hidden_states[self.num_layers].cpu()
                for row, (text, seq) in enumerate(zip(batch, ids)):
                    emb = hidden[row, :len(seq)]
                    out[text] = (emb / emb.norm(dim=-1, keepdim=True), seq)
        return out

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[PRF]:
        """Precision, recall and F1 of each candidate against its reference."""
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        torch = require("torch")
        embedded = self.embed([*candidates, *references])
        idf = self.idf_weights(references) if self.idf else None
        results = []
        for start in range(0, len(candidates), self.batch_size):
            chunk = list(zip(candidates[start:start + self.batch_size], references[start:start + self.batch_size]))
            widest_cand = max(len(embedded[c][1]) for c, _ in chunk)
            widest_ref = max(len(embedded[r][1]) for _, r in chunk)
            for cand, ref in chunk:
                (c_emb, c_ids), (r_emb, r_ids) = embedded[cand], embedded[ref]
                sim = c_emb @ r_emb.T
                best_for_cand, best_for_ref = sim.max(dim=1)[0], sim.max(dim=0)[0]
                # bert-score matches against zero-padded rows within its batch: a padded side adds a 0 similarity
                if len(r_ids) < widest_ref:
                    best_for_cand = best_for_cand.clamp(min=0)
                if len(c_ids) < widest_cand:
                    best_for_ref = best_for_ref.clamp(min=0)
                p = _weighted(best_for_cand, self._weights(c_ids, idf, torch))
                r = _weighted(best_for_ref, self._weights(r_ids, idf, torch))
                f = 2 * p * r / (p + r) if p + r != 0 else float("nan")
                results.append(self._rescale(PRF(p, r, f)))
        return results

    def _weights(self, ids: Sequence[int], idf: defaultdict[int, float] | None, torch: Any) -> Any:
        values = [0.0 if t in self.special else (1.0 if idf is None else idf[t]) for t in ids]
        return torch.tensor(values, dtype=torch.float32)

    def _rescale(self, prf: PRF) -> PRF:
        if self.baseline is None:
            return prf
        b_p, b_r, b_f = self.baseline
        return PRF((prf.precision - b_p) / (1 - b_p), (prf.recall - b_r) / (1 - b_r), (prf.f1 - b_f) / (1 - b_f))


def _weighted(values: Any, weights: Any) -> float:
    total = weights.sum()
    return float((values * weights / total).sum()) if total > 0 else float("nan")


def read_baseline(path: str, num_layers: int) -> tuple[float, float, float]:
    """The (P, R, F) baseline of ``num_layers`` from a bert-score baseline file."""
    import csv

    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"baseline file {path!r} does not exist")
    with file.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if num_layers >= len(rows):
        raise ValueError(f"baseline file {path!r} has no row for layer {num_layers}")
    row = rows[num_layers]
    return float(row["P"]), float(row["R"]), float(row["F"])
