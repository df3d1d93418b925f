"""The two-class scenario the advisor's tests share: a tight RPC class (W3 sizes, sigma 2,
10 % load) and a bulk class (Hadoop sizes, 50 %) into one receiver of a 100 Gbps star,
DCTCP with one-BDP windows, per-class DRR."""

TEMPLATE = """
name = "{name}"
[topology]
kind = "star"
hosts = 9
link = {{ rate = "100Gbps", delay = "2.5us" }}
[switch]
scheduler = "drr"
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
max_cwnd = "bdp"

[[class]]
name = "rpc"
sizes = "google"
arrival = "lognormal"
sigma = 2.0
load = 0.1
pattern = "n_to_1"
senders = "0..4"
receiver = 8
until = "{until}"
start = "1ms"
slo = [{{ sli = "p99", max_size = "125KB", threshold = 3.0 }}]

[[class]]
name = "bulk"
sizes = "hadoop"
arrival = "lognormal"
sigma = 1.5
load = 0.5
pattern = "n_to_1"
senders = "4..8"
receiver = 8
until = "{until}"
start = "1ms"
{bulk_slo}"""

#: bulk's SLOs: the short messages' p99 and, with ``above_bdp``, the long ones' too.
BULK_SHORT = 'slo = [{ sli = "p99", max_size = "125KB", threshold = 8.0 }]\n'
BULK_BOTH = (
    "slo = [\n"
    '  { sli = "p99", max_size = "125KB", threshold = 8.0 },\n'
    '  { sli = "p99", min_size = "125KB", threshold = 16.0 },\n'
    "]\n"
)


def two_classes(name: str, until: str, above_bdp: bool) -> str:
    """The scenario's text: each class's messages arrive from 1 ms to ``until``."""
    return TEMPLATE.format(name=name, until=until, bulk_slo=BULK_BOTH if above_bdp else BULK_SHORT)
