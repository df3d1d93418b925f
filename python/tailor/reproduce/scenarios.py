"""Scenario files for the reproductions, written as TOML text a user can open and rerun.

Every reproduction writes its scenarios into its output directory, so a number it prints
can be traced to a file and rerun with ``tailor run`` / ``tailor advise``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from tailor import _core


@dataclass(frozen=True)
class Slo:
    threshold: float
    max_size: Optional[str] = None
    min_size: Optional[str] = None
    sli: str = "p99"

    def toml(self) -> str:
        parts = [f'sli = "{self.sli}"']
        if self.max_size:
            parts.append(f'max_size = "{self.max_size}"')
        if self.min_size:
            parts.append(f'min_size = "{self.min_size}"')
        parts.append(f"threshold = {self.threshold:.6g}")
        return "{ " + ", ".join(parts) + " }"


@dataclass(frozen=True)
class Class:
    name: str
    sizes: str
    sigma: float
    senders: str
    #: Either a fraction of the link (``load``) or a rate such as "5Gbps".
    load: Optional[float] = None
    rate: Optional[str] = None
    slos: tuple[Slo, ...] = ()
    weight: Optional[float] = None
    priority: Optional[int] = None

    def toml(self, receiver: int, until: str, start: str) -> str:
        lines = [
            "[[class]]",
            f'name = "{self.name}"',
            f'sizes = "{self.sizes}"',
            'arrival = "lognormal"',
            f"sigma = {self.sigma:.6g}",
            f"load = {self.load:.6g}" if self.load is not None else f'rate = "{self.rate}"',
            'pattern = "n_to_1"',
            f'senders = "{self.senders}"',
            f"receiver = {receiver}",
            f'until = "{until}"',
            f'start = "{start}"',
        ]
        if self.weight is not None:
            lines.append(f"weight = {self.weight:.9g}")
        if self.priority is not None:
            lines.append(f"priority = {self.priority}")
        if self.slos:
            lines.append("slo = [" + ", ".join(s.toml() for s in self.slos) + "]")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Bottleneck:
    """Many senders into one receiver over one switch: SWP's single bottleneck."""

    name: str
    classes: tuple[Class, ...]
    hosts: int
    rate: str = "100Gbps"
    #: One-way per link; the base RTT is four times this.
    delay: str = "2.5us"
    scheduler: str = "fifo"
    transport: str = "dctcp"
    model_preset: Optional[str] = None
    until: str = "21ms"
    start: str = "1ms"
    comment: str = ""

    def toml(self) -> str:
        head = "".join(f"# {line}\n" for line in self.comment.splitlines())
        transport = [f'kind = "{self.transport}"', 'mss = "1448B"', 'header = "54B"']
        # Window-based TCPs get a BDP window (the keys say which: the engine's registry).
        keys = next(t["keys"] for t in _core.transports() if t["name"] == self.transport)
        if "max_cwnd" in keys:
            transport += ['init_cwnd = "bdp"', 'max_cwnd = "bdp"', 'min_rto = "1ms"']
        text = (
            f'{head}name = "{self.name}"\nseed = 1\n\n'
            f'[topology]\nkind = "star"\nhosts = {self.hosts + 1}\n'
            f'link = {{ rate = "{self.rate}", delay = "{self.delay}" }}\n\n'
            f'[switch]\nscheduler = "{self.scheduler}"\necn_threshold = "100KB"\n\n'
            "[transport]\n" + "\n".join(transport) + "\n\n"
        )
        if self.model_preset:
            text += f'[model]\npreset = "{self.model_preset}"\n\n'
        text += "\n".join(c.toml(self.hosts, self.until, self.start) for c in self.classes)
        return text


@dataclass(frozen=True)
class Dumbbell:
    """Senders on the left, receivers on the right, one trunk between two switches: a
    bottleneck of its own (the trunk), so a capacity can scale either every link or the
    trunk alone (``tailor advise --host-scaling``). Hosts are numbered left first, so the
    first receiver is host ``left``. The base RTT is 2 (2 host delay + trunk delay)."""

    name: str
    classes: tuple[Class, ...]
    left: int
    right: int = 1
    host_rate: str = "100Gbps"
    trunk_rate: str = "100Gbps"
    host_delay: str = "1.5us"
    trunk_delay: str = "2us"
    scheduler: str = "fifo"
    transport: str = "dctcp"
    seed: int = 1
    until: str = "21ms"
    start: str = "1ms"
    warmup: Optional[str] = None
    comment: str = ""

    def toml(self) -> str:
        head = "".join(f"# {line}\n" for line in self.comment.splitlines())
        transport = [f'kind = "{self.transport}"', 'mss = "1448B"', 'header = "54B"']
        keys = next(t["keys"] for t in _core.transports() if t["name"] == self.transport)
        if "max_cwnd" in keys:
            transport += ['init_cwnd = "bdp"', 'max_cwnd = "bdp"', 'min_rto = "1ms"']
        text = (
            f'{head}name = "{self.name}"\nseed = {self.seed}\n\n'
            + (f'[run]\nwarmup = "{self.warmup}"\n\n' if self.warmup else "")
            + f'[topology]\nkind = "dumbbell"\nleft = {self.left}\nright = {self.right}\n'
            f'host_link = {{ rate = "{self.host_rate}", delay = "{self.host_delay}" }}\n'
            f'trunk = {{ rate = "{self.trunk_rate}", delay = "{self.trunk_delay}" }}\n\n'
            f'[switch]\nscheduler = "{self.scheduler}"\necn_threshold = "100KB"\n\n'
            "[transport]\n" + "\n".join(transport) + "\n\n"
        )
        return text + "\n".join(c.toml(self.left, self.until, self.start) for c in self.classes)
