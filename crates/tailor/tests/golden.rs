//! Golden hashes: the SHA-256 of `messages.csv` for every shipped scenario and for golden
//! cases that cover what the shipped ones do not (TCP NewReno with drops on a dumbbell, the
//! raw transport sprayed over a fat-tree, HPCC under hierarchical fair queueing on a
//! leaf-spine, each class scheduler).
//!
//! Recorded on main before the engine's joints were cut (issue 11), so that refactoring the
//! engine cannot change a result unnoticed. A deliberate change of results updates the
//! hashes in the same commit and says why. To print the current hashes:
//! `TAILOR_GOLDEN_PRINT=1 cargo test -p tailor --test golden -- --nocapture`.
//!
//! Long scenarios are cut by `run.stop` so that the whole set runs in seconds; the cut is
//! part of the case.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tailor::measure::record::CsvSink;
use tailor::scenario::{Override, Scenario};

/// A golden case: scenario under the repository root, overrides as TOML values, SHA-256
/// of messages.csv.
type Case = (&'static str, &'static [(&'static str, &'static str)], &'static str);

const CASES: &[Case] = &[
    ("scenarios/quickstart.toml", &[], "ee253d95c8d9f4742428622ab94199a9491ae0b155a023e4986453733806dca1"),
    (
        "scenarios/quickstart.toml",
        &[("switch.scheduler", "\"round_robin\"")],
        "e42e5b3d7b5a342da178031b8419d7ce998bdd96ed566ef7e97a993fdbc8ee5b",
    ),
    (
        "scenarios/quickstart.toml",
        &[("switch.scheduler", "\"wfq\"")],
        "f2795d8dafe7dfb5869495b149948e0b1f6ba02ac194f45391f9d0df768a08cf",
    ),
    (
        "scenarios/quickstart.toml",
        &[("switch.scheduler", "\"drr\""), ("routing.paths", "\"spray\"")],
        "ff6bc6153645d9fae40b630acba200b9433cf23c0b797e637e35207c80279ebb",
    ),
    ("scenarios/swp/accuracy-google-30.toml", &[], "2482efad8059b39e059f370552c3388dd1760d4a36bab7ed6924dda0eed38e20"),
    ("scenarios/swp/accuracy-google-60.toml", &[], "d22fdf54068e6afd45d16da7954f888d4a6c3e1d3ce6137f97ffa34ea74b4a33"),
    (
        "scenarios/swp/accuracy-hpcc-google-30.toml",
        &[],
        "34683fc0c18a683694d71e9e20b5239219a96c7f0b1728c3cc73f5c696b0197b",
    ),
    (
        "scenarios/swp/accuracy-hpcc-google-60.toml",
        &[],
        "d3d370c0442d871585d14d6d07a3c50838b1ab1864ff0dd96d4d85e2aa27f2f6",
    ),
    (
        "scenarios/swp/accuracy-hpcc-websearch-30.toml",
        &[("run.stop", "\"30ms\"")],
        "8c8fa16938bb629492778c44b7fa1cbc457c0861a8ee3dd1097047d590779e91",
    ),
    (
        "scenarios/swp/accuracy-hpcc-websearch-60.toml",
        &[("run.stop", "\"20ms\"")],
        "ab9176f0fcaa48ec9ee1d6c4b788554f6696d8da66e7495c0a51b0df031455c7",
    ),
    (
        "scenarios/swp/accuracy-websearch-30.toml",
        &[("run.stop", "\"40ms\"")],
        "84ee00853d3fc32c9b6f7fc9a40bbc54ea8c8734dcd4c8917d83b01978e77844",
    ),
    (
        "scenarios/swp/accuracy-websearch-60.toml",
        &[("run.stop", "\"25ms\"")],
        "f09680e5ca61ec950f3406a7b3155c31d6f4fbc7a99b8abceac525a3fa22806e",
    ),
    ("scenarios/swp/five-class.toml", &[], "0a0e9a30f2f87d1b9348a2440aaa82a4d5db3f28131b718ead6d43bb210bdb82"),
    (
        "scenarios/swp/five-class.toml",
        &[("switch.scheduler", "\"hierarchical\"")],
        "052d9266b393504142cbe46a484a1c58dc6534822cff11bea750a3a1b560b3ef",
    ),
    ("scenarios/swp/table3-google-30.toml", &[], "b00a903ebba2b4ca6d70bf11f19ca8e869ac173c9b336c7a8f7d523ec89421f7"),
    ("scenarios/swp/table3-google-60.toml", &[], "a951064a37ce52ec281af3c317c44d416e0c23b29d9eef2da7e2e8971ac5c757"),
    (
        "scenarios/swp/table3-websearch-30.toml",
        &[("run.stop", "\"20ms\"")],
        "4f1a9d08e484143153d03ec1a81f6ea2f76862aa89418183e980b45bd97ef544",
    ),
    (
        "scenarios/swp/table3-websearch-60.toml",
        &[("run.stop", "\"10ms\"")],
        "e004ee7f5c6415e4d2502922923ae3b44b9d5b5f42f6ecf694fbd1d470e4f0eb",
    ),
    ("scenarios/swp/two-class.toml", &[], "c391c91fa862cdc7fea0bec199c34d9c80b502db5365f4ecc67bc148537ba2df"),
    ("scenarios/swp/websearch-30.toml", &[], "6149fe84070734f94aa10f21d2d76f5338b149664a88c1b413438d0d58f3461c"),
    ("scenarios/swp/websearch-60-hpcc.toml", &[], "ead6c97956375dec8ecd9c9b0929f31841cebf27e49ec72512ed14739e58e31c"),
    ("scenarios/swp/websearch-60.toml", &[], "939fdbe4d6d6daf99bb47b8dd0c584b62a937a2fb10be327f466a09f3ae6b2d7"),
    (
        "scenarios/validation/leafspine-hadoop-50.toml",
        &[],
        "c9929434b141777cd017545a97947b66d4c36b68abeb345dfdf9a4626ae16f92",
    ),
    (
        "crates/tailor/tests/golden/tcp-dumbbell.toml",
        &[],
        "5a860759e5bf775bd486cca82f1db284f49860c68fc43851f130e81e2433fd6a",
    ),
    (
        "crates/tailor/tests/golden/raw-fattree.toml",
        &[],
        "b33fa92322971b18d832e6a2fd30aefb1ec3a604e783c86d31900e6192911a58",
    ),
    (
        "crates/tailor/tests/golden/hpcc-leafspine.toml",
        &[],
        "b638fb3dc40b3a57c7e2026ed67ec7f8e8d8ce99339b012058b743c166a1342b",
    ),
    // Persistent connections with coalescing off: the hashes main recorded before
    // `coalesce` existed (segments never crossed messages), reproduced exactly.
    (
        "crates/tailor/tests/golden/pl2-tcp-connections.toml",
        &[("transport.over.coalesce", "\"off\"")],
        "94ceabcb66ba778c466322c647692d45e49ac323edd9e6ae4b82d1b75a7edda6",
    ),
    (
        "crates/tailor/tests/golden/dctcp-connections.toml",
        &[("transport.coalesce", "\"off\"")],
        "b9127930c6da517fa38484c5983754e4e9bbae9736bc9c2b946fe7746a07207a",
    ),
    // The same with the default, `coalesce = "nagle"`: messages share segments (new
    // results by design, recorded when the key was added).
    (
        "crates/tailor/tests/golden/pl2-tcp-connections.toml",
        &[],
        "dc31275813fb8950f374ca31fd75f55a0960c27dbc72df66ffa92bdafbc2146e",
    ),
    (
        "crates/tailor/tests/golden/dctcp-connections.toml",
        &[],
        "ef03ce616bc786f09d2a40f8d05f1abc5be234713ffd73b6aaa1be292354abed",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The SHA-256 of the `messages.csv` the engine writes for `path` with `overrides`.
fn messages_hash(path: &str, overrides: &[(&str, &str)]) -> String {
    let overrides: Vec<Override> = overrides
        .iter()
        .map(|(key, value)| Override {
            key: key.to_string(),
            value: toml::from_str::<toml::Table>(&format!("v = {value}")).unwrap()["v"].clone(),
        })
        .collect();
    let sc = Scenario::resolve(&root().join(path), &overrides).unwrap_or_else(|e| panic!("{e}")).scenario;
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("messages.csv")).unwrap();
    let sink = CsvSink::new(std::io::BufWriter::new(file)).unwrap();
    tailor::output::simulate(&sc, sc.seed, Box::new(sink), &mut |_| true).unwrap_or_else(|e| panic!("{path}: {e}"));
    format!("{:x}", Sha256::digest(std::fs::read(dir.path().join("messages.csv")).unwrap()))
}

#[test]
fn messages_are_byte_identical_to_the_recorded_runs() {
    let print = std::env::var_os("TAILOR_GOLDEN_PRINT").is_some();
    let mut wrong = Vec::new();
    for (path, overrides, want) in CASES {
        let got = messages_hash(path, overrides);
        if print {
            println!("    (\"{path}\", &{overrides:?}, \"{got}\"),");
        }
        if got != *want {
            wrong.push(format!("{path} {overrides:?}: {got}, recorded {want}"));
        }
    }
    assert!(wrong.is_empty(), "messages.csv changed:\n{}", wrong.join("\n"));
}
