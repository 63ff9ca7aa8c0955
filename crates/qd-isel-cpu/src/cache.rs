//! The process-wide compile cache: a kernel is compiled once per (kernel text, width) and shared
//! by every launch of every device of that width. Bounded: past [`CAPACITY`] kernels the least
//! recently used is dropped (its code is freed when its last launch ends).

use crate::{compile_verified, CompileError, CpuKernel, CpuOptions};
use qd_mir::{Function, VerifiedKernel};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// How many compiled kernels the cache keeps.
pub const CAPACITY: usize = 1024;

struct Cache {
    map: HashMap<(String, u32), (Arc<CpuKernel>, u64)>,
    tick: u64,
}

fn cache() -> &'static Mutex<Cache> {
    static C: OnceLock<Mutex<Cache>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(Cache { map: HashMap::new(), tick: 0 }))
}

/// The compiled kernel for `f` at `width`, compiling (and verifying) it on first use.
pub fn get(f: &Function, width: u32) -> Result<Arc<CpuKernel>, CompileError> {
    let key = (qd_mir::text::printer::print_function(f), width);
    {
        let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
        c.tick += 1;
        let t = c.tick;
        if let Some((k, used)) = c.map.get_mut(&key) {
            *used = t;
            return Ok(k.clone());
        }
    }
    let vk = VerifiedKernel::new(f.clone())?;
    let k = Arc::new(compile_verified(&vk, &CpuOptions { width })?);
    let mut c = cache().lock().unwrap_or_else(|p| p.into_inner());
    c.tick += 1;
    let t = c.tick;
    if c.map.len() >= CAPACITY {
        if let Some(old) = c.map.iter().min_by_key(|(_, (_, u))| *u).map(|(k, _)| k.clone()) {
            c.map.remove(&old);
        }
    }
    c.map.insert(key, (k.clone(), t));
    Ok(k)
}

/// Drops every cached kernel.
pub fn clear() {
    cache().lock().unwrap_or_else(|p| p.into_inner()).map.clear();
}

/// How many kernels the cache holds.
pub fn len() -> usize {
    cache().lock().unwrap_or_else(|p| p.into_inner()).map.len()
}
