"""Human-readable byte counts, the one format every meter, gauge and table uses."""
from typing import Optional

__all__ = ["format_bytes"]


def format_bytes(n: Optional[float], signed: bool = False) -> str:
    """Format a byte count in decimal (SI) units: 1 kB = 1,000 bytes, 1 MB = 10**6 bytes.

    >>> format_bytes(4000)
    '4.00 kB'
    >>> format_bytes(1_572_864)
    '1.57 MB'
    >>> format_bytes(-2048, signed=True)
    '-2.05 kB'
    >>> format_bytes(None)
    'n/a'
    """
    if n is None:
        return "n/a"
    sign = "-" if n < 0 else ("+" if signed and n > 0 else "")
    n = abs(n)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            value = n / scale
            return f"{sign}{value:.{2 if value < 10 else 1}f} {unit}"
    return f"{sign}{int(n)} B"
