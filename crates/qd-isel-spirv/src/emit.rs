//! The SPIR-V word emitter: result ids, deduplicated types and constants, the module's sections
//! in the order the specification fixes (§2.4), and the function's blocks.
//!
//! Instructions are written straight into `u32` buffers (no intermediate instruction objects), so
//! a ~100-op kernel assembles in microseconds. Each block keeps its `OpPhi`s apart from its body:
//! a loop header's φs name the values its continue block carries, which exist only once the body
//! has been lowered, so they are written then.

use rspirv::spirv::{Capability, Decoration, Op, StorageClass};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for the small integer keys of the type and constant tables (SipHash
/// would dominate the emitter's time).
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

impl Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// A type, by its defining operands (types are deduplicated on this key).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TyKey {
    Void,
    Bool,
    Int(u32),
    Float(u32),
    Vector(u32, u32),
    Ptr(StorageClass, u32),
    Array(u32, u32),
    RuntimeArray(u32, u32),
    /// The `Block` struct wrapping one runtime array (storage buffers).
    BufferStruct(u32),
    VoidFn,
}

/// The slot of the scalar types [`Emitter::ty`] keeps outside its table.
#[inline]
fn scalar_slot(k: TyKey) -> Option<usize> {
    match k {
        TyKey::Bool => Some(0),
        TyKey::Int(32) => Some(1),
        TyKey::Int(64) => Some(2),
        TyKey::Float(32) => Some(3),
        TyKey::Float(64) => Some(4),
        TyKey::Int(_)
        | TyKey::Float(_)
        | TyKey::Void
        | TyKey::Vector(..)
        | TyKey::Ptr(..)
        | TyKey::Array(..)
        | TyKey::RuntimeArray(..)
        | TyKey::BufferStruct(_)
        | TyKey::VoidFn => None,
    }
}

/// One basic block of the function.
pub(crate) struct Block {
    pub label: u32,
    pub phis: Vec<u32>,
    pub body: Vec<u32>,
    /// Ends in a terminator.
    pub done: bool,
}

/// Appends one instruction.
#[inline]
pub(crate) fn push(buf: &mut Vec<u32>, op: Op, operands: &[u32]) {
    buf.push(((operands.len() as u32 + 1) << 16) | op as u32);
    buf.extend_from_slice(operands);
}

/// A literal string's words (nul-terminated, zero-padded).
fn str_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The module being built.
pub(crate) struct Emitter {
    bound: u32,
    caps: Vec<Capability>,
    exts: Vec<&'static str>,
    glsl: u32,
    annotations: Vec<u32>,
    globals: Vec<u32>,
    tys: FxMap<TyKey, u32>,
    /// The ids of the scalar types the lowering asks for at nearly every op ([`scalar_slot`]),
    /// 0 until declared: looked up without hashing.
    scalars: [u32; 5],
    consts: FxMap<(u32, u64), u32>,
    undefs: FxMap<u32, u32>,
    nulls: FxMap<u32, u32>,
    pub blocks: Vec<Block>,
    pub cur: Option<usize>,
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            bound: 1,
            caps: vec![Capability::Shader],
            exts: Vec::new(),
            glsl: 0,
            annotations: Vec::with_capacity(64),
            globals: Vec::with_capacity(256),
            tys: FxMap::with_capacity_and_hasher(32, Default::default()),
            scalars: [0; 5],
            consts: FxMap::with_capacity_and_hasher(128, Default::default()),
            undefs: FxMap::default(),
            nulls: FxMap::default(),
            blocks: Vec::with_capacity(16),
            cur: None,
        }
    }

    /// A fresh result id.
    #[inline]
    pub fn id(&mut self) -> u32 {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// Declares a capability (once).
    pub fn capability(&mut self, c: Capability) {
        if !self.caps.contains(&c) {
            self.caps.push(c);
        }
    }

    /// Declares an extension (once).
    pub fn extension(&mut self, e: &'static str) {
        if !self.exts.contains(&e) {
            self.exts.push(e);
        }
    }

    /// The `GLSL.std.450` import.
    pub fn glsl(&mut self) -> u32 {
        if self.glsl == 0 {
            self.glsl = self.id();
        }
        self.glsl
    }

    /// A decoration.
    pub fn decorate(&mut self, target: u32, d: Decoration, extra: &[u32]) {
        self.annotations.push(((3 + extra.len() as u32) << 16) | Op::Decorate as u32);
        self.annotations.push(target);
        self.annotations.push(d as u32);
        self.annotations.extend_from_slice(extra);
    }

    /// A member decoration.
    pub fn member_decorate(&mut self, target: u32, member: u32, d: Decoration, extra: &[u32]) {
        self.annotations.push(((4 + extra.len() as u32) << 16) | Op::MemberDecorate as u32);
        self.annotations.push(target);
        self.annotations.push(member);
        self.annotations.push(d as u32);
        self.annotations.extend_from_slice(extra);
    }

    /// A type (deduplicated).
    #[inline]
    pub fn ty(&mut self, k: TyKey) -> u32 {
        match scalar_slot(k) {
            Some(s) if self.scalars[s] != 0 => self.scalars[s],
            Some(s) => {
                let id = self.declare_ty(k);
                self.scalars[s] = id;
                id
            }
            None => self.declare_ty(k),
        }
    }

    /// A type from the table, declared at its first use.
    fn declare_ty(&mut self, k: TyKey) -> u32 {
        if let Some(&id) = self.tys.get(&k) {
            return id;
        }
        let id = self.id();
        let g = &mut self.globals;
        match k {
            TyKey::Void => push(g, Op::TypeVoid, &[id]),
            TyKey::Bool => push(g, Op::TypeBool, &[id]),
            TyKey::Int(w) => push(g, Op::TypeInt, &[id, w, 0]),
            TyKey::Float(w) => push(g, Op::TypeFloat, &[id, w]),
            TyKey::Vector(e, n) => push(g, Op::TypeVector, &[id, e, n]),
            TyKey::Ptr(sc, t) => push(g, Op::TypePointer, &[id, sc as u32, t]),
            TyKey::Array(e, len) => push(g, Op::TypeArray, &[id, e, len]),
            TyKey::RuntimeArray(e, stride) => {
                push(g, Op::TypeRuntimeArray, &[id, e]);
                self.decorate(id, Decoration::ArrayStride, &[stride]);
            }
            TyKey::BufferStruct(arr) => {
                push(g, Op::TypeStruct, &[id, arr]);
                self.decorate(id, Decoration::Block, &[]);
                self.member_decorate(id, 0, Decoration::Offset, &[0]);
            }
            TyKey::VoidFn => {
                let v = self.ty(TyKey::Void);
                push(&mut self.globals, Op::TypeFunction, &[id, v]);
            }
        }
        self.tys.insert(k, id);
        id
    }

    /// A struct type (not deduplicated: each push-constant block is its own).
    pub fn struct_ty(&mut self, members: &[u32]) -> u32 {
        let id = self.id();
        self.globals.push(((members.len() as u32 + 2) << 16) | Op::TypeStruct as u32);
        self.globals.push(id);
        self.globals.extend_from_slice(members);
        id
    }

    /// A global (module-scope) variable.
    pub fn global_var(&mut self, ptr_ty: u32, sc: StorageClass) -> u32 {
        let id = self.id();
        push(&mut self.globals, Op::Variable, &[ptr_ty, id, sc as u32]);
        id
    }

    /// A scalar constant of a type with `width` bits (`bits` holds the value, zero-extended).
    pub fn constant(&mut self, ty: u32, width: u32, bits: u64) -> u32 {
        if let Some(&id) = self.consts.get(&(ty, bits)) {
            return id;
        }
        let id = self.id();
        if width == 64 {
            push(&mut self.globals, Op::Constant, &[ty, id, bits as u32, (bits >> 32) as u32]);
        } else {
            push(&mut self.globals, Op::Constant, &[ty, id, bits as u32]);
        }
        self.consts.insert((ty, bits), id);
        id
    }

    /// `true` / `false`.
    pub fn bool_const(&mut self, v: bool) -> u32 {
        let ty = self.ty(TyKey::Bool);
        if let Some(&id) = self.consts.get(&(ty, u64::from(v))) {
            return id;
        }
        let id = self.id();
        push(&mut self.globals, if v { Op::ConstantTrue } else { Op::ConstantFalse }, &[ty, id]);
        self.consts.insert((ty, u64::from(v)), id);
        id
    }

    /// `OpConstantNull` of a type.
    pub fn constant_null(&mut self, ty: u32) -> u32 {
        if let Some(&id) = self.nulls.get(&ty) {
            return id;
        }
        let id = self.id();
        push(&mut self.globals, Op::ConstantNull, &[ty, id]);
        self.nulls.insert(ty, id);
        id
    }

    /// `OpUndef` of a type (module scope).
    pub fn undef(&mut self, ty: u32) -> u32 {
        if let Some(&id) = self.undefs.get(&ty) {
            return id;
        }
        let id = self.id();
        push(&mut self.globals, Op::Undef, &[ty, id]);
        self.undefs.insert(ty, id);
        id
    }

    /// Starts a block with a pre-allocated label; it becomes the current block.
    pub fn begin(&mut self, label: u32) {
        self.blocks.push(Block { label, phis: Vec::new(), body: Vec::with_capacity(64), done: false });
        self.cur = Some(self.blocks.len() - 1);
    }

    /// The label of the current block (a fresh unreachable block if there is none).
    pub fn cur_label(&mut self) -> u32 {
        let i = self.cur_index();
        self.blocks[i].label
    }

    /// Index of the current block, opening an unreachable one if there is none (only dead code,
    /// which the lowering does not emit, would need it).
    pub fn cur_index(&mut self) -> usize {
        match self.cur {
            Some(i) => i,
            None => {
                let l = self.id();
                self.begin(l);
                self.blocks.len() - 1
            }
        }
    }

    /// An instruction with a result: `%id = op ty args…`.
    #[inline]
    pub fn op(&mut self, op: Op, ty: u32, args: &[u32]) -> u32 {
        let id = self.id();
        let i = self.cur_index();
        let b = &mut self.blocks[i].body;
        b.push(((args.len() as u32 + 3) << 16) | op as u32);
        b.push(ty);
        b.push(id);
        b.extend_from_slice(args);
        id
    }

    /// An instruction without a result.
    #[inline]
    pub fn op_void(&mut self, op: Op, args: &[u32]) {
        let i = self.cur_index();
        push(&mut self.blocks[i].body, op, args);
    }

    /// A `GLSL.std.450` instruction.
    pub fn ext(&mut self, ty: u32, inst: u32, args: &[u32]) -> u32 {
        let set = self.glsl();
        let id = self.id();
        let i = self.cur_index();
        let b = &mut self.blocks[i].body;
        b.push(((args.len() as u32 + 5) << 16) | Op::ExtInst as u32);
        b.extend_from_slice(&[ty, id, set, inst]);
        b.extend_from_slice(args);
        id
    }

    /// A terminator: ends the current block.
    pub fn terminate(&mut self, op: Op, args: &[u32]) {
        let i = self.cur_index();
        push(&mut self.blocks[i].body, op, args);
        self.blocks[i].done = true;
        self.cur = None;
    }

    /// `OpBranch target`.
    pub fn branch(&mut self, target: u32) {
        self.terminate(Op::Branch, &[target]);
    }

    /// An `OpPhi` at the top of block `block` (an index into `blocks`) with a known result id.
    pub fn phi_in(&mut self, block: usize, ty: u32, id: u32, incoming: &[(u32, u32)]) {
        let b = &mut self.blocks[block].phis;
        b.push(((incoming.len() as u32 * 2 + 3) << 16) | Op::Phi as u32);
        b.push(ty);
        b.push(id);
        for &(v, l) in incoming {
            b.push(v);
            b.push(l);
        }
    }

    /// Whether a type has been declared.
    pub fn has_ty(&self, k: TyKey) -> bool {
        self.tys.contains_key(&k)
    }

    /// The whole module, with extra `OpExecutionMode`s (mode, literal operand).
    pub fn finish(
        mut self,
        version: (u8, u8),
        local_size: [u32; 3],
        interface: &[u32],
        main: u32,
        modes: &[(u32, u32)],
    ) -> Vec<u32> {
        let void = self.ty(TyKey::Void);
        let fn_ty = self.ty(TyKey::VoidFn);
        let mut w: Vec<u32> = Vec::with_capacity(
            64 + self.annotations.len()
                + self.globals.len()
                + self.blocks.iter().map(|b| b.phis.len() + b.body.len() + 2).sum::<usize>(),
        );
        w.extend_from_slice(&[
            0x0723_0203,
            (u32::from(version.0) << 16) | (u32::from(version.1) << 8),
            0,
            self.bound,
            0,
        ]);
        for &c in &self.caps {
            push(&mut w, Op::Capability, &[c as u32]);
        }
        for e in &self.exts {
            let s = str_words(e);
            push(&mut w, Op::Extension, &s);
        }
        if self.glsl != 0 {
            let mut a = vec![self.glsl];
            a.extend(str_words("GLSL.std.450"));
            push(&mut w, Op::ExtInstImport, &a);
        }
        push(&mut w, Op::MemoryModel, &[0 /* Logical */, 1 /* GLSL450 */]);
        let mut ep = vec![5 /* GLCompute */, main];
        ep.extend(str_words(crate::ENTRY_POINT));
        ep.extend_from_slice(interface);
        push(&mut w, Op::EntryPoint, &ep);
        push(&mut w, Op::ExecutionMode, &[main, 17 /* LocalSize */, local_size[0], local_size[1], local_size[2]]);
        for &(mode, operand) in modes {
            push(&mut w, Op::ExecutionMode, &[main, mode, operand]);
        }
        w.extend_from_slice(&self.annotations);
        w.extend_from_slice(&self.globals);
        push(&mut w, Op::Function, &[void, main, 0, fn_ty]);
        for b in &self.blocks {
            push(&mut w, Op::Label, &[b.label]);
            w.extend_from_slice(&b.phis);
            w.extend_from_slice(&b.body);
            if !b.done {
                push(&mut w, Op::Unreachable, &[]);
            }
        }
        push(&mut w, Op::FunctionEnd, &[]);
        w
    }
}
