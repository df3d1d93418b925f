//! Named counters a run reports (`summary.json`'s `transport_counters` and
//! `network.agents`): summed across the endpoints or switch agents that add them.

/// Named counters, summed across endpoints (or agents), in the order first added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters(Vec<(&'static str, u64)>);

impl Counters {
    pub fn add(&mut self, name: &'static str, value: u64) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v += value,
            None => self.0.push((name, value)),
        }
    }
    /// Keeps the largest value given under `name` (a maximum, not a sum, across the
    /// endpoints or agents that report it).
    pub fn max(&mut self, name: &'static str, value: u64) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => *v = (*v).max(value),
            None => self.0.push((name, value)),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.0.iter().copied()
    }
}

impl serde::Serialize for Counters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}
