"""Reference values for avrlab-stats, computed with scipy and statsmodels (see scripts/stats-fixtures).

Prints one JSON document on stdout. Every case names its inputs and the value the library gives;
crates/avrlab-stats/tests/reference.rs checks avrlab's functions against them.
"""

import json
import sys
from fractions import Fraction
from math import comb

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import ttost_paired


def normal_cdf():
    xs = [-30.0, -8.0, -3.5, -1.959963984540054, -1.0, -0.1, 0.0, 0.5, 1.2815515655446004, 2.5, 6.0]
    return [{"x": x, "value": float(stats.norm.cdf(x))} for x in xs]


def normal_quantile():
    ps = [1e-12, 1e-4, 0.025, 0.1, 0.3, 0.5, 0.7, 0.95, 0.975, 0.999999]
    return [{"p": p, "value": float(stats.norm.ppf(p))} for p in ps]


def student_t_cdf():
    cases = []
    for df in [1.0, 2.0, 3.5, 9.0, 29.0, 200.0]:
        for t in [-12.0, -2.3, -0.4, 0.0, 0.7, 1.8, 4.5]:
            cases.append({"t": t, "df": df, "value": float(stats.t.cdf(t, df))})
    return cases


def student_t_quantile():
    cases = []
    for df in [1.0, 2.0, 4.0, 9.0, 29.0, 120.0]:
        for p in [0.005, 0.05, 0.2, 0.9, 0.95, 0.975, 0.995]:
            cases.append({"p": p, "df": df, "value": float(stats.t.ppf(p, df))})
    return cases


PROPORTIONS = [
    (0, 10, 0.95), (1, 10, 0.95), (8, 10, 0.95), (10, 10, 0.95), (1, 1, 0.95), (3, 7, 0.95),
    (13, 50, 0.95), (37, 130, 0.95), (500, 1000, 0.95), (2, 40, 0.90), (39, 40, 0.99),
    (7, 1000, 0.99),
]


def interval(method):
    cases = []
    for successes, trials, confidence in PROPORTIONS:
        lower, upper = proportion_confint(successes, trials, alpha=1 - confidence, method=method)
        cases.append({
            "successes": successes, "trials": trials, "confidence": confidence,
            "lower": float(lower), "upper": float(upper),
        })
    return cases


def mean_with_margin():
    samples = [
        ([10.0, 10.5, 10.1], 0.95),
        ([10.2, 10.4, 9.9, 10.3, 10.0, 10.6, 10.1, 10.2, 10.3, 10.0], 0.95),
        ([0.31, 0.28, 0.35, 0.30, 0.29], 0.95),
        ([1.0, 2.0], 0.95),
        ([4.0, 4.0, 5.0, 3.0, 4.0, 6.0, 2.0], 0.99),
        ([0.5, 0.52, 0.49, 0.51], 0.90),
    ]
    cases = []
    for values, confidence in samples:
        a = np.array(values)
        se = stats.sem(a)  # ddof = 1
        low, high = stats.t.interval(confidence, len(a) - 1, loc=a.mean(), scale=se)
        cases.append({
            "values": values, "confidence": confidence, "mean": float(a.mean()),
            "margin": float((high - low) / 2), "std_dev": float(a.std(ddof=1)),
        })
    return cases


def pass_at_k():
    cases = []
    for n, correct, k in [(10, 0, 1), (10, 1, 1), (10, 3, 1), (10, 3, 5), (10, 3, 10), (20, 1, 10),
                          (100, 7, 1), (100, 7, 10), (200, 2, 100), (5, 5, 1), (1, 0, 1), (1, 1, 1)]:
        exact = 1 - Fraction(comb(n - correct, k), comb(n, k))
        cases.append({"n": n, "correct": correct, "k": k, "value": float(exact)})
    return cases


def mcnemar_exact():
    cases = []
    for b, c in [(1, 9), (9, 1), (0, 5), (2, 8), (3, 3), (17, 30), (120, 95), (600, 400), (0, 1)]:
        # The concordant cells do not enter the exact test; any values do.
        result = mcnemar([[11, b], [c, 4]], exact=True)
        cases.append({"only_first": b, "only_second": c, "p_value": float(result.pvalue)})
    return cases


def paired_tost():
    samples = [
        ([0.30, 0.28, 0.35, 0.31, 0.29, 0.33], [0.29, 0.30, 0.33, 0.30, 0.31, 0.32], 0.05, 0.05),
        ([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0], 0.2, 0.05),
        ([10.2, 10.4, 9.9, 10.3], [10.0, 10.6, 10.1, 10.2], 0.5, 0.05),
        ([5.0, 6.0, 7.0, 5.5, 6.5], [4.0, 5.2, 6.1, 4.4, 5.9], 0.5, 0.025),
        ([0.4, 0.5, 0.45], [0.1, 0.3, 0.2], 0.1, 0.10),
    ]
    cases = []
    for first, second, margin, alpha in samples:
        p_value, lower, upper = ttost_paired(np.array(first), np.array(second), -margin, margin)
        d = np.array(first) - np.array(second)
        se = stats.sem(d)
        low, high = stats.t.interval(1 - 2 * alpha, len(d) - 1, loc=d.mean(), scale=se)
        cases.append({
            "first": first, "second": second, "margin": margin, "alpha": alpha,
            "mean_difference": float(d.mean()), "p_lower": float(lower[1]),
            "p_upper": float(upper[1]), "p_value": float(p_value),
            "interval": [float(low), float(high)], "equivalent": bool(p_value < alpha),
        })
    return cases


FISHER_TABLES = [
    [[3, 1], [1, 3]], [[4, 0], [0, 4]], [[0, 5], [0, 4]], [[0, 0], [3, 4]], [[1, 9], [11, 3]],
    [[8, 2], [1, 5]], [[2, 7], [8, 2]], [[5, 5], [5, 5]], [[0, 13], [6, 34]], [[12, 28], [2, 1]],
    [[31, 9], [14, 26]], [[1, 0], [0, 1]], [[0, 1], [7, 3]], [[120, 380], [95, 405]],
    [[3, 10], [10, 3]], [[6, 6], [2, 10]],
]


def fisher_exact():
    cases = []
    for table in FISHER_TABLES:
        result = stats.fisher_exact(table, alternative="two-sided")
        odds = float(result.statistic)
        cases.append({
            "table": table, "p_value": float(result.pvalue),
            # JSON has no infinity or NaN: those are checked by their kind.
            "odds_ratio": odds if np.isfinite(odds) else None,
            "odds_ratio_kind": "finite" if np.isfinite(odds) else ("nan" if np.isnan(odds) else "inf"),
        })
    return cases


# Paired samples: probe scores against fix rates as a report pairs them (shares in [0, 1], ties,
# a binary column), and plain numbers with negative, weak and strong correlations.
PEARSON_PAIRS = [
    ([0.0, 0.1, 0.5, 1.0, 0.0, 0.2], [0.0, 0.2, 0.4, 0.9, 0.1, 0.0]),
    ([1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0], [0.5, 0.1, 0.0, 0.8, 0.0, 0.3, 0.2, 0.0]),
    ([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0], [2.7, 1.8, 2.8, 1.8, 2.8, 4.5, 9.0, 4.5, 2.3, 5.3]),
    ([1.0, 2.0, 3.0, 4.0], [4.1, 2.9, 2.2, 0.8]),
    ([0.25, 0.5, 0.75, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0]),
    ([float(i) for i in range(30)], [float((i * 7) % 11) for i in range(30)]),
]


def pearson():
    cases = []
    for xs, ys in PEARSON_PAIRS:
        for confidence in [0.95, 0.90]:
            result = stats.pearsonr(xs, ys)
            interval = result.confidence_interval(confidence_level=confidence)
            cases.append({
                "xs": xs, "ys": ys, "confidence": confidence, "r": float(result.statistic),
                "p_value": float(result.pvalue),
                "interval": [float(interval.low), float(interval.high)],
            })
    return cases


def cohen_kappa():
    cases = []
    for table in [
        [[20, 5, 1], [3, 15, 2], [0, 2, 4]],
        [[12, 3], [2, 9]],
        [[40, 1], [6, 3]],
        [[7, 0, 0], [0, 6, 1], [2, 0, 3]],
        [[1, 9], [8, 2]],
    ]:
        for confidence in [0.95, 0.90]:
            result = cohens_kappa(np.array(table))
            if confidence == 0.95:
                # statsmodels' own interval is at 95%.
                interval = [float(result.kappa_low), float(result.kappa_upp)]
            else:
                z = stats.norm.ppf(1 - (1 - confidence) / 2)
                interval = [float(result.kappa - z * result.std_kappa),
                            float(result.kappa + z * result.std_kappa)]
            cases.append({
                "table": table, "confidence": confidence, "kappa": float(result.kappa),
                "std_error": float(result.std_kappa), "interval": interval,
            })
    return cases


def main():
    document = {
        "generated_by": {
            "script": "scripts/stats-fixtures",
            "python": sys.version.split()[0],
            "scipy": scipy.__version__,
            "statsmodels": statsmodels.__version__,
            "numpy": np.__version__,
        },
        "normal_cdf": normal_cdf(),
        "normal_quantile": normal_quantile(),
        "student_t_cdf": student_t_cdf(),
        "student_t_quantile": student_t_quantile(),
        "wilson": interval("wilson"),
        "agresti_coull": interval("agresti_coull"),
        "mean_with_margin": mean_with_margin(),
        "pass_at_k": pass_at_k(),
        "mcnemar_exact": mcnemar_exact(),
        "paired_tost": paired_tost(),
        "cohen_kappa": cohen_kappa(),
        "fisher_exact": fisher_exact(),
        "pearson": pearson(),
    }
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
