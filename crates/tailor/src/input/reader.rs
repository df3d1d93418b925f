//! A reader over a TOML table that knows where it is.
//!
//! Every value is read through a `Table`, which records which keys the schema asked
//! for; `finish` then rejects any other key, naming the accepted ones. Errors carry the
//! file and the full key path (`class[1].arrival.sigma`) as data, like pydantic's `loc`.

use super::units;
use crate::sim::{Rate, Time};
use toml::Value;

pub use super::error::ScenarioError;

pub struct Table<'a> {
    file: &'a str,
    path: String,
    map: &'a toml::Table,
    asked: Vec<&'static str>,
}

/// "a string", "an integer", ...: a TOML value's kind, for error messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// A number as a person writes it: `0.5`, `1e308`, `1e-9` — never 309 digits.
pub(crate) fn num(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && a.is_finite() && !(1e-6..1e15).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

impl<'a> Table<'a> {
    pub fn root(file: &'a str, map: &'a toml::Table) -> Self {
        Table { file, path: String::new(), map, asked: Vec::new() }
    }

    /// The file it was read from.
    pub fn file_name(&self) -> &'a str {
        self.file
    }

    pub fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    pub fn error(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError { file: self.file.to_string(), path: self.path_of(key), message: message.into() }
    }

    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// Counts `key` among the keys this table accepts (an error's "accepted keys here")
    /// without reading it: a key whose reader runs only when the key is present.
    pub fn accepts(&mut self, key: &'static str) {
        self.asked.push(key);
    }

    /// The raw value of a key, without reading it (for keys of more than one form).
    pub fn peek(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// The raw value of an optional key, converted by `f` (errors are located at it).
    pub fn get<T>(
        &mut self,
        key: &'static str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Result<Option<T>, ScenarioError> {
        self.asked.push(key);
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => f(v).map(Some).map_err(|m| self.error(key, m)),
        }
    }

    pub fn req<T>(
        &mut self,
        key: &'static str,
        what: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Result<T, ScenarioError> {
        self.get(key, f)?.ok_or_else(|| self.error(key, format!("missing; accepted: {what}")))
    }

    pub fn string(&mut self, key: &'static str) -> Result<Option<String>, ScenarioError> {
        self.get(key, |v| {
            v.as_str().map(str::to_string).ok_or_else(|| format!("is {}; accepted: a string", type_name(v)))
        })
    }

    /// A string that must be one of `choices`.
    pub fn choice(&mut self, key: &'static str, choices: &[&str]) -> Result<Option<String>, ScenarioError> {
        let list = choices.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
        self.get(key, |v| match v.as_str() {
            Some(s) if choices.contains(&s) => Ok(s.to_string()),
            Some(s) => Err(format!("unknown value \"{s}\"; accepted: {list}")),
            None => Err(format!("is {}; accepted: {list}", type_name(v))),
        })
    }

    pub fn int(&mut self, key: &'static str, min: i64, max: i64) -> Result<Option<i64>, ScenarioError> {
        self.get(key, |v| match v.as_integer() {
            Some(i) if (min..=max).contains(&i) => Ok(i),
            Some(i) => Err(format!("{i} is out of range; accepted: {min} to {max}")),
            None => Err(format!("is {}; accepted: an integer from {min} to {max}", type_name(v))),
        })
    }

    pub fn float(&mut self, key: &'static str, min: f64, max: f64) -> Result<Option<f64>, ScenarioError> {
        self.get(key, |v| {
            let x = match v {
                Value::Float(f) => *f,
                Value::Integer(i) => *i as f64,
                _ => return Err(format!("is {}; accepted: a number from {} to {}", type_name(v), num(min), num(max))),
            };
            if x.is_finite() && x >= min && x <= max {
                Ok(x)
            } else {
                Err(format!("{} is out of range; accepted: {} to {}", num(x), num(min), num(max)))
            }
        })
    }

    pub fn boolean(&mut self, key: &'static str) -> Result<Option<bool>, ScenarioError> {
        self.get(key, |v| v.as_bool().ok_or_else(|| format!("is {}; accepted: true or false", type_name(v))))
    }

    fn unit<T>(v: &Value, parse: fn(&str) -> Result<T, String>, example: &str) -> Result<T, String> {
        match v.as_str() {
            Some(s) => parse(s),
            None => Err(format!("is {}; accepted: a string with a unit such as \"{example}\"", type_name(v))),
        }
    }

    pub fn rate(&mut self, key: &'static str) -> Result<Option<Rate>, ScenarioError> {
        self.get(key, |v| Self::unit(v, units::parse_rate, "100Gbps"))
    }
    pub fn time(&mut self, key: &'static str) -> Result<Option<Time>, ScenarioError> {
        self.get(key, |v| Self::unit(v, units::parse_time, "2.5us"))
    }
    pub fn size(&mut self, key: &'static str) -> Result<Option<u64>, ScenarioError> {
        self.get(key, |v| Self::unit(v, units::parse_size, "100KB"))
    }

    pub fn table(&mut self, key: &'static str) -> Result<Option<Table<'a>>, ScenarioError> {
        self.asked.push(key);
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::Table(t)) => {
                Ok(Some(Table { file: self.file, path: self.path_of(key), map: t, asked: Vec::new() }))
            }
            Some(v) => Err(self.error(key, format!("is {}; accepted: a table", type_name(v)))),
        }
    }

    /// An array of tables (`[[class]]`), each with its indexed path.
    pub fn tables(&mut self, key: &'static str) -> Result<Vec<Table<'a>>, ScenarioError> {
        self.asked.push(key);
        let Some(v) = self.map.get(key) else { return Ok(Vec::new()) };
        let Value::Array(items) = v else {
            return Err(self.error(key, format!("is {}; accepted: an array of tables ([[{key}]])", type_name(v))));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, it)| match it {
                Value::Table(t) => Ok(Table {
                    file: self.file,
                    path: format!("{}[{i}]", self.path_of(key)),
                    map: t,
                    asked: Vec::new(),
                }),
                other => Err(self.error(key, format!("element {i} is {}; accepted: a table", type_name(other)))),
            })
            .collect()
    }

    /// Rejects keys the schema did not ask for.
    /// The keys read so far (what `finish` accepts).
    pub fn asked(&self) -> &[&'static str] {
        &self.asked
    }

    pub fn finish(self) -> Result<(), ScenarioError> {
        for k in self.map.keys() {
            if !self.asked.contains(&k.as_str()) {
                let mut accepted = self.asked.clone();
                accepted.sort_unstable();
                accepted.dedup();
                return Err(self.error(k, format!("unknown key; accepted keys here: {}", accepted.join(", "))));
            }
        }
        Ok(())
    }
}
