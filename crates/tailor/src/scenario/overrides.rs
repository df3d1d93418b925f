//! Changing a scenario's keys before it is read: `tailor sweep --set`, `Scenario.with_`.
//!
//! An override names a key by its dotted path, with indices for arrays of tables, the
//! same path errors use (`switch.scheduler`, `class[1].load`, `topology.link.rate`).
//! Overrides are applied to the TOML document, not to the parsed scenario, so the
//! strict reader then checks an overridden value exactly as it checks one written in
//! the file: an unknown key or a bad value is a [`ScenarioError`] at that path.
//!
//! One key is derived rather than written: `load`, the scenario's total offered load.
//! It scales every class's `load` by the same factor so that they sum to the value,
//! keeping the classes' proportions (the x axis of a "p99 vs load" figure).

use super::classes::MAX_LOAD;
use super::reader::{num, type_name, ScenarioError};
use toml::Value;

/// One key set to one value.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    pub key: String,
    pub value: Value,
}

/// One step of a key path: a table key, optionally indexing an array of tables.
#[derive(Debug, PartialEq)]
struct Step<'k> {
    key: &'k str,
    index: Option<usize>,
}

fn steps<'k>(path: &'k str) -> Result<Vec<Step<'k>>, String> {
    if path.is_empty() {
        return Err("empty key; accepted: a dotted key path such as class[0].load".into());
    }
    path.split('.')
        .map(|part| {
            let (key, index) = match part.split_once('[') {
                None => (part, None),
                Some((key, rest)) => {
                    let digits =
                        rest.strip_suffix(']').ok_or_else(|| format!("\"{part}\" is not a key or key[index]"))?;
                    let i =
                        digits.parse::<usize>().map_err(|_| format!("\"{digits}\" in \"{part}\" is not an index"))?;
                    (key, Some(i))
                }
            };
            let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if bare {
                Ok(Step { key, index })
            } else {
                Err(format!("\"{part}\" is not a key; accepted: letters, digits, _ and -, or key[index]"))
            }
        })
        .collect()
}

/// Applies `overrides` in order to the document of `file`.
pub fn apply(doc: &mut toml::Table, file: &str, overrides: &[Override]) -> Result<(), ScenarioError> {
    for o in overrides {
        let err = |message: String| ScenarioError { file: file.to_string(), path: o.key.clone(), message };
        if o.key == "load" && !doc.contains_key("load") {
            total_load(doc, &o.value).map_err(err)?;
        } else {
            set(doc, &o.key, o.value.clone()).map_err(err)?;
        }
    }
    Ok(())
}

/// Sets one key, creating the tables on its way (an index must name an existing
/// element: a new class cannot be made by an override).
fn set(doc: &mut toml::Table, path: &str, value: Value) -> Result<(), String> {
    let steps = steps(path)?;
    let (last, way) = steps.split_last().expect("steps() is never empty");
    let mut table = doc;
    let mut at = String::new();
    for s in way {
        at = if at.is_empty() { s.key.to_string() } else { format!("{at}.{}", s.key) };
        let entry = table.entry(s.key.to_string()).or_insert_with(|| match s.index {
            None => Value::Table(toml::Table::new()),
            Some(_) => Value::Array(Vec::new()),
        });
        table = descend(entry, s, &mut at)?;
    }
    match last.index {
        None => {
            table.insert(last.key.to_string(), value);
        }
        Some(i) => {
            let Some(Value::Array(items)) = table.get_mut(last.key) else {
                return Err(format!(
                    "\"{}\" is not an array here; accepted: key[index] on an array of tables",
                    last.key
                ));
            };
            let n = items.len();
            let slot = items.get_mut(i).ok_or_else(|| out_of_range(last.key, i, n))?;
            *slot = value;
        }
    }
    Ok(())
}

fn descend<'d>(entry: &'d mut Value, s: &Step<'_>, at: &mut String) -> Result<&'d mut toml::Table, String> {
    let found = type_name(entry);
    match (entry, s.index) {
        (Value::Table(t), None) => Ok(t),
        (Value::Array(items), Some(i)) => {
            let n = items.len();
            at.push_str(&format!("[{i}]"));
            match items.get_mut(i) {
                Some(Value::Table(t)) => Ok(t),
                Some(other) => {
                    Err(format!("{at} is {}, not a table; accepted: a path through tables", type_name(other)))
                }
                None => Err(out_of_range(s.key, i, n)),
            }
        }
        (_, None) => Err(format!("{at} is {found}, not a table; accepted: a path through tables")),
        (_, Some(_)) => {
            Err(format!("{at} is {found}, not an array of tables; accepted: key[index] on an array of tables"))
        }
    }
}

fn out_of_range(key: &str, i: usize, n: usize) -> String {
    match n {
        0 => format!("index {i}, but the scenario has no [[{key}]]"),
        _ => format!("index {i}, but the scenario has {n} [[{key}]] (accepted indices 0 to {})", n - 1),
    }
}

/// `load = x`: every class's `load` times the same factor, so that they sum to x.
/// Errors speak of x, the value typed, and of the largest total the classes allow (each
/// class's load is at most [`MAX_LOAD`]), not of the class loads it would derive.
fn total_load(doc: &mut toml::Table, value: &Value) -> Result<(), String> {
    let target = match value {
        Value::Float(f) => *f,
        Value::Integer(i) => *i as f64,
        other => return Err(format!("is {}; accepted: the total offered load, a number above 0", type_name(other))),
    };
    let Some(Value::Array(classes)) = doc.get_mut("class") else {
        return Err("the scenario has no [[class]] to load; accepted: a scenario with generated classes".into());
    };
    let loads = class_loads(classes)?;
    let sum: f64 = loads.iter().sum();
    let top = loads.iter().copied().fold(0.0, f64::max);
    if sum <= 0.0 {
        return Err("the classes' loads sum to 0; accepted: class[i].load of each class instead".into());
    }
    let most = sum / top * MAX_LOAD;
    if !(target.is_finite() && target > 0.0 && target <= most) {
        return Err(format!(
            "{} is out of range; accepted: a total offered load above 0 and at most {} (the classes keep their proportions and each class's load is at most {})",
            num(target),
            num(most),
            num(MAX_LOAD)
        ));
    }
    for (c, l) in classes.iter_mut().zip(loads) {
        if let Value::Table(t) = c {
            // At the bound, rounding must not push the largest class past MAX_LOAD.
            t.insert("load".into(), Value::Float((l * target / sum).min(MAX_LOAD)));
        }
    }
    Ok(())
}

/// Each class's `load`, in order; an error names a class that has none.
fn class_loads(classes: &[Value]) -> Result<Vec<f64>, String> {
    classes
        .iter()
        .enumerate()
        .map(|(i, c)| match c.get("load") {
            Some(Value::Float(f)) => Ok(*f),
            Some(Value::Integer(n)) => Ok(*n as f64),
            Some(other) => Err(format!("class[{i}].load is {}, not a number; accepted: a number", type_name(other))),
            None => Err(format!(
                "class[{i}] has no load (a trace or a fixed rate); accepted: class[i].load of each class instead"
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    fn ov(key: &str, value: Value) -> Override {
        Override { key: key.into(), value }
    }

    #[test]
    fn sets_nested_and_indexed_keys_creating_tables() {
        let mut d = doc("[topology]\nlink = { rate = \"10Gbps\" }\n[[class]]\nload = 0.5\n[[class]]\nload = 0.1\n");
        apply(
            &mut d,
            "f.toml",
            &[
                ov("topology.link.rate", Value::String("25Gbps".into())),
                ov("class[1].load", Value::Float(0.2)),
                ov("switch.scheduler", Value::String("drr".into())),
            ],
        )
        .unwrap();
        assert_eq!(d["topology"]["link"]["rate"].as_str(), Some("25Gbps"));
        assert_eq!(d["class"][1]["load"].as_float(), Some(0.2));
        assert_eq!(d["class"][0]["load"].as_float(), Some(0.5));
        assert_eq!(d["switch"]["scheduler"].as_str(), Some("drr"));
    }

    #[test]
    fn total_load_keeps_the_classes_proportions() {
        let mut d = doc("[[class]]\nload = 0.3\n[[class]]\nload = 0.1\n");
        apply(&mut d, "f.toml", &[ov("load", Value::Float(0.8))]).unwrap();
        let l0 = d["class"][0]["load"].as_float().unwrap();
        let l1 = d["class"][1]["load"].as_float().unwrap();
        assert!((l0 - 0.6).abs() < 1e-12 && (l1 - 0.2).abs() < 1e-12, "{l0} {l1}");
    }

    #[test]
    fn errors_name_the_key_and_what_is_accepted() {
        let mut d = doc("seed = 1\n[[class]]\nload = 0.3\n");
        let e = apply(&mut d, "f.toml", &[ov("class[2].load", Value::Float(0.1))]).unwrap_err();
        assert_eq!((e.file.as_str(), e.path.as_str()), ("f.toml", "class[2].load"));
        assert!(e.message.contains("accepted indices 0 to 0"), "{}", e.message);
        let e = apply(&mut d, "f.toml", &[ov("seed.x", Value::Integer(1))]).unwrap_err();
        assert!(e.message.contains("seed is an integer, not a table"), "{}", e.message);
        let e = apply(&mut d, "f.toml", &[ov("class.load", Value::Integer(1))]).unwrap_err();
        assert!(e.message.contains("not a table"), "{}", e.message);
        let e = apply(&mut d, "f.toml", &[ov("a..b", Value::Integer(1))]).unwrap_err();
        assert!(e.message.contains("is not a key"), "{}", e.message);
        let e = apply(&mut d, "f.toml", &[ov("load", Value::String("high".into()))]).unwrap_err();
        assert!(e.message.contains("total offered load"), "{}", e.message);
        let mut t = doc("[[class]]\ntrace = \"x.csv\"\n");
        let e = apply(&mut t, "f.toml", &[ov("load", Value::Float(0.5))]).unwrap_err();
        assert!(e.message.contains("class[0] has no load"), "{}", e.message);
    }
}
