//! Reading the files a scenario names (the scenario itself, size files, traces): regular
//! files only, within a size and a line length, and interruptible.
//!
//! `/dev/zero` or a FIFO named as a size file would otherwise be read forever into
//! memory (24 GB before the kernel killed `check`), and a file of one endless line grows
//! the CSV reader's buffer the same way; both are refused with the bound they broke
//! (docs/scenario.md, "Files"). A legal trace can still take minutes to read, so the
//! reader asks the thread's interrupt check (`with_interrupt_check`: the Python binding
//! installs one that lets Python's signal handlers run) every [`CHECK_EVERY`] bytes.

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The longest line of a size file or a trace, in bytes.
pub const MAX_LINE: u64 = 64 * 1024;
/// The largest scenario file and size file, in bytes (both are read whole).
pub const MAX_TEXT: u64 = 16 * 1024 * 1024;
/// The largest trace, in bytes (it is streamed, never held).
pub const MAX_TRACE: u64 = 64 * 1024 * 1024 * 1024;
/// Bytes read between two calls of the interrupt check.
pub const CHECK_EVERY: u64 = 1 << 20;

/// Why reading stopped early: carried inside the `io::Error` a [`Bounded`] read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// Line `line` (1-based) is longer than the bound.
    LineTooLong { line: u64, max: u64 },
    /// The file grew past its bound while it was read.
    TooLarge { max: u64 },
    /// The interrupt check said stop (a signal arrived).
    Interrupted,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::LineTooLong { line, max } => {
                write!(f, "line {line} is longer than {}; accepted: lines of at most {} bytes", bytes(*max), max)
            }
            Stop::TooLarge { max } => {
                write!(f, "is larger than {}; accepted: a file of at most {}", bytes(*max), bytes(*max))
            }
            Stop::Interrupted => write!(f, "reading was interrupted"),
        }
    }
}

impl std::error::Error for Stop {}

/// The `Stop` inside an I/O error from a [`Bounded`] read, if that is what it is.
pub fn stop_of(e: &io::Error) -> Option<&Stop> {
    e.get_ref().and_then(|inner| inner.downcast_ref::<Stop>())
}

/// "64 KiB", "16 MiB", "64 GiB".
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n.is_multiple_of(1 << 30) => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n.is_multiple_of(1 << 20) => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n.is_multiple_of(1 << 10) => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// A file that cannot be read as a scenario's input: what it is, and what is accepted.
#[derive(Debug)]
pub struct Refused {
    pub file: String,
    pub what: String,
    pub accepted: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}; accepted: {}", self.file, self.what, self.accepted)
    }
}

/// Opens `path` for reading if it is a regular file of at most `max` bytes; its lines
/// are held to `max_line` bytes when given. Special files are refused before they are
/// opened (opening a FIFO would wait for a writer).
pub fn open(path: &Path, max: u64, max_line: Option<u64>) -> Result<Bounded<File>, Refused> {
    let file = path.display().to_string();
    let refuse = |what: String| Refused {
        file: file.clone(),
        what,
        accepted: format!("a regular file of at most {}", bytes(max)),
    };
    let meta = std::fs::metadata(path).map_err(|e| Refused {
        file: file.clone(),
        what: format!("cannot read: {e}"),
        accepted: "a readable regular file".into(),
    })?;
    if !meta.is_file() {
        return Err(refuse(format!("is {}, not a regular file", kind(&meta))));
    }
    if meta.len() > max {
        return Err(refuse(format!("holds {} bytes, more than {}", meta.len(), bytes(max))));
    }
    let handle = File::open(path).map_err(|e| Refused {
        file: file.clone(),
        what: format!("cannot read: {e}"),
        accepted: "a readable regular file".into(),
    })?;
    Ok(Bounded::new(handle, max, max_line))
}

/// Reads the whole text of `path` (a regular file of at most `max` bytes).
pub fn read_text(path: &Path, max: u64, max_line: Option<u64>) -> Result<String, Refused> {
    let mut text = String::new();
    open(path, max, max_line)?.read_to_string(&mut text).map_err(|e| {
        let file = path.display().to_string();
        match stop_of(&e) {
            Some(Stop::LineTooLong { line, .. }) => Refused {
                file,
                what: format!("line {line} is longer than {}", bytes(max_line.unwrap_or(max))),
                accepted: format!("lines of at most {}", bytes(max_line.unwrap_or(max))),
            },
            Some(Stop::TooLarge { .. }) => Refused {
                file,
                what: format!("grew past {} while it was read", bytes(max)),
                accepted: format!("a regular file of at most {}", bytes(max)),
            },
            Some(Stop::Interrupted) => {
                Refused { file, what: "reading was interrupted".into(), accepted: "a file read to its end".into() }
            }
            None => Refused { file, what: format!("cannot read: {e}"), accepted: "a readable UTF-8 text file".into() },
        }
    })?;
    Ok(text)
}

/// "a character device", "a directory", …: what a special file is, for errors.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// A reader that refuses a line longer than `max_line` or more than `max` bytes in all,
/// and asks the thread's interrupt check every [`CHECK_EVERY`] bytes.
#[derive(Debug)]
pub struct Bounded<R> {
    inner: R,
    max: u64,
    max_line: Option<u64>,
    total: u64,
    /// The 1-based line being read and the bytes read of it so far.
    line: u64,
    in_line: u64,
    next_check: u64,
}

impl<R: Read> Bounded<R> {
    pub fn new(inner: R, max: u64, max_line: Option<u64>) -> Self {
        Bounded { inner, max, max_line, total: 0, line: 1, in_line: 0, next_check: CHECK_EVERY }
    }

    fn count_lines(&mut self, chunk: &[u8]) -> io::Result<()> {
        let Some(max_line) = self.max_line else { return Ok(()) };
        let mut parts = chunk.split(|&b| b == b'\n');
        if let Some(first) = parts.next() {
            self.in_line += first.len() as u64;
        }
        for part in parts {
            if self.in_line > max_line {
                break;
            }
            self.line += 1;
            self.in_line = part.len() as u64;
        }
        if self.in_line > max_line {
            return Err(io::Error::other(Stop::LineTooLong { line: self.line, max: max_line }));
        }
        Ok(())
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.total >= self.next_check {
            self.next_check = self.total + CHECK_EVERY;
            if interrupted() {
                return Err(io::Error::other(Stop::Interrupted));
            }
        }
        // One byte past the bound is enough to tell that the file is too large.
        let room = (self.max - self.total).saturating_add(1).min(buf.len() as u64) as usize;
        let n = self.inner.read(&mut buf[..room])?;
        self.total += n as u64;
        if self.total > self.max {
            return Err(io::Error::other(Stop::TooLarge { max: self.max }));
        }
        self.count_lines(&buf[..n])?;
        Ok(n)
    }
}

type Check = Box<dyn FnMut() -> bool>;

thread_local! {
    static CHECK: RefCell<Option<Check>> = const { RefCell::new(None) };
}

/// Runs `f` with `check` as this thread's interrupt check: a [`Bounded`] read that finds
/// it false fails with [`Stop::Interrupted`]. The previous check is restored after.
pub fn with_interrupt_check<T>(check: impl FnMut() -> bool + 'static, f: impl FnOnce() -> T) -> T {
    let previous = CHECK.with(|c| c.borrow_mut().replace(Box::new(check)));
    struct Restore(Option<Check>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CHECK.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    f()
}

/// Whether this thread's interrupt check says stop (never without one).
fn interrupted() -> bool {
    CHECK.with(|c| c.borrow_mut().as_mut().is_some_and(|check| !check()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all<R: Read>(mut r: R) -> Result<Vec<u8>, Stop> {
        let mut out = Vec::new();
        r.read_to_end(&mut out).map(|_| out).map_err(|e| stop_of(&e).cloned().expect("a Stop"))
    }

    #[test]
    fn lines_and_totals_are_bounded() {
        let ok = b"ab\ncd\n".as_slice();
        assert_eq!(read_all(Bounded::new(ok, 6, Some(2))).unwrap(), ok);
        assert_eq!(
            read_all(Bounded::new(b"ab\ncde\nf".as_slice(), 100, Some(2))),
            Err(Stop::LineTooLong { line: 2, max: 2 })
        );
        assert_eq!(read_all(Bounded::new(b"abc".as_slice(), 100, Some(2))), Err(Stop::LineTooLong { line: 1, max: 2 }));
        assert_eq!(read_all(Bounded::new(ok, 5, None)), Err(Stop::TooLarge { max: 5 }));
        // An endless source stops at the bound, never holding more than it.
        assert_eq!(
            read_all(Bounded::new(io::repeat(b'0'), 1 << 20, Some(MAX_LINE))),
            Err(Stop::LineTooLong { line: 1, max: MAX_LINE })
        );
        assert_eq!(
            read_all(Bounded::new(io::repeat(b'\n'), 1 << 20, Some(MAX_LINE))),
            Err(Stop::TooLarge { max: 1 << 20 })
        );
    }

    #[test]
    fn special_files_are_refused_before_they_are_read() {
        let e = open(Path::new("/dev/zero"), MAX_TEXT, Some(MAX_LINE)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: is a character device, not a regular file; accepted: a regular file of at most 16 MiB"
        );
        let dir = tempfile::tempdir().unwrap();
        assert!(open(dir.path(), MAX_TEXT, None).unwrap_err().what.contains("is a directory"));
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'\n'; 11]).unwrap();
        let e = open(&big, 10, None).unwrap_err();
        assert!(e.what.contains("holds 11 bytes, more than 10 bytes"), "{e}");
    }

    #[test]
    fn the_interrupt_check_stops_a_read_and_is_restored() {
        let mut calls = 0;
        let r = with_interrupt_check(
            move || {
                calls += 1;
                calls < 3
            },
            || read_all(Bounded::new(io::repeat(b'\n'), u64::MAX - 1, None)),
        );
        assert_eq!(r, Err(Stop::Interrupted));
        assert!(!interrupted(), "no check outside with_interrupt_check");
    }
}
