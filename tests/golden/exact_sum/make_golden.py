#!/usr/bin/env python3
"""Golden sums for stats/exact_sum (tests/unit/exact_sum_test.cpp), computed exactly with
fractions.Fraction: every double and every product of doubles is a rational number, so their sum
is exact here and its correctly rounded double is float(Fraction) (Python rounds int / int
correctly, ties to even).

Each line of cases.tsv: name, terms, expected, remainder (tab-separated).
  terms      space-separated; a term is 1 to 3 doubles joined by '*' (float.hex), added as a
             plain value, a product of two or a product of three.
  expected   float.hex of the sum correctly rounded to double ('inf' / '-inf' beyond the range).
  remainder  terms in the same notation whose sum is exactly minus the sum of `terms`, so that
             adding both must leave exactly zero (this checks every bit, far below the double
             rounding of `expected`); '-' when the sum is zero.

Regenerate: /usr/bin/python3 make_golden.py > cases.tsv (deterministic: fixed seed).
"""
import random
from fractions import Fraction

MAX = 1.7976931348623157e308
MIN_SUB = 5e-324
TINY_NORMAL = 2.2250738585072014e-308


def value(term):
    v = Fraction(1)
    for f in term:
        v *= Fraction(f)
    return v


def fmt(term):
    return "*".join(float.hex(f) for f in term)


def correctly_rounded(s):
    # Beyond DBL_MAX plus half its last unit the sum rounds to infinity.
    limit = Fraction(2) ** 1024 - Fraction(2) ** 970
    if s >= limit:
        return "inf"
    if s <= -limit:
        return "-inf"
    return float.hex(float(s))


def remainder(s):
    """Terms (products of at most three doubles) summing exactly to -s."""
    r = -s
    out = []
    # Near the top of the range a single product of three cannot hold 53 bits: take 2^3067 off
    # (as 2^1023·2^1023·2^1021) while the rest is that large.
    big = Fraction(2) ** 3067
    while abs(r) >= 2 * big:
        sign = 1 if r > 0 else -1
        out.append([sign * 2.0 ** 1023, 2.0 ** 1023, 2.0 ** 1021])
        r -= sign * big
    while r != 0:
        sign = 1 if r > 0 else -1
        a = abs(r)
        e = a.numerator.bit_length() - a.denominator.bit_length()
        while Fraction(2) ** e > a:
            e -= 1
        while Fraction(2) ** (e + 1) <= a:
            e += 1
        # The top bits of a as m·2^low (16 of them near the top of the range, where a product of
        # three doubles has no room for 53).
        width = 53 if e < 2900 else 16
        low = max(-3222, e - (width - 1))  # every term is a multiple of 2^-3222
        m = int(a / Fraction(2) ** low)  # floor
        piece = Fraction(m) * Fraction(2) ** low
        # m·2^low as (m·2^x)·2^y·2^z, each factor a double.
        x = max(-1074, min(1024 - m.bit_length(), low))
        rest = low - x
        y = max(-1074, min(1023, rest))
        z = rest - y
        assert -1074 <= z <= 1023
        factors = [sign * float(Fraction(m) * Fraction(2) ** x)]
        if y != 0 or z != 0:
            factors.append(float(Fraction(2) ** y))
        if z != 0:
            factors.append(float(Fraction(2) ** z))
        assert value(factors) == sign * piece
        out.append(factors)
        r -= sign * piece
    return out


def random_double(rng, lo=-1074, hi=1023):
    e = rng.randint(lo, hi)
    v = rng.random() * 2.0 ** min(e, 1023)
    if e > 1023:
        v *= 2.0 ** (e - 1023)
    return -v if rng.random() < 0.5 else v


def cases():
    rng = random.Random(20261126)
    yield "cancellation", [[1e16], [1.0], [-1e16]]
    yield "cancellation_products", [[1e16, 1e16], [1.0, 3.0], [-1e16, 1e16], [0.1, 0.1, 0.1]]
    yield "huge_and_tiny", [[1e300], [1e-300], [-1e300], [3e-300], [1e300, -1e-300]]
    yield "subnormals", [[MIN_SUB]] * 7 + [[-MIN_SUB * 3], [TINY_NORMAL], [-TINY_NORMAL / 3]]
    yield "subnormal_products", [[MIN_SUB, MIN_SUB], [MIN_SUB, MIN_SUB, MIN_SUB],
                                 [-MIN_SUB, 0.5, MIN_SUB], [TINY_NORMAL, MIN_SUB, 3.0]]
    yield "extreme_products", [[MAX, MAX, MAX], [-MAX, MAX, MAX], [MAX, MAX], [MIN_SUB, MAX],
                               [MAX, MIN_SUB, MIN_SUB], [MIN_SUB, MIN_SUB, MAX]]
    yield "largest_three", [[MAX, MAX, MAX]] * 5
    yield "largest_three_negative", [[-MAX, MAX, MAX]] * 3 + [[MAX, MAX, 1.0]]
    yield "zeros", [[0.0], [-0.0], [0.0, 5.0], [-0.0, 1e300, 1e300], [0.0, 0.0, 0.0]]
    yield "zero_sum", [[0.1, 0.2], [-0.2, 0.1], [1e-200, 1e-200, 1e-200], [-1e-200, 1e-200, 1e-200]]
    yield "rounding_tie", [[1.0], [2.0 ** -53]]  # exactly halfway: ties to even, 1.0
    yield "rounding_above_tie", [[1.0], [2.0 ** -53], [2.0 ** -1074, 2.0 ** -1074, 2.0 ** -1074]]
    yield "negative_result", [[-1.5], [1e-30, 1e-30], [-3.0, 7.0]]
    for c in range(6):
        terms = []
        for _ in range(rng.choice([10, 100, 300])):
            n = rng.randint(1, 3)
            lo, hi = (-1074, 1023) if n == 1 else (-600, 330)
            terms.append([random_double(rng, lo, hi) for _ in range(n)])
        yield f"random_wide_{c}", terms
    for c in range(4):
        # Sums of moments of nearly equal data: a large common part that cancels.
        base = [rng.gauss(1e6, 1e3) for _ in range(200)]
        terms = []
        for x in base:
            y = x + rng.choice([0.0, 2.0 ** -20, -(2.0 ** -20)])
            w = rng.choice([1.0, 0.5, 3.25, 1234.5])
            terms.append([w, x, x])
            terms.append([-w, y, y])
        yield f"moments_cancel_{c}", terms


def main():
    for name, terms in cases():
        s = sum((value(t) for t in terms), Fraction(0))
        rem = remainder(s)
        assert s + sum((value(t) for t in rem), Fraction(0)) == 0
        print("\t".join([name, " ".join(fmt(t) for t in terms), correctly_rounded(s),
                         " ".join(fmt(t) for t in rem) if rem else "-"]))


if __name__ == "__main__":
    main()
