//! Replay of a message trace: a CSV file, one message per row, read as the run advances.
//!
//! Columns are found by header name: `flow_id`, `sender`, `size_bytes`, `start_ns` are
//! required (the ns-3 anchor's `workload.csv`, whose rows all go to one receiver);
//! `receiver` and `class` are optional. Any other column, or a column named twice, is
//! refused at line 1 (a misspelled `reciever` would otherwise send every row to the
//! default receiver). Without a `receiver` column every row goes to the default receiver. With a `class` column only
//! the rows of this class are yielded, so several classes can replay one file.
//!
//! Every row, of any class, is validated by one reader, [`Rows`], for the replay and for
//! [`scan`] alike: integer fields, host ids below the host count, sender != receiver,
//! size >= 1 byte, and `start_ns` non-decreasing over the whole file (a trace must be
//! sorted: replay is one pass, never a sort in memory). Errors name the file, the 1-based
//! line and the column. `flow_id` is the message's `id` in the results.
//!
//! The file is read through `input::files`: a regular file of at most 64 GiB with lines
//! of at most 64 KiB, and reading stops when the thread's interrupt check says so.
//!
//! [`scan`] reads the whole file once before a run (the scenario reader calls it, so
//! `tailor check` refuses what `tailor run` would): it also refuses a `flow_id` used
//! twice — for free when the ids increase row by row, as the anchors' 0, 1, 2, … do;
//! otherwise with a second pass holding the ids (8 bytes per row) — and reports what the
//! class replays (how many rows, first and last start) so that an empty class is refused
//! before it runs.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::Path;

use crate::input::files::{self, Bounded, Stop, MAX_LINE, MAX_TRACE};

use super::{MessageSpec, Source, WorkloadError};
use crate::ids::{ClassId, HostId};
use crate::sim::Time;

const REQUIRED: [&str; 4] = ["flow_id", "sender", "size_bytes", "start_ns"];
const OPTIONAL: [&str; 2] = ["receiver", "class"];
const ACCEPTED: &str = "required: flow_id, sender, size_bytes, start_ns; optional: receiver, class; each once";

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

/// One validated row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Row {
    id: u64,
    start: Time,
    src: HostId,
    dst: HostId,
    size: u64,
}

/// Reads and validates a trace's rows, one at a time.
#[derive(Debug)]
struct Rows {
    file: String,
    reader: csv::Reader<Bounded<File>>,
    record: csv::StringRecord,
    cols: Columns,
    default_receiver: Option<HostId>,
    hosts: usize,
    last_start_ns: u64,
    line: u64,
}

impl Rows {
    fn open(path: &Path, default_receiver: Option<HostId>, hosts: usize) -> Result<Self, WorkloadError> {
        let (file, mut reader) = open_csv(path)?;
        let header = reader.headers().map_err(|e| csv_error(&file, 1, e))?.clone();
        let cols = columns(&header).map_err(|msg| row_error(&file, 1, "", msg))?;
        check_default(&cols, default_receiver, hosts)?;
        Ok(Rows {
            file,
            reader,
            record: csv::StringRecord::new(),
            cols,
            default_receiver,
            hosts,
            last_start_ns: 0,
            line: 1,
        })
    }

    /// The next row, validated; `Ok(None)` at the end of the file.
    fn next_row(&mut self) -> Result<Option<Row>, WorkloadError> {
        let more = self.reader.read_record(&mut self.record).map_err(|e| csv_error(&self.file, self.line + 1, e))?;
        if !more {
            return Ok(None);
        }
        self.line = self.record.position().map_or(self.line + 1, |p| p.line());
        self.parse_row().map(Some)
    }

    /// Whether the current row belongs to the class `name`.
    fn is_class(&self, name: &str) -> bool {
        self.cols.class.is_none_or(|c| self.record.get(c) == Some(name))
    }

    fn err(&self, column: &'static str, msg: String) -> WorkloadError {
        row_error(&self.file, self.line, column, msg)
    }

    /// A non-negative integer of at most 2^63 - 1: ids and sizes are 64-bit signed
    /// integers in messages.parquet (and in polars), as seeds are in scenarios.
    fn field(&self, col: usize, name: &'static str) -> Result<u64, WorkloadError> {
        let raw = self.record.get(col).unwrap_or("");
        raw.parse::<u64>().ok().filter(|v| i64::try_from(*v).is_ok()).ok_or_else(|| {
            self.err(name, format!("'{raw}' is not a non-negative integer; accepted: 0 to {}", i64::MAX))
        })
    }

    fn host(&self, col: usize, name: &'static str) -> Result<HostId, WorkloadError> {
        let id = self.field(col, name)?;
        if id >= self.hosts as u64 {
            let msg = format!(
                "{id} is not a host; accepted: 0 to {} (the topology has {} hosts)",
                self.hosts - 1,
                self.hosts
            );
            return Err(self.err(name, msg));
        }
        Ok(HostId::new(id as usize))
    }

    fn parse_row(&mut self) -> Result<Row, WorkloadError> {
        let id = self.field(self.cols.flow_id, "flow_id")?;
        let src = self.host(self.cols.sender, "sender")?;
        let dst = match self.cols.receiver {
            Some(c) => self.host(c, "receiver")?,
            None => self.default_receiver.expect("checked at open"),
        };
        if src == dst {
            let msg = format!(
                "sender and receiver are both host {}; accepted: a receiver other than the sender",
                src.index()
            );
            return Err(self.err(if self.cols.receiver.is_some() { "receiver" } else { "sender" }, msg));
        }
        let size = self.field(self.cols.size, "size_bytes")?;
        if size == 0 {
            return Err(self.err("size_bytes", "0 bytes; accepted: 1 or more".into()));
        }
        let start = self.start()?;
        Ok(Row { id, start, src, dst, size })
    }

    fn start(&mut self) -> Result<Time, WorkloadError> {
        let ns = self.field(self.cols.start, "start_ns")?;
        if ns < self.last_start_ns {
            let msg = format!(
                "{ns} is before the previous row's {}; accepted: {} or later (a trace is sorted by start_ns)",
                self.last_start_ns, self.last_start_ns
            );
            return Err(self.err("start_ns", msg));
        }
        self.last_start_ns = ns;
        let ps = ns.checked_mul(1_000).ok_or_else(|| {
            self.err("start_ns", format!("{ns} overflows the picosecond clock; accepted: up to {}", u64::MAX / 1_000))
        })?;
        Ok(Time::from_ps(ps))
    }
}

/// A [`Source`] replaying the rows of one class of a trace file.
#[derive(Debug)]
pub struct Trace {
    rows: Rows,
    class_name: String,
    class: ClassId,
}

impl Trace {
    pub fn open(
        path: &Path,
        class_name: &str,
        class: ClassId,
        default_receiver: Option<HostId>,
        hosts: usize,
    ) -> Result<Self, WorkloadError> {
        let rows = Rows::open(path, default_receiver, hosts)?;
        Ok(Trace { rows, class_name: class_name.to_string(), class })
    }
}

impl Source for Trace {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        while let Some(r) = self.rows.next_row()? {
            if self.rows.is_class(&self.class_name) {
                let Row { id, start, src, dst, size } = r;
                return Ok(Some(MessageSpec {
                    id: Some(id),
                    start,
                    src,
                    dst,
                    size,
                    class: self.class,
                    response: None,
                    channel: None,
                }));
            }
        }
        Ok(None)
    }
}

/// What one class replays from a trace: its rows, and the first and last start among them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Rows in the file, of any class.
    pub file_rows: u64,
    /// Rows of the class.
    pub rows: u64,
    pub first_start: Option<Time>,
    pub last_start: Option<Time>,
    /// The hosts the class's rows send from and to (the fast model's scope needs them;
    /// at most the topology's hosts each).
    pub senders: BTreeSet<usize>,
    pub receivers: BTreeSet<usize>,
}

/// Reads and validates every row of the trace at `path` as the replay of class
/// `class_name` would, and refuses a `flow_id` used twice (naming both lines); returns
/// what the class replays. The file is streamed: while the ids increase from row to row
/// (as the anchors' 0, 1, 2, … do) no id is kept; otherwise the ids are read again into
/// one sorted vector (8 bytes per row) to find a repeated one.
pub fn scan(
    path: &Path,
    class_name: &str,
    default_receiver: Option<HostId>,
    hosts: usize,
) -> Result<Scan, WorkloadError> {
    let mut rows = Rows::open(path, default_receiver, hosts)?;
    let mut out = Scan::default();
    let (mut last_id, mut increasing) = (None, true);
    while let Some(r) = rows.next_row()? {
        increasing &= last_id.is_none_or(|l| r.id > l);
        last_id = Some(r.id);
        out.file_rows += 1;
        if rows.is_class(class_name) {
            out.rows += 1;
            out.first_start.get_or_insert(r.start);
            out.last_start = Some(r.start);
            out.senders.insert(r.src.index());
            out.receivers.insert(r.dst.index());
        }
    }
    if !increasing {
        refuse_repeated_ids(path, rows.cols.flow_id)?;
    }
    Ok(out)
}

/// Refuses a `flow_id` that appears twice, at the line of its second appearance.
fn refuse_repeated_ids(path: &Path, col: usize) -> Result<(), WorkloadError> {
    let mut ids = Vec::new();
    for_each_id(path, col, |id, _| {
        ids.push(id);
        true
    })?;
    ids.sort_unstable();
    let Some(id) = ids.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]) else { return Ok(()) };
    drop(ids);
    let mut lines = Vec::with_capacity(2);
    for_each_id(path, col, |seen, line| {
        if seen == id {
            lines.push(line);
        }
        lines.len() < 2
    })?;
    let (first, again) = (lines[0], lines[1]);
    let msg = format!("{id} repeats line {first}'s; accepted: a distinct flow_id on every row");
    Err(row_error(&path.display().to_string(), again, "flow_id", msg))
}

/// Calls `f(id, line)` for each row's `flow_id` (rows already validated) until it
/// returns false.
fn for_each_id(path: &Path, col: usize, mut f: impl FnMut(u64, u64) -> bool) -> Result<(), WorkloadError> {
    let (file, mut reader) = open_csv(path)?;
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(|e| csv_error(&file, 0, e))? {
        let id = record.get(col).and_then(|v| v.parse::<u64>().ok());
        let line = record.position().map_or(0, |p| p.line());
        if let Some(id) = id {
            if !f(id, line) {
                break;
            }
        }
    }
    Ok(())
}

/// The trace at `path` as a CSV reader over its bounded bytes, and its name for errors.
fn open_csv(path: &Path) -> Result<(String, csv::Reader<Bounded<File>>), WorkloadError> {
    let handle = files::open(path, MAX_TRACE, Some(MAX_LINE)).map_err(|e| WorkloadError::Refused(e.to_string()))?;
    Ok((path.display().to_string(), csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(handle)))
}

/// Where each column is; an unknown or repeated column is refused, as an unknown key
/// of a scenario is.
fn columns(header: &csv::StringRecord) -> Result<Columns, String> {
    for (i, h) in header.iter().enumerate() {
        if !REQUIRED.contains(&h) && !OPTIONAL.contains(&h) {
            return Err(format!("unknown column '{h}' (column {}); accepted: {ACCEPTED}", i + 1));
        }
        if let Some(first) = header.iter().position(|o| o == h).filter(|&first| first < i) {
            return Err(format!(
                "column '{h}' appears twice (columns {} and {}); accepted: {ACCEPTED}",
                first + 1,
                i + 1
            ));
        }
    }
    let find = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| find(name).ok_or_else(|| format!("missing column '{name}'; accepted: {ACCEPTED}"));
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

fn check_default(cols: &Columns, receiver: Option<HostId>, hosts: usize) -> Result<(), WorkloadError> {
    let key = |msg: String| WorkloadError::Spec { key: "receiver".into(), msg };
    match (cols.receiver, receiver) {
        (None, None) => Err(key(
            "missing; the trace has no 'receiver' column, so the class needs one; accepted: a host index, or a 'receiver' column in the trace".into(),
        )),
        (_, Some(r)) if r.index() >= hosts => Err(key(format!(
            "host {} does not exist; accepted: 0 to {} (the topology has {hosts} hosts)",
            r.index(),
            hosts - 1
        ))),
        _ => Ok(()),
    }
}

fn row_error(file: &str, line: u64, column: &'static str, msg: String) -> WorkloadError {
    WorkloadError::Trace { file: file.to_string(), line, column, msg }
}

/// A CSV-level error (I/O, ragged row, invalid UTF-8), at its own line when it knows it.
fn csv_error(file: &str, line: u64, e: csv::Error) -> WorkloadError {
    let line = e.position().map_or(line, |p| p.line());
    let msg = match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("{len} fields; accepted: {expected_len}, one per column of the header")
        }
        csv::ErrorKind::Io(_) => match e.into_kind() {
            csv::ErrorKind::Io(source) => return io_error(file, source),
            _ => unreachable!("matched Io above"),
        },
        _ => e.to_string(),
    };
    row_error(file, line, "", msg)
}

/// An I/O error while reading: a bound the file broke is located like a bad row.
fn io_error(file: &str, source: std::io::Error) -> WorkloadError {
    match files::stop_of(&source) {
        Some(Stop::LineTooLong { line, max }) => row_error(
            file,
            *line,
            "",
            format!("is longer than {} KiB; accepted: rows of at most {max} bytes", max / 1024),
        ),
        Some(Stop::TooLarge { max }) => WorkloadError::Refused(format!(
            "{file}: grew past {} GiB while it was read; accepted: a trace of at most {} GiB",
            max >> 30,
            max >> 30
        )),
        _ => WorkloadError::Io { file: file.to_string(), source },
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
        let res = Trace::open(&path, "web", ClassId::new(0), default, 4).and_then(|mut t| all(&mut t));
        match res {
            Err(WorkloadError::Trace { line, msg, .. }) => (line, msg),
            other => panic!("expected a Trace error, got {other:?}"),
        }
    }

    #[test]
    fn reads_the_anchor_format_with_a_default_receiver() {
        let dir = tempfile::tempdir().unwrap();
        let path =
            write(&dir, "flow_id,sender,size_bytes,start_ns\n0,1,1000,1000000\n1,3,5, 1000000\n2,2,70000,1000250\n");
        let mut t = Trace::open(&path, "any", ClassId::new(2), Some(HostId::new(0)), 4).unwrap();
        let m = all(&mut t).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(
            m[0],
            MessageSpec {
                id: Some(0),
                start: Time::from_ms(1),
                src: HostId::new(1),
                dst: HostId::new(0),
                size: 1000,
                class: ClassId::new(2),
                response: None,
                channel: None,
            }
        );
        assert_eq!(m[2].start, Time::from_ns(1_000_250));
    }

    #[test]
    fn filters_by_class() {
        let dir = tempfile::tempdir().unwrap();
        let text =
            "start_ns,class,sender,receiver,size_bytes,flow_id\n10,web,0,1,100,0\n20,bg,1,2,200,1\n30,web,2,3,300,2\n";
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
        assert_eq!(error_line(&format!("{head}0,0,1,10,100\n1,0,4,10,100\n"), None).0, 3); // host out of range
        assert_eq!(error_line(&format!("{head}0,2,2,10,100\n"), None).0, 2); // sender == receiver
        assert_eq!(error_line(&format!("{head}0,0,1,0,100\n"), None).0, 2); // size 0
        assert_eq!(error_line(&format!("{head}0,0,1,1.5,100\n"), None).0, 2); // non-integer
        assert_eq!(error_line(&format!("{head}0,0,1,10\n"), None).0, 2); // ragged row
                                                                         // An id beyond 2^63 - 1 would wrap to a negative id in messages.parquet.
        let (line, msg) = error_line(&format!("{head}9223372036854775808,0,1,10,100\n"), None);
        assert!(line == 2 && msg.contains("9223372036854775807"), "{msg}");
        let (line, msg) = error_line("flow_id,sender,size\n", Some(HostId::new(0)));
        assert_eq!(line, 1);
        assert!(msg.contains("size_bytes") && msg.contains("optional: receiver, class"), "{msg}");
    }

    #[test]
    fn receiver_is_required_somewhere() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "flow_id,sender,size_bytes,start_ns\n");
        let e = Trace::open(&path, "web", ClassId::new(0), None, 4).unwrap_err();
        assert!(e.to_string().contains("receiver"), "{e}");
        assert!(Trace::open(&path, "web", ClassId::new(0), Some(HostId::new(4)), 4).is_err());
        let missing = Trace::open(&dir.path().join("nope.csv"), "web", ClassId::new(0), None, 4).unwrap_err();
        assert!(
            matches!(&missing, WorkloadError::Refused(m) if m.contains("nope.csv: cannot read") && m.contains("; accepted: a readable regular file")),
            "{missing}"
        );
    }

    #[test]
    fn the_trace_flow_id_is_the_message_id() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "flow_id,sender,size_bytes,start_ns\n70,1,1000,10\n3,2,10,20\n");
        let mut t = Trace::open(&path, "any", ClassId::new(0), Some(HostId::new(0)), 4).unwrap();
        let ids: Vec<Option<u64>> = all(&mut t).unwrap().iter().map(|m| m.id).collect();
        assert_eq!(ids, vec![Some(70), Some(3)]);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,100\n1,0,1,10,99\n");
        let e = scan(&path, "web", None, 4).unwrap_err().to_string();
        let want = format!(
            "{}: line 3, start_ns: 99 is before the previous row's 100; accepted: 100 or later",
            path.display()
        );
        assert!(e.starts_with(&want), "{e}");
        let (_, msg) = error_line("flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10,-5\n", None);
        assert!(msg.contains("'-5' is not a non-negative integer"), "{msg}");
    }

    #[test]
    fn scan_validates_every_row_and_refuses_duplicate_ids() {
        let dir = tempfile::tempdir().unwrap();
        let head = "flow_id,class,sender,receiver,size_bytes,start_ns\n";
        let path = write(&dir, &format!("{head}5,web,0,1,10,100\n6,bg,1,2,10,200\n7,web,2,3,10,300\n"));
        let s = scan(&path, "web", None, 4).unwrap();
        assert_eq!(
            (s.file_rows, s.rows, s.first_start, s.last_start),
            (3, 2, Some(Time::from_ns(100)), Some(Time::from_ns(300)))
        );
        assert_eq!(scan(&path, "none", None, 4).unwrap().rows, 0);
        // A bad row of another class is still an error, as it is for the replay.
        let path = write(&dir, &format!("{head}5,web,0,1,10,100\n6,bg,1,1,10,200\n"));
        let e = scan(&path, "web", None, 4).unwrap_err().to_string();
        assert!(e.contains("line 3, receiver: sender and receiver are both host 1"), "{e}");
        let path = write(&dir, &format!("{head}5,web,0,1,10,100\n6,bg,1,2,10,200\n5,web,2,3,10,300\n"));
        let e = scan(&path, "web", None, 4).unwrap_err().to_string();
        assert!(e.contains("line 4, flow_id: 5 repeats line 2's; accepted: a distinct flow_id on every row"), "{e}");
        // Ids need not be sorted, only distinct.
        let path = write(&dir, &format!("{head}9,web,0,1,10,100\n2,bg,1,2,10,200\n4,web,2,3,10,300\n"));
        assert_eq!(scan(&path, "web", None, 4).unwrap().rows, 2);
    }
}
