//! The layering (docs/architecture.md): no module imports the one above it, the types two
//! layers share live in a leaf both import downhill, and network mechanisms are reached
//! through their registry, never by name from the engine, the scenario reader or the model.
//! Each test reads the source text of `src/`.

/// Rust files under `src/<dir>` that mention `needle`.
fn mentions(dir: &str, needle: &str) -> Vec<String> {
    files_where(dir, |text| text.contains(needle))
}

/// Whether `text` uses the module `name` by its bare name (`pl2::TorAgent` after `use
/// crate::net::{pl2}`): `name::` not inside a longer word nor after another path
/// (`transport::pl2::` is the transport's module, not the mechanism's).
fn uses_module(text: &str, name: &str) -> bool {
    let needle = format!("{name}::");
    text.match_indices(&needle)
        .any(|(at, _)| text[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':')))
}

/// Rust files under `src/<dir>` whose text satisfies `hit`.
fn files_where(dir: &str, hit: impl Fn(&str) -> bool) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut hits = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if hit(&std::fs::read_to_string(&p).unwrap()) {
                hits.push(p.display().to_string());
            }
        }
    }
    hits
}

#[test]
fn no_layer_imports_the_one_above_it() {
    // The oracle, like the engine and the model, takes a built run; what it can stand
    // for is checked over the scenario by `scenario::oracle` (issue 27).
    for below in ["sim", "input", "net", "transport", "workload", "measure", "engine", "oracle", "model"] {
        assert_eq!(mentions(below, "crate::scenario"), Vec::<String>::new(), "{below} must not read scenarios");
    }
    for below in ["sim", "input", "net", "transport", "workload", "measure", "model"] {
        assert_eq!(mentions(below, "crate::engine"), Vec::<String>::new(), "{below} must not import the packet engine");
    }
}

/// The types two layers share live in a leaf module both import downhill (issue 27): the
/// ids, port roles and channels in `crate::ids`, the file signature in `crate::version`.
/// Each pair below was an arrow both ways (net imports measure's counters, output
/// measure's Parquet writer, transport workload's size distributions).
#[test]
fn shared_types_live_below_both_their_users() {
    for (below, above) in [
        ("measure", "crate::net"),
        ("measure", "crate::output"),
        ("workload", "crate::net"),
        ("workload", "crate::transport"),
    ] {
        assert_eq!(mentions(below, above), Vec::<String>::new(), "{below} must not import {above}");
    }
    for leaf in ["ids.rs", "version.rs"] {
        let text =
            std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(leaf)).unwrap();
        assert!(
            !text.contains("crate::") && !text.contains("super::"),
            "{leaf} is a leaf: it imports nothing of the crate"
        );
    }
}

/// The network mechanisms live in `net/` and are reached through `net::mechanism`'s
/// registry: the engine installs them and the model's scope refuses them by walking the
/// list, naming none. The names below are those migrated so far (docs/architecture.md,
/// "Network mechanisms").
#[test]
fn the_engine_and_the_model_scope_name_no_migrated_mechanism() {
    for m in tailor::net::mechanism::MECHANISMS {
        assert!(!m.about.is_empty(), "{} says what it is", m.name);
    }
    for needle in ["IntStamp", "net::int", "PacerStats", "pacer_stats", "net::pacer"] {
        assert_eq!(mentions("engine", needle), Vec::<String>::new(), "the engine names {needle}");
        assert_eq!(mentions("net/sched", needle), Vec::<String>::new(), "the generic scheduler names {needle}");
    }
    // A mechanism that owns its key is named nowhere above `net`: not its module (by its
    // path or, imported, by its bare name), not its key.
    for m in tailor::net::mechanism::MECHANISMS {
        let owned = m.keys.iter().flat_map(|k| k.keys).chain(m.link_keys.iter().flat_map(|k| k.keys));
        let owned: Vec<&str> = owned.copied().collect();
        if owned.is_empty() {
            continue;
        }
        for dir in ["engine", "scenario", "model", "oracle"] {
            let keys = owned.iter().map(|k| format!("\"{k}\""));
            for needle in keys.chain([format!("net::{}", m.name)]) {
                let mut hits = mentions(dir, &needle);
                // `[[class]] ecn_threshold` is a class's queue setting, beside its
                // queue_limit and weight (`ClassPolicy::ecn`), read with them; the ECN
                // mechanism marks with it but owns only the switch, host and link keys.
                hits.retain(|f| !(needle == "\"ecn_threshold\"" && f.ends_with("scenario/classes.rs")));
                assert_eq!(hits, Vec::<String>::new(), "{dir}/ names {needle}");
            }
            let hits = files_where(dir, |text| uses_module(text, m.name));
            assert_eq!(hits, Vec::<String>::new(), "{dir}/ uses the module {}", m.name);
        }
    }
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenario/model.rs");
    let text = std::fs::read_to_string(model).unwrap();
    for needle in ["net.phantom", "LinkPhantom", "net.ecn_threshold"] {
        assert!(!text.contains(needle), "scenario/model.rs names {needle}");
    }
}

/// The bare-name rule catches a mechanism's module imported and used as `pl2::…`, and
/// leaves a transport of the same name and longer words alone.
#[test]
fn a_module_is_caught_by_its_bare_name_only() {
    assert!(uses_module("use crate::net::{pl2, topology};\nlet a = pl2::TorAgent::new();", "pl2"));
    assert!(uses_module("pl2::MECHANISM", "pl2"));
    assert!(!uses_module("use crate::transport::pl2::Pl2;", "pl2"));
    assert!(!uses_module("let x = apl2::y; let z = pl2_ids::w;", "pl2"));
}
