"""A queue's labels teaching its judge: ``evalcore align`` run over the queue's run and labels.

The alignment is the command a judge plugin adds (``evalcore align``, from evalcore-judge's ``align``
extra), run as a user runs it, in a process of its own: the judge is chosen by the environment the
workbench was started in (``EVALCORE_JUDGE_BASE_URL``, ``EVALCORE_JUDGE_MODEL`` …). The labels
exported from the queue (the file ``--labels`` reads) and the new judge file are kept in the
workbench's data folder, under ``aligned/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from evalcore.plugin import InputError

from .labels import LabelStore, export_lines

TIMEOUT_S = 600.0
"""The longest an alignment may take (the judge is called for every labelled record, several times)."""


def align_queue(labels: LabelStore, queue_name: str, run: str, data: str, seed: int = 0) -> dict[str, Any]:
    """Run ``evalcore align`` over ``run`` (a report) with the labels of the queue; what it reports,
    with ``judge``: the new judge file and ``metric``: the id that uses it."""
    queue = labels.queue(queue_name)
    lines = list(export_lines(queue, labels.labels(queue)))
    folder = os.path.join(data, "aligned")
    os.makedirs(folder, exist_ok=True)
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in queue.name)
    labels_file, judge_file = os.path.join(folder, f"{stem}.labels.jsonl"), os.path.join(folder, f"{stem}.toml")
    with open(labels_file, "w", encoding="utf-8") as out:
        out.writelines(lines)
    command = [sys.executable, "-m", "evalcore", "align", run, "--labels", labels_file, "-o", judge_file,
               "-m", str(queue.metric), "--seed", str(seed), "--json"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise InputError(f"the alignment took longer than {TIMEOUT_S:.0f} s", field=queue.name) from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        if "No such command 'align'" in done.stderr:
            last = "evalcore align is not installed: pip install 'evalcore-judge[align]'"
        raise InputError(f"the alignment failed: {last.removeprefix('error: ').removeprefix('Error: ')}",
                         field=queue.name)
    return {**json.loads(done.stdout), "judge": judge_file, "metric": f"judge/custom(file={judge_file!r})"}
