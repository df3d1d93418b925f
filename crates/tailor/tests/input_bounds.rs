//! Inputs that used to be taken without a word and then misled or hung a run: a trace's
//! misspelled or repeated column, a scenario name that leads out of `runs/`, special and
//! endless files, a buffer that holds no packet, timers of a picosecond, phantom queues
//! that apply to no port or never build, what the fast model cannot model, and a
//! priority level a port does not keep. Each is refused at its key, saying what is
//! accepted.

use std::path::Path;
use tailor::scenario::{Scenario, ScenarioError};

mod common;
use common::BAD_INPUT_BASE as BASE;

const DUMBBELL: &str = "kind = \"dumbbell\"\nleft = 2\nright = 2\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\ntrunk = { rate = \"10Gbps\", delay = \"1us\" }";

/// (what replaces what in BASE, expected key path, a fragment the message must contain)
const CASES: &[(&str, &str, &str, &str)] = &[
    // Item 6: a name leads a run's default output out of runs/.
    ("seed = 1", "name = \"../../x\"\nseed = 1", "name", "holds \"/\"; accepted: a name without \"/\", a backslash, \"..\" or control characters"),
    ("seed = 1", "name = \"/abs/x\"\nseed = 1", "name", "holds \"/\""),
    ("seed = 1", "name = \"a\\\\b\"\nseed = 1", "name", "holds a backslash"),
    ("seed = 1", "name = \"..\"\nseed = 1", "name", "holds \"..\""),
    ("seed = 1", "name = \"a\\nb\"\nseed = 1", "name", "holds a control character"),
    // Item 8: a buffer or queue that cannot hold one full packet.
    ("[switch]", "[switch]\nbuffer = \"per_port\"\nbuffer_size = \"0B\"", "switch.buffer_size", "\"0B\" is below one full packet (a full \"dctcp\" packet is 1502B on the wire, payload and headers); accepted: at least \"1502B\""),
    ("[switch]", "[switch]\nbuffer = \"per_port\"\nbuffer_size = \"1B\"", "switch.buffer_size", "accepted: at least \"1502B\""),
    ("[switch]", "[switch]\nbuffer = \"shared\"\nbuffer_size = \"1KB\"", "switch.buffer_size", "lets a port hold less than one full packet"),
    ("[switch]", "[switch]\nbuffer = \"shared\"\nbuffer_size = \"10KB\"\nalpha = 0.125", "switch.buffer_size", "accepted: at least \"12016B\" with this alpha"),
    ("ecn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\ninit_cwnd = 10", "buffer = \"per_port\"\nbuffer_size = \"9KB\"\n[transport]\nkind = \"raw\"\nmss = \"9000B\"", "switch.buffer_size", "a full \"raw\" packet is 9054B on the wire"),
    ("name = \"a\"", "name = \"a\"\nqueue_limit = \"1KB\"", "class[0].queue_limit", "\"1000B\" is below one full packet"),
    ("[transport]", "[host]\npacer = { bucket = \"1KB\" }\n[transport]", "host.pacer.bucket", "\"1000B\" is below one full packet"),
    // Item 9: timers of a picosecond.
    ("[transport]", "[host]\npacer = { interval = \"1ps\" }\n[transport]", "host.pacer.interval", "is below 1us; accepted: at least \"1us\""),
    ("[transport]", "[host]\npacer = { interval = \"999ns\" }\n[transport]", "host.pacer.interval", "is below 1us"),
    ("init_cwnd = 10", "init_cwnd = 10\nmin_rto = \"1ps\"", "transport.min_rto", "is below 1us; accepted: at least \"1us\""),
    ("init_cwnd = 10", "init_cwnd = 10\ninitial_rto = \"100ns\"", "transport.initial_rto", "is below 1us"),
    ("kind = \"dctcp\"\ninit_cwnd = 10", "kind = \"cubic\"\nmin_rto = \"0us\"", "transport.min_rto", "is below 1us"),
    // Item 12: phantom queues on no port, or draining faster than their port.
    ("ecn_threshold = \"100KB\"", "phantom = { drain = 0.95, roles = [\"trunk\"] }", "switch.phantom.roles", "a star topology has no \"trunk\" ports, so no port would get a phantom queue; accepted: roles it has (\"to_host\")"),
    ("ecn_threshold = \"100KB\"", "phantom = { drain = 0.95, roles = [\"to_host\", \"up\"] }", "switch.phantom.roles", "has no \"up\" ports"),
    ("ecn_threshold = \"100KB\"", "phantom = { drain = \"200Gbps\" }", "switch.phantom.drain", "\"200Gbps\" is above the rate of topology.link (\"100Gbps\"), so its virtual backlog never builds"),
    ("[transport]", "[host]\nbuffer = \"1500B\"\n[transport]", "host.buffer", "\"1500B\" is below one full packet (a full \"dctcp\" packet is 1502B on the wire, payload and headers); accepted: at least \"1502B\""),
    ("delay = \"1us\"", "delay = \"1us\", phantom = { drain = \"101Gbps\" }", "topology.link.phantom.drain", "\"101Gbps\" is above the rate of this link (\"100Gbps\"), so its virtual backlog never builds"),
    // Low: a PL2 priority level the ports do not keep.
    ("ecn_threshold = \"100KB\"", "pl2 = { priority = 8 }\nscheduler = \"priority\"", "switch.pl2.priority", "8 is not a level of 8; accepted: 0 to 7 (priority_levels sets how many)"),
    ("ecn_threshold = \"100KB\"", "pl2 = { priority = 3 }\nscheduler = \"priority\"\npriority_levels = 2", "switch.pl2.priority", "3 is not a level of 2; accepted: 0 to 1"),
    ("ecn_threshold = \"100KB\"", "pl2 = { priority = 5 }\nscheduler = \"priority\"\n[host]\nnic = \"priority\"\npriority_levels = 4", "switch.pl2.priority", "5 is not a level of 4; accepted: 0 to 3"),
    // Low: one way to write a number.
    ("rate = \"100Gbps\"", "rate = \"10__0Gbps\"", "topology.link.rate", "single `_` separators, each between two digits"),
    ("rate = \"100Gbps\"", "rate = \".5Gbps\"", "topology.link.rate", "is not a rate"),
    ("rate = \"100Gbps\"", "rate = \"10.Gbps\"", "topology.link.rate", "is not a rate"),
    ("rate = \"100Gbps\"", "rate = \" 10 Gbps\"", "topology.link.rate", "is not a rate"),
];

#[test]
fn every_bad_input_is_refused_at_its_key() {
    for (from, to, path, fragment) in CASES {
        assert!(BASE.contains(from), "case {from:?} does not apply");
        let text = BASE.replacen(from, to, 1);
        let err = Scenario::parse(&text, "bad.toml", Path::new(".")).expect_err(&format!("{to:?} must fail"));
        assert_eq!((err.file.as_str(), err.path.as_str()), ("bad.toml", *path), "{to:?}: {err}");
        assert!(err.message.contains(fragment), "{to:?}: message {:?} lacks {fragment:?}", err.message);
        assert!(err.message.contains("; accepted"), "{to:?}: {err}");
    }
}

/// What the refusals leave accepted: the bounds themselves, and the same keys where
/// they apply.
#[test]
fn the_bounds_themselves_are_accepted() {
    let ok = [
        ("seed = 1", "name = \"web-1.5x_load\"\nseed = 1"),
        ("[switch]", "[switch]\nbuffer = \"per_port\"\nbuffer_size = \"1502B\""),
        ("[switch]", "[switch]\nbuffer = \"shared\"\nbuffer_size = \"12016B\"\nalpha = 0.125"),
        ("name = \"a\"", "name = \"a\"\nqueue_limit = \"1502B\""),
        ("[transport]", "[host]\npacer = { interval = \"1us\", bucket = \"1502B\" }\n[transport]"),
        ("[transport]", "[host]\nbuffer = \"1502B\"\n[transport]"),
        ("init_cwnd = 10", "init_cwnd = 10\nmin_rto = \"1us\"\ninitial_rto = \"1us\""),
        ("ecn_threshold = \"100KB\"", "phantom = { drain = \"100Gbps\", roles = [\"to_host\"] }"),
        ("ecn_threshold = \"100KB\"", "pl2 = { priority = 7 }\nscheduler = \"priority\""),
        ("rate = \"100Gbps\"", "rate = \"1_00.0Gbps\""),
    ];
    for (from, to) in ok {
        let text = BASE.replacen(from, to, 1);
        Scenario::parse(&text, "ok.toml", Path::new(".")).unwrap_or_else(|e| panic!("{to:?}: {e}"));
    }
    // A dumbbell has trunk ports: the role the star refuses is the dumbbell's own.
    let dumbbell =
        BASE.replacen("kind = \"star\"\nhosts = 4\nlink = { rate = \"100Gbps\", delay = \"1us\" }", DUMBBELL, 1);
    let trunk = dumbbell.replacen("ecn_threshold = \"100KB\"", "phantom = { drain = 0.95, roles = [\"trunk\"] }", 1);
    Scenario::parse(&trunk, "ok.toml", Path::new(".")).unwrap();
    // The host link's rate is the bound where the switch's phantom queue feeds it.
    let fast =
        dumbbell.replacen("ecn_threshold = \"100KB\"", "phantom = { drain = \"20Gbps\", roles = [\"trunk\"] }", 1);
    let e = Scenario::parse(&fast, "bad.toml", Path::new(".")).unwrap_err();
    assert_eq!(e.path, "switch.phantom.drain", "{e}");
    assert!(e.message.contains("above the rate of topology.trunk (\"10Gbps\")"), "{e}");
}

fn in_dir(dir: &tempfile::TempDir, text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::parse(text, "bad.toml", dir.path())
}

/// BASE with its class replaced by a replay of `t.csv` holding `trace`, to receiver 3.
fn trace_scenario(dir: &tempfile::TempDir, trace: &str) -> String {
    std::fs::write(dir.path().join("t.csv"), trace).unwrap();
    let class = BASE.find("[[class]]").unwrap();
    format!("{}[[class]]\nname = \"a\"\ntrace = \"t.csv\"\nreceiver = 3\n", &BASE[..class])
}

/// Item 3: a misspelled column sent every row to the default receiver; a repeated one
/// was read from its first place.
#[test]
fn a_trace_column_that_is_unknown_or_repeated_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.csv").display().to_string();
    let misspelled = trace_scenario(&dir, "flow_id,sender,reciever,size_bytes,start_ns\n0,0,1,10,100\n");
    let e = in_dir(&dir, &misspelled).unwrap_err();
    assert_eq!((e.file.as_str(), e.path.as_str()), (file.as_str(), "line 1"), "{e}");
    assert_eq!(
        e.message,
        "unknown column 'reciever' (column 3); accepted: required: flow_id, sender, size_bytes, start_ns; optional: receiver, class; each once"
    );
    let twice = trace_scenario(&dir, "flow_id,sender,receiver,size_bytes,start_ns,sender\n0,0,1,10,100,2\n");
    let e = in_dir(&dir, &twice).unwrap_err();
    assert_eq!(e.path, "line 1", "{e}");
    assert!(e.message.starts_with("column 'sender' appears twice (columns 2 and 6); accepted: required"), "{e}");
    let good = trace_scenario(&dir, "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,100\n");
    assert_eq!(in_dir(&dir, &good).unwrap().classes.len(), 1);
}

/// Item 7: a special file was read forever (`/dev/zero` as a size file grew `check` to
/// 24 GB; as a trace it aborted on an allocation), and so was a file of one endless line.
#[test]
fn special_files_and_endless_lines_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let zero_cdf = BASE.replacen("sizes = \"websearch\"", "sizes_cdf = \"/dev/zero\"\ninterpolation = \"step\"", 1);
    let e = in_dir(&dir, &zero_cdf).unwrap_err();
    assert_eq!(e.path, "class[0].sizes_cdf", "{e}");
    assert!(
        e.message.contains(
            "/dev/zero: is a character device, not a regular file; accepted: a regular file of at most 16 MiB"
        ),
        "{e}"
    );
    let class = BASE.find("[[class]]").unwrap();
    let zero_trace = format!("{}[[class]]\nname = \"a\"\ntrace = \"/dev/zero\"\nreceiver = 3\n", &BASE[..class]);
    let e = in_dir(&dir, &zero_trace).unwrap_err();
    assert_eq!(e.path, "class[0].trace", "{e}");
    assert!(
        e.message.contains("is a character device, not a regular file; accepted: a regular file of at most 64 GiB"),
        "{e}"
    );
    // A directory, and a FIFO (refused before it is opened: opening would wait for a writer).
    let dir_cdf = BASE.replacen("sizes = \"websearch\"", "sizes_cdf = \".\"\ninterpolation = \"step\"", 1);
    assert!(in_dir(&dir, &dir_cdf).unwrap_err().message.contains("is a directory, not a regular file"));
    let fifo = dir.path().join("fifo.csv");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if made {
        let e = in_dir(&dir, &zero_trace.replace("/dev/zero", "fifo.csv")).unwrap_err();
        assert!(e.message.contains("is a FIFO, not a regular file"), "{e}");
    }
    // One line longer than 64 KiB, in a trace and in a size file.
    let long = format!("flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,100\n1,0,1,10,{}\n", "1".repeat(70_000));
    let e = in_dir(&dir, &trace_scenario(&dir, &long)).unwrap_err();
    assert_eq!(e.path, "line 3", "{e}");
    assert!(e.message.contains("is longer than 64 KiB; accepted: rows of at most 65536 bytes"), "{e}");
    std::fs::write(dir.path().join("s.cdf"), format!("1000 0.5\n{} 1.0\n", "2".repeat(70_000))).unwrap();
    let long_cdf = BASE.replacen("sizes = \"websearch\"", "sizes_cdf = \"s.cdf\"\ninterpolation = \"step\"", 1);
    let e = in_dir(&dir, &long_cdf).unwrap_err();
    assert_eq!(e.path, "class[0].sizes_cdf", "{e}");
    assert!(e.message.contains("line 2 is longer than 64 KiB; accepted: lines of at most 64 KiB"), "{e}");
    // The scenario file itself.
    let e = Scenario::load(Path::new("/dev/zero")).unwrap_err();
    assert_eq!((e.file.as_str(), e.path.as_str()), ("/dev/zero", ""));
    assert!(
        e.message.starts_with("is a character device, not a regular file; accepted: a regular file of at most 16 MiB"),
        "{e}"
    );
}

/// Reading a trace asks the thread's interrupt check as it goes (the Python binding's
/// lets Ctrl-C and SIGTERM in), so a large legal trace does not hold `check` hostage.
#[test]
fn reading_a_trace_stops_when_the_interrupt_check_says_so() {
    use std::fmt::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut trace = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for i in 0..200_000 {
        writeln!(trace, "{i},0,1,1000,{i}").unwrap();
    }
    assert!(trace.len() as u64 > 2 * tailor::input::files::CHECK_EVERY);
    let text = trace_scenario(&dir, &trace);
    let calls = std::rc::Rc::new(std::cell::Cell::new(0));
    let seen = calls.clone();
    let check = move || {
        seen.set(seen.get() + 1);
        false
    };
    let e = tailor::input::files::with_interrupt_check(check, || in_dir(&dir, &text)).unwrap_err();
    assert_eq!(calls.get(), 1, "the first check stops the read");
    assert!(e.to_string().contains("interrupted"), "{e}");
    // Without a check, or with one that says go on, the same trace reads whole.
    assert!(tailor::input::files::with_interrupt_check(|| true, || in_dir(&dir, &text)).is_ok());
    assert!(in_dir(&dir, &text).is_ok());
}

/// Item 12: the fast model refuses what it does not model by name, as it refuses the
/// pacer, instead of running without it.
#[test]
fn the_model_refuses_lso_and_persistent_connections_by_name() {
    use tailor::scenario::model::config;
    let sc = |text: &str| Scenario::parse(text, "m.toml", Path::new(".")).unwrap();
    let base = sc(BASE);
    assert!(config(&base).is_ok(), "the base scenario is in the model's scope");
    let lso = sc(&BASE.replacen("init_cwnd = 10", "init_cwnd = 10\nlso = \"64KB\"", 1));
    let e = config(&lso).unwrap_err();
    assert_eq!(e.path, "transport.lso", "{e}");
    assert!(
        e.message.contains("the model has no segmentation offload")
            && e.message.contains("accepted: --engine packet, or no lso"),
        "{e}"
    );
    let conns = sc(&BASE.replacen("receiver = 3", "receiver = 3\nconnections = 4", 1));
    let e = config(&conns).unwrap_err();
    assert_eq!(e.path, "class[0].connections", "{e}");
    assert!(e.message.contains("accepted: --engine packet, or no connections"), "{e}");
}
