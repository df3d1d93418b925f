"""PL2's rack (§E) as tailor scenarios: six servers on one 100 Gbps ToR (64 ports on the
prototype's Tofino), MTU 1500, and the schemes the paper compares.

The values the paper leaves open are chosen and stated here (docs/reproductions-pl2.md):

- links of 320 ns each way and the switch's 347 ns (the prototype's median with PL2 on,
  used for every scheme so that only the scheme differs) give an RSV and its GRT 1 µs NIC
  to NIC, the prototype's minimum; 500 ns of host software each way make it 2 µs seen
  from software (the prototype's 2.05 µs median) and a small request's round trip about
  5 µs (§B: 5 µs RTT, 61 KiB BDP);
- a 2 MB shared buffer (§B's example ToR; the Tofino's is not given), one port holding at
  most 1.5 MB of it (dynamic threshold α = 3): the "around 120 µs" of output buffering
  §B reads off Fig. 3b is 1.5 MB at 100 Gbps;
- every frame pays Ethernet's 38 B (header, CRC, preamble and gap), as Homa's packets do
  (RDS runs on them): raw Ethernet carries 1,500 B in 1,538 B on the wire, UDP 1,472 B,
  TCP 1,448 B (IP, TCP with timestamps);
- PL2 with K = 4 and t = 15 (§F.1), T = 512 timeslots (`[switch] pl2`'s default), 12
  sending threads per server (§F.4's 12 flows; §F.3's 11 where the experiment says so).
"""

from __future__ import annotations

__all__ = ["SCHEMES", "HOSTS", "LINK", "GOODPUT", "scheme_label", "transport", "scenario", "over_pl2"]

HOSTS = 6

#: Every scheme a reproduction may run: PL2 over a transport, or the transport alone.
SCHEMES = ("pl2", "raw", "rds", "pl2-udp", "udp", "pl2-tcp", "cubic")

#: Message bytes per byte on the wire of a full packet, by scheme (1,538 B frames).
GOODPUT = {
    "pl2": 1500 / 1538,
    "raw": 1500 / 1538,
    "rds": 1456 / 1538,
    "pl2-udp": 1472 / 1538,
    "udp": 1472 / 1538,
    "pl2-tcp": 1448 / 1538,
    "cubic": 1448 / 1538,
}

_LABELS = {
    "pl2": "raw Ethernet over PL2",
    "raw": "raw Ethernet",
    "rds": "RDS",
    "pl2-udp": "UDP over PL2",
    "udp": "UDP",
    "pl2-tcp": "TCP over PL2",
    "cubic": "TCP Cubic",
}

#: The inner tables: raw Ethernet, UDP and TCP (congestion control off under PL2). TCP
#: reports duplicated segments (D-SACK, Linux's default): PL2 resends an unsolicited burst
#: its GRT moved (§D.4), and without D-SACK the duplicates' ACKs read as losses (at two
#: background hosts in pl2-memcached: 1,921 spurious retransmissions and 28 of the 1 MB
#: messages unfinished with no packet dropped; docs/reproductions-pl2.md).
_RAW = '{ kind = "raw", mss = "1500B", header = "38B" }'
_UDP = '{ kind = "udp", mss = "1472B", header = "66B" }'
_TCP_OFF = 'kind = "tcp", congestion_control = "off", mss = "1448B", header = "90B", min_rto = "1ms", dsack = true'


def scheme_label(scheme: str) -> str:
    """How the paper names a scheme."""
    return _LABELS[scheme]


def over_pl2(scheme: str) -> bool:
    return scheme.startswith("pl2")


def transport(
    scheme: str,
    threads: int = 12,
    host_delay: str = "0ns",
    burst: int = 4,
    unsolicited_below: int = 15,
    completion: str = "ack",
) -> str:
    """The ``[transport]`` table of a scheme; over PL2 with K = ``burst`` and t =
    ``unsolicited_below`` (the paper's 4 and 15, §F.1; the sweeps change them). A TCP
    completes a message at ``completion``: its last ACK (``"ack"``) or its delivery
    (``"delivery"``, PL2's one-way latency, docs/transport.md "Completion")."""
    done = "" if completion == "ack" else f'completion = "{completion}"'
    if scheme == "raw":
        return 'kind = "raw"\nmss = "1500B"\nheader = "38B"\n'
    if scheme == "udp":
        return 'kind = "udp"\nmss = "1472B"\nheader = "66B"\n'
    if scheme == "rds":
        return 'kind = "rds"\n'
    if scheme == "cubic":
        # VMA's Cubic: tailor's TCP with RFC 9438's window; a 1 ms minimum RTO (the RDS
        # timeout's; VMA's is not given); D-SACK as over PL2 (below).
        return 'kind = "cubic"\nmss = "1448B"\nheader = "90B"\nmin_rto = "1ms"\ndsack = true\n' + (done and done + "\n")
    tcp_off = "{ " + ", ".join(filter(None, (_TCP_OFF, done))) + " }"
    inner = {"pl2": _RAW, "pl2-udp": _UDP, "pl2-tcp": tcp_off}[scheme]
    # TCP's full packet is 1,448 + 90 B: its timeslot (tailor reads raw's and UDP's itself).
    mtu = 'mtu = "1538B"\n' if scheme == "pl2-tcp" else ""
    return (
        f'kind = "pl2"\nover = {inner}\nburst = {burst}\nunsolicited_below = {unsolicited_below}\n'
        f"threads = {threads}\n"
        f'host_delay = "{host_delay}"\n{mtu}'
    )


#: The rack's links.
LINK = '{ rate = "100Gbps", delay = "320ns" }'


def scenario(
    scheme: str,
    classes: str,
    *,
    stop: str,
    hosts: int = HOSTS,
    threads: int = 12,
    host_delay: str = "0ns",
    seed: int = 1,
    record: str = "",
    nic: str = "priority",
    topology: str | None = None,
    pl2_switch: bool | None = None,
    burst: int = 4,
    unsolicited_below: int = 15,
    threshold: int | None = None,
    completion: str = "ack",
) -> str:
    """A scenario on the rack: ``classes`` (TOML ``[[class]]`` tables) under ``scheme``;
    ``nic = "round_robin"`` shares each NIC among its messages (many sending threads
    without PL2's). ``topology`` replaces the one-switch rack's table (racks of the same
    links and switches); ``pl2_switch`` says whether the ToRs run PL2's agent when a class
    of its own, not the scheme, runs over PL2. ``burst``, ``unsolicited_below`` and
    ``threshold`` are K, t and T (T: the ToR's default, 512, when None)."""
    agent = "{}" if threshold is None else f"{{ threshold = {threshold} }}"
    pl2 = f"pl2 = {agent}\n" if (over_pl2(scheme) if pl2_switch is None else pl2_switch) else ""
    topology = topology or f'kind = "star"\nhosts = {hosts}\nlink = {LINK}'
    return f"""seed = {seed}
[run]
stop = "{stop}"

[topology]
{topology}

[switch]
{pl2}delay = "347ns"
scheduler = "priority"
buffer = "shared"
buffer_size = "2MB"
alpha = 3.0

[host]
nic = "{nic}"
tx_delay = "500ns"
rx_delay = "500ns"

[transport]
{transport(scheme, threads, host_delay, burst, unsolicited_below, completion)}
{record}
{classes}"""
