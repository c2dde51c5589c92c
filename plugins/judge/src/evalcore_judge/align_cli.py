"""``evalcore align``: a judge's agreement with people, and a new version of it learnt from their labels."""

from __future__ import annotations

from typing import Any

import click
from evalcore.plugin import CACHE_MODES, SettingsCommand, echo_json, echo_rows, reports_errors


@click.command("align", cls=SettingsCommand)
@click.argument("run", type=click.Path(dir_okay=False, exists=True))
@click.option("--labels", required=True, type=click.Path(dir_okay=False, exists=True),
              help="Human labels of some of the run's records, as evaluate --labels reads them.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Write the new judge file (TOML, as judge/custom(file=...) reads it) here.")
@click.option("-m", "--metric", "metric_id",
              help="The run's judged metric: judge/custom, judge/llm_judge or judge/diff_semantic "
                   "(default: its only judged one).")
@click.option("--records", type=click.Path(dir_okay=False, exists=True),
              help="The records the run scored (default: the file the run read).")
@click.option("--held-out", type=click.FloatRange(min=0, max=1, min_open=True, max_open=True), default=0.5,
              show_default=True, help="Share of the labelled records held out to measure agreement.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split and the intervals.")
@click.option("-k", "--k", "k", type=click.IntRange(min=1), default=4, show_default=True,
              help="Examples the optimiser adds to the judge at most.")
@click.option("--candidates", type=click.IntRange(min=1), default=8, show_default=True,
              help="Random example sets the optimiser tries (besides none, the labels and one bootstrap).")
@click.option("--cache-mode", type=click.Choice(CACHE_MODES), help="Model-call cache mode.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Model-call cache folder.")
@click.option("--allow-code", is_flag=True, default=False,
              help="Let the judge settings name Python code as module:attr, as evaluate --allow-code does.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@reports_errors
def align_command(run: str, labels: str, output: str, metric_id: str | None, records: str | None, held_out: float,
                  seed: int, k: int, candidates: int, cache_mode: str | None, cache_dir: str | None,
                  allow_code: bool, as_json: bool, settings: dict[str, dict[str, Any]]) -> None:
    """Measure a run's judge/custom, judge/llm_judge or judge/diff_semantic metric against human labels on a
    held-out part, let DSPy's BootstrapFewShotWithRandomSearch choose few-shot examples from the other labels,
    write the new judge/custom judge and report both judges' held-out agreement (Cohen's kappa with bootstrap
    intervals)."""
    from .alignment import align

    result = align(run, labels, output=output, metric=metric_id, records=records, held_out=held_out, seed=seed,
                   k=k, candidates=candidates, settings=settings, cache_mode=cache_mode, cache_dir=cache_dir,
                   allow_code=allow_code)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"{result.metric}: {len(result.train)} labelled records to learn from, {len(result.held_out)} held out; "
               f"{result.examples} examples added")
    echo_rows(("judge", "prompt hash", "n", "kappa", "95% CI", "agreement", "95% CI", "alpha"),
              [(name, digest, str(a.n), _number(a.kappa), _interval(a.kappa_ci), _number(a.agreement),
                _interval(a.agreement_ci), _number(a.alpha))
               for name, digest, a in (("old", result.prompt_hash[0], result.before),
                                       ("new", result.prompt_hash[1], result.after))])
    click.echo(f"kappa change {_number(result.kappa_change)} {_interval(result.kappa_change_ci)}; "
               f"disagreements {len(result.before.disagreements)} -> {len(result.after.disagreements)}")
    click.echo(f"wrote the new judge to {result.output}; use it with -m \"judge/custom(file='{result.output}')\"")


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _interval(ci: tuple[float, float] | None) -> str:
    return "-" if ci is None else f"[{ci[0]:.4f}, {ci[1]:.4f}]"
