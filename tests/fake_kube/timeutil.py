"""Timestamps in the formats the Kubernetes API uses.

Object timestamps (creationTimestamp, conditions, container states) are RFC 3339 with whole seconds, as the
real server writes them; log lines carry RFC3339Nano, formatted like Go's time.RFC3339Nano (trailing zeros of
the fraction dropped), because kubectl and the resource manager parse what the kubelet writes.
"""
import datetime
import time


def rfc3339(seconds=None):
    """RFC 3339 in UTC with whole seconds: 2024-05-01T10:00:00Z."""
    t = time.time() if seconds is None else seconds
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def rfc3339nano(ns=None):
    """RFC3339Nano in UTC as Go prints it: 2024-05-01T10:00:00.1234Z (no trailing zeros, no empty fraction)."""
    ns = time.time_ns() if ns is None else ns
    seconds, frac = divmod(ns, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    fraction = f"{frac:09d}".rstrip("0")
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"


def parse_rfc3339(text):
    """Seconds since the epoch (a float, nanoseconds truncated to microseconds) of an RFC 3339 timestamp.

    Raises ValueError on malformed text, which callers turn into a 400 like the real server.
    """
    text = text.strip()
    if text.endswith("Z") or text.endswith("z"):
        text = text[:-1] + "+00:00"
    main, sep, rest = text.partition(".")
    if sep:
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        text = f"{main}.{(digits + '000000')[:6]}{rest}"
    return datetime.datetime.fromisoformat(text).timestamp()


def age(created, now=None):
    """The short age kubectl shows (5s, 3m10s, 2d), from an RFC 3339 creation timestamp."""
    if not created:
        return "<unknown>"
    seconds = int((time.time() if now is None else now) - parse_rfc3339(created))
    seconds = max(seconds, 0)
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}h"
    return f"{hours // 24}d"
