"""``evalcore simulate``: simulated users against the system under test, then the conversation metrics."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import click
from evalcore.plugin import CACHE_MODES, RunContext, SettingsCommand, check_output, echo_json, reports_errors


@click.command("simulate", cls=SettingsCommand)
@click.argument("scenarios", type=click.Path(dir_okay=False, exists=True))
@click.option("-r", "--records", required=True, type=click.Path(dir_okay=False),
              help="JSONL file the conversations are appended to; those already there are kept (resume).")
@click.option("--program", metavar="MODULE:CALLABLE",
              help="The system under test: a callable taking the conversation so far (a list of {role, content}) "
                   "and returning the reply.")
@click.option("--endpoint", metavar="URL", help="The system under test: an OpenAI-compatible API root (.../v1).")
@click.option("--endpoint-model", metavar="NAME", help="The model the endpoint serves.")
@click.option("--system-prompt", help="A system message sent to the endpoint before the conversation.")
@click.option("-m", "--metric", "metric_ids", multiple=True, help="Metric to score the conversations with (repeat).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the scoring run's JSON report here.")
@click.option("--max-turns", type=click.IntRange(min=1), default=5, show_default=True,
              help="User messages per conversation at most (a scenario's own max_turns wins).")
@click.option("--temperature", type=click.FloatRange(min=0), default=0.7, show_default=True,
              help="The simulator's sampling temperature.")
@click.option("--max-tokens", type=click.IntRange(min=1), default=256, show_default=True,
              help="The simulator's longest answer, in tokens.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed sent to the simulator and the run.")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Conversations at once.")
@click.option("--cache-mode", type=click.Choice(CACHE_MODES), help="Model-call cache mode.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Model-call cache folder.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@reports_errors
def simulate_command(scenarios: str, records: str, program: str | None, endpoint: str | None,
                     endpoint_model: str | None, system_prompt: str | None, metric_ids: Sequence[str],
                     output: str | None, max_turns: int, temperature: float, max_tokens: int, seed: int,
                     concurrency: int, cache_mode: str | None, cache_dir: str | None, as_json: bool,
                     settings: dict[str, dict[str, Any]]) -> None:
    """Simulate a user for each scenario of SCENARIOS (JSONL: id, goal, persona, expected_outcome,
    max_turns) against --program or --endpoint, the judge (--judge-*) playing the user; append the
    conversations to --records as records (example: the scenario; prediction.turns: the conversation)
    and score them with the -m metrics as 'evalcore evaluate' does."""
    from .simulate import simulate

    check_output(records, "--records", [(scenarios, "the scenarios")])
    loaded = None
    if program:
        sys.path.insert(0, os.getcwd())  # as evaluate --program: modules of the current folder
        loaded = RunContext(allow_code=True).load_code(program, "--program")
    done = simulate(scenarios, records=records, program=loaded, endpoint=endpoint, endpoint_model=endpoint_model,
                    system_prompt=system_prompt, metrics=list(metric_ids), max_turns=max_turns,
                    temperature=temperature, seed=seed, max_tokens=max_tokens, concurrency=concurrency,
                    cache_mode=cache_mode, cache_dir=cache_dir, settings=settings, output=output)
    if as_json:
        echo_json({"records": str(done.records), "made": done.made, "kept": done.kept,
                   "result": done.result.to_dict() if done.result is not None else None})
        return
    click.echo(f"{done.made} conversations simulated, {done.kept} kept from before: {done.records}")
    if done.result is not None:
        click.echo(done.result.table())
