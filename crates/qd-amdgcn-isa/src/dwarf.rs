//! DWARF 5 line tables for code objects, written with `gimli::write`, so that debuggers and
//! profilers (rocgdb, `llvm-dwarfdump --debug-line`, `llvm-objdump -l`) map machine code back to
//! the kernel's source lines.
//!
//! [`debug_sections`] builds, per source file ([`DebugUnit`]), one compile unit (`DW_AT_name`,
//! `DW_AT_comp_dir`, `DW_AT_producer`, `DW_AT_stmt_list`, `DW_AT_ranges` over its kernels) with
//! one `DW_TAG_subprogram` per kernel, and a line program with one sequence per kernel starting at
//! the kernel's code address in `.text`. The code-object writer calls it for kernels that carry a
//! [`LineTable`] and puts the sections in the object as non-allocated sections, as lld does.
//!
//! Instructions are 4-byte aligned, so the line program's minimum instruction length is 4 and
//! every row offset must be a multiple of 4. Bad input (an empty or NUL-containing path, rows out
//! of order or past the code) is a [`DwarfError`], never a panic.

use std::fmt;

use gimli::write::{
    Address, AttributeValue, Dwarf, EndianVec, LineProgram, LineString, Range, RangeList, Sections, Unit,
};
use gimli::{constants, Encoding, Format, LineEncoding, LittleEndian};

/// One row of a line table: the instruction at `offset` bytes into the kernel's code comes from
/// `line:column` of the kernel's source file (line 0: no source line; column 0: unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LineRow {
    /// Byte offset in the kernel's code (a multiple of 4).
    pub offset: u32,
    /// 1-based source line.
    pub line: u32,
    /// 1-based source column.
    pub column: u32,
}

/// A kernel's line table: where its source is and its rows in code order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LineTable {
    /// The compilation directory (`DW_AT_comp_dir`).
    pub comp_dir: String,
    /// The source file, relative to `comp_dir` or absolute.
    pub file: String,
    /// The rows, by non-decreasing offset.
    pub rows: Vec<LineRow>,
}

/// One kernel's code in the object: its line sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sequence<'a> {
    /// The kernel's name (`DW_TAG_subprogram`'s `DW_AT_name`).
    pub name: &'a str,
    /// The code's virtual address in the object.
    pub address: u64,
    /// The code's length in bytes.
    pub code_len: u64,
    /// Its rows.
    pub rows: &'a [LineRow],
}

/// One compile unit: a source file and the kernels compiled from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugUnit<'a> {
    /// The compilation directory.
    pub comp_dir: &'a str,
    /// The source file.
    pub file: &'a str,
    /// One sequence per kernel.
    pub sequences: Vec<Sequence<'a>>,
}

/// The DWARF sections written: `(name, bytes)` of every non-empty one (`.debug_abbrev`,
/// `.debug_str`, `.debug_line_str`, `.debug_line`, `.debug_rnglists`, `.debug_info`), in the
/// order gimli gives them (the same for every input that has them).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DebugSections {
    /// The sections.
    pub sections: Vec<(&'static str, Vec<u8>)>,
}

impl DebugSections {
    /// The bytes of the section called `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.sections.iter().find(|(n, _)| *n == name).map(|(_, b)| b.as_slice())
    }
}

/// Why the line tables could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DwarfError {
    /// A kernel's rows are not acceptable.
    InvalidRows {
        /// The kernel.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// A directory or file name is empty or contains a NUL.
    InvalidPath(String),
    /// gimli rejected the debugging information.
    Write(String),
}

impl fmt::Display for DwarfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DwarfError::InvalidRows { kernel, reason } => write!(f, "line table of kernel `{kernel}`: {reason}"),
            DwarfError::InvalidPath(p) => write!(f, "debug info path {p:?} is empty or contains a NUL"),
            DwarfError::Write(m) => write!(f, "writing DWARF: {m}"),
        }
    }
}

impl std::error::Error for DwarfError {}

/// The producer string of the compile units.
pub(crate) const PRODUCER: &str = concat!("qd ", env!("CARGO_PKG_VERSION"));

/// DWARF 5, 32-bit offsets, 8-byte addresses (what LLVM 19 emits for amdgcn-amd-amdhsa).
pub(crate) const ENCODING: Encoding = Encoding { format: Format::Dwarf32, version: 5, address_size: 8 };

/// The line-program parameters: instructions are whole 4-byte words.
pub(crate) fn line_encoding() -> LineEncoding {
    LineEncoding { minimum_instruction_length: 4, ..LineEncoding::default() }
}

fn check_path(p: &str) -> Result<(), DwarfError> {
    if p.is_empty() || p.contains('\0') {
        return Err(DwarfError::InvalidPath(p.to_string()));
    }
    Ok(())
}

/// Checks a sequence's rows: offsets multiples of 4, non-decreasing, inside the code.
pub(crate) fn check_rows(seq: &Sequence<'_>) -> Result<(), DwarfError> {
    let bad = |reason: String| DwarfError::InvalidRows { kernel: seq.name.to_string(), reason };
    let mut prev = 0u32;
    for (i, r) in seq.rows.iter().enumerate() {
        if r.offset % 4 != 0 {
            return Err(bad(format!("row {i}: offset {} is not a multiple of 4", r.offset)));
        }
        if r.offset < prev {
            return Err(bad(format!("row {i}: offset {} comes after offset {prev}", r.offset)));
        }
        if u64::from(r.offset) >= seq.code_len {
            return Err(bad(format!("row {i}: offset {} is past the code ({} bytes)", r.offset, seq.code_len)));
        }
        prev = r.offset;
    }
    if !seq.code_len.is_multiple_of(4) {
        return Err(bad(format!("code length {} is not a multiple of 4", seq.code_len)));
    }
    Ok(())
}

/// Writes the compile units, their line programs and the string sections.
pub fn debug_sections(units: &[DebugUnit<'_>]) -> Result<DebugSections, DwarfError> {
    let mut dwarf = Dwarf::new();
    for u in units {
        check_path(u.comp_dir)?;
        check_path(u.file)?;
        for s in &u.sequences {
            check_path(s.name)?;
            check_rows(s)?;
        }
        let dir = dwarf.line_strings.add(u.comp_dir.as_bytes());
        let file = dwarf.line_strings.add(u.file.as_bytes());
        let mut program = LineProgram::new(
            ENCODING,
            line_encoding(),
            LineString::LineStringRef(dir),
            None,
            LineString::LineStringRef(file),
            None,
        );
        // DWARF 5: file 0 is the primary source file; adding it again returns its id.
        let file_id = program.add_file(LineString::LineStringRef(file), program.default_directory(), None);
        for s in u.sequences.iter().filter(|s| !s.rows.is_empty()) {
            program.begin_sequence(Some(Address::Constant(s.address)));
            for r in s.rows {
                let row = program.row();
                row.address_offset = u64::from(r.offset);
                row.line = u64::from(r.line);
                row.column = u64::from(r.column);
                row.file = file_id;
                program.generate_row();
            }
            program.end_sequence(s.code_len);
        }

        let mut unit = Unit::new(ENCODING, program);
        let ranges = RangeList(
            u.sequences
                .iter()
                .map(|s| Range::StartLength { begin: Address::Constant(s.address), length: s.code_len })
                .collect(),
        );
        let ranges = unit.ranges.add(ranges);
        let root = unit.root();
        let producer = dwarf.strings.add(PRODUCER);
        let cu = unit.get_mut(root);
        cu.set(constants::DW_AT_producer, AttributeValue::StringRef(producer));
        cu.set(constants::DW_AT_name, AttributeValue::LineStringRef(file));
        cu.set(constants::DW_AT_comp_dir, AttributeValue::LineStringRef(dir));
        cu.set(constants::DW_AT_low_pc, AttributeValue::Address(Address::Constant(0)));
        cu.set(constants::DW_AT_ranges, AttributeValue::RangeListRef(ranges));
        for s in &u.sequences {
            let name = dwarf.strings.add(s.name);
            let sp = unit.add(root, constants::DW_TAG_subprogram);
            let e = unit.get_mut(sp);
            e.set(constants::DW_AT_name, AttributeValue::StringRef(name));
            e.set(constants::DW_AT_low_pc, AttributeValue::Address(Address::Constant(s.address)));
            e.set(constants::DW_AT_high_pc, AttributeValue::Udata(s.code_len));
            e.set(constants::DW_AT_decl_file, AttributeValue::FileIndex(Some(file_id)));
            e.set(constants::DW_AT_external, AttributeValue::Flag(true));
        }
        dwarf.units.add(unit);
    }

    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections).map_err(|e| DwarfError::Write(e.to_string()))?;
    let mut out = Vec::new();
    sections
        .for_each(|id, data| {
            let bytes = data.slice();
            if !bytes.is_empty() {
                out.push((id.name(), bytes.to_vec()));
            }
            Ok::<(), DwarfError>(())
        })
        .map_err(|e| DwarfError::Write(e.to_string()))?;
    Ok(DebugSections { sections: out })
}
