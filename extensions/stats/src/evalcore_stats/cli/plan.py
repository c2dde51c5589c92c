"""``evalcore ppi`` and ``evalcore plan``: a judged metric corrected by labels, and sample sizes."""

from __future__ import annotations

from collections.abc import Sequence

import click
from evalcore.plugin import InputError, echo_json, reports_errors


@click.command("ppi")
@click.argument("result", type=click.Path(dir_okay=False, exists=True))
@click.argument("system", required=False, type=click.Path(dir_okay=False, exists=True))
@click.option("--labels", "labels", multiple=True, required=True, type=click.Path(dir_okay=False, exists=True),
              help='JSONL of {"id": ..., "label": number, "metric"?: ID} on some records '
                   "(once per run: RESULT's, then SYSTEM's).")
@click.option("-m", "--metric", "--labels-metric", "metrics", multiple=True,
              help='The metric the labels are for (repeatable; default: the metrics named by the labels\' '
                   '"metric" field, or the run\'s only per-record metric).')
@click.option("--alpha", default=0.05, show_default=True, type=float, help="1 - the intervals' coverage.")
@click.option("--lam", type=float, help="Fixed weight of the judge (1: classic PPI; default: tuned, PPI++).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def ppi_command(ctx: click.Context, result: str, system: str | None, labels: Sequence[str],
                metrics: Sequence[str], alpha: float, lam: float | None, as_json: bool) -> None:
    """Prediction-powered estimate of each judged metric's mean, from a judged run and labels on some records.

    With SYSTEM (a second run and a second --labels), the estimate of the difference SYSTEM - RESULT.
    """
    from ..ppi import ppi

    wanted = 1 if system is None else 2
    if len(labels) != wanted:
        raise InputError(f"give --labels once per run: {wanted} expected, {len(labels)} given", field="--labels")
    out = ppi(result, labels[0], system=system, system_labels=labels[1] if system else None,
              metrics=list(metrics) or None, alpha=alpha, lam=lam)
    if as_json:
        echo_json(out.to_dict())
    else:
        click.echo(out.table())


@click.command("plan")
@click.argument("pilot", nargs=-1, type=click.Path(dir_okay=False, exists=True))
@click.option("--sd", type=float, help="Standard deviation of the paired per-record differences (without a pilot).")
@click.option("--difference", type=float, help="The difference to detect (default: the pilot's observed one).")
@click.option("-n", "--records", "n", type=int,
              help="Records of a run: the smallest difference it detects (default: the pilot's).")
@click.option("-m", "--metric", help="The metric of the pilot runs (needed when they share several).")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="Significance level.")
@click.option("--power", default=0.8, show_default=True, type=float, help="Power, 1 - beta.")
@click.option("--one-sided", is_flag=True, help="A one-sided test (default: two-sided).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def plan_command(ctx: click.Context, pilot: Sequence[str], sd: float | None, difference: float | None,
                 n: int | None, metric: str | None, alpha: float, power: float, one_sided: bool,
                 as_json: bool) -> None:
    """Records needed to detect a difference with the paired t-test, and the smallest difference N records detect.

    PILOT is two runs (baseline, system) over the same records; without them give --sd.
    """
    from ..power import plan_sample_size

    if pilot and len(pilot) != 2:
        raise InputError(f"a pilot is two runs (baseline, system); {len(pilot)} given", field="PILOT")
    plan = plan_sample_size(difference, sd=sd, pilot=list(pilot) or None, metric=metric, n=n, alpha=alpha,
                            power=power, alternative="one-sided" if one_sided else "two-sided")
    if as_json:
        echo_json(plan.to_dict())
    else:
        click.echo(plan.table())
