//! Replay of a message trace: a CSV file, one message per row, read as the run advances.
//!
//! Columns are found by header name: `flow_id`, `sender`, `size_bytes`, `start_ns` are
//! required (the ns-3 anchor's `workload.csv`, whose rows all go to one receiver);
//! `receiver` and `class` are optional, and other columns are ignored. Without a
//! `receiver` column every row goes to the default receiver. With a `class` column only
//! the rows of this class are yielded, so several classes can replay one file.
//!
//! Every row, of any class, is validated: integer fields, host ids below the host count,
//! sender != receiver, size >= 1 byte, and `start_ns` non-decreasing over the whole file
//! (a trace must be sorted: replay is one pass, never a sort in memory). Errors name the
//! file and the 1-based line. `flow_id` is checked to be an integer but not used: tailor
//! numbers messages itself.

use std::fs::File;
use std::path::Path;

use super::{MessageSpec, Source, WorkloadError};
use crate::net::ids::{ClassId, HostId};
use crate::sim::Time;

const REQUIRED: [&str; 4] = ["flow_id", "sender", "size_bytes", "start_ns"];
const ACCEPTED: &str = "required: flow_id, sender, size_bytes, start_ns; optional: receiver, class";

/// Column positions in the header.
#[derive(Copy, Clone, Debug)]
struct Columns {
    flow_id: usize,
    sender: usize,
    size: usize,
    start: usize,
    receiver: Option<usize>,
    class: Option<usize>,
}

/// A [`Source`] replaying the rows of one class of a trace file.
#[derive(Debug)]
pub struct Trace {
    file: String,
    reader: csv::Reader<File>,
    record: csv::StringRecord,
    cols: Columns,
    class_name: String,
    class: ClassId,
    default_receiver: Option<HostId>,
    hosts: usize,
    last_start_ns: u64,
    last_line: u64,
}

impl Trace {
    pub fn open(
        path: &Path,
        class_name: &str,
        class: ClassId,
        default_receiver: Option<HostId>,
        hosts: usize,
    ) -> Result<Self, WorkloadError> {
        let file = path.display().to_string();
        let handle = File::open(path).map_err(|source| WorkloadError::Io {
            file: file.clone(),
            source,
        })?;
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(handle);
        let header = reader
            .headers()
            .map_err(|e| csv_error(&file, 1, e))?
            .clone();
        let cols = columns(&header).map_err(|msg| WorkloadError::Trace {
            file: file.clone(),
            line: 1,
            msg,
        })?;
        check_default(&file, &cols, default_receiver, hosts)?;
        Ok(Trace {
            file,
            reader,
            record: csv::StringRecord::new(),
            cols,
            class_name: class_name.to_string(),
            class,
            default_receiver,
            hosts,
            last_start_ns: 0,
            last_line: 1,
        })
    }

    fn err(&self, msg: String) -> WorkloadError {
        WorkloadError::Trace {
            file: self.file.clone(),
            line: self.last_line,
            msg,
        }
    }

    fn field(&self, col: usize, name: &str) -> Result<u64, WorkloadError> {
        let raw = self.record.get(col).unwrap_or("");
        raw.parse::<u64>()
            .map_err(|_| self.err(format!("{name} '{raw}' is not a non-negative integer")))
    }

    fn host(&self, col: usize, name: &str) -> Result<HostId, WorkloadError> {
        let id = self.field(col, name)?;
        if id >= self.hosts as u64 {
            return Err(self.err(format!(
                "{name} {id} is not a host (the topology has {} hosts)",
                self.hosts
            )));
        }
        Ok(HostId::new(id as usize))
    }

    /// Validate the current record; `None` if it belongs to another class.
    fn parse_row(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        self.field(self.cols.flow_id, "flow_id")?;
        let src = self.host(self.cols.sender, "sender")?;
        let dst = match self.cols.receiver {
            Some(c) => self.host(c, "receiver")?,
            None => self.default_receiver.expect("checked at open"),
        };
        if src == dst {
            return Err(self.err(format!("sender and receiver are both host {}", src.index())));
        }
        let size = self.field(self.cols.size, "size_bytes")?;
        if size == 0 {
            return Err(self.err("size_bytes must be at least 1".into()));
        }
        let start = self.start()?;
        let ours = self
            .cols
            .class
            .is_none_or(|c| self.record.get(c) == Some(self.class_name.as_str()));
        Ok(ours.then_some(MessageSpec {
            start,
            src,
            dst,
            size,
            class: self.class,
        }))
    }

    fn start(&mut self) -> Result<Time, WorkloadError> {
        let ns = self.field(self.cols.start, "start_ns")?;
        if ns < self.last_start_ns {
            let msg = format!(
                "start_ns {ns} is before the previous row's {} (traces must be sorted by start_ns)",
                self.last_start_ns
            );
            return Err(self.err(msg));
        }
        self.last_start_ns = ns;
        let ps = ns
            .checked_mul(1_000)
            .ok_or_else(|| self.err(format!("start_ns {ns} overflows the picosecond clock")))?;
        Ok(Time::from_ps(ps))
    }
}

impl Source for Trace {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        loop {
            let more = self
                .reader
                .read_record(&mut self.record)
                .map_err(|e| csv_error(&self.file, self.last_line + 1, e))?;
            if !more {
                return Ok(None);
            }
            self.last_line = self
                .record
                .position()
                .map_or(self.last_line + 1, |p| p.line());
            if let Some(m) = self.parse_row()? {
                return Ok(Some(m));
            }
        }
    }
}

fn columns(header: &csv::StringRecord) -> Result<Columns, String> {
    let find = |name: &str| header.iter().position(|h| h == name);
    let need =
        |name: &str| find(name).ok_or_else(|| format!("missing column '{name}' ({ACCEPTED})"));
    let [flow_id, sender, size, start] = REQUIRED.map(need);
    Ok(Columns {
        flow_id: flow_id?,
        sender: sender?,
        size: size?,
        start: start?,
        receiver: find("receiver"),
        class: find("class"),
    })
}

fn check_default(
    file: &str,
    cols: &Columns,
    receiver: Option<HostId>,
    hosts: usize,
) -> Result<(), WorkloadError> {
    let key = |msg: String| WorkloadError::Spec {
        key: format!("trace {file}: receiver"),
        msg,
    };
    match (cols.receiver, receiver) {
        (None, None) => Err(key(
            "the trace has no 'receiver' column and no default receiver is given".into(),
        )),
        (_, Some(r)) if r.index() >= hosts => Err(key(format!(
            "default receiver {} is not a host (the topology has {hosts} hosts)",
            r.index()
        ))),
        _ => Ok(()),
    }
}

/// A CSV-level error (I/O, ragged row, invalid UTF-8), at its own line when it knows it.
fn csv_error(file: &str, line: u64, e: csv::Error) -> WorkloadError {
    let line = e.position().map_or(line, |p| p.line());
    let msg = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} fields, found {len}"),
        csv::ErrorKind::Io(_) => match e.into_kind() {
            csv::ErrorKind::Io(source) => {
                return WorkloadError::Io {
                    file: file.to_string(),
                    source,
                }
            }
            _ => unreachable!("matched Io above"),
        },
        _ => e.to_string(),
    };
    WorkloadError::Trace {
        file: file.to_string(),
        line,
        msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, text: &str) -> std::path::PathBuf {
        let path = dir.path().join("trace.csv");
        std::fs::write(&path, text).unwrap();
        path
    }

    fn all(t: &mut Trace) -> Result<Vec<MessageSpec>, WorkloadError> {
        let mut out = Vec::new();
        while let Some(m) = t.next_message()? {
            out.push(m);
        }
        Ok(out)
    }

    fn error_line(text: &str, default: Option<HostId>) -> (u64, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, text);
        let res =
            Trace::open(&path, "web", ClassId::new(0), default, 4).and_then(|mut t| all(&mut t));
        match res {
            Err(WorkloadError::Trace { line, msg, .. }) => (line, msg),
            other => panic!("expected a Trace error, got {other:?}"),
        }
    }

    #[test]
    fn reads_the_anchor_format_with_a_default_receiver() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "flow_id,sender,size_bytes,start_ns\n0,1,1000,1000000\n1,3,5, 1000000\n2,2,70000,1000250\n");
        let mut t = Trace::open(&path, "any", ClassId::new(2), Some(HostId::new(0)), 4).unwrap();
        let m = all(&mut t).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(
            m[0],
            MessageSpec {
                start: Time::from_ms(1),
                src: HostId::new(1),
                dst: HostId::new(0),
                size: 1000,
                class: ClassId::new(2)
            }
        );
        assert_eq!(m[2].start, Time::from_ns(1_000_250));
    }

    #[test]
    fn filters_by_class() {
        let dir = tempfile::tempdir().unwrap();
        let text = "start_ns,class,sender,receiver,size_bytes,flow_id\n10,web,0,1,100,0\n20,bg,1,2,200,1\n30,web,2,3,300,2\n";
        let path = write(&dir, text);
        let mut t = Trace::open(&path, "web", ClassId::new(1), None, 4).unwrap();
        let sizes: Vec<u64> = all(&mut t).unwrap().iter().map(|m| m.size).collect();
        assert_eq!(sizes, vec![100, 300]);
    }

    #[test]
    fn errors_name_the_line() {
        let head = "flow_id,sender,receiver,size_bytes,start_ns\n";
        let (line, msg) = error_line(&format!("{head}0,0,1,10,100\n1,0,1,10,99\n"), None);
        assert_eq!(line, 3);
        assert!(msg.contains("sorted"), "{msg}");
        assert_eq!(
            error_line(&format!("{head}0,0,1,10,100\n1,0,4,10,100\n"), None).0,
            3
        ); // host out of range
        assert_eq!(error_line(&format!("{head}0,2,2,10,100\n"), None).0, 2); // sender == receiver
        assert_eq!(error_line(&format!("{head}0,0,1,0,100\n"), None).0, 2); // size 0
        assert_eq!(error_line(&format!("{head}0,0,1,1.5,100\n"), None).0, 2); // non-integer
        assert_eq!(error_line(&format!("{head}0,0,1,10\n"), None).0, 2); // ragged row
        let (line, msg) = error_line("flow_id,sender,size\n", Some(HostId::new(0)));
        assert_eq!(line, 1);
        assert!(
            msg.contains("size_bytes") && msg.contains("optional: receiver, class"),
            "{msg}"
        );
    }

    #[test]
    fn receiver_is_required_somewhere() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "flow_id,sender,size_bytes,start_ns\n");
        let e = Trace::open(&path, "web", ClassId::new(0), None, 4).unwrap_err();
        assert!(e.to_string().contains("receiver"), "{e}");
        assert!(Trace::open(&path, "web", ClassId::new(0), Some(HostId::new(4)), 4).is_err());
        let missing = Trace::open(
            &dir.path().join("nope.csv"),
            "web",
            ClassId::new(0),
            None,
            4,
        )
        .unwrap_err();
        assert!(matches!(missing, WorkloadError::Io { .. }));
    }
}
