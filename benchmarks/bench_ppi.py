"""How much narrower prediction-powered intervals are than the labels alone, for a judge that agrees
with the labels on 80 % of the records.

10,000 records are judged; 500 of them carry a label. Two kinds of synthetic labels:

* graded: a 1-5 quality grade; the judge gives the same grade on 80 % of the records and otherwise
  one grade off (up three times in four: a lenient judge);
* pass/fail: the judge's verdict flips the label on 20 % of the records (half the labels pass).

For each of 50 seeds the widths of the 95 % intervals are computed: the 500 labels alone, and PPI++
(tuned lam) with the judge's scores on all records. The medians and the share saved are printed, with
the judge's own bias and the coverage of the true mean over the seeds.

    python benchmarks/bench_ppi.py
"""

from __future__ import annotations

import numpy as np
from evalcore_stats.ppi import classical_mean, ppi_mean

RECORDS, LABELLED, SEEDS, AGREEMENT = 10_000, 500, 50, 0.8


def graded(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.choice(np.arange(1, 6), size=RECORDS, p=[0.1, 0.2, 0.3, 0.25, 0.15]).astype(float)
    step = np.where(rng.random(RECORDS) < 0.75, 1.0, -1.0)
    off = truth + step
    off = np.where(off > 5, truth - 1, np.where(off < 1, truth + 1, off))  # off the scale: the other way
    judge = np.where(rng.random(RECORDS) < AGREEMENT, truth, off)
    return truth, judge


def pass_fail(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    truth = (rng.random(RECORDS) < 0.5).astype(float)
    judge = np.where(rng.random(RECORDS) < AGREEMENT, truth, 1.0 - truth)
    return truth, judge


def run(make) -> dict[str, float]:
    widths_labels, widths_ppi, agreement, bias, covered = [], [], [], [], 0
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        truth, judge = make(rng)
        labelled = np.zeros(RECORDS, bool)
        labelled[rng.choice(RECORDS, LABELLED, replace=False)] = True
        alone = classical_mean(truth[labelled])
        powered = ppi_mean(truth[labelled], judge[labelled], judge[~labelled])
        widths_labels.append(alone.ci[1] - alone.ci[0])
        widths_ppi.append(powered.ci[1] - powered.ci[0])
        agreement.append(float(np.mean(truth == judge)))
        bias.append(float(judge.mean() - truth.mean()))
        covered += powered.ci[0] <= truth.mean() <= powered.ci[1]
    labels_width, ppi_width = float(np.median(widths_labels)), float(np.median(widths_ppi))
    return {"agreement": float(np.median(agreement)), "judge bias": float(np.median(bias)),
            "labels alone": labels_width, "PPI++": ppi_width, "narrower": 1 - ppi_width / labels_width,
            "coverage": covered / SEEDS}


def main() -> None:
    print(f"{RECORDS} judged records, {LABELLED} labelled, median over {SEEDS} seeds, 95 % intervals")
    print(f"{'labels':<10}{'agreement':>10}{'judge bias':>12}{'labels alone':>14}{'PPI++':>10}"
          f"{'narrower':>10}{'coverage':>10}")
    for name, make in (("graded", graded), ("pass/fail", pass_fail)):
        r = run(make)
        print(f"{name:<10}{r['agreement']:>10.3f}{r['judge bias']:>+12.3f}{r['labels alone']:>14.4f}"
              f"{r['PPI++']:>10.4f}{100 * r['narrower']:>9.1f}%{r['coverage']:>10.2f}")


if __name__ == "__main__":
    main()
