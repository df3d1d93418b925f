//! Bad scenarios: each error names the exact key path and what is accepted.

use tailor::scenario::Scenario;

mod common;
use common::BAD_INPUT_BASE as BASE;

/// (what replaces what, expected key path, a fragment the message must contain)
const CASES: &[(&str, &str, &str, &str)] = &[
    ("seed = 1", "sed = 1", "sed", "unknown key; accepted keys here: advise, class, decomposed, host, model, name, record, routing, run, seed, switch, topology, transport"),
    ("seed = 1", "seed = -1", "seed", "-1 is out of range; accepted: 0 to 9223372036854775807"),
    ("kind = \"star\"", "kind = \"ring\"", "topology.kind", "accepted: \"star\", \"dumbbell\", \"leaf_spine\", \"fat_tree\""),
    ("hosts = 4", "hosts = 1", "topology.hosts", "out of range; accepted: 2 to"),
    ("hosts = 4", "hosts = \"4\"", "topology.hosts", "is a string; accepted: an integer from 2 to"),
    ("rate = \"100Gbps\"", "rate = \"100GBps\"", "topology.link.rate", "units: bps, Kbps, Mbps, Gbps, Tbps"),
    ("rate = \"100Gbps\"", "rate = 100", "topology.link.rate", "is an integer; accepted: a string with a unit"),
    ("delay = \"1us\"", "delay = \"1 fortnight\"", "topology.link.delay", "units: ps, ns, us, ms, s"),
    ("delay = \"1us\"", "delay = \"1us\", speed = 3", "topology.link.speed", "accepted keys here: delay, ecn_threshold, phantom, rate"),
    ("ecn_threshold = \"100KB\"", "ecn_threshold = \"100Kb\"", "switch.ecn_threshold", "units: B, KB, MB"),
    ("kind = \"dctcp\"", "kind = \"bbr\"", "transport.kind", "accepted: \"dctcp\", \"tcp\", \"cubic\", \"hpcc\", \"raw\", \"udp\", \"homa\""),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"tcp\"\ncongestion_control = \"none\"", "transport.congestion_control", "accepted: \"newreno\", \"off\""),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"cubic\"\ncubic_beta = 1.5", "transport.cubic_beta", "accepted"),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"tcp\"\necn = \"on\"", "transport.ecn", "unknown value \"on\"; accepted: \"off\", \"rfc3168\""),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"cubic\"\necn = true", "transport.ecn", "is a boolean; accepted: \"off\", \"rfc3168\""),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"tcp\"\ncongestion_control = \"off\"\necn = \"rfc3168\"", "transport.ecn", "needs a window to cut"),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"dctcp\"\necn = \"rfc3168\"", "transport.ecn", "unknown key"),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"pl2\"\nover = { kind = \"raw\" }", "transport.kind", "needs PL2's agent in the ToRs; accepted: [switch] pl2"),
    ("ecn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "pl2 = {}\n[host]\nnic = \"priority\"\n[transport]\nkind = \"pl2\"\nover = { kind = \"raw\" }", "transport.kind", "accepted: [host] nic = \"priority\" and [switch] scheduler = \"priority\""),
    ("ecn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "pl2 = {}\nscheduler = \"priority\"\n[host]\nnic = \"priority\"\n[transport]\nkind = \"pl2\"", "transport.over", "missing; accepted: the table of the transport PL2 schedules"),
    ("ecn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "pl2 = {}\nscheduler = \"priority\"\n[host]\nnic = \"priority\"\n[transport]\nkind = \"pl2\"\nover = { kind = \"tcp\" }", "transport.mtu", "\"tcp\" does not say how large its packets are"),
    ("ecn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "pl2 = {}\nscheduler = \"priority\"\n[host]\nnic = \"priority\"\n[transport]\nkind = \"pl2\"\nover = { kind = \"raw\", mss = \"1500B\", window = 3 }", "transport.over.window", "accepted keys here: header, kind, mss"),
    ("ecn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "pl2 = {}\nscheduler = \"priority\"\n[host]\nnic = \"priority\"\n[transport]\nkind = \"pl2\"\nover = { kind = \"raw\" }\nhost_delay = \"prototype\"", "transport.host_delay", "accepted: a time such as \"500ns\", or prototype_hw, prototype_sw"),
    ("load = 0.5", "outstanding = 4", "class[0].arrival", "a closed-loop class (outstanding) issues a request when a response comes back"),
    ("arrival = \"poisson\"\nload = 0.5", "outstanding = 4", "class[0].outstanding", "a closed loop waits for responses; accepted: outstanding with response"),
    ("arrival = \"poisson\"\nload = 0.5", "outstanding = 0\nresponse = \"echo\"", "class[0].outstanding", "0 is out of range; accepted: 1 to"),
    ("receiver = 3", "receiver = 3\nthink = \"1us\"", "class[0].think", "is only used with outstanding"),
    ("ecn_threshold = \"100KB\"", "pl2 = { threshold = 0 }", "switch.pl2.threshold", "out of range; accepted: 1 to"),
    ("ecn_threshold = \"100KB\"", "pl2 = { T = 10 }", "switch.pl2.T", "accepted keys here: control_bytes, priority, threshold"),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\neta = 1.5", "transport.eta", "1.5 is out of range; accepted: 0.5 to 1"),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\nmax_stage = -1", "transport.max_stage", "out of range; accepted: 0 to 1000"),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\nw_ai = \"0B\"", "transport.w_ai", "is out of range; accepted: \"1B\" to \"1GiB\""),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\nw_ai = 80", "transport.w_ai", "accepted: a string with a unit such as \"100KB\""),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\nint_header = \"65500B\"", "transport.int_header", "header + int_header is above 65535B (header is 54B); accepted: at most \"65481B\""),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"hpcc\"\ninit_cwnd = 0", "transport.init_cwnd", "segments from 1 to 1000000, or \"bdp\""),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\nmax_cwnd = 10", "transport.max_cwnd", "unknown key; accepted keys here: clock_granularity, coalesce, completion, delayed_ack, delayed_ack_timeout, dsack, dupack_threshold, eta, handshake, header, init_cwnd, initial_rto, int_header, kind, max_stage, min_rto, mss, w_ai"),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\ndctcp_g = 0.1", "transport.dctcp_g", "unknown key"),
    ("kind = \"dctcp\"", "kind = \"dctcp\"\ncompletion = \"receiver\"", "transport.completion", "accepted: \"ack\", \"delivery\""),
    ("kind = \"dctcp\"", "kind = \"hpcc\"\nprr = \"ns3\"", "transport.prr", "unknown key"),
    ("init_cwnd = 10", "init_cwnd = 0", "transport.init_cwnd", "segments from 1"),
    ("init_cwnd = 10", "init_cwnd = 10\nmax_cwnd = 5", "transport.max_cwnd", "below init_cwnd"),
    ("init_cwnd = 10", "init_cwnd = 10\ndelayed_ack_timeout = \"1ms\"", "transport.delayed_ack_timeout", "only used with delayed_ack = true"),
    ("sizes = \"websearch\"", "sizes = \"websurch\"", "class[0].sizes", "unknown workload \"websurch\"; accepted: websearch, hadoop"),
    ("arrival = \"poisson\"", "arrival = \"lognormal\"", "class[0].sigma", "needs sigma"),
    ("load = 0.5", "load = 1.5", "class[0].load", "out of range"),
    ("load = 0.5", "load = 0.5\nrate = \"1Gbps\"", "class[0].rate", "load and rate exclude each other; accepted: either load or rate"),
    ("load = 0.5", "load = 1e308", "class[0].load", "1e308 is out of range; accepted: 0.000001 to 1"),
    ("sizes = \"websearch\"", "sizes = \"websearch\"\nsizes_fixed = \"1KB\"", "class[0].sizes_fixed", "sizes and sizes_fixed exclude each other; accepted: one of sizes, sizes_cdf, sizes_fixed, sizes_exponential_mean"),
    ("sizes = \"websearch\"", "sizes_fixed = \"1KB\"\nsizes_exponential_mean = \"1KB\"", "class[0].sizes_exponential_mean", "sizes_fixed and sizes_exponential_mean exclude each other"),
    ("receiver = 3", "receiver = 3\nsenders = [0, 1, 1]", "class[0].senders", "host 1 is listed twice"),
    ("pattern = \"n_to_1\"\nreceiver = 3", "pattern = \"permutation\"\nhosts = [0, 2, 2]", "class[0].hosts", "host 2 is listed twice"),
    ("pattern = \"n_to_1\"\nreceiver = 3", "pattern = \"all_to_all\"\nreceivers = [3, 3]", "class[0].receivers", "host 3 is listed twice"),
    ("receiver = 3", "receiver = 9", "class[0].receiver", "host 9 does not exist; accepted: hosts 0 to 3"),
    ("pattern = \"n_to_1\"", "pattern = \"incast\"", "class[0].pattern", "accepted: \"n_to_1\", \"all_to_all\", \"permutation\""),
    ("messages = 10", "", "class", "generates messages forever"),
    ("messages = 10", "messages = 10\nexact_load = \"yes\"", "class[0].exact_load", "is a string; accepted: true or false"),
    ("name = \"a\"", "name = \"all\"", "class[0].name", "\"all\" is reserved for the aggregate of every class"),
    ("name = \"a\"", "name = \"a\"\ncolour = \"red\"", "class[0].colour", "unknown key"),
    ("[switch]", "[switch]\nbuffer = \"per_port\"", "switch.buffer_size", "needs one; accepted: a size such as \"1MB\""),
    ("[switch]", "[switch]\nscheduler = \"wrr\"", "switch.scheduler", "accepted: \"fifo\", \"strict_priority\", \"round_robin\", \"drr\", \"wfq\", \"hierarchical\""),
    ("[switch]", "[switch]\nscheduler = \"wfq\"\nquantum = \"3KB\"", "switch.quantum", "only used with scheduler = \"drr\" or \"hierarchical\""),
    ("name = \"a\"", "name = \"a\"\nweight = 2.0", "class[0].weight", "only used with [switch] scheduler = \"drr\""),
    ("name = \"a\"", "name = \"a\"\npriority = 1", "class[0].priority", "only used with [switch] scheduler = \"strict_priority\""),
    ("[switch]", "[switch]\npriority_levels = 4", "switch.priority_levels", "only used with scheduler = \"priority\""),
    ("[switch]", "[switch]\nscheduler = \"priority\"\npriority_levels = 65", "switch.priority_levels", "65 is out of range; accepted: 1 to 64"),
    ("[switch]", "[switch]\noverflow = \"evict\"", "switch.overflow", "\"evict\" is only used with scheduler = \"priority\""),
    ("[switch]", "[switch]\noverflow = \"shed\"", "switch.overflow", "accepted: \"drop\", \"trim\", \"trim_random\", \"evict\""),
    ("[switch]", "[switch]\noverflow = \"trim_random\"", "switch.overflow", "accepted: buffer = \"per_port\" with it, or \"trim\""),
    ("ecn_threshold = \"100KB\"", "overflow = \"trim\"\n[record]\nwaits = true", "record.waits", "trim and evict change packets in their queues; accepted: [switch] overflow = \"drop\" with waits"),
    ("init_cwnd = 10\n[[class]]\nname = \"a\"", "init_cwnd = 10\n[host]\nnic = \"priority\"\npriority_levels = 2\n[[class]]\nname = \"a\"\npriority = 3", "class[0].priority", "3 is not a level of 2; accepted: 0 to 1"),
    ("seed = 1", "seed = 1\n[host]\nnic_depth = -1", "host.nic_depth", "-1 is out of range; accepted: 0 to"),
    ("kind = \"dctcp\"", "kind = \"homa\"", "transport.priority_levels", "accepted: [switch] scheduler = \"priority\", or priority_levels = 1"),
    ("kind = \"dctcp\"", "kind = \"homa\"\npriority_levels = 1\nresend_timeout = \"of\"", "transport.resend_timeout", "or \"off\""),
    ("kind = \"dctcp\"", "kind = \"homa\"\npriority_levels = 1\novercommitment = \"lots\"", "transport.overcommitment", "accepted: a number of senders from 1 to 1048576, or \"unlimited\""),
    ("kind = \"dctcp\"", "kind = \"homa\"\npriority_levels = 1\nreceiver_budget = \"on\"", "transport.receiver_budget", "accepted: true or false"),
    ("kind = \"dctcp\"", "kind = \"homa\"\npriority_levels = 1\nsticky_slots = 1", "transport.sticky_slots", "accepted: true or false"),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"homa\"\npriority_levels = 1\nunscheduled_levels = 3\nunscheduled_cutoffs = [\"100B\"]", "transport", "accepted: 2 sizes"),
    ("kind = \"dctcp\"", "kind = \"homa\"\npriority_levels = 1\nunscheduled_cutoffs = [\"900B\", \"100B\"]", "transport.unscheduled_cutoffs", "accepted: increasing sizes"),
    ("kind = \"dctcp\"", "kind = \"homa\"\npriority_levels = 1\nincast_unscheduled = \"100B\"", "transport.incast_unscheduled", "accepted: incast_threshold = N with it"),
    ("load = 0.5", "load = 0.5\nload_basis = \"bytes\"", "class[0].load_basis", "accepted: \"payload\", \"wire\""),
    ("load = 0.5", "load = 0.5\nload_basis = \"wire\"", "class[0].load_basis", "does not say its bytes on the wire"),
    ("load = 0.5", "load = 0.5\nresponse = \"mirror\"", "class[0].response", "accepted: \"echo\""),
    ("load = 0.5", "load = 0.5\nresponse = \"echo\"\nresponse_sizes_fixed = \"1KB\"", "class[0].response_sizes_fixed", "exclude each other"),
    ("name = \"a\"", "name = \"a\"\ntransport = { kind = \"quic\" }", "class[0].transport.kind", "accepted: \"dctcp\", \"tcp\", \"cubic\", \"hpcc\", \"raw\", \"udp\", \"homa\""),
    ("name = \"a\"", "name = \"a\"\ntransport = { kind = \"raw\", init_cwnd = 4 }", "class[0].transport.init_cwnd", "unknown key; accepted keys here: header, kind, mss"),
    ("[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "", "transport", "missing; accepted: a [transport] table (the transport of every class without a transport table of its own, as class[0])"),
    ("seed = 1", "seed = 1\n[model]\npreset = \"swp-x\"", "model.preset", "accepted: \"swp-d\", \"swp-h\""),
    ("seed = 1", "seed = 1\n[model]\nkappa = 0", "model.kappa", "out of range"),
    ("seed = 1", "seed = 1\n[model]\nform = \"papper\"", "model.form", "unknown value \"papper\"; accepted: \"calibrated\", \"paper\""),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"q99\", threshold = 3.0 }]", "class[0].slo[0].sli", "accepted: \"mean\" or \"pN\""),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"p99\" }]", "class[0].slo[0].threshold", "missing"),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"p99\", threshold = 0.5 }]", "class[0].slo[0].threshold", "at least 1"),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"p99\", threshold = \"50us\" }]", "class[0].slo[0].threshold", "metric = \"latency\""),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"p50\", metric = \"latency\", threshold = 3.0 }]", "class[0].slo[0].threshold", "a time such as"),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"p99\", threshold = 2.0 }, { sli = \"mean\", threshold = 2.0, min_size = \"1MB\", max_size = \"1KB\" }]", "class[0].slo[1].max_size", "is not above min_size (1000000 B); accepted: a size above 1000000 B"),
    ("messages = 10", "messages = 10\nslo = [{ sli = \"p99\", threshold = 2.0, percentile = 99 }]", "class[0].slo[0].percentile", "accepted keys here: max_size, metric, min_size, sli, threshold"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"0us\"", "record.queues", "is 0; accepted: a positive sampling interval"),
    ("seed = 1", "seed = 1\n[record]\nqueues = 10", "record.queues", "is an integer; accepted: a string with a unit such as \"2.5us\""),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"10 parsecs\"", "record.queues", "units: ps, ns, us, ms, s"),
    ("seed = 1", "seed = 1\n[record]\nprogress = \"0ms\"", "record.progress", "is 0; accepted: a positive sampling interval"),
    ("seed = 1", "seed = 1\n[record]\nqueue = \"10us\"", "record.queue", "unknown key; accepted keys here: fct, progress, queue_ports, queues, sojourn, waits"),
    ("seed = 1", "seed = 1\n[record]\nqueue_ports = \"all\"", "record.queue_ports", "needs queues, the sampling interval"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = \"spines\"", "record.queue_ports", "unknown value \"spines\"; accepted: \"switches\", \"all\", a port role (\"to_host\", \"host_nic\", \"up\", \"down\", \"trunk\") or a list of port ids"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = \"trunk\"", "record.queue_ports", "a star topology has no \"trunk\" ports"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = [3, 8]", "record.queue_ports", "port 8 does not exist; accepted: ports 0 to 7 of this star"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = [7, 7]", "record.queue_ports", "port 7 is listed twice"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = []", "record.queue_ports", "an empty list selects no port"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = [\"7\"]", "record.queue_ports", "holds \"7\"; accepted: a list of port ids (integers)"),
    ("seed = 1", "seed = 1\n[record]\nqueues = \"1us\"\nqueue_ports = 7", "record.queue_ports", "is an integer; accepted: \"switches\", \"all\""),
    ("ecn_threshold = \"100KB\"", "phantom = { drain = 1.5 }", "switch.phantom.drain", "1.5 is out of range; accepted: a fraction of the port's rate above 0 and at most 1 (0.95), or a rate such as \"950Mbps\""),
    ("ecn_threshold = \"100KB\"", "phantom = { drain = \"950MBps\" }", "switch.phantom.drain", "units: bps, Kbps, Mbps, Gbps, Tbps"),
    ("ecn_threshold = \"100KB\"", "phantom = { threshold = \"1KB\" }", "switch.phantom.drain", "missing; accepted: a fraction"),
    ("ecn_threshold = \"100KB\"", "phantom = { drain = 0.95, roles = [\"host_nic\"] }", "switch.phantom.roles", "\"host_nic\" is not a switch port role; accepted: a list of switch port roles: \"to_host\", \"up\", \"down\", \"trunk\""),
    ("ecn_threshold = \"100KB\"", "phantom = { drain = 0.95, thresh = \"1KB\" }", "switch.phantom.thresh", "accepted keys here: drain, roles, threshold"),
    ("delay = \"1us\"", "delay = \"1us\", phantom = \"on\"", "topology.link.phantom", "unknown value \"on\"; accepted: \"off\""),
    ("delay = \"1us\"", "delay = \"1us\", phantom = { drain = 0.9, roles = [\"up\"] }", "topology.link.phantom.roles", "accepted keys here: drain, threshold"),
    ("[transport]", "[host]\npacer = \"fast\"\n[transport]", "host.pacer", "unknown value \"fast\"; accepted: \"testbed\", \"ns2\""),
    ("[transport]", "[host]\npacer = { preset = \"ns3\" }\n[transport]", "host.pacer.preset", "accepted: \"testbed\", \"ns2\""),
    ("[transport]", "[host]\npacer = { beta = -1 }\n[transport]", "host.pacer.beta", "-1 is out of range; accepted: 0 to 1000000000"),
    ("[transport]", "[host]\npacer = { bucket = \"10B\" }\n[transport]", "host.pacer.bucket", "is below 64B"),
    ("[transport]", "[host]\npacer = { interval = \"0us\" }\n[transport]", "host.pacer.interval", "is below 1us"),
    ("[transport]", "[host]\npacer = { p_a = 0.5 }\n[transport]", "host.pacer.p_a", "accepted keys here: beta, bucket, eta, idle, interval, p_assoc, preset, table"),
    ("[transport]", "[host]\nrx_frames = 8\n[transport]", "host.rx_usecs", "missing; rx_frames needs the interrupt's timeout"),
    ("[transport]", "[host]\nrx_usecs = \"50us\"\n[transport]", "host.rx_frames", "missing; rx_usecs needs the frames per interrupt"),
    ("[transport]", "[host]\nrx_frames = 0\nrx_usecs = \"50us\"\n[transport]", "host.rx_frames", "0 is out of range; accepted: 1 to 65536"),
    ("ecn_threshold = \"100KB\"", "scheduler = \"rank\"\n[record]\nsojourn = \"switches\"", "record.sojourn", "[switch] scheduler = \"hierarchical\" or \"rank\" does not; accepted: fifo, strict_priority, round_robin, drr, wfq or priority with sojourn"),
    ("seed = 1", "seed = 1\n[record]\nsojourn = \"all\"\n[host]\npacer = \"ns2\"", "record.sojourn", "a pacer lets bypassing packets pass paced ones"),
    ("seed = 1", "seed = 1\n[record]\nsojourn = \"spines\"", "record.sojourn", "accepted: \"switches\", \"all\", a port role"),
    ("arrival = \"poisson\"", "arrival = \"periodical\"", "class[0].arrival", "accepted: \"poisson\", \"lognormal\", \"periodic\""),
    ("receiver = 3", "receiver = 3\nprobe = \"yes\"", "class[0].probe", "accepted: true or false"),
    ("receiver = 3", "receiver = 3\nconnections = 0", "class[0].connections", "0 is out of range; accepted: 1 to 65536"),
    ("receiver = 3", "receiver = 3\nconnections = 4\ntransport = { kind = \"raw\" }", "class[0].connections", "transport \"raw\" sends every message on a connection of its own; accepted: connections with a transport of the TCP family"),
    ("receiver = 3", "receiver = 3\nconnection_choice = \"idle\"", "class[0].connection_choice", "needs connections; accepted: connection_choice with connections = N"),
    ("receiver = 3", "receiver = 3\nconnections = 2\nconnection_choice = \"first\"", "class[0].connection_choice", "accepted: \"random\", \"idle\""),
];

#[test]
fn every_bad_scenario_names_its_key() {
    for (from, to, path, fragment) in CASES {
        assert!(BASE.contains(from), "case {from:?} does not apply");
        let text = BASE.replacen(from, to, 1);
        let err =
            Scenario::parse(&text, "bad.toml", std::path::Path::new(".")).expect_err(&format!("{to:?} must fail"));
        assert_eq!(err.file, "bad.toml");
        assert_eq!(&err.path, path, "{to:?}: {err}");
        assert!(err.message.contains(fragment), "{to:?}: message {:?} lacks {fragment:?}", err.message);
    }
}

/// One format everywhere, `FILE: key.path: what; accepted: …`: every error of the table
/// says what is accepted.
#[test]
fn every_error_says_what_is_accepted() {
    for (from, to, _, _) in CASES {
        let text = BASE.replacen(from, to, 1);
        let err = Scenario::parse(&text, "bad.toml", std::path::Path::new(".")).expect_err(to);
        assert!(err.message.contains("; accepted") && !err.path.is_empty(), "{to:?}: {err}");
    }
}

#[test]
fn a_total_load_names_the_value_typed_and_its_bound() {
    use tailor::scenario::Override;
    let two = BASE.replacen("messages = 10", "messages = 10\n[[class]]\nname = \"b\"\nsizes = \"websearch\"\narrival = \"poisson\"\nload = 0.4\npattern = \"n_to_1\"\nreceiver = 2\nmessages = 10", 1);
    let set = |v: toml::Value| vec![Override { key: "load".into(), value: v }];
    let err =
        Scenario::resolve_text(&two, "bad.toml", std::path::Path::new("."), &set(toml::Value::Integer(2))).unwrap_err();
    assert_eq!((err.file.as_str(), err.path.as_str()), ("bad.toml", "load"), "{err}");
    assert!(err.message.starts_with("2 is out of range"), "{err}");
    assert!(err.message.contains("accepted: a total offered load above 0 and at most 1.8"), "{err}");
    let ok = Scenario::resolve_text(&two, "ok.toml", std::path::Path::new("."), &set(toml::Value::Float(1.8))).unwrap();
    assert_eq!(ok.scenario.classes.len(), 2);
    let err = Scenario::resolve_text(&two, "bad.toml", std::path::Path::new("."), &set(toml::Value::Float(1e308)))
        .unwrap_err();
    assert!(err.message.starts_with("1e308 is out of range"), "{err}");
}

/// One seed range: a file holds 0 to 2^63 - 1, and a seed given outside it (`--seed`,
/// the Python API) is held to the same bound.
#[test]
fn seeds_stop_at_2_63_minus_1_everywhere() {
    use tailor::scenario::{check_seed, MAX_SEED};
    let top = BASE.replacen("seed = 1", "seed = 9223372036854775807", 1);
    assert_eq!(Scenario::parse(&top, "ok.toml", std::path::Path::new(".")).unwrap().seed, MAX_SEED);
    assert_eq!(MAX_SEED, (1u64 << 63) - 1);
    assert_eq!(check_seed("f.toml", MAX_SEED), Ok(MAX_SEED));
    let e = check_seed("f.toml", MAX_SEED + 1).unwrap_err();
    assert_eq!((e.file.as_str(), e.path.as_str()), ("f.toml", "seed"));
    assert!(e.message.starts_with("9223372036854775808 is out of range; accepted: 0 to 9223372036854775807"), "{e}");
}

#[test]
fn the_base_scenario_is_valid_and_syntax_errors_name_the_line() {
    Scenario::parse(BASE, "ok.toml", std::path::Path::new(".")).unwrap();
    let err = Scenario::parse("[topology\nkind = 1", "syn.toml", std::path::Path::new(".")).unwrap_err();
    assert_eq!(err.path, "");
    assert!(err.message.contains("line 1"), "{}", err.message);
}

#[test]
fn shipped_scenarios_are_valid() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut n = 0;
    for entry in walk(&root) {
        Scenario::load(&entry).unwrap_or_else(|e| panic!("{e}"));
        n += 1;
    }
    assert!(n >= 3);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
    out
}

/// BASE with its class replaced by a replay of `trace` (written to a temporary file).
fn with_trace(dir: &tempfile::TempDir, trace: &str, run: &str) -> (String, String) {
    let path = dir.path().join("t.csv");
    std::fs::write(&path, trace).unwrap();
    let class = BASE.find("[[class]]").unwrap();
    let text = format!("{}[[class]]\nname = \"a\"\ntrace = \"t.csv\"\n{run}\n", &BASE[..class]);
    (text, path.display().to_string())
}

fn parse_in(dir: &tempfile::TempDir, text: &str) -> Result<Scenario, tailor::scenario::ScenarioError> {
    Scenario::parse(text, "bad.toml", dir.path())
}

/// `check` reads a trace as fully as `run`: every row `run` refuses is refused at parsing,
/// at the trace file, line and column.
#[test]
fn traces_are_read_whole_when_the_scenario_is_read() {
    let head = "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,100\n";
    let cases = [
        ("1,0,1,10,99\n", "line 3, start_ns", "99 is before the previous row's 100; accepted: 100 or later"),
        ("1,0,1,10,-5\n", "line 3, start_ns", "'-5' is not a non-negative integer"),
        ("1,9,1,10,200\n", "line 3, sender", "9 is not a host; accepted: 0 to 3"),
        ("1,2,2,10,200\n", "line 3, receiver", "sender and receiver are both host 2"),
        ("1,0,1,0,200\n", "line 3, size_bytes", "0 bytes; accepted: 1 or more"),
        ("1,0,1,10\n", "line 3", "4 fields; accepted: 5, one per column of the header"),
        (
            "2,0,1,10,200\n0,1,2,10,300\n",
            "line 4, flow_id",
            "0 repeats line 2's; accepted: a distinct flow_id on every row",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (rows, path, fragment) in cases {
        let (text, trace) = with_trace(&dir, &format!("{head}{rows}"), "");
        let err = parse_in(&dir, &text).expect_err(rows);
        assert_eq!((err.file.as_str(), err.path.as_str()), (trace.as_str(), path), "{rows:?}: {err}");
        assert!(err.message.contains(fragment), "{rows:?}: {err}");
    }
    let (text, _) = with_trace(&dir, "flow_id,sender,size_bytes,start_ns\n0,0,10,100\n", "");
    let err = parse_in(&dir, &text).unwrap_err();
    assert_eq!(err.path, "class[0].receiver", "{err}");
    let (text, _) = with_trace(&dir, &format!("{head}7,0,1,10,200\n"), "");
    parse_in(&dir, &text).unwrap();
}

/// A scenario that would summarise no message is refused when it is read, at the key
/// that empties it.
#[test]
fn empty_scenarios_are_refused_at_the_key_that_empties_them() {
    let dir = tempfile::tempdir().unwrap();
    let trace = "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,1000\n1,0,1,10,2000\n";
    let traced = [
        (
            "flow_id,sender,receiver,size_bytes,start_ns\n",
            "",
            "class[0].trace",
            "t.csv has no rows, so the class sends no message",
        ),
        (
            "flow_id,class,sender,receiver,size_bytes,start_ns\n0,b,0,1,10,1000\n",
            "",
            "class[0].trace",
            "has 1 row but none of class \"a\"",
        ),
        (trace, "[run]\nstop = \"0ns\"", "run.stop", "accepted: a positive time"),
        (trace, "[run]\nstop = \"1us\"", "run.stop", "\"1us\" is not after class[0]'s first message, at \"1us\""),
        (trace, "[run]\nwarmup = \"3us\"", "run.warmup", "\"3us\" is after class[0]'s last message, at \"2us\""),
        (trace, "[run]\nstop = \"5us\"\nwarmup = \"5us\"", "run.warmup", "is not before run.stop \"5us\""),
    ];
    for (rows, run, path, fragment) in traced {
        let (text, _) = with_trace(&dir, rows, run);
        let err = parse_in(&dir, &text).expect_err(run);
        assert_eq!((err.file.as_str(), err.path.as_str()), ("bad.toml", path), "{run:?}: {err}");
        assert!(err.message.contains(fragment), "{run:?}: {err}");
    }
    let generated = [
        (
            "messages = 10",
            "until = \"1ms\"\nstart = \"2ms\"",
            "class[0].until",
            "\"1ms\" is not after the class's start \"2ms\"",
        ),
        (
            "messages = 10",
            "messages = 10\nstart = \"2ms\"\n[run]\nstop = \"1ms\"",
            "class[0].start",
            "\"2ms\" is not before run.stop \"1ms\"",
        ),
        (
            "messages = 10",
            "until = \"1ms\"\n[run]\nwarmup = \"1ms\"",
            "class[0].until",
            "\"1ms\" is not after run.warmup \"1ms\"",
        ),
    ];
    for (from, to, path, fragment) in generated {
        let err = parse_in(&dir, &BASE.replacen(from, to, 1)).expect_err(to);
        assert_eq!((err.file.as_str(), err.path.as_str()), ("bad.toml", path), "{to:?}: {err}");
        assert!(err.message.contains(fragment), "{to:?}: {err}");
    }
}

/// What only the run can tell: every message completing inside the warm-up, or none
/// completing before the stop. The run fails at that key instead of summarising nothing.
#[test]
fn a_run_that_summarises_nothing_fails() {
    use tailor::engine::RunError;
    use tailor::measure::record::NullSink;
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "messages = 10",
            "messages = 3\n[run]\nwarmup = \"1s\"",
            "run.warmup",
            "all 3 messages that completed started inside the warm-up",
        ),
        (
            "messages = 10",
            "messages = 3\n[run]\nstop = \"100ms\"\nwarmup = \"99999999ns\"",
            "run.warmup",
            "started inside the warm-up (\"99999999ns\")",
        ),
        (
            "messages = 10",
            "messages = 3\n[run]\nstop = \"2ns\"",
            "run.stop",
            "no message completed by \"2ns\" (0 started)",
        ),
        ("messages = 10", "until = \"1ns\"", "class[0].until", "no message started by \"1ns\""),
        ("messages = 10", "messages = 3", "", ""),
    ];
    for (from, to, path, fragment) in cases {
        let sc = parse_in(&dir, &BASE.replacen(from, to, 1)).unwrap();
        let res = tailor::output::simulate(&sc, 1, Box::new(NullSink), &mut |_| true);
        match (res, path) {
            (Ok(_), "") => {}
            (Err(RunError::Scenario(e)), _) => {
                assert_eq!((e.file.as_str(), e.path.as_str()), ("bad.toml", path), "{to:?}: {e}");
                assert!(e.message.contains(fragment), "{to:?}: {e}");
            }
            (Err(e), _) => panic!("{to:?}: {e}"),
            (Ok(_), _) => panic!("{to:?} must fail"),
        }
    }
    // The fast model's runs are held to the same rule.
    let sc = parse_in(&dir, &BASE.replacen("messages = 10", "messages = 3\n[run]\nwarmup = \"1s\"", 1)).unwrap();
    match tailor::output::simulate_model(&sc, 1, Box::new(NullSink), None) {
        Err(RunError::Scenario(e)) => assert_eq!(e.path, "run.warmup", "{e}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a model run that summarises nothing must fail"),
    }
}

/// A bad line of a size file is located in that file, as a trace row is.
#[test]
fn size_file_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cdf = dir.path().join("s.cdf");
    std::fs::write(&cdf, "1000 0.5\n900 1.0\n").unwrap();
    let text = BASE.replacen("sizes = \"websearch\"", "sizes_cdf = \"s.cdf\"\ninterpolation = \"step\"", 1);
    let err = parse_in(&dir, &text).unwrap_err();
    assert_eq!((err.file.as_str(), err.path.as_str()), (cdf.display().to_string().as_str(), "line 2"), "{err}");
    assert!(
        err.message.contains("size 900 is not above the previous line's 1000; accepted: sizes that increase strictly"),
        "{err}"
    );
    let missing = BASE.replacen("sizes = \"websearch\"", "sizes_cdf = \"none.cdf\"\ninterpolation = \"step\"", 1);
    let err = parse_in(&dir, &missing).unwrap_err();
    assert_eq!((err.file.as_str(), err.path.as_str()), ("bad.toml", "class[0].sizes_cdf"), "{err}");
    assert!(err.message.contains("; accepted: a readable regular file"), "{err}");
}

#[test]
fn a_run_holds_at_most_32_transport_tables() {
    let class = |i: usize| {
        format!("[[class]]\nname = \"c{i}\"\nsizes = \"websearch\"\narrival = \"poisson\"\nload = 0.01\npattern = \"n_to_1\"\nreceiver = 3\nmessages = 10\ntransport = {{ kind = \"raw\" }}\n")
    };
    let head = "[topology]\nkind = \"star\"\nhosts = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n";
    let ok: String = (0..32).map(class).collect();
    Scenario::parse(&format!("{head}{ok}"), "t.toml", std::path::Path::new(".")).expect("32 transports are accepted");
    let bad: String = (0..33).map(class).collect();
    let err = Scenario::parse(&format!("{head}{bad}"), "t.toml", std::path::Path::new(".")).unwrap_err();
    assert_eq!(err.path, "class[32].transport", "{err}");
    assert!(err.message.contains("accepted: at most 32"), "{err}");
}

/// `[advise]` belongs to `tailor advise` (docs/advisor.md): a run accepts it as a table and
/// leaves it out of what identifies the run, so a result store keeps the points of one
/// candidate when another candidate's table is edited.
#[test]
fn the_advise_table_is_a_table_and_not_part_of_a_runs_identity() {
    let dir = std::path::Path::new(".");
    let with = |advise: &str| format!("{BASE}\n{advise}\n");
    let plain = Scenario::resolve_text(BASE, "a.toml", dir, &[]).unwrap();
    let one =
        Scenario::resolve_text(&with("[advise.candidate.dctcp.switch]\nscheduler = \"fifo\""), "a.toml", dir, &[])
            .unwrap();
    let two = Scenario::resolve_text(&with("[advise.candidate.dctcp.switch]\nscheduler = \"drr\""), "a.toml", dir, &[])
        .unwrap();
    assert_eq!(one.identity, plain.identity);
    assert_eq!(two.identity, plain.identity);
    assert_eq!((one.document.as_str(), one.config.as_str()), (plain.document.as_str(), plain.config.as_str()));
    assert!(!one.document.contains("advise"), "{}", one.document);
    let err = Scenario::parse(&BASE.replacen("seed = 1", "seed = 1\nadvise = 3", 1), "bad.toml", dir).unwrap_err();
    assert_eq!(err.path, "advise", "{err}");
    assert!(err.message.contains("accepted: a table"), "{err}");
}

/// `[advise]` is read by the strict reader like every table: a typo'd key or a bad value
/// is refused by every command that reads the scenario (`tailor run` and `check` too),
/// naming the key and what is accepted (before, a run accepted any table there).
#[test]
fn the_advise_table_is_checked_like_every_table() {
    let dir = std::path::Path::new(".");
    let err = |advise: &str| {
        Scenario::parse(&format!("{BASE}\n[advise]\n{advise}\n"), "bad.toml", dir).map(|_| ()).unwrap_err()
    };
    let cases = [
        ("seed = 3", "advise.seed", "unknown key; accepted keys here: candidate, loads, seeds, tolerance, transports"),
        ("seeds = 0", "advise.seeds", "0 is out of range; accepted: an integer from 1 to 100"),
        ("loads = [0.9, 0.3]", "advise.loads", "accepted: two loads [LO, HI] with 0 < LO < HI"),
        ("tolerance = 0.7", "advise.tolerance", "0.7 is out of range; accepted: a load from 0.001 to 0.5"),
        ("loads = [0.5, 0.6]\ntolerance = 0.2", "advise.tolerance", "not below the width of advise.loads"),
        ("transports = []", "advise.transports", "accepted: a non-empty array of names"),
        ("transports = [\"homa\", \"homa\"]", "advise.transports", "a name is given twice"),
        (
            "transports = [\"nosuch\"]",
            "advise.transports",
            "unknown transport \"nosuch\"; accepted: the transports of this build (dctcp",
        ),
        (
            "candidate.x = { topology = {} }",
            "advise.candidate.x.topology",
            "accepted keys here: transport, switch, host, routing, defaults",
        ),
        (
            "candidate.x = { transport = { kind = \"bbr\" } }",
            "advise.candidate.x.transport.kind",
            "unknown transport \"bbr\"",
        ),
        ("candidate.mine = {}", "advise.candidate.mine.transport.kind", "unknown transport \"mine\""),
        ("candidate.homa = { defaults = \"no\" }", "advise.candidate.homa.defaults", "accepted: true or false"),
        ("candidate.homa = { switch = 3 }", "advise.candidate.homa.switch", "accepted: a table of [switch] keys"),
        ("candidate.\"a b\" = {}", "advise.candidate.a b", "is not a name"),
    ];
    for (advise, path, fragment) in cases {
        let e = err(advise);
        assert_eq!((e.path.as_str(), e.file.as_str()), (path, "bad.toml"), "{advise}: {e}");
        assert!(e.message.contains(fragment), "{advise}: {e}");
    }
    let ok = "transports = [\"mine\", \"dctcp\"]\nseeds = 3\nloads = [0.1, 0.9]\ntolerance = 0.02\n\
              [advise.candidate.mine]\ntransport = { kind = \"homa\" }\nswitch = { scheduler = \"fifo\" }\ndefaults = false";
    Scenario::parse(&format!("{BASE}\n[advise]\n{ok}\n"), "ok.toml", dir).expect("a whole [advise] table is accepted");
}
