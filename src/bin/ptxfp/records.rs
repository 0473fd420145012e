//! The layout of `bench --json`: a JSON array with one record per line, each record on one
//! line with a space after every `:` and `,` (`[`, `  {"instr": "add.rn.f32", ...},`, `]`), so
//! that the output reads as a table and `grep` finds a record's line.

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};

/// `records` as a JSON array in this layout, ending in a newline.
pub fn to_json<T: Serialize>(records: &[T]) -> String {
    let mut out = Vec::new();
    records
        .serialize(&mut Serializer::with_formatter(&mut out, RecordPerLine { depth: 0 }))
        .expect("records of plain fields always serialize");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// serde_json's compact layout, but for the line breaks of the outer array and the spaces
/// after separators.
struct RecordPerLine {
    /// Arrays open around the value being written.
    depth: usize,
}

impl Formatter for RecordPerLine {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth += 1;
        CompactFormatter.begin_array(w)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth -= 1;
        w.write_all(if self.depth == 0 { b"\n]" } else { b"]" })
    }

    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match (self.depth, first) {
            (1, true) => w.write_all(b"\n  "),
            (1, false) => w.write_all(b",\n  "),
            (_, true) => Ok(()),
            (_, false) => w.write_all(b", "),
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Record {
        name: &'static str,
        n: u32,
        list: [u8; 2],
    }

    #[test]
    fn one_record_a_line_with_spaces_after_separators() {
        let records = [Record { name: "a", n: 1, list: [1, 2] }, Record { name: "b", n: 20, list: [3, 4] }];
        assert_eq!(
            to_json(&records),
            "[\n  {\"name\": \"a\", \"n\": 1, \"list\": [1, 2]},\n  {\"name\": \"b\", \"n\": 20, \"list\": [3, 4]}\n]\n"
        );
        let parsed: serde_json::Value = serde_json::from_str(&to_json(&records)).unwrap();
        assert_eq!(parsed[1]["n"], 20);
    }
}
