"""HULL's testbed (§5.2, Fig. 7) as tailor scenarios: ten servers on one 1 Gbps switch
with 4 MB of shared buffer, and the four schemes of §6.1 (Table 1, Fig. 8, Table 4).

The switch is a Broadcom Triumph2 whose dynamic buffer allocation lets a congested port
take up to about 700 KB of the 4 MB (§6.2.2): a shared buffer with dynamic threshold α,
a port holding at most α × the free space, so one congested port reaches αB/(1 + α) =
700 KB at α = 0.212.

The hosts are what the paper's are made of, with values the paper leaves open chosen and
stated here (docs/reproductions-hull.md):

- LSO (64 KB sends with Linux's deferral) and receive interrupt coalescing at every NIC:
  8 frames or 50 µs (the 82574L's default "dynamic conservative" interrupt throttling
  runs at about 20,000 interrupts a second, one every 50 µs);
- TCP as Linux 2.6.26 runs it: delayed ACKs, a 200 ms minimum RTO, slow start after an
  idle period longer than the RTO (`tcp_slow_start_after_idle`, on by default), and for
  TCP-DropTail the receive window Linux's auto-tuning grows (`rwnd`: 64 KB first, twice the bytes read per
  receiver RTT after, up to 3/4 of `tcp_rmem[2]` = 4 MB; the RTT counted in 1 ms
  jiffies), which is what bounds how much a flow deposits in its NIC's queue ahead of
  other flows' packets (the host-side queueing §6.2.1 describes; tailor's NIC queues are
  otherwise unbounded; the other schemes keep the fixed 256 KB window, `max_cwnd = 181`,
  they were fitted with);
- a software delay of 10 µs on transmit and 15 µs on receive, which with the
  coalescing makes an idle 1 KB request/response take about the 160 µs the paper gives
  as the minimum 1 KB FCT (§6.2.1): the 1 KB FCTs are mostly host time, modelled here as
  this stated delay;
- the probe of the Latency Measurement Module: one 1,500 B packet (1,446 B of payload
  and the raw transport's 54 B of headers) from S1 to S5 every 1 ms, its wait at the
  switch port towards S5 the "switch latency".

S1 is host 0 and S5, the receiver of every experiment, host 4.
"""

from __future__ import annotations

__all__ = [
    "SCHEMES",
    "HOSTS",
    "RECEIVER",
    "PROBE_SENDER",
    "SENDERS",
    "static_scenario",
    "dynamic_scenario",
    "requests_per_second",
    "scheme_label",
    "QOS_SCHEMES",
    "BUFFERS",
    "shipped",
    "pq_scenario",
]

#: Linux 2.6.26's receive window (`rwnd`): tcp_rmem[1] = 87,380 B gives a first window of
#: 64 KB, tcp_rmem[2] = 4 MB, timestamps in jiffies of 1 ms (HZ = 1000).
RWND = 'autotune = true, initial = "64KB", max = "4MB", clock = "1ms"'

#: The four schemes of §6.1 and §6.2.1, as the paper names them (lowercase).
SCHEMES = ("tcp-droptail", "dctcp-30k", "dctcp-6k-pacer", "dctcp-pq950-pacer")
HOSTS = 10
#: S5 and S1.
RECEIVER = 4
PROBE_SENDER = 0
#: The long-flow senders of the static experiment, in the order flows are added.
SENDERS = (1, 2, 3, 5, 6, 7, 8, 9)

#: Table 5's schemes: TCP with two priorities (§6.2.2), and HULL.
QOS_SCHEMES = ("tcp-qos", "dctcp-pq950-pacer")
#: Table 5's switch buffers: the dynamic shared buffer, or 10 packets (15 KB) per priority.
BUFFERS = ("large", "small")

_LABELS = {
    "tcp-droptail": "TCP-DropTail",
    "dctcp-30k": "DCTCP-30K",
    "dctcp-6k-pacer": "DCTCP-6K-Pacer",
    "dctcp-pq950-pacer": "DCTCP-PQ950-Pacer",
    "tcp-qos": "TCP-QoS",
}


def scheme_label(scheme: str) -> str:
    """The paper's name of a scheme (``DCTCP-PQ950-Pacer``)."""
    return _LABELS[scheme]


def _switch(scheme: str, buffer: str = "large") -> str:
    if buffer == "large":
        base = 'buffer = "shared"\nbuffer_size = "4MB"\nalpha = 0.212\n'
    elif scheme == "tcp-qos":
        base = ""  # 15 KB per priority: each class's own queue_limit
    else:
        base = 'buffer = "per_port"\nbuffer_size = "15KB"\n'
    return (
        base
        + {
            "tcp-droptail": "",
            "tcp-qos": 'scheduler = "strict_priority"\n',
            "dctcp-30k": 'ecn_threshold = "30KB"\n',
            "dctcp-6k-pacer": 'ecn_threshold = "6KB"\n',
            "dctcp-pq950-pacer": 'phantom = { drain = "950Mbps", threshold = "1KB" }\n',
        }[scheme]
    )


def _host(scheme: str) -> str:
    pacer = 'pacer = "testbed"\n' if scheme.endswith("-pacer") else ""
    return 'tx_delay = "10us"\nrx_delay = "15us"\nrx_frames = 8\nrx_usecs = "50us"\n' + pacer


def _transport(scheme: str) -> str:
    kind = "tcp" if scheme.startswith("tcp-") else "dctcp"
    # Linux's defaults of the paper's era: delayed ACKs, a 200 ms minimum RTO; and the
    # receive window its auto-tuning grows (tcp_rmem = 4096 87380 4194304, HZ = 1000),
    # which bounds what a flow deposits in its NIC's queue ahead of other flows' packets.
    # The other schemes keep the fixed 256 KB window (181 segments) they were fitted with:
    # DCTCP's queues stay far below it (docs/reproductions-hull.md). The window keeps the
    # default cwnd_limited = "burst": Linux 2.6.26's rule under TSO ("tso") was tried and
    # moves Table 1 and, far more, Table 4 away from the paper (docs/reproductions-hull.md,
    # "Table 1 and Fig. 8").
    window = f"rwnd = {{ {RWND} }}" if scheme == "tcp-droptail" else "max_cwnd = 181"
    return (
        f'kind = "{kind}"\nlso = "64KB"\ndelayed_ack = true\nmin_rto = "200ms"\n{window}\nrestart_after_idle = true\n'
    )


def _probe(start: str = "1ms", qos: str = "") -> str:
    return f"""
[[class]]
name = "probe"
probe = true{qos}
sizes_fixed = "1446B"
arrival = "periodic"
rate = "11.568Mbps"
pattern = "n_to_1"
senders = [{PROBE_SENDER}]
receiver = {RECEIVER}
start = "{start}"
transport = {{ kind = "raw" }}
"""


def _head(title: str, scheme: str, buffer: str = "large") -> str:
    return f"""# {title}: {scheme_label(scheme)} (HULL, NSDI 2012; docs/reproductions-hull.md).
name = "hull-{scheme}"

[topology]
kind = "star"
hosts = {HOSTS}
link = {{ rate = "1Gbps", delay = "1us" }}

[switch]
{_switch(scheme, buffer)}
[host]
{_host(scheme)}
[transport]
{_transport(scheme)}"""


def static_scenario(scheme: str, flows: int, length_ms: int) -> str:
    """§6.1 (Table 1, Fig. 8): ``flows`` long-lived flows, one from each of as many
    servers to S5, for ``length_ms``, with the probe."""
    if not 1 <= flows <= len(SENDERS):
        raise ValueError(f"flows must be 1 to {len(SENDERS)}")
    longs = "".join(
        f"""
[[class]]
name = "long{k + 1}"
sizes_fixed = "1GB"
arrival = "periodic"
rate = "8000Tbps"
pattern = "n_to_1"
senders = [{s}]
receiver = {RECEIVER}
messages = 1
start = "{k}us"
"""
        for k, s in enumerate(SENDERS[:flows])
    )
    return (
        _head(f"Static flows (§6.1), {flows} long-lived flows into S5", scheme)
        + f'\n[run]\nstop = "{length_ms}ms"\n'
        + longs
        + _probe()
    )


def requests_per_second(load: float) -> float:
    """S5's request rate at ``load`` of its 1 Gbps link in response bytes (§6.2: "if the
    average file size is 100KB, and the desired load is 40%, the client makes 500
    requests per second")."""
    return load * 1e9 / 8 / (0.8 * 1_000 + 0.2 * 10_000_000)


def dynamic_scenario(scheme: str, load: float, large_flows: int, buffer: str = "large") -> str:
    """§6.2.1 (Table 4) and §6.2.2 (Table 5): S5 requests files from the other nine
    servers over 16 persistent connections to each, Poisson in open loop, 80 % of requests
    for 1 KB and 20 % for 10 MB, at ``load`` of S5's link in response bytes, until
    ``large_flows`` 10 MB requests are expected (four times as many 1 KB ones). The two
    sizes are two classes, each with its own 16 connections per server. ``tcp-qos``
    puts the 1 KB class and the probe in strict priority over the 10 MB class; a
    ``small`` buffer is 15 KB per priority for it and 15 KB per port for the others."""
    rate = requests_per_second(load)
    servers = ", ".join(str(h) for h in range(HOSTS) if h != RECEIVER)
    length_s = large_flows / (0.2 * rate)
    qos = scheme == "tcp-qos"

    def klass(name: str, share: float, response: str, level: int) -> str:
        extra = f"\npriority = {level}" if qos else ""
        if qos and buffer == "small":
            extra += '\nqueue_limit = "15KB"'
        # A request is 100 B: a class's rate is its requests' bytes per second.
        return f"""
[[class]]
name = "{name}"
sizes_fixed = "100B"
response_sizes_fixed = "{response}"
arrival = "poisson"
rate = "{round(share * rate * 800)}bps"
pattern = "all_to_all"
senders = [{RECEIVER}]
receivers = [{servers}]
until = "{length_s:.6f}s"
start = "1ms"
connections = 16{extra}
"""

    probe_qos = ""
    if qos:
        probe_qos = "\npriority = 0" + ('\nqueue_limit = "15KB"' if buffer == "small" else "")
    probe = _probe(qos=probe_qos).replace('start = "1ms"', f'start = "1ms"\nuntil = "{length_s:.6f}s"')
    title = f"Dynamic flows (§6.2), {load:.0%} load, {buffer} buffer"
    return _head(title, scheme, buffer) + klass("1KB", 0.8, "1KB", 0) + klass("10MB", 0.2, "10MB", 1) + probe


def shipped() -> dict[str, str]:
    """The testbed scenarios shipped in ``scenarios/hull/`` (a test checks they are these):
    Table 4's 40 % point for HULL (``testbed-dynamic-40.toml``, whose phantom queue a sweep
    can vary) and for each other scheme, and two long flows under HULL."""
    files = {
        "testbed-dynamic-40.toml": dynamic_scenario("dctcp-pq950-pacer", 0.4, 200),
        "testbed-static-2.toml": static_scenario("dctcp-pq950-pacer", 2, 2000),
    }
    for s in SCHEMES[:-1]:
        files[f"testbed-dynamic-40-{s}.toml"] = dynamic_scenario(s, 0.4, 200)
    return files


def pq_scenario(
    drain_mbps: int, threshold: str, pacer: bool, length_ms: int, beta: float | None = None, flows: int = 2
) -> str:
    """§4.3-4.4 (Fig. 5, Fig. 6): ``flows`` long DCTCP flows into S5 with a phantom queue
    draining at ``drain_mbps`` and marking at ``threshold`` on the port towards S5,
    paced or not (the testbed pacer, with ``beta`` if given)."""
    text = static_scenario("dctcp-pq950-pacer", flows, length_ms)
    text = text.replace(
        'phantom = { drain = "950Mbps", threshold = "1KB" }',
        f'phantom = {{ drain = "{drain_mbps}Mbps", threshold = "{threshold}", roles = ["to_host"] }}',
    )
    if not pacer:
        text = text.replace('pacer = "testbed"\n', "")
    elif beta is not None:
        text = text.replace('pacer = "testbed"', f'pacer = {{ preset = "testbed", beta = {beta:g} }}')
    return text
