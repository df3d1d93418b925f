"""``tailor import hpcc-ns3``: the HPCC authors' ns-3 programs' experiment files
(alibaba-edu/High-Precision-Congestion-Control, ``simulation/scratch/third.cc``) as a
tailor scenario: their config file, topology file and flow file in, ``scenario.toml``
and ``flows.csv`` (and ``topology.graph`` when the topology is not a fat-tree) out,
with a comment per key of the config saying what it became (docs/rdma.md, "Import").

Their reader takes whitespace-separated ``KEY value`` tokens and ignores a key it does
not know; this one refuses it, naming it, as it refuses a key whose value tailor cannot
stand for (a random loss rate, a link failure, per-pair windows): a setting dropped
quietly would give a wrong number quietly.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tailor.errors import ScenarioError

#: Keys read with one value, as ``third.cc`` reads them.
SINGLE = {
    "ENABLE_QCN",
    "USE_DYNAMIC_PFC_THRESHOLD",
    "CLAMP_TARGET_RATE",
    "PAUSE_TIME",
    "DATA_RATE",
    "LINK_DELAY",
    "PACKET_PAYLOAD_SIZE",
    "L2_CHUNK_SIZE",
    "L2_ACK_INTERVAL",
    "L2_BACK_TO_ZERO",
    "TOPOLOGY_FILE",
    "FLOW_FILE",
    "TRACE_FILE",
    "TRACE_OUTPUT_FILE",
    "SIMULATOR_STOP_TIME",
    "ALPHA_RESUME_INTERVAL",
    "RP_TIMER",
    "EWMA_GAIN",
    "FAST_RECOVERY_TIMES",
    "RATE_AI",
    "RATE_HAI",
    "ERROR_RATE_PER_LINK",
    "CC_MODE",
    "RATE_DECREASE_INTERVAL",
    "MIN_RATE",
    "FCT_OUTPUT_FILE",
    "HAS_WIN",
    "GLOBAL_T",
    "MI_THRESH",
    "VAR_WIN",
    "FAST_REACT",
    "U_TARGET",
    "INT_MULTI",
    "RATE_BOUND",
    "ACK_HIGH_PRIO",
    "DCTCP_RATE_AI",
    "PFC_OUTPUT_FILE",
    "ENABLE_TRACE",
    "BUFFER_SIZE",
    "QLEN_MON_FILE",
    "QLEN_MON_START",
    "QLEN_MON_END",
    "MULTI_RATE",
    "SAMPLE_FEEDBACK",
    "PINT_LOG_BASE",
    "PINT_PROB",
}
MAPS = {"KMAX_MAP", "KMIN_MAP", "PMAX_MAP"}
CC_MODES = {1: "dcqcn", 3: "hpcc", 7: "timely", 8: "dctcp"}


def _err(file: Path, key: str, message: str) -> ScenarioError:
    return ScenarioError(str(file), key, message)


def read_config(path: Path) -> dict[str, object]:
    """The config's keys and values, in their token form (maps as {rate_bps: value})."""
    try:
        tokens = path.read_text(encoding="utf-8", errors="replace").split()
    except OSError as e:
        raise _err(path, "", f"cannot be read: {e.strerror}") from None
    out: dict[str, object] = {}
    i = 0
    while i < len(tokens):
        key = tokens[i]
        if key in SINGLE:
            if i + 1 >= len(tokens):
                raise _err(path, key, "has no value")
            out[key] = tokens[i + 1]
            i += 2
        elif key == "LINK_DOWN":
            out[key] = tokens[i + 1 : i + 4]
            i += 4
        elif key in MAPS:
            try:
                n = int(tokens[i + 1])
                pairs = tokens[i + 2 : i + 2 + 2 * n]
                out[key] = {int(pairs[2 * j]): float(pairs[2 * j + 1]) for j in range(n)}
            except (ValueError, IndexError):
                raise _err(path, key, "is not `n rate1 value1 … raten valuen`") from None
            i += 2 + 2 * n
        else:
            accepted = ", ".join(sorted(SINGLE | MAPS | {"LINK_DOWN"}))
            raise _err(
                path,
                key,
                f"is not a key their third.cc reads (it would ignore it; tailor refuses it); accepted: {accepted}",
            )
    return out


@dataclass
class Topology:
    nodes: int
    switches: set[int]
    links: list[tuple[int, int, str, str]]  # a, b, rate, delay as written

    @property
    def hosts(self) -> list[int]:
        return [n for n in range(self.nodes) if n not in self.switches]


def read_topology(path: Path) -> Topology:
    try:
        tokens = path.read_text(encoding="utf-8", errors="replace").split()
    except OSError as e:
        raise _err(path, "", f"cannot be read: {e.strerror}") from None
    try:
        n, s, n_links = int(tokens[0]), int(tokens[1]), int(tokens[2])
        switches = {int(t) for t in tokens[3 : 3 + s]}
        links = []
        at = 3 + s
        for j in range(n_links):
            a, b, rate, delay, err = tokens[at : at + 5]
            if float(err) != 0.0:
                raise _err(path, f"link {j + 1}", f"has error rate {err}; tailor has no random link loss; accepted: 0")
            links.append((int(a), int(b), rate, delay))
            at += 5
    except (ValueError, IndexError):
        raise _err(
            path, "", "is not `nodes switches links`, the switch ids, then `src dst rate delay error_rate` per link"
        ) from None
    return Topology(n, switches, links)


def read_flows(path: Path) -> list[tuple[int, int, int, int, int, float]]:
    try:
        tokens = path.read_text(encoding="utf-8", errors="replace").split()
    except OSError as e:
        raise _err(path, "", f"cannot be read: {e.strerror}") from None
    flows: list[tuple[int, int, int, int, int, float]] = []
    try:
        count = int(tokens[0])
        for j in range(count):
            src, dst, pg, dport, size, start = tokens[1 + 6 * j : 7 + 6 * j]
            flows.append((int(src), int(dst), int(pg), int(dport), int(size), float(start)))
    except (ValueError, IndexError):
        where = f"flow {len(flows) + 1}" if tokens else ""
        raise _err(path, where, "is not `src dst pg dport size start_s` (after the count of flows)") from None
    return flows


_RATE = re.compile(r"^([0-9.]+)\s*([kKmMgGtT]?)(bps|b/s|Bps|B/s)$")


def rate_bps(text: str, where: Path, key: str) -> int:
    """ns-3's DataRate string in bit/s (``100Gbps``, ``50Mb/s``)."""
    m = _RATE.match(text)
    if not m:
        raise _err(where, key, f"{text!r} is not a rate; accepted: ns-3's forms such as 100Gbps or 50Mb/s")
    mult = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group(2).lower()]
    byte = m.group(3)[0] == "B"
    return int(float(m.group(1)) * mult * (8 if byte else 1))


def delay_ns(text: str, where: Path, key: str) -> int:
    m = re.match(r"^([0-9.]+)(ns|us|ms|s)$", text)
    if not m:
        raise _err(where, key, f"{text!r} is not a time; accepted: ns-3's forms such as 1000ns or 0.001ms")
    return round(float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)])


def show_rate(bps: int) -> str:
    for unit, v in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if bps % int(v) == 0:
            return f"{bps // int(v)}{unit}"
    return f"{bps}bps"


@dataclass
class Paths:
    """Per host pair, as ``third.cc``'s ``CalculateRoute`` accumulates along a shortest
    path: one-way delay (ns), one payload's transmission over each hop (ns) and the
    slowest rate (bit/s)."""

    max_rtt: int = 0
    max_bdp: int = 0
    pairs: int = 0


def pair_paths(topo: Topology, payload: int, where: Path) -> Paths:
    adj: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for j, (a, b, rate, delay) in enumerate(topo.links):
        r, d = rate_bps(rate, where, f"link {j + 1}"), delay_ns(delay, where, f"link {j + 1}")
        adj[a].append((b, r, d))
        adj[b].append((a, r, d))
    out = Paths()
    hosts = set(topo.hosts)
    for h in hosts:
        seen = {h: (0, 0, 1 << 62)}
        frontier = [h]
        while frontier:
            nxt = []
            for u in frontier:
                if u != h and u in hosts:
                    continue  # hosts are not transit nodes
                du, tu, bu = seen[u]
                for v, r, d in adj[u]:
                    if v not in seen:
                        seen[v] = (du + d, tu + payload * 1_000_000_000 * 8 // r, min(bu, r))
                        nxt.append(v)
            frontier = nxt
        for v, (d, t, b) in seen.items():
            if v in hosts and v != h:
                rtt = 2 * d + t
                out.max_rtt = max(out.max_rtt, rtt)
                out.max_bdp = max(out.max_bdp, rtt * b // 8 // 1_000_000_000)
                out.pairs += 1
    if out.pairs < len(hosts) * (len(hosts) - 1):
        raise _err(where, "", "has hosts that cannot reach each other; accepted: a connected network")
    return out


@dataclass
class FatTree:
    pods: int
    tors: int
    aggs: int
    cores: int
    hosts_per_tor: int
    host_link: tuple[str, str]
    fabric_link: tuple[str, str]
    #: Their host ids in tailor's order (rack by rack).
    order: list[int] = field(default_factory=list)


def fat_tree(topo: Topology) -> FatTree | None:
    """The topology as tailor's three-tier fat-tree, if it is one: hosts on ToRs, each
    ToR wired to every aggregation switch of its pod, each core to one aggregation switch
    per pod, every host link alike and every fabric link alike."""
    adj: dict[int, list[tuple[int, tuple[str, str]]]] = defaultdict(list)
    for a, b, rate, delay in topo.links:
        adj[a].append((b, (rate, delay)))
        adj[b].append((a, (rate, delay)))
    hosts = topo.hosts
    if any(len(adj[h]) != 1 or adj[h][0][0] not in topo.switches for h in hosts):
        return None
    tors = sorted({adj[h][0][0] for h in hosts})
    host_kinds = {adj[h][0][1] for h in hosts}
    aggs = sorted({n for t in tors for n, _ in adj[t] if n in topo.switches})
    if set(aggs) & set(tors):
        return None
    cores = sorted(topo.switches - set(tors) - set(aggs))
    fabric = {k for s in tors + aggs + cores for n, k in adj[s] if n in topo.switches}
    if len(host_kinds) != 1 or len(fabric) != 1 or not cores:
        return None
    # Pods: the ToRs that share their aggregation switches.
    pods: list[tuple[list[int], list[int]]] = []
    for t in tors:
        up = sorted(n for n, _ in adj[t] if n in topo.switches)
        pod = next((p for p in pods if p[1] == up), None)
        if pod is None:
            pods.append(([t], up))
        else:
            pod[0].append(t)
    shape = {(len(p[0]), len(p[1])) for p in pods}
    if len(shape) != 1 or sum(len(p[1]) for p in pods) != len(aggs):
        return None
    n_tors, n_aggs = shape.pop()
    per_tor = {len([n for n, _ in adj[t] if n not in topo.switches]) for t in tors}
    if len(per_tor) != 1:
        return None
    pod_of = {a: i for i, p in enumerate(pods) for a in p[1]}
    for c in cores:
        ups = [pod_of.get(n) for n, _ in adj[c]]
        if None in ups or sorted(ups) != list(range(len(pods))):
            return None
    if len({len([n for n, _ in adj[a] if n in cores]) for a in aggs}) != 1 or len(cores) % n_aggs:
        return None
    order = [h for p in pods for t in p[0] for h in sorted(n for n, _ in adj[t] if n not in topo.switches)]
    return FatTree(len(pods), n_tors, n_aggs, len(cores), per_tor.pop(), host_kinds.pop(), fabric.pop(), order)


def _int(cfg: dict, key: str, default: int, where: Path) -> int:
    v = cfg.get(key)
    if v is None:
        return default
    try:
        return int(float(str(v)))
    except ValueError:
        raise _err(where, key, f"{v!r} is not a number") from None


def _float(cfg: dict, key: str, default: float, where: Path) -> float:
    v = cfg.get(key)
    if v is None:
        return default
    try:
        return float(str(v))
    except ValueError:
        raise _err(where, key, f"{v!r} is not a number") from None


def _us(x: float) -> str:
    return f"{x:g}us"


def translate(config: Path, topology: Path | None, flows: Path | None) -> tuple[str, str, str | None]:
    """The scenario text, the trace CSV and the graph file (None for a fat-tree)."""
    cfg = read_config(config)
    lines: list[str] = [f'# Imported by `tailor import hpcc-ns3` from {config.name} (docs/rdma.md, "Import").']

    def path_of(key: str, given: Path | None) -> Path:
        if given is not None:
            return given
        if key not in cfg:
            raise _err(config, key, "is missing; give the file with --topology / --flows")
        p = Path(str(cfg[key]))
        return p if p.is_absolute() else config.parent / p

    topo_path, flow_path = path_of("TOPOLOGY_FILE", topology), path_of("FLOW_FILE", flows)
    topo = read_topology(topo_path)
    flow_rows = read_flows(flow_path)
    mode = _int(cfg, "CC_MODE", 1, config)
    if mode not in CC_MODES:
        raise _err(
            config,
            "CC_MODE",
            f"{mode} is not built in tailor (10 is HPCC-PINT); accepted: 1 (DCQCN), 3 (HPCC), 7 (TIMELY), 8 (DCTCP)",
        )
    cc = CC_MODES[mode]
    for key, bad, why in (
        ("MULTI_RATE", 1, "HPCC's per-hop rates are not built; accepted: 0"),
        ("SAMPLE_FEEDBACK", 1, "HPCC's sampled feedback is not built; accepted: 0"),
        ("GLOBAL_T", 0, "per-pair windows and base RTTs are not built; accepted: 1 (one for the network)"),
    ):
        if key in cfg and _int(cfg, key, 1 - bad, config) == bad:
            raise _err(config, key, why)
    if _float(cfg, "ERROR_RATE_PER_LINK", 0.0, config) != 0.0:
        raise _err(config, "ERROR_RATE_PER_LINK", "tailor has no random link loss; accepted: 0")
    if "LINK_DOWN" in cfg and str(cfg["LINK_DOWN"][0]) != "0":
        raise _err(config, "LINK_DOWN", "link failures are not built; accepted: 0 0 0")
    payload = _int(cfg, "PACKET_PAYLOAD_SIZE", 1000, config)
    paths = pair_paths(topo, payload, topo_path)
    rates = sorted({rate_bps(r, topo_path, "rate") for _, _, r, _ in topo.links})
    hosts = topo.hosts

    out = ["", "[topology]"]
    ft = fat_tree(topo)
    graph = None
    if ft is not None:
        order = ft.order
        up = rate_bps(ft.fabric_link[0], topo_path, "rate") * ft.aggs
        over = ft.hosts_per_tor * rate_bps(ft.host_link[0], topo_path, "rate") / up
        out += [
            f"# {topo_path.name}: a fat-tree of {ft.pods} pods ({ft.tors} ToRs and {ft.aggs} aggregation switches each), {ft.cores} cores,",
            f"# {ft.hosts_per_tor} hosts per ToR (oversubscription {over:g}:1, ToR down over up); their host ids in tailor's order",
            'kind = "fat_tree"',
            f"pods = {ft.pods}\ntors = {ft.tors}\naggs = {ft.aggs}\ncores = {ft.cores}\nhosts_per_tor = {ft.hosts_per_tor}",
            f'host_link = {{ rate = "{show_rate(rate_bps(ft.host_link[0], topo_path, "rate"))}", delay = "{delay_ns(ft.host_link[1], topo_path, "delay")}ns" }}',
            f'fabric_link = {{ rate = "{show_rate(rate_bps(ft.fabric_link[0], topo_path, "rate"))}", delay = "{delay_ns(ft.fabric_link[1], topo_path, "delay")}ns" }}',
        ]
    else:
        order = hosts
        sw = sorted(topo.switches)
        name = {h: f"h{i}" for i, h in enumerate(hosts)} | {s: f"s{i}" for i, s in enumerate(sw)}
        graph = "".join(
            f"{name[a]} {name[b]} {show_rate(rate_bps(r, topo_path, 'rate'))} {delay_ns(d, topo_path, 'delay')}ns\n"
            for a, b, r, d in topo.links
        )
        graph = (
            f"# {topo_path.name} as an edge list; their node i is h<k> (hosts) or s<k> (switches) in id order\n" + graph
        )
        out += [
            f'# {topo_path.name} is not a fat-tree: an explicit graph (docs/scenario.md, "Graph topologies")',
            'kind = "graph"',
            'file = "topology.graph"',
        ]
    tailor_id = {h: i for i, h in enumerate(order)}
    if any(tailor_id[h] != h for h in hosts):
        out.append("# their host ids differ from tailor's: flows.csv names tailor's (rack by rack, in their id order)")

    buffer_mib = _int(cfg, "BUFFER_SIZE", 16, config)
    pgs = sorted({f[2] for f in flow_rows})
    out += [
        "",
        "[switch]",
        "# their switches: one shared memory with PFC on every priority (their SwitchMmu), queue 0 first",
        'scheduler = "priority"',
        'buffer = "shared"',
        f'buffer_size = "{buffer_mib}MiB"      # BUFFER_SIZE {buffer_mib} (MiB)',
        f'pfc = {{ priorities = {pgs}, alpha = 0.125, headroom = 3.0, reserve = "4096B", resume_offset = "3072B" }}  # their constants',
    ]
    if _int(cfg, "ENABLE_QCN", 1, config):
        ramps = []
        for r in rates:
            try:
                kmin, kmax, pmax = (cfg[k][r] for k in ("KMIN_MAP", "KMAX_MAP", "PMAX_MAP"))  # type: ignore[index]
            except KeyError:
                raise _err(
                    config,
                    "KMIN_MAP",
                    f"has no entry for {r} bit/s, a link rate of {topo_path.name}; accepted: maps covering every rate",
                ) from None
            ramps.append(
                f'{{ rate = "{show_rate(r)}", kmin = "{int(kmin) * 1000}B", kmax = "{int(kmax) * 1000}B", pmax = {pmax:g} }}'
            )
        out.append("# ENABLE_QCN 1 with KMIN_MAP/KMAX_MAP (x 1000 B) and PMAX_MAP: RED at dequeue per link rate")
        out.append("dequeue_red = [" + ", ".join(ramps) + "]")
    else:
        out.append("# ENABLE_QCN 0: no ECN marking")

    out += [
        "",
        "[host]",
        "nic_depth = 0   # their NIC builds each packet when its link is idle",
        "",
        "[transport]",
        'kind = "rdma"',
        f'congestion_control = "{cc}"   # CC_MODE {mode}',
    ]
    has_win = _int(cfg, "HAS_WIN", 1, config)
    var_win = _int(cfg, "VAR_WIN", 0, config)
    out.append(f"mss = {payload}   # PACKET_PAYLOAD_SIZE")
    out.append(
        f'base_rtt = "{paths.max_rtt}ns"   # their maxRtt (GLOBAL_T 1): 2 x delays + one payload per hop, longest pair'
    )
    if has_win:
        out.append(f'window = "{paths.max_bdp}B"   # HAS_WIN 1: their maxBdp')
        out.append(f"variable_window = {'true' if var_win else 'false'}   # VAR_WIN {var_win}")
    else:
        out.append('window = "none"   # HAS_WIN 0')
    out.append(f"rate_bound = {'true' if _int(cfg, 'RATE_BOUND', 1, config) else 'false'}   # RATE_BOUND")
    out.append(f"ack_high_priority = {'true' if _int(cfg, 'ACK_HIGH_PRIO', 0, config) else 'false'}   # ACK_HIGH_PRIO")
    out.append(
        f'min_rate = "{show_rate(rate_bps(str(cfg.get("MIN_RATE", "100Mb/s")), config, "MIN_RATE"))}"   # MIN_RATE'
    )
    out.append(f'chunk = "{_int(cfg, "L2_CHUNK_SIZE", 4000, config)}B"   # L2_CHUNK_SIZE')
    out.append(f'ack_interval = "{max(1, _int(cfg, "L2_ACK_INTERVAL", 1, config))}B"   # L2_ACK_INTERVAL')
    out.append(f"back_to_zero = {'true' if _int(cfg, 'L2_BACK_TO_ZERO', 0, config) else 'false'}   # L2_BACK_TO_ZERO")
    if len(pgs) == 1:
        out.append(f"priority = {pgs[0]}   # the flows' pg")
    rate = lambda key, default: show_rate(rate_bps(str(cfg.get(key, default)), config, key))  # noqa: E731
    if cc == "dcqcn":
        out.append(
            f'dcqcn = {{ g = {_float(cfg, "EWMA_GAIN", 1 / 256, config):g}, alpha_interval = "{_us(_float(cfg, "ALPHA_RESUME_INTERVAL", 55, config))}", '
            f'decrease_interval = "{_us(_float(cfg, "RATE_DECREASE_INTERVAL", 4, config))}", rp_timer = "{_us(_float(cfg, "RP_TIMER", 300, config))}", '
            f'fast_recovery = {_int(cfg, "FAST_RECOVERY_TIMES", 5, config)}, rate_ai = "{rate("RATE_AI", "5Mb/s")}", '
            f'rate_hai = "{rate("RATE_HAI", "50Mb/s")}", clamp_target = {"true" if _int(cfg, "CLAMP_TARGET_RATE", 0, config) else "false"} }}'
        )
        out.append(
            "# EWMA_GAIN, ALPHA_RESUME_INTERVAL, RATE_DECREASE_INTERVAL, RP_TIMER (us), FAST_RECOVERY_TIMES, RATE_AI, RATE_HAI, CLAMP_TARGET_RATE"
        )
    elif cc == "timely":
        out.append(
            f'timely = {{ rate_ai = "{rate("RATE_AI", "5Mb/s")}", rate_hai = "{rate("RATE_HAI", "50Mb/s")}" }}   # RATE_AI, RATE_HAI; their Timely* attributes are the defaults'
        )
    elif cc == "dctcp":
        out.append(
            f'dctcp = {{ g = {_float(cfg, "EWMA_GAIN", 1 / 16, config):g}, rate_ai = "{rate("DCTCP_RATE_AI", "1000Mb/s")}" }}   # EWMA_GAIN, DCTCP_RATE_AI'
        )
    else:
        out.append(
            f"hpcc = {{ eta = {_float(cfg, 'U_TARGET', 0.95, config):g}, max_stage = {_int(cfg, 'MI_THRESH', 5, config)}, "
            f'rate_ai = "{rate("RATE_AI", "5Mb/s")}", fast_react = {"true" if _int(cfg, "FAST_REACT", 1, config) else "false"}, '
            f"int_multi = {_int(cfg, 'INT_MULTI', 1, config)} }}   # U_TARGET, MI_THRESH, RATE_AI, FAST_REACT, INT_MULTI"
        )
    ignored = sorted(
        k
        for k in cfg
        if k
        in {
            "USE_DYNAMIC_PFC_THRESHOLD",
            "PAUSE_TIME",
            "DATA_RATE",
            "LINK_DELAY",
            "PINT_LOG_BASE",
            "PINT_PROB",
            "TRACE_FILE",
            "TRACE_OUTPUT_FILE",
            "PFC_OUTPUT_FILE",
            "QLEN_MON_FILE",
            "QLEN_MON_START",
            "QLEN_MON_END",
            "ENABLE_TRACE",
        }
    )
    out.append(
        f"# no effect in their programs or tailor's own outputs instead (pfc.csv, ports.csv, [record] queues): {', '.join(ignored)}"
    )

    stop = _float(cfg, "SIMULATOR_STOP_TIME", 3.01, config)
    header = [
        *lines,
        f'name = "{config.stem}"',
        "",
        "[run]",
        f'stop = "{round(stop * 1e9)}ns"   # SIMULATOR_STOP_TIME {stop:g} s',
        "",
        "[record]",
        "fct = true   # FCT_OUTPUT_FILE: fct.txt in the result directory",
    ]
    classes = sorted({(f[2], f[3]) for f in flow_rows})
    csv = ["flow_id,sender,receiver,size_bytes,start_ns"]
    per_class: dict[tuple[int, int], list[str]] = {c: list(csv) for c in classes}
    for j, (src, dst, pg, dport, size, start) in enumerate(flow_rows):
        if src not in tailor_id or dst not in tailor_id:
            raise _err(
                flow_path,
                f"flow {j + 1}",
                f"names node {src if src not in tailor_id else dst}, a switch; accepted: host ids",
            )
        per_class[(pg, dport)].append(f"{j},{tailor_id[src]},{tailor_id[dst]},{size},{round(start * 1e9)}")
    tail = []
    traces = {}
    for pg, dport in classes:
        name = f"pg{pg}_dport{dport}"
        traces[f"flows_{name}.csv"] = "\n".join(per_class[(pg, dport)]) + "\n"
        tail += ["", "[[class]]", f'name = "{name}"   # their pg {pg}, dport {dport}', f'trace = "flows_{name}.csv"']
        if len(pgs) > 1:
            tail.append(f'transport = {{ kind = "rdma", priority = {pg} }}')
    text = "\n".join(header + out + tail) + "\n"
    return text, traces, graph  # type: ignore[return-value]


def import_files(config: Path, topology: Path | None, flows: Path | None, out: Path) -> list[str]:
    """Writes the scenario into ``out`` (new or empty), all or nothing; the files written."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise _err(out, "", "exists and is not an empty directory; tailor writes only into a new or empty one")
    text, traces, graph = translate(config, topology, flows)
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=parent))
    try:
        (tmp / "scenario.toml").write_text(text)
        for name, body in traces.items():
            (tmp / name).write_text(body)
        if graph is not None:
            (tmp / "topology.graph").write_text(graph)
        files = sorted(p.name for p in tmp.iterdir())
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return files
