"""Confidence intervals of a mean and paired comparisons, with Student's t from scipy.stats
(Debian's python3-scipy): quantiles and p-values come from the library, never from a typed
table. Used by seed_stats.py; plain numbers in, plain numbers out.
"""
import math
import warnings
from dataclasses import dataclass

from scipy import stats


@dataclass
class Spread:
    """n values: their mean, sample standard deviation (n - 1) and the half-width of the
    confidence interval of the mean; sd and half_width are None below 2 values (no estimate)."""
    n: int
    mean: float
    sd: float = None
    half_width: float = None

    def interval(self):
        if self.half_width is None:
            return None, None
        return self.mean - self.half_width, self.mean + self.half_width


def describe(values, confidence=0.95):
    """The Spread of values: half-width t(1 - alpha/2, n - 1) * sd / sqrt(n)."""
    values = [float(v) for v in values]
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    if n < 2:
        return Spread(n, mean)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return Spread(n, mean, sd, stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n))


@dataclass
class Paired:
    """reference - other over the units both have: the differences' Spread and the paired
    t-test's two-sided p-value (None below 2 pairs, NaN when every difference is 0)."""
    units: list
    differences: Spread
    p_value: float = None
    only_reference: list = None  # units left out because the other side lacks them
    only_other: list = None


def compare(reference, other, confidence=0.95):
    """reference and other map a unit (a seed, or a (seed, fold) tuple) to a value; they are
    paired on the units they share. None when they share none."""
    units = [u for u in reference if u in other]
    only_reference = [u for u in reference if u not in other]
    only_other = [u for u in other if u not in reference]
    if not units:
        return None
    a = [float(reference[u]) for u in units]
    b = [float(other[u]) for u in units]
    p_value = None
    if len(units) >= 2:
        # Equal differences make the statistic 0/0 (NaN) or d/0 (p = 0); scipy warns about
        # the cancellation, the table shows the outcome.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p_value = float(stats.ttest_rel(a, b).pvalue)
    return Paired(units, describe([x - y for x, y in zip(a, b)], confidence), p_value, only_reference, only_other)


def verdict(paired, higher_is_better=True):
    """How the reference compares: 'better' or 'worse' when the difference's interval leaves
    out 0, 'within noise' when it contains 0, 'too few pairs' without an interval."""
    if paired is None or paired.differences.half_width is None:
        return "too few pairs"
    low, high = paired.differences.interval()
    if low <= 0 <= high:
        return "within noise"
    return "better" if (low > 0) == higher_is_better else "worse"
