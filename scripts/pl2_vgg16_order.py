"""Issue 26, item 9c: what makes PL2 lose throughput when VGG16's gradients go in many
messages (docs/reproductions-pl2.md, "pl2-vgg16").

Runs `pl2-vgg16`'s rack and iteration with the gradient trace varied one thing at a time:
the workers' release rate (`--gbps`; 1000: as fast as the network takes them), the
message size (`--chunk` bytes; 0: each layer half whole), the order within a layer
(`--order halves`: one server's half, then the other's; `turns`: the servers in turn, as
the reproduction sends), PL2's sending threads (`--threads`) and the scheme. Prints, per
iteration: its time (the last byte in), the share of PL2 bursts sent unsolicited and
eq. 2's mean wait per burst.

    .venv/bin/python scripts/pl2_vgg16_order.py --gbps 1000 --chunk 1048576 --order halves
"""

from __future__ import annotations

import argparse
import random
import tempfile
from itertools import zip_longest
from pathlib import Path

import polars as pl
import tailor
from tailor.reproduce.pl2 import rack, vgg16


def trace(iteration: int, gbps: float, chunk: int, order: str) -> str:
    """`vgg16.gradient_trace` with the chunk size and the order within a layer varied."""
    rng = random.Random(f"vgg16/{iteration}")
    rows: list[tuple[int, int, int, int, int]] = []
    for w in vgg16.WORKERS:
        start, released = rng.randrange(vgg16.JITTER_NS), 0
        for _, params in reversed(vgg16.LAYERS):
            size = params * 4
            halves = [size // 2 + (size % 2 if k == 0 else 0) for k in range(2)]
            parts = [
                [(ps, min(chunk or h, h - o)) for o in range(0, h, chunk or h)]
                for ps, h in zip(vgg16.SERVERS, halves, strict=True)
            ]
            seq = [c for turn in zip_longest(*parts) for c in turn if c] if order == "turns" else parts[0] + parts[1]
            for ps, c in seq:
                rows.append((len(rows), w, ps, c, start + int(released * 8 / gbps)))
                released += c
    rows.sort(key=lambda r: (r[4], r[0]))
    return "flow_id,sender,receiver,size_bytes,start_ns\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gbps", type=float, default=vgg16.WORKER_GBPS)
    ap.add_argument("--chunk", type=int, default=vgg16.CHUNK)
    ap.add_argument("--order", choices=("halves", "turns"), default="turns")
    ap.add_argument("--threads", type=int, default=12)
    ap.add_argument("--scheme", choices=vgg16.SCHEMES, default="pl2")
    ap.add_argument("--iterations", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.iterations):
            d = Path(tmp) / f"it{i}"
            d.mkdir()
            (d / f"gradients-{i}.csv").write_text(trace(i, a.gbps, a.chunk, a.order))
            cls = f'[[class]]\nname = "gradients"\ntrace = "gradients-{i}.csv"\n'
            (d / "s.toml").write_text(rack.scenario(a.scheme, cls, stop="2s", threads=a.threads))
            r = tailor.run(d / "s.toml", out=d / "run")
            ms = float(pl.read_parquet(d / "run" / "messages.parquet")["finish_ns"].max()) / 1e6
            tc = r.transport_counters
            bursts = tc.get("pl2_bursts", 0) or 1
            print(
                f"{a.scheme} {a.gbps:g} Gbps, chunk {a.chunk}, {a.order}, {a.threads} threads, iteration {i}: "
                f"{ms:.1f} ms; unsolicited {tc.get('pl2_unsolicited_bursts', 0) / bursts:.2f}, "
                f"wait {tc.get('pl2_wait_ns', 0) / bursts / 1e3:.2f} us a burst",
                flush=True,
            )


if __name__ == "__main__":
    main()
