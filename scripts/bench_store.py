"""What the store's checks cost (docs/sweeps.md, "Damaged points"), timed on this machine.

A sweep of quickstart on the fast model (stating its bottleneck, as the model needs; six
seeds, 60,000 RPC messages each) is written to a temporary store; then each read is timed three ways, best of three: with its checks
as tailor does them on a newly opened Store (manifests, sizes, and the SHA-256 of the files
it loads), with the SHA-256 left out (manifests and sizes only: the reference), and again
on the same Store (whose hashes are remembered). Last, the check a sweep makes before
reusing points (every file of every point hashed) is timed against reading every point's
messages. Prints each time and its ratio to the reference.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tailor
from tailor.store import Store

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "quickstart.toml"


def best(f: Callable[[], Any], n: int = 3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def unhashed(dir: Path) -> Store:
    """A Store whose reads check manifests and sizes but hash nothing."""
    s = Store(dir)
    s._check_digest = lambda *args: None  # type: ignore[method-assign]
    return s


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        out = Path(tmp) / "s"
        scenario = Path(tmp) / "quickstart.toml"
        scenario.write_text(SCENARIO.read_text() + '\n[model]\nbottleneck = "link"\n')
        tailor.sweep(scenario, {"class[1].messages": [60_000]}, seed=range(1, 7), out=out, engine="model")
        sizes = [f.stat().st_size for f in out.glob("points/*/*")]
        messages = sum(f.stat().st_size for f in out.glob("points/*/messages.parquet"))
        print(
            f"{len(list(out.glob('points/*')))} points, {sum(sizes) / 1e6:.1f} MB, of which messages "
            f"{messages / 1e6:.1f} MB"
        )
        reads: dict[str, Callable[[Store], Any]] = {
            "messages().collect()": lambda s: s.messages().collect(),
            "summary()": lambda s: s.summary(),
            "points()": lambda s: s.points(),
        }
        for name, read in reads.items():
            reference = best(lambda read=read: read(unhashed(out)))
            checked = best(lambda read=read: read(Store(out)))
            warm = Store(out)
            read(warm)
            again = best(lambda read=read, warm=warm: read(warm))
            print(
                f"{name:22s} sizes only {reference * 1e3:7.1f} ms; checked {checked * 1e3:7.1f} ms "
                f"(x{checked / reference:.2f}); same Store again {again * 1e3:7.1f} ms (x{again / reference:.2f})"
            )
        ids = Store(out).point_ids()
        reference = best(lambda: unhashed(out).messages().collect())
        verify = best(lambda: [Store(out).verify(i) for i in ids])
        print(
            f"a sweep's check of every file of every point: {verify * 1e3:.1f} ms, x{verify / reference:.2f} of "
            f"reading every point's messages ({reference * 1e3:.1f} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
