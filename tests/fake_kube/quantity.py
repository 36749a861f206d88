"""Kubernetes resource quantities ("500m", "32Gi", "4", "1e3") as exact fractions.

The scheduler sums requests of many pods and compares them with a node's allocatable amount, so the values are
fractions.Fraction: 0.1 + 0.2 CPUs must fit in 0.3 exactly, as with the real server's fixed-point Quantity.
"""
import fractions
import re

_SUFFIXES = {
    "": 1, "n": fractions.Fraction(1, 10**9), "u": fractions.Fraction(1, 10**6), "m": fractions.Fraction(1, 1000),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
_PATTERN = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+)?(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")


def parse_quantity(value):
    """The Fraction a quantity stands for; raises ValueError naming the text when it is not a quantity."""
    if isinstance(value, bool):
        raise ValueError(f"quantities must match the regular expression '{_PATTERN.pattern}': {value!r}")
    if isinstance(value, (int, float)):
        return fractions.Fraction(value)
    match = _PATTERN.match(str(value).strip())
    if not match:
        raise ValueError(f"quantities must match the regular expression '{_PATTERN.pattern}': {value!r}")
    number, exponent, suffix = match.groups()
    result = fractions.Fraction(number)
    if exponent:
        result *= fractions.Fraction(10) ** int(exponent[1:])
    return result * _SUFFIXES[suffix or ""]


def format_cores(value):
    """A CPU amount the way the API prints it: whole cores as "4", fractions as millicores "500m"."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{int(value * 1000)}m"
