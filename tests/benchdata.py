"""The small data the benchmark commands' tests run on."""

import random
from pathlib import Path


def small_transactions(folder: Path) -> Path:
    """A file of 40 transactions of 1 to 5 of 12 items (seeded), in ``folder``."""
    rng = random.Random(3)
    rows = [rng.sample(range(1, 13), rng.randint(1, 5)) for _ in range(40)]
    path = folder / "small.dat"
    path.write_text("".join(" ".join(map(str, row)) + "\n" for row in rows))
    return path
