"""``evalcore arena``: two or more systems' records judged pair by pair; win rates and Bradley–Terry ratings."""

from __future__ import annotations

from collections.abc import Sequence

import click
from evalcore.plugin import InputError, echo_json, reports_errors


@click.command("arena")
@click.argument("systems", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option("-m", "--metric", required=True,
              help="The pairwise metric, e.g. \"judge/pairwise(criteria='Which answer is more helpful?')\"; it "
                   "reads A's answer as the prediction's field and B's with _b appended (response_b).")
@click.option("--name", "names", multiple=True, help="A name for each system, in order (default: file names).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the bootstrap intervals.")
@click.option("--resamples", "n_resamples", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Bootstrap resamples of the win rates and the ratings.")
@click.option("--confidence", default=0.95, show_default=True, type=float, help="Level of the intervals.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Folder of the judge's answer cache.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@reports_errors
def arena_command(systems: Sequence[str], metric: str, names: Sequence[str], seed: int, n_resamples: int,
                  confidence: float, cache_dir: str | None, as_json: bool) -> None:
    """Judge every pair of SYSTEMS (JSONL records over the same ids) with a pairwise metric: each pair's
    win rate with a bootstrap interval and, over three or more systems, Bradley–Terry ratings."""
    from ..arena import arena

    if names and (len(names) != len(systems) or len(set(names)) != len(names)):
        raise InputError(f"give one distinct name per system: {len(names)} names for {len(systems)} systems",
                         field="--name")
    given = dict(zip(names, systems)) if names else list(systems)
    result = arena(given, metric, seed=seed, n_resamples=n_resamples, confidence=confidence,
                   **({"cache_dir": cache_dir} if cache_dir else {}))
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(result.table())
