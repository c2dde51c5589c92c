"""Token usage of a model call and what it costs: :class:`Usage`, :class:`Price`, :class:`PriceTable`."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
from evalcore.plugin import ParameterError

if TYPE_CHECKING:
    from evalcore.plugin import RunContext


@attrs.frozen
class Usage:
    """Tokens of one call; ``reported`` is false when the backend sent no usage (estimated)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reported: bool = True

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "reported": self.reported}


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token), for budgets and missing usage."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


@attrs.frozen
class Price:
    """Millisatoshis per 1000 prompt tokens and per 1000 completion tokens."""

    prompt: float
    completion: float

    def cost_msats(self, usage: Usage) -> int:
        return math.ceil((usage.prompt_tokens * self.prompt + usage.completion_tokens * self.completion) / 1000)


DEFAULT_PRICE = Price(prompt=100.0, completion=500.0)
BATCH_RATE = 0.5
"""What a call sent through a provider's batch API costs, as a share of its price (OpenAI's and Anthropic's: half)."""


class PriceTable:
    """Prices by model name; models not listed use ``default`` (``None``: they cost 0).

    ``prices`` maps a model to a :class:`Price`, a ``(prompt, completion)`` pair or a
    mapping with those keys, all in millisatoshis per 1000 tokens (key ``"*"`` sets the
    default). A run reads the same mapping as JSON from ``$EVALCORE_PRICES``
    (:func:`run_prices`).
    """

    def __init__(self, prices: Mapping[str, Any] | None = None, default: Price | None = DEFAULT_PRICE) -> None:
        table = dict(prices or {})
        if "*" in table:
            default = _as_price("*", table.pop("*"))
        self.prices = {model: _as_price(model, value) for model, value in table.items()}
        self.default = default

    def price(self, model: str) -> Price | None:
        return self.prices.get(model, self.default)

    def cost_msats(self, model: str, usage: Usage) -> int:
        """What ``usage`` of ``model`` costs, rounded up to whole millisatoshis."""
        price = self.price(model)
        return price.cost_msats(usage) if price else 0

    def at_batch_rate(self) -> PriceTable:
        """The same table at the batch rate (:data:`BATCH_RATE` of every price)."""
        def rated(price: Price) -> Price:
            return Price(price.prompt * BATCH_RATE, price.completion * BATCH_RATE)
        return PriceTable({model: rated(price) for model, price in self.prices.items()},
                          default=rated(self.default) if self.default else None)


def _as_price(model: str, value: Any) -> Price:
    if isinstance(value, Price):
        return value
    if isinstance(value, Mapping):
        return Price(float(value["prompt"]), float(value["completion"]))
    if isinstance(value, Sequence) and len(value) == 2:
        return Price(float(value[0]), float(value[1]))
    raise ParameterError(f"prices: the price of {model!r} must be (prompt, completion) msats per 1000 tokens; "
                         f"got {value!r}")


def run_prices(context: RunContext, explicit: Mapping[str, Any] | None = None) -> PriceTable:
    """The price table of a run: ``explicit`` (a metric's ``prices``), else ``$EVALCORE_PRICES`` as the run started."""
    if explicit:
        return PriceTable(explicit)
    raw = context.environ.get("EVALCORE_PRICES")
    if not raw:
        return PriceTable()
    try:
        return PriceTable(json.loads(raw))
    except ValueError as exc:
        raise ParameterError(f"$EVALCORE_PRICES is not a JSON price table: {exc}") from None
