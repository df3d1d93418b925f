//! RED marking (`net::red`, `[switch] red`) in a run: long DCTCP flows through one port
//! are marked from RED's average queue, the average holds the queue between RED's
//! thresholds, the same seed repeats the run exactly, and the table's errors and the fast
//! model's refusal name the key.

mod common;

fn text(red: &str) -> String {
    format!(
        r#"
[run]
stop = "20ms"

[topology]
kind = "star"
hosts = 5
link = {{ rate = "10Gbps", delay = "10us" }}

[switch]
red = {red}

[transport]
kind = "dctcp"
init_cwnd = 10

[[class]]
name = "long"
trace = "long.csv"
"#
    )
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut trace = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for i in 0..4 {
        trace += &format!("{i},{i},4,1000000000,{}\n", i * 1000);
    }
    std::fs::write(dir.path().join("long.csv"), trace).unwrap();
    dir
}

const RED: &str = r#"{ min = "30KB", max = "90KB", max_p = 0.1, weight = 0.002 }"#;

#[test]
fn red_marks_long_flows_and_holds_the_queue_between_its_thresholds() {
    let dir = setup();
    let sc = common::scenario(&text(RED), dir.path());
    let (sim, _) = common::run(&sc, 1);
    let port = sim.ports().into_iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes).unwrap();
    eprintln!(
        "marks {}, mean queue {:.0} B, utilization {:.3}",
        port.ecn_marks, port.mean_queue_bytes, port.utilization
    );
    assert!(port.ecn_marks > 0, "RED marked nothing");
    assert!(port.mean_queue_bytes > 30_000.0 && port.mean_queue_bytes < 90_000.0, "{}", port.mean_queue_bytes);
    let (again, _) = common::run(&sc, 1);
    let same = again.ports().into_iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes).unwrap();
    assert_eq!((same.ecn_marks, same.sent_bytes), (port.ecn_marks, port.sent_bytes), "one seed, one run");
    // Without RED nothing marks these flows (no ecn_threshold): the marks are RED's.
    let plain = common::scenario(&text(RED).replace(&format!("red = {RED}\n"), ""), dir.path());
    let (off, _) = common::run(&plain, 1);
    assert!(off.ports().iter().all(|p| p.ecn_marks == 0));
}

#[test]
fn red_errors_name_the_key_and_the_model_refuses_it() {
    let dir = setup();
    let refused = |red: &str| match tailor::scenario::Scenario::parse(&text(red), "t.toml", dir.path()) {
        Err(err) => err,
        Ok(_) => panic!("{red} is refused"),
    };
    let err = refused(r#"{ min = "90KB", max = "30KB" }"#);
    assert_eq!(err.path, "switch.red.max", "{err}");
    assert!(err.message.contains("accepted: a size above min"), "{err}");
    let err = refused(r#"{ min = "1KB", max = "2KB", p = 0.1 }"#);
    assert_eq!(err.path, "switch.red.p", "{err}");
    let sc = common::scenario(&text(RED), dir.path());
    let err = tailor::scenario::model::config(&sc).unwrap_err();
    assert_eq!(err.path, "switch.red", "{err}");
    assert!(err.message.contains("accepted: --engine packet, or no red"), "{err}");
}
