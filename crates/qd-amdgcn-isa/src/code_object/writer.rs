//! The code-object writer: an `ET_DYN` AMDGPU ELF laid out like `ld.lld-19 -shared` output
//! (docs/amdgcn-isa-facts.md §12.3), written with `object::write::elf::Writer`.
//!
//! File layout (offsets grow downwards; every `PT_LOAD` has `p_vaddr ≡ p_offset (mod 0x1000)`,
//! each new segment placed one page above the previous one's end, as lld does):
//!
//! | part | align | segment |
//! |---|---|---|
//! | ELF header, program headers (7) | 8 | LOAD R (vaddr 0), PHDR |
//! | `.note` (NT_AMDGPU_METADATA) | 4 | LOAD R, NOTE |
//! | `.dynsym`, `.hash`, `.dynstr` | 8, 4, 1 | LOAD R |
//! | `.rodata`: one 64-byte descriptor per kernel | 64 | LOAD R |
//! | `.text`: each kernel 256-byte aligned, gaps filled with `s_nop 0`; on GFX11 then `s_code_end` to a 128-byte boundary and 96 more, as LLVM ends code | 256 | LOAD RX |
//! | `.dynamic` | 8 | LOAD RW, DYNAMIC |
//! | `.debug_abbrev`, `.debug_info`, `.debug_line`, `.debug_line_str`, `.debug_rnglists`, `.debug_str` (only when a kernel has a line table) | 1 | (not loaded) |
//! | `.symtab`, `.shstrtab`, `.strtab`, section headers | | (not loaded) |
//!
//! Both symbol tables hold, per kernel, `name` (FUNC, GLOBAL, PROTECTED, in `.text`, size = code
//! length) and `name.kd` (OBJECT, GLOBAL, DEFAULT, in `.rodata`, size 64).
//!
//! The DWARF sections hold code addresses, known only once `.text` is placed; the sections that
//! exist (and their sizes, which do not depend on the addresses: every address is 8 bytes) are
//! found first by writing them for address 0, to reserve their section indices in lld's order.

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::Endianness;

use super::metadata;
use super::msgpack;
use super::{CodeObjectConfig, CodeObjectError, KernelCode, KernelDescriptor};
use super::{ELFABIVERSION_AMDGPU_HSA_V5, ELFOSABI_AMDGPU_HSA};
use crate::dwarf::{self, DebugSections, DebugUnit, DwarfError, Sequence};
use crate::target::Family;

const PAGE: u64 = 0x1000;
const TEXT_ALIGN: u64 = 256;
const KD_SIZE: u64 = 64;
const PHNUM: u32 = 7;
/// `s_nop 0` (the same word on GFX9 and GFX11): fills the gaps between kernels.
const S_NOP_0: [u8; 4] = 0xBF80_0000u32.to_le_bytes();
/// GFX11 `s_code_end`: LLVM ends GFX10+ code with these (aligned to 128 bytes, then 96 more) so
/// that instruction prefetch past the last kernel never leaves the code.
const S_CODE_END: [u8; 4] = 0xBF9F_0000u32.to_le_bytes();
const CODE_END_ALIGN: u64 = 128;
const CODE_END_WORDS: u64 = 96;

fn invalid(k: &KernelCode, reason: impl Into<String>) -> CodeObjectError {
    CodeObjectError::InvalidKernel { kernel: k.name.clone(), reason: reason.into() }
}

fn check_kernels(cfg: &CodeObjectConfig, kernels: &[KernelCode]) -> Result<(), CodeObjectError> {
    let target = cfg.target;
    if !target.arch.wave_sizes().contains(&target.wave) {
        return Err(CodeObjectError::InvalidInput(format!(
            "{} cannot run {} lanes per wave",
            target.arch,
            target.wave.lanes()
        )));
    }
    if kernels.is_empty() {
        return Err(CodeObjectError::InvalidInput("no kernels".into()));
    }
    let mut names = std::collections::BTreeSet::new();
    for k in kernels {
        if k.name.is_empty() || k.name.contains('\0') {
            return Err(invalid(k, "a kernel name must be non-empty and contain no NUL"));
        }
        if k.name.ends_with(".kd") {
            return Err(invalid(k, "a kernel name must not end in `.kd`"));
        }
        if !names.insert(k.name.as_str()) {
            return Err(invalid(k, "two kernels have this name"));
        }
        if k.code.is_empty() || k.code.len() % 4 != 0 {
            return Err(invalid(k, format!("code is {} bytes; it must be a non-zero multiple of 4", k.code.len())));
        }
        k.resources.check(target).map_err(|reason| invalid(k, reason))?;
        for arg in &k.args {
            let end = u64::from(arg.offset) + u64::from(arg.size);
            if end > u64::from(k.resources.kernarg_size) {
                return Err(invalid(
                    k,
                    format!(
                        "argument `{}` ends at byte {end}, past kernarg_size {}",
                        arg.name, k.resources.kernarg_size
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Where everything goes: file offsets and virtual addresses.
struct Layout {
    note_off: u64,
    dynsym_off: u64,
    hash_off: u64,
    dynstr_off: u64,
    rodata_off: u64,
    r_end: u64,
    text_off: u64,
    text_vaddr: u64,
    text_size: u64,
    /// Offset of each kernel's code within `.text`.
    code_offsets: Vec<u64>,
    dynamic_off: u64,
    dynamic_vaddr: u64,
    dynamic_size: u64,
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// Each kernel's code offset within `.text` (256-byte aligned, in order).
fn code_offsets(kernels: &[KernelCode]) -> Vec<u64> {
    let mut at = 0u64;
    kernels
        .iter()
        .map(|k| {
            let here = align(at, TEXT_ALIGN);
            at = here + k.code.len() as u64;
            here
        })
        .collect()
}

/// The DWARF sections of the kernels with line tables, `.text` at `text_vaddr`: one compile unit
/// per (directory, file), in order of first appearance. `None` when no kernel has a line table.
fn debug_sections(
    kernels: &[KernelCode],
    offsets: &[u64],
    text_vaddr: u64,
) -> Result<Option<DebugSections>, CodeObjectError> {
    let mut units: Vec<DebugUnit<'_>> = Vec::new();
    for (k, &at) in kernels.iter().zip(offsets) {
        let Some(t) = &k.lines else { continue };
        let seq = Sequence { name: &k.name, address: text_vaddr + at, code_len: k.code.len() as u64, rows: &t.rows };
        match units.iter_mut().find(|u| u.comp_dir == t.comp_dir && u.file == t.file) {
            Some(u) => u.sequences.push(seq),
            None => units.push(DebugUnit { comp_dir: &t.comp_dir, file: &t.file, sequences: vec![seq] }),
        }
    }
    if units.is_empty() {
        return Ok(None);
    }
    dwarf::debug_sections(&units).map(Some).map_err(|e| match e {
        DwarfError::InvalidRows { kernel, reason } => {
            CodeObjectError::InvalidKernel { kernel, reason: format!("line table: {reason}") }
        }
        e @ (DwarfError::InvalidPath(_) | DwarfError::Write(_)) => CodeObjectError::InvalidInput(e.to_string()),
    })
}

/// Writes an HSA code object (v5) holding `kernels` for `cfg`.
///
/// Errors when a kernel is unacceptable (empty or duplicate name, code not a multiple of 4
/// bytes, resources over the target's limits, an argument past `kernarg_size`) or the list is
/// empty; never panics.
pub fn write_code_object(cfg: &CodeObjectConfig, kernels: &[KernelCode]) -> Result<Vec<u8>, CodeObjectError> {
    check_kernels(cfg, kernels)?;
    let elf_err = |e: object::write::Error| CodeObjectError::InvalidInput(e.to_string());

    let note = metadata::note_record(&msgpack::encode(&metadata::metadata(cfg, kernels)));
    let kd_names: Vec<String> = kernels.iter().map(|k| format!("{}.kd", k.name)).collect();
    let n = kernels.len();
    let nsyms = u32::try_from(1 + 2 * n).map_err(|_| CodeObjectError::InvalidInput("too many kernels".into()))?;

    // Dynamic-symbol (and symtab) order: null, then per kernel `name`, `name.kd`.
    let sym_names: Vec<&[u8]> =
        kernels.iter().zip(&kd_names).flat_map(|(k, kd)| [k.name.as_bytes(), kd.as_bytes()]).collect();

    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut out);

    // --- Phase 1: reserve indices, strings and file ranges in file order.
    w.reserve_file_header();
    w.reserve_program_headers(PHNUM);
    let note_name = w.add_section_name(b".note");
    let note_index = w.reserve_section_index();
    let dynsym_index = w.reserve_dynsym_section_index();
    let _hash_index = w.reserve_hash_section_index();
    let _dynstr_index = w.reserve_dynstr_section_index();
    let rodata_name = w.add_section_name(b".rodata");
    let rodata_index = w.reserve_section_index();
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    let _dynamic_index = w.reserve_dynamic_section_index();
    let offsets = code_offsets(kernels);
    let probe = debug_sections(kernels, &offsets, 0)?.unwrap_or_default();
    let debug_names: Vec<_> = probe.sections.iter().map(|(name, _)| w.add_section_name(name.as_bytes())).collect();
    for _ in &probe.sections {
        w.reserve_section_index();
    }
    let _symtab_index = w.reserve_symtab_section_index();
    w.reserve_shstrtab_section_index();
    w.reserve_strtab_section_index();

    let dyn_strs: Vec<_> = sym_names.iter().map(|s| w.add_dynamic_string(s)).collect();
    let strs: Vec<_> = sym_names.iter().map(|s| w.add_string(s)).collect();
    for _ in &sym_names {
        w.reserve_dynamic_symbol_index();
    }
    for (i, _) in sym_names.iter().enumerate() {
        let section = if i % 2 == 0 { text_index } else { rodata_index };
        w.reserve_symbol_index(Some(section));
    }

    let note_off = w.reserve(note.len() as u64, 4);
    let dynsym_off = w.reserve_dynsym();
    let hash_off = w.reserve_hash(nsyms, nsyms);
    let dynstr_off = w.reserve_dynstr().map_err(elf_err)?;
    let rodata_off = w.reserve(KD_SIZE * n as u64, KD_SIZE);
    let r_end = w.reserved_len();

    // .text: a new segment one page up (lld: vaddr = align(end, page) + end % page).
    let text_delta = if !r_end.is_multiple_of(PAGE) { PAGE } else { 0 };
    let code_offsets = offsets;
    let code_end = code_offsets.last().copied().unwrap_or(0) + kernels.last().map_or(0, |k| k.code.len() as u64);
    let mut text_size = code_end;
    if cfg.target.family() == Family::Gfx11 {
        text_size = align(text_size, CODE_END_ALIGN) + 4 * CODE_END_WORDS;
    }
    let text_off = w.reserve(text_size, TEXT_ALIGN);
    let text_end = w.reserved_len();
    let dynamic_delta = text_delta + if !text_end.is_multiple_of(PAGE) { PAGE } else { 0 };
    const DYNAMIC_ENTRIES: usize = 6;
    let dynamic_off = w.reserve_dynamic(DYNAMIC_ENTRIES);
    let dynamic_size = w.reserved_len() - dynamic_off;
    let debug = debug_sections(kernels, &code_offsets, text_off + text_delta)?.unwrap_or_default();
    let same_shape = debug.sections.len() == probe.sections.len()
        && debug.sections.iter().zip(&probe.sections).all(|(a, b)| a.0 == b.0 && a.1.len() == b.1.len());
    if !same_shape {
        return Err(CodeObjectError::InvalidInput("the DWARF sections changed shape with the code address".into()));
    }
    let debug_offs: Vec<u64> = debug.sections.iter().map(|(_, b)| w.reserve(b.len() as u64, 1)).collect();
    w.reserve_symtab();
    w.reserve_shstrtab().map_err(elf_err)?;
    w.reserve_strtab().map_err(elf_err)?;
    w.reserve_section_headers();

    let l = Layout {
        note_off,
        dynsym_off,
        hash_off,
        dynstr_off,
        rodata_off,
        r_end,
        text_off,
        text_vaddr: text_off + text_delta,
        text_size,
        code_offsets,
        dynamic_off,
        dynamic_vaddr: dynamic_off + dynamic_delta,
        dynamic_size,
    };
    let dynstr_size = u64::from(w.dynstr_len());

    // Descriptors: the entry offset is code address − descriptor address.
    let descriptors: Vec<[u8; 64]> = kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let mut kd = KernelDescriptor::from_config(cfg, &k.resources);
            let kd_addr = l.rodata_off + KD_SIZE * i as u64;
            let code_addr = l.text_vaddr + l.code_offsets[i];
            kd.kernel_code_entry_byte_offset = code_addr as i64 - kd_addr as i64;
            kd.encode()
        })
        .collect();

    // --- Phase 2: write in the same order.
    w.write_file_header(&FileHeader {
        os_abi: elf::OsAbi(ELFOSABI_AMDGPU_HSA),
        abi_version: ELFABIVERSION_AMDGPU_HSA_V5,
        e_type: elf::ET_DYN,
        e_machine: elf::EM_AMDGPU,
        e_entry: 0,
        e_flags: elf::FileFlags(cfg.e_flags()),
    })
    .map_err(elf_err)?;
    write_program_headers(&mut w, &l, note.len() as u64);

    w.write_align(4);
    w.write(&note);

    w.write_null_dynamic_symbol();
    let symbols: Vec<Sym> = (0..2 * n)
        .map(|i| {
            let k = i / 2;
            if i % 2 == 0 {
                Sym {
                    section: Some(text_index.0),
                    st_name: 0,
                    st_info: elf::SymbolInfo::new(elf::STB_GLOBAL, elf::STT_FUNC),
                    st_other: elf::STV_PROTECTED.into(),
                    st_shndx: elf::SymbolSection(0),
                    st_value: l.text_vaddr + l.code_offsets[k],
                    st_size: kernels[k].code.len() as u64,
                }
            } else {
                Sym {
                    section: Some(rodata_index.0),
                    st_name: 0,
                    st_info: elf::SymbolInfo::new(elf::STB_GLOBAL, elf::STT_OBJECT),
                    st_other: elf::STV_DEFAULT.into(),
                    st_shndx: elf::SymbolSection(0),
                    st_value: l.rodata_off + KD_SIZE * k as u64,
                    st_size: KD_SIZE,
                }
            }
        })
        .collect();
    for (sym, id) in symbols.iter().zip(&dyn_strs) {
        let st_name = w.dynamic_string_offset(Some(*id));
        w.write_dynamic_symbol(&Sym { st_name, ..sym.clone() });
    }
    w.write_hash(nsyms, nsyms, |i| {
        let i = usize::try_from(i).ok()?;
        i.checked_sub(1).and_then(|j| sym_names.get(j)).map(|name| elf::hash(name))
    });
    w.write_dynstr();

    w.write_align(KD_SIZE);
    for kd in &descriptors {
        w.write(kd);
    }

    w.pad_until(l.text_off);
    for (k, &at) in kernels.iter().zip(&l.code_offsets) {
        let here = w.offset() - l.text_off;
        for _ in (here..at).step_by(4) {
            w.write(&S_NOP_0);
        }
        w.write(&k.code);
    }
    for _ in (code_end..l.text_size).step_by(4) {
        w.write(&S_CODE_END);
    }

    w.write_align_dynamic();
    let dynstr_vaddr = l.dynstr_off;
    let entries = [
        (elf::DT_SYMTAB, l.dynsym_off),
        (elf::DT_SYMENT, 24),
        (elf::DT_STRTAB, dynstr_vaddr),
        (elf::DT_STRSZ, dynstr_size),
        (elf::DT_HASH, l.hash_off),
        (elf::DT_NULL, 0),
    ];
    debug_assert_eq!(entries.len(), DYNAMIC_ENTRIES);
    for (tag, val) in entries {
        w.write_dynamic(tag, val).map_err(elf_err)?;
    }
    for (_, bytes) in &debug.sections {
        w.write(bytes);
    }

    w.write_null_symbol();
    for (sym, id) in symbols.iter().zip(&strs) {
        let st_name = w.string_offset(Some(*id));
        w.write_symbol(&Sym { st_name, ..sym.clone() });
    }
    w.write_shstrtab();
    w.write_strtab();

    // Section headers, in index order.
    w.write_null_section_header();
    w.write_section_header(&SectionHeader {
        sh_name: w.section_name_offset(Some(note_name)),
        sh_type: elf::SHT_NOTE,
        sh_flags: elf::SHF_ALLOC,
        sh_addr: l.note_off,
        sh_offset: l.note_off,
        sh_size: note.len() as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: 4,
        sh_entsize: 0,
    });
    w.write_dynsym_section_header(l.dynsym_off, 1);
    w.write_hash_section_header(l.hash_off);
    w.write_dynstr_section_header(l.dynstr_off);
    w.write_section_header(&SectionHeader {
        sh_name: w.section_name_offset(Some(rodata_name)),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SHF_ALLOC,
        sh_addr: l.rodata_off,
        sh_offset: l.rodata_off,
        sh_size: KD_SIZE * n as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: KD_SIZE,
        sh_entsize: 0,
    });
    w.write_section_header(&SectionHeader {
        sh_name: w.section_name_offset(Some(text_name)),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SHF_ALLOC | elf::SHF_EXECINSTR,
        sh_addr: l.text_vaddr,
        sh_offset: l.text_off,
        sh_size: l.text_size,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: TEXT_ALIGN,
        sh_entsize: 0,
    });
    w.write_dynamic_section_header(l.dynamic_vaddr);
    for (((name, bytes), id), &off) in debug.sections.iter().zip(&debug_names).zip(&debug_offs) {
        // The string sections are mergeable NUL-terminated strings, as LLVM marks them.
        let strings = matches!(*name, ".debug_str" | ".debug_line_str");
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(*id)),
            sh_type: elf::SHT_PROGBITS,
            sh_flags: if strings { elf::SHF_MERGE | elf::SHF_STRINGS } else { elf::SectionFlags(0) },
            sh_addr: 0,
            sh_offset: off,
            sh_size: bytes.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: 1,
            sh_entsize: u64::from(strings),
        });
    }
    w.write_symtab_section_header(1);
    w.write_shstrtab_section_header();
    w.write_strtab_section_header();
    debug_assert_eq!(note_index.0, 1);
    debug_assert_eq!(dynsym_index.0, 2);
    drop(w);
    Ok(out)
}

fn write_program_headers(w: &mut Writer<'_>, l: &Layout, note_size: u64) {
    let phdr = |p_type, p_flags, p_offset: u64, p_vaddr: u64, size: u64, p_align| ProgramHeader {
        p_type,
        p_flags,
        p_offset,
        p_vaddr,
        p_paddr: p_vaddr,
        p_filesz: size,
        p_memsz: size,
        p_align,
    };
    let phoff = 64u64;
    let phsize = 56 * u64::from(PHNUM);
    w.write_align_program_headers();
    for h in [
        phdr(elf::PT_PHDR, elf::PF_R, phoff, phoff, phsize, 8),
        phdr(elf::PT_LOAD, elf::PF_R, 0, 0, l.r_end, PAGE),
        phdr(elf::PT_LOAD, elf::PF_R | elf::PF_X, l.text_off, l.text_vaddr, l.text_size, PAGE),
        phdr(elf::PT_LOAD, elf::PF_R | elf::PF_W, l.dynamic_off, l.dynamic_vaddr, l.dynamic_size, PAGE),
        phdr(elf::PT_DYNAMIC, elf::PF_R | elf::PF_W, l.dynamic_off, l.dynamic_vaddr, l.dynamic_size, 8),
        phdr(elf::PT_GNU_STACK, elf::PF_R | elf::PF_W, 0, 0, 0, 0),
        phdr(elf::PT_NOTE, elf::PF_R, l.note_off, l.note_off, note_size, 4),
    ] {
        w.write_program_header(&h);
    }
}
