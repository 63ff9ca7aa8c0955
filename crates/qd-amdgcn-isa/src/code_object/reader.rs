//! The code-object reader: parses our objects and lld-linked ones (and, best effort, llvm-mc's
//! relocatable output) into kernels with their descriptor, code and metadata.
//!
//! What it reads, like the ROCr loader (docs/amdgcn-isa-facts.md §12.5): the ELF header (class,
//! machine, OS/ABI, `e_flags`), the symbols of `.symtab` (`.dynsym` when there is no `.symtab`),
//! every global `*.kd` symbol as a kernel descriptor, the entry at descriptor address + entry
//! offset, and the NT_AMDGPU_METADATA note. Every offset and size is checked: bad input gives an
//! error, never a panic.

use std::collections::HashMap;

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};
use object::LittleEndian as LE;

use super::msgpack::{self, Value};
use super::{parse_e_flags, CodeObject, CodeObjectError, KernelDescriptor, LoadedKernel};
use super::{ELFOSABI_AMDGPU_HSA, NT_AMDGPU_METADATA};

type Header = elf::FileHeader64<LE>;
type Section = elf::SectionHeader64<LE>;

fn malformed(what: impl std::fmt::Display) -> CodeObjectError {
    CodeObjectError::Malformed(what.to_string())
}

/// A loaded-address view of the file: allocated sections (and, without section headers,
/// `PT_LOAD` segments) mapping virtual addresses to file bytes.
struct Image<'a> {
    /// (vaddr, file bytes, section index or usize::MAX for a segment).
    ranges: Vec<(u64, &'a [u8], usize)>,
}

impl<'a> Image<'a> {
    fn find(&self, addr: u64) -> Option<(u64, &'a [u8], usize)> {
        self.ranges.iter().find(|(start, data, _)| addr >= *start && addr - *start < data.len() as u64).copied()
    }

    fn read(&self, addr: u64, len: usize) -> Option<&'a [u8]> {
        let (start, data, _) = self.find(addr)?;
        let from = usize::try_from(addr - start).ok()?;
        data.get(from..from.checked_add(len)?)
    }
}

/// One symbol we care about, resolved.
#[derive(Clone, Copy)]
struct SymInfo<'a> {
    name: &'a [u8],
    value: u64,
    size: u64,
    kind: elf::SymbolType,
    bind: elf::SymbolBind,
    /// Section index, when the symbol is defined in a real section.
    section: Option<usize>,
}

/// Parses an AMDGPU HSA code object.
///
/// Requires ELF64 little endian, `EM_AMDGPU`, OS/ABI `ELFOSABI_AMDGPU_HSA`, and a MACH in
/// `e_flags` that qd knows (gfx90a, gfx942, gfx1100). Kernels are the global `*.kd` symbols of
/// `.symtab` (or `.dynsym`), in table order.
pub fn read_code_object(bytes: &[u8]) -> Result<CodeObject, CodeObjectError> {
    let header = Header::parse(bytes).map_err(|e| malformed(format!("ELF header: {e}")))?;
    let ident = header.e_ident();
    if ident.data != elf::ELFDATA2LSB {
        return Err(CodeObjectError::Unsupported("big-endian ELF".into()));
    }
    let endian = LE;
    let machine = header.e_machine(endian);
    if machine != elf::EM_AMDGPU {
        return Err(CodeObjectError::Unsupported(format!("e_machine {:#x} is not EM_AMDGPU", machine.0)));
    }
    if ident.os_abi.0 != ELFOSABI_AMDGPU_HSA {
        return Err(CodeObjectError::Unsupported(format!("OS/ABI {} is not ELFOSABI_AMDGPU_HSA (64)", ident.os_abi.0)));
    }
    let (arch, xnack, sramecc) = parse_e_flags(header.e_flags(endian).0)?;
    let relocatable = header.e_type(endian) == elf::ET_REL;

    let sections = header.sections(endian, bytes).map_err(|e| malformed(format!("section headers: {e}")))?;
    let segments = header.program_headers(endian, bytes).map_err(|e| malformed(format!("program headers: {e}")))?;

    // The address view.
    let mut ranges = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        if s.sh_flags(endian).0 & elf::SHF_ALLOC.0 == 0 || s.sh_type(endian) == elf::SHT_NOBITS {
            continue;
        }
        if let Ok(data) = s.data(endian, bytes) {
            ranges.push((s.sh_addr(endian), data, i));
        }
    }
    if ranges.is_empty() {
        for p in segments {
            if p.p_type(endian) == elf::PT_LOAD {
                if let Ok(data) = p.data(endian, bytes) {
                    ranges.push((p.p_vaddr(endian), data, usize::MAX));
                }
            }
        }
    }
    let image = Image { ranges };

    // Metadata: the first NT_AMDGPU_METADATA note of a note section, else of a PT_NOTE.
    let mut metadata = Value::Nil;
    let mut found_note = false;
    for s in sections.iter() {
        if found_note {
            break;
        }
        if let Some(mut notes) = s.notes(endian, bytes).map_err(|e| malformed(format!("note: {e}")))? {
            while let Some(note) = notes.next().map_err(|e| malformed(format!("note: {e}")))? {
                if note.name() == b"AMDGPU" && note.n_type(endian).0 == NT_AMDGPU_METADATA {
                    metadata = decode_metadata(note.desc())?;
                    found_note = true;
                    break;
                }
            }
        }
    }
    if !found_note {
        for p in segments {
            if found_note {
                break;
            }
            if let Some(mut notes) = p.notes(endian, bytes).map_err(|e| malformed(format!("note: {e}")))? {
                while let Some(note) = notes.next().map_err(|e| malformed(format!("note: {e}")))? {
                    if note.name() == b"AMDGPU" && note.n_type(endian).0 == NT_AMDGPU_METADATA {
                        metadata = decode_metadata(note.desc())?;
                        found_note = true;
                        break;
                    }
                }
            }
        }
    }

    // Symbols: .symtab as the ROCr loader does, else .dynsym.
    let mut table = sections.symbols(endian, bytes, elf::SHT_SYMTAB).map_err(|e| malformed(format!(".symtab: {e}")))?;
    if table.is_empty() {
        table = sections.symbols(endian, bytes, elf::SHT_DYNSYM).map_err(|e| malformed(format!(".dynsym: {e}")))?;
    }
    let mut syms = Vec::with_capacity(table.len());
    for (index, sym) in table.enumerate() {
        let name = table.symbol_name(endian, sym).map_err(|e| malformed(format!("symbol name: {e}")))?;
        let section = match table.symbol_section(endian, sym, index) {
            Ok(Some(s)) => Some(s.0).filter(|&i| i < sections.len()),
            _ => None,
        };
        syms.push(SymInfo {
            name,
            value: sym.st_value(endian),
            size: sym.st_size(endian),
            kind: sym.st_type(),
            bind: sym.st_bind(),
            section,
        });
    }
    // Named code symbols, and every defined symbol address per section (for sizes).
    let mut by_name: HashMap<&[u8], SymInfo<'_>> = HashMap::new();
    let mut starts: HashMap<usize, Vec<u64>> = HashMap::new();
    for s in &syms {
        if s.kind != elf::STT_SECTION && s.kind != elf::STT_FILE {
            by_name.entry(s.name).or_insert(*s);
        }
        if let Some(sec) = s.section {
            starts.entry(sec).or_default().push(s.value);
        }
    }
    for v in starts.values_mut() {
        v.sort_unstable();
        v.dedup();
    }

    let kernel_maps: Vec<&Value> =
        metadata.get("amdhsa.kernels").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();

    let mut kernels = Vec::new();
    for kd_sym in &syms {
        if kd_sym.bind == elf::STB_LOCAL || !kd_sym.name.ends_with(b".kd") {
            continue;
        }
        let name_bytes = &kd_sym.name[..kd_sym.name.len() - 3];
        let name =
            String::from_utf8(name_bytes.to_vec()).map_err(|_| malformed("a kernel symbol name is not UTF-8"))?;
        let raw = read_symbol_bytes(&sections, bytes, &image, kd_sym, 64)
            .ok_or_else(|| malformed(format!("descriptor `{name}.kd` is not inside the file")))?;
        let mut kd_bytes = [0u8; 64];
        kd_bytes.copy_from_slice(raw);
        let descriptor = KernelDescriptor::decode(&kd_bytes);

        let code_sym = by_name.get(name_bytes).filter(|s| s.kind == elf::STT_FUNC || s.section.is_some());
        let entry = kd_sym.value.wrapping_add(descriptor.kernel_code_entry_byte_offset as u64);
        let (code_vaddr, code) = if relocatable {
            // The entry offset is a relocation in llvm-mc's output: use the symbol.
            let s = code_sym.ok_or_else(|| malformed(format!("no code symbol `{name}`")))?;
            (s.value, code_bytes(&sections, bytes, &image, s, &starts, &name)?)
        } else {
            match code_sym.filter(|s| s.value == entry) {
                Some(s) => (entry, code_bytes(&sections, bytes, &image, s, &starts, &name)?),
                None => {
                    let (start, data, sec) = image
                        .find(entry)
                        .ok_or_else(|| malformed(format!("entry {entry:#x} of `{name}` is not inside the file")))?;
                    let end = next_start(&starts, sec, entry).unwrap_or(start.saturating_add(data.len() as u64));
                    let len = usize::try_from(end - entry).map_err(malformed)?;
                    let code = image.read(entry, len).ok_or_else(|| malformed("code range"))?;
                    (entry, code.to_vec())
                }
            }
        };
        let wave = descriptor.wave_size(arch);
        let kd_name = format!("{name}.kd");
        let meta = kernel_maps
            .iter()
            .find(|m| m.get(".symbol").and_then(Value::as_str) == Some(kd_name.as_str()))
            .or_else(|| kernel_maps.iter().find(|m| m.get(".name").and_then(Value::as_str) == Some(name.as_str())))
            .map(|m| (*m).clone());
        kernels.push(LoadedKernel { name, code, code_vaddr, descriptor, wave, metadata: meta });
    }

    Ok(CodeObject { arch, xnack, sramecc, abi_version: ident.abi_version, kernels, metadata })
}

fn decode_metadata(desc: &[u8]) -> Result<Value, CodeObjectError> {
    msgpack::decode(desc).map_err(|e| malformed(format!("metadata note: {e}")))
}

/// `len` bytes at a symbol: through its section when it has one, else through the address view.
fn read_symbol_bytes<'a>(
    sections: &object::read::elf::SectionTable<'a, elf::FileHeader64<LE>, &'a [u8]>,
    bytes: &'a [u8],
    image: &Image<'a>,
    sym: &SymInfo<'_>,
    len: usize,
) -> Option<&'a [u8]> {
    if let Some(index) = sym.section {
        let s: &Section = sections.section(object::SectionIndex(index)).ok()?;
        if s.sh_type(LE) != elf::SHT_NOBITS {
            let data = s.data(LE, bytes).ok()?;
            let from = usize::try_from(sym.value.checked_sub(s.sh_addr(LE))?).ok()?;
            return data.get(from..from.checked_add(len)?);
        }
    }
    image.read(sym.value, len)
}

/// The first symbol start in section `sec` after `addr`.
fn next_start(starts: &HashMap<usize, Vec<u64>>, sec: usize, addr: u64) -> Option<u64> {
    let v = starts.get(&sec)?;
    let i = v.partition_point(|&a| a <= addr);
    v.get(i).copied()
}

/// A code symbol's bytes: `st_size` of them, or up to the next symbol / section end when the
/// size is 0.
fn code_bytes<'a>(
    sections: &object::read::elf::SectionTable<'a, elf::FileHeader64<LE>, &'a [u8]>,
    bytes: &'a [u8],
    image: &Image<'a>,
    sym: &SymInfo<'_>,
    starts: &HashMap<usize, Vec<u64>>,
    name: &str,
) -> Result<Vec<u8>, CodeObjectError> {
    let mut size = sym.size;
    if size == 0 {
        let section_end = sym.section.and_then(|i| {
            let s: &Section = sections.section(object::SectionIndex(i)).ok()?;
            s.sh_addr(LE).checked_add(s.sh_size(LE))
        });
        let end = sym
            .section
            .and_then(|sec| next_start(starts, sec, sym.value))
            .into_iter()
            .chain(section_end)
            .min()
            .unwrap_or(sym.value);
        size = end.saturating_sub(sym.value);
    }
    let len = usize::try_from(size).map_err(malformed)?;
    read_symbol_bytes(sections, bytes, image, sym, len)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| malformed(format!("code of `{name}` ({size} bytes) is not inside the file")))
}
