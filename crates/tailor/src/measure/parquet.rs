//! `messages.parquet`, written by the engine as messages complete.
//!
//! Records are buffered column by column and written as one row group every
//! [`ROW_GROUP`] messages, so memory is one row group (about 5 MB) plus what the writer
//! keeps for the footer: the row groups' metadata, measured at about 15 KB a row group
//! (0.25 bytes a message: +4.6 MB from 2 to 20 million messages). Converting a CSV afterwards cost the Python front 40 MB over the simulation at
//! 20,000 messages and grew with the run (docs/performance.md, "Memory").
//!
//! The columns are those of `messages.csv` (DESIGN.md, "Result format"), typed: `id`,
//! `src`, `dst`, `size_bytes` 64-bit integers, `class` a string, the times in ns and the
//! slowdown 64-bit floats. Times are exact picoseconds / 1000 (the value the CSV's three
//! decimals parse to); the slowdown keeps its full precision (the CSV rounds it to six
//! decimals).

use super::record::{MessageRecord, RecordSink};
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;
use std::io::{self, Write};
use std::sync::Arc;

/// Messages per row group: large enough that the footer stays small, small enough that
/// the buffered columns stay a few MB.
pub const ROW_GROUP: usize = 1 << 16;

const SCHEMA: &str = "message messages {
    required int64 id;
    required binary class (STRING);
    required int64 src;
    required int64 dst;
    required int64 size_bytes;
    required double start_ns;
    required double finish_ns;
    required double ideal_ns;
    required double slowdown;
}";

/// The columns of the row group being filled.
#[derive(Default)]
struct Columns {
    id: Vec<i64>,
    class: Vec<ByteArray>,
    src: Vec<i64>,
    dst: Vec<i64>,
    size: Vec<i64>,
    start: Vec<f64>,
    finish: Vec<f64>,
    ideal: Vec<f64>,
    slowdown: Vec<f64>,
}

impl Columns {
    fn push(&mut self, r: &MessageRecord, class: ByteArray) {
        self.id.push(r.id as i64);
        self.class.push(class);
        self.src.push(r.src.index() as i64);
        self.dst.push(r.dst.index() as i64);
        self.size.push(r.size as i64);
        self.start.push(ns(r.start));
        self.finish.push(ns(r.finish));
        self.ideal.push(ns(r.ideal));
        self.slowdown.push(r.slowdown());
    }

    fn len(&self) -> usize {
        self.id.len()
    }

    /// Writes column `i` (schema order) of the group into `col`.
    fn write(&self, i: usize, col: &mut SerializedColumnWriter<'_>) -> Result<usize, ParquetError> {
        match i {
            0 => col.typed::<Int64Type>().write_batch(&self.id, None, None),
            1 => col.typed::<ByteArrayType>().write_batch(&self.class, None, None),
            2 => col.typed::<Int64Type>().write_batch(&self.src, None, None),
            3 => col.typed::<Int64Type>().write_batch(&self.dst, None, None),
            4 => col.typed::<Int64Type>().write_batch(&self.size, None, None),
            5 => col.typed::<DoubleType>().write_batch(&self.start, None, None),
            6 => col.typed::<DoubleType>().write_batch(&self.finish, None, None),
            7 => col.typed::<DoubleType>().write_batch(&self.ideal, None, None),
            _ => col.typed::<DoubleType>().write_batch(&self.slowdown, None, None),
        }
    }

    /// Empties the columns, keeping their capacity for the next group.
    fn clear(&mut self) {
        self.id.clear();
        self.class.clear();
        self.src.clear();
        self.dst.clear();
        self.size.clear();
        self.start.clear();
        self.finish.clear();
        self.ideal.clear();
        self.slowdown.clear();
    }
}

fn ns(t: crate::sim::Time) -> f64 {
    t.ps() as f64 / 1000.0
}

/// Writes `messages.parquet` to `out`; [`RecordSink::flush`], called once when the run
/// ends, writes the last row group and the footer.
pub struct ParquetSink<W: Write + Send> {
    writer: Option<SerializedFileWriter<W>>,
    rows: Columns,
    /// Each class's name as a ByteArray, made once (cloning one shares its bytes).
    names: Vec<Option<ByteArray>>,
}

impl<W: Write + Send> ParquetSink<W> {
    pub fn new(out: W) -> io::Result<Self> {
        let schema = Arc::new(parse_message_type(SCHEMA).map_err(to_io)?);
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_size(ROW_GROUP)
            .set_created_by(format!("{} {}", crate::version::SIGNATURE, crate::version::VERSION))
            .build();
        let writer = SerializedFileWriter::new(out, schema, Arc::new(props)).map_err(to_io)?;
        Ok(ParquetSink { writer: Some(writer), rows: Columns::default(), names: Vec::new() })
    }

    fn name(&mut self, r: &MessageRecord, class_name: &str) -> ByteArray {
        let i = r.class.index();
        if self.names.len() <= i {
            self.names.resize(i + 1, None);
        }
        self.names[i].get_or_insert_with(|| ByteArray::from(class_name)).clone()
    }

    fn write_group(&mut self) -> io::Result<()> {
        if self.rows.len() == 0 {
            return Ok(());
        }
        let writer = self.writer.as_mut().ok_or_else(closed)?;
        let mut group = writer.next_row_group().map_err(to_io)?;
        let mut i = 0;
        while let Some(mut col) = group.next_column().map_err(to_io)? {
            self.rows.write(i, &mut col).map_err(to_io)?;
            col.close().map_err(to_io)?;
            i += 1;
        }
        group.close().map_err(to_io)?;
        self.rows.clear();
        Ok(())
    }
}

impl<W: Write + Send> RecordSink for ParquetSink<W> {
    fn record(&mut self, r: &MessageRecord, class_name: &str) -> io::Result<()> {
        let name = self.name(r, class_name);
        self.rows.push(r, name);
        if self.rows.len() >= ROW_GROUP {
            self.write_group()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_group()?;
        match self.writer.take() {
            Some(w) => w.into_inner().map_err(to_io)?.flush(),
            None => Ok(()),
        }
    }
}

fn to_io(e: ParquetError) -> io::Error {
    io::Error::other(format!("messages.parquet: {e}"))
}

fn closed() -> io::Error {
    io::Error::other("messages.parquet: a record after the file was closed")
}

/// Writes each record to both sinks (`messages.parquet` and, when asked, `messages.csv`).
pub struct Tee<A: RecordSink, B: RecordSink>(pub A, pub B);

impl<A: RecordSink, B: RecordSink> RecordSink for Tee<A, B> {
    fn record(&mut self, r: &MessageRecord, class_name: &str) -> io::Result<()> {
        self.0.record(r, class_name)?;
        self.1.record(r, class_name)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()?;
        self.1.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ClassId, HostId};
    use crate::sim::Time;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    fn record(i: u64) -> MessageRecord {
        MessageRecord {
            id: 1_000 + i,
            class: ClassId::new((i % 2) as usize),
            src: HostId::new((i % 7) as usize),
            dst: HostId::new(7),
            size: 100 + i,
            start: Time::from_ps(i * 1_001),
            finish: Time::from_ps(i * 1_001 + 3_333_333),
            ideal: Time::from_ps(1_111_111),
        }
    }

    /// Ends the file (as `flush` does) and opens what was written.
    fn read_back(mut sink: ParquetSink<Vec<u8>>) -> SerializedFileReader<std::fs::File> {
        sink.write_group().unwrap();
        let bytes = sink.writer.take().unwrap().into_inner().unwrap();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        SerializedFileReader::new(file).unwrap()
    }

    /// Every record comes back, typed, in order, across row groups of `ROW_GROUP` rows.
    #[test]
    fn records_round_trip_in_row_groups() {
        let n = ROW_GROUP as u64 * 2 + 5;
        let mut sink = ParquetSink::new(Vec::new()).unwrap();
        for i in 0..n {
            sink.record(&record(i), if i % 2 == 0 { "a" } else { "b" }).unwrap();
        }
        let reader = read_back(sink);
        let meta = reader.metadata();
        assert_eq!(meta.num_row_groups(), 3);
        assert_eq!(meta.file_metadata().num_rows() as u64, n);
        assert!(meta.file_metadata().created_by().unwrap().starts_with(crate::version::SIGNATURE));
        for (i, row) in reader.get_row_iter(None).unwrap().enumerate() {
            let (row, want) = (row.unwrap(), record(i as u64));
            assert_eq!(row.get_long(0).unwrap(), want.id as i64);
            assert_eq!(row.get_string(1).unwrap(), if i % 2 == 0 { "a" } else { "b" });
            assert_eq!(row.get_long(2).unwrap(), want.src.index() as i64);
            assert_eq!(row.get_long(4).unwrap(), want.size as i64);
            assert_eq!(row.get_double(5).unwrap(), want.start.ps() as f64 / 1000.0);
            assert_eq!(row.get_double(8).unwrap(), want.slowdown());
        }
    }

    #[test]
    fn a_run_without_messages_writes_a_valid_empty_file() {
        let sink = ParquetSink::new(Vec::new()).unwrap();
        assert_eq!(read_back(sink).metadata().file_metadata().num_rows(), 0);
    }
}
