//! Shared helpers for the code-object tests: the docs/amdgcn-isa-facts.md §16 reference kernel (its
//! code words and resources), kernels built from it, and running the LLVM 19 tools on files in a
//! scratch dir.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use qd_amdgcn_isa::code_object::{ArgKind, KernelArg, KernelCode, KernelResources, UserSgprs};
use qd_amdgcn_isa::{Arch, Family};

/// Doc §16.2, gfx942 column (gfx90a encodes the same words).
pub const REF_GFX9_WORDS: [u32; 15] = [
    0xC0060100, 0x00000000, 0x8E028602, 0x68000002, 0x24000082, 0xBF8CC07F, 0xDC508000, 0x01040000, 0xBF8C0F70,
    0xBF800000, 0x680202FA, 0xFF091101, 0xDC708000, 0x00040100, 0xBF810000,
];

/// Doc §16.2, gfx1100 (wave64) column.
pub const REF_GFX11_WORDS: [u32; 15] = [
    0xF4040100, 0xF8000000, 0x84028602, 0x4A000002, 0x30000082, 0xBF89FC07, 0xDC520000, 0x01040000, 0xBF8903F7,
    0x4A0202FA, 0xFF091101, 0x7E02CF01, 0xDC6A0000, 0x00040100, 0xBFB00000,
];

/// The reference kernel's code for an architecture, as bytes.
pub fn ref_code(arch: Arch) -> Vec<u8> {
    let words: &[u32] = match arch.family() {
        Family::Gfx9 => &REF_GFX9_WORDS,
        Family::Gfx11 => &REF_GFX11_WORDS,
    };
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The reference kernel's resources (docs/amdgcn-isa-facts.md §16.1): kernarg pointer + workgroup id
/// x, 2 VGPRs, 6 SGPRs, no VCC, kernarg size 8, workgroups of up to 64.
pub fn ref_resources() -> KernelResources {
    KernelResources {
        next_free_vgpr: 2,
        next_free_sgpr: 6,
        uses_vcc: false,
        group_segment_size: 0,
        private_segment_size: 0,
        kernarg_size: 8,
        user_sgprs: UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() },
        workgroup_id: [true, false, false],
        workitem_id_dims: 1,
        max_flat_workgroup_size: 64,
        f32_denormals: false,
    }
}

/// The reference kernel (one unnamed global-buffer argument, as in the doc's YAML).
pub fn ref_kernel(arch: Arch, name: &str) -> KernelCode {
    KernelCode {
        name: name.to_string(),
        code: ref_code(arch),
        resources: ref_resources(),
        args: vec![KernelArg { name: String::new(), offset: 0, size: 8, kind: ArgKind::GlobalBuffer }],
        lines: None,
    }
}

/// Whether an LLVM 19 tool is on PATH.
pub fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Whether all tools are present; prints why a test is skipped when not.
pub fn tools_present(test: &str, tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        true
    } else {
        println!("SKIPPED {test}: {} not installed (apt-get install llvm-19 lld-19)", missing.join(", "));
        false
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A scratch directory, removed when dropped unless the test is failing (then kept for a look).
pub struct ScratchDir(PathBuf);

impl std::ops::Deref for ScratchDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept scratch dir {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A fresh scratch directory for one test.
pub fn scratch_dir(tag: &str) -> ScratchDir {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("qd-code-object-{}-{tag}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    ScratchDir(dir)
}

/// Runs a tool; panics with its stderr when it fails; returns stdout.
pub fn run(tool: &str, args: &[&str], cwd: &Path) -> String {
    let out = Command::new(tool).args(args).current_dir(cwd).output().expect("spawn tool");
    assert!(
        out.status.success(),
        "{tool} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The first line of `text` containing `needle`, trimmed.
pub fn line_with<'a>(text: &'a str, needle: &str) -> Option<&'a str> {
    text.lines().find(|l| l.contains(needle)).map(str::trim)
}

/// The value printed after `key` in `llvm-objdump -D` output of a `.kd` (`.amdhsa_key value`).
pub fn amdhsa_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        (it.next() == Some(key)).then(|| it.next()).flatten().and_then(|v| v.parse().ok())
    })
}

/// The reference kernel named `name` with twice its code, richer resources (dispatch pointer,
/// VCC, LDS, two workgroup ids and work-item dimensions) and three arguments (a buffer, a
/// by-value scalar and a hidden argument).
pub fn rich_kernel(arch: Arch, name: &str) -> KernelCode {
    let mut k = ref_kernel(arch, name);
    k.code.extend(ref_code(arch));
    k.resources = KernelResources {
        next_free_vgpr: 37,
        next_free_sgpr: 20,
        uses_vcc: true,
        group_segment_size: 4096,
        kernarg_size: 24,
        user_sgprs: UserSgprs { dispatch_ptr: true, kernarg_segment_ptr: true, ..UserSgprs::default() },
        workgroup_id: [true, true, false],
        workitem_id_dims: 2,
        max_flat_workgroup_size: 256,
        ..KernelResources::default()
    };
    k.args = vec![
        KernelArg { name: "out".into(), offset: 0, size: 8, kind: ArgKind::GlobalBuffer },
        KernelArg { name: "n".into(), offset: 8, size: 4, kind: ArgKind::ByValue },
        KernelArg { name: String::new(), offset: 16, size: 4, kind: ArgKind::Hidden("hidden_block_count_x") },
    ];
    k
}
