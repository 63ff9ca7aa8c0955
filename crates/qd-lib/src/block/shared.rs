//! [`SharedArray`]: Quadrants' `qd.simt.block.SharedArray(shape, dtype)` — a block-local array of
//! compile-time shape whose elements are scalars, vectors or small matrices, stored row-major as
//! consecutive scalars in ONE MIR shared array (`shared @name: [dtype; N]`).
//!
//! Element `(i0, …, ik)` component `c` lives at scalar offset
//! `((i0 * d1 + i1) * d2 + … + ik) * C + c` where `C` is the number of components of an element
//! (1, `n` for a vector, `rows * cols` for a matrix, itself row-major). Constant indices are checked
//! per dimension at build time (an out-of-range constant is a [`BuildError`] at the caller's
//! line); dynamic indices are combined as written and only the resulting offset is checked, by
//! MIR's bounds check at access (the interpreter faults).

use super::{fresh_shared_name, shared_bytes};
use crate::common::{at, err, Loc};
use qd_frontend::{AtomicOp, BuildError, ErrorKind, KernelBuilder, ScalarType, Scope, SharedBuf, Val};
use qd_mir::{Imm, Opcode, ValueDef};
use std::panic::Location;

/// The most shared memory a kernel may declare (the MIR verifier's limit).
const SHARED_LIMIT: u64 = 64 * 1024;

/// The shape of one element of a [`SharedArray`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ElemShape {
    /// One scalar.
    Scalar,
    /// A vector of `n` scalars (Quadrants `qd.types.vector(n, dtype)`).
    Vector(u32),
    /// A `rows × cols` matrix, row-major (Quadrants `qd.types.matrix(rows, cols, dtype)`).
    Matrix(u32, u32),
}

impl ElemShape {
    /// Scalars per element.
    pub fn components(self) -> u32 {
        match self {
            ElemShape::Scalar => 1,
            ElemShape::Vector(n) => n,
            ElemShape::Matrix(r, c) => r.saturating_mul(c),
        }
    }
}

/// A block-local shared array (see the module docs for the layout).
///
/// Created by [`SharedArray::new`] (scalar elements), [`SharedArray::new_vec`] or
/// [`SharedArray::new_mat`]; each constructor call declares a distinct MIR shared array, named
/// after `name` (with a `_N` suffix when the kernel already has an array of that name, so a helper
/// that allocates a shared array can be called twice). Handles are cheap to clone and usable in
/// every region of the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedArray {
    buf: SharedBuf,
    name: String,
    dtype: ScalarType,
    shape: Vec<u32>,
    elem: ElemShape,
}

fn valid_name(name: &str) -> bool {
    let mut cs = name.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The constant value of `v` if it is a MIR `const` of an integer type (sign-extended for signed
/// types).
pub(crate) fn const_int(b: &KernelBuilder<'_>, v: Val) -> Option<i128> {
    let f = b.func();
    let s = v.scalar().filter(|s| s.is_int())?;
    let ValueDef::Result(inst, _) = f.values.get(v.value())?.def else { return None };
    let data = f.insts.get(inst)?;
    let (Opcode::Const, Imm::Const(bits)) = (data.opcode, data.imm) else { return None };
    Some(match (s.is_signed(), s.bytes()) {
        (true, 4) => i128::from(bits as u32 as i32),
        (true, _) => i128::from(bits as i64),
        (false, _) => i128::from(bits),
    })
}

impl SharedArray {
    fn create(
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: &str,
        name: &str,
        dtype: ScalarType,
        shape: &[u32],
        elem: ElemShape,
    ) -> Result<SharedArray, BuildError> {
        if !valid_name(name) {
            return Err(err(
                loc,
                ErrorKind::Config,
                format!("{op}: name {name:?} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        }
        if shape.is_empty() || shape.contains(&0) {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("{op} @{name}: shape {shape:?} must have at least one dimension, each >= 1"),
            ));
        }
        if elem.components() == 0 {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("{op} @{name}: element {elem:?} must have at least one component"),
            ));
        }
        let count = shape.iter().fold(u64::from(elem.components()), |a, &d| a.saturating_mul(u64::from(d)));
        let bytes = count.saturating_mul(u64::from(dtype.bytes()));
        let total = shared_bytes(b).saturating_add(bytes);
        if total > SHARED_LIMIT {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!(
                    "{op} @{name}: {bytes} bytes ({count} {dtype}) would bring the kernel's shared memory to \
                     {total} bytes, over the 64 KiB limit"
                ),
            ));
        }
        let unique = fresh_shared_name(b, name);
        // `count <= 64 KiB`, so it fits a u32.
        let buf = b.shared_array(&unique, dtype, count as u32);
        Ok(SharedArray { buf, name: unique, dtype, shape: shape.to_vec(), elem })
    }

    /// A shared array of `dtype` scalars with the given `shape` (`&[n]`, `&[rows, cols]`, …).
    ///
    /// Quadrants `qd.simt.block.SharedArray(shape, dtype)`. Errors: a name that is not an
    /// identifier, an empty shape or a zero dimension, more than 64 KiB of shared memory in the
    /// kernel. Cost: `prod(shape) * sizeof(dtype)` bytes of shared memory per block.
    #[track_caller]
    pub fn new(
        b: &mut KernelBuilder<'_>,
        name: &str,
        dtype: ScalarType,
        shape: &[u32],
    ) -> Result<SharedArray, BuildError> {
        let loc = Location::caller();
        Self::create(b, loc, "SharedArray::new", name, dtype, shape, ElemShape::Scalar).map_err(at(loc))
    }

    /// A shared array whose elements are vectors of `lanes` scalars of `dtype` (Quadrants
    /// `SharedArray(shape, qd.types.vector(lanes, dtype))`).
    #[track_caller]
    pub fn new_vec(
        b: &mut KernelBuilder<'_>,
        name: &str,
        dtype: ScalarType,
        shape: &[u32],
        lanes: u32,
    ) -> Result<SharedArray, BuildError> {
        let loc = Location::caller();
        Self::create(b, loc, "SharedArray::new_vec", name, dtype, shape, ElemShape::Vector(lanes)).map_err(at(loc))
    }

    /// A shared array whose elements are `rows × cols` matrices of `dtype`, row-major (Quadrants
    /// `SharedArray(shape, qd.types.matrix(rows, cols, dtype))`).
    #[track_caller]
    pub fn new_mat(
        b: &mut KernelBuilder<'_>,
        name: &str,
        dtype: ScalarType,
        shape: &[u32],
        rows: u32,
        cols: u32,
    ) -> Result<SharedArray, BuildError> {
        let loc = Location::caller();
        Self::create(b, loc, "SharedArray::new_mat", name, dtype, shape, ElemShape::Matrix(rows, cols)).map_err(at(loc))
    }

    /// The MIR shared array's name (the given name, or it with a `_N` suffix).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The scalar type of the components.
    pub fn dtype(&self) -> ScalarType {
        self.dtype
    }

    /// The array's shape (in elements).
    pub fn shape(&self) -> &[u32] {
        &self.shape
    }

    /// The shape of one element.
    pub fn elem_shape(&self) -> ElemShape {
        self.elem
    }

    /// The MIR shared array underneath (its length is the number of scalars), for raw builder ops.
    pub fn buf(&self) -> SharedBuf {
        self.buf
    }

    /// The shared memory the array takes per block, in bytes.
    pub fn bytes(&self) -> u32 {
        self.buf.len() * self.dtype.bytes()
    }

    /// The flat component index of matrix entry `(row, col)` (for the `*_elem` methods); an error
    /// unless the elements are matrices and the entry is inside them.
    #[track_caller]
    pub fn mat_component(&self, row: u32, col: u32) -> Result<u32, BuildError> {
        let loc = Location::caller();
        match self.elem {
            ElemShape::Matrix(r, c) if row < r && col < c => Ok(row * c + col),
            e => Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!("SharedArray @{}: entry ({row}, {col}) is not inside an element of shape {e:?}", self.name),
            )),
        }
    }

    /// The scalar offset of element `idx`, component `comp`.
    fn offset(&self, b: &mut KernelBuilder<'_>, loc: Loc, op: &str, idx: &[Val], comp: u32) -> Result<Val, BuildError> {
        let what = format!("SharedArray::{op} @{}", self.name);
        if idx.len() != self.shape.len() {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!(
                    "{what}: {} index(es) for a {}-dimensional array of shape {:?}",
                    idx.len(),
                    self.shape.len(),
                    self.shape
                ),
            ));
        }
        let comps = self.elem.components();
        if comp >= comps {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!(
                    "{what}: component {comp} is out of range for an element of shape {:?} ({comps} components)",
                    self.elem
                ),
            ));
        }
        let mut wide = false;
        let mut consts = Vec::with_capacity(idx.len());
        for (d, (&v, &n)) in idx.iter().zip(&self.shape).enumerate() {
            match v.scalar() {
                Some(s) if s.is_int() => wide |= s.bytes() == 8,
                _ => {
                    return Err(err(
                        loc,
                        ErrorKind::TypeMismatch,
                        format!("{what}: index {d} must be an integer, got {}", v.ty()),
                    ))
                }
            }
            let c = const_int(b, v);
            if let Some(c) = c {
                if c < 0 || c >= i128::from(n) {
                    return Err(err(
                        loc,
                        ErrorKind::OutOfRange,
                        format!("{what}: index {c} is out of range for dimension {d} of shape {:?}", self.shape),
                    ));
                }
            }
            consts.push(c);
        }
        // All constant: one constant offset.
        if consts.iter().all(Option::is_some) {
            let lin = consts.iter().zip(&self.shape).fold(0i128, |a, (c, &n)| a * i128::from(n) + c.unwrap_or(0));
            let off = lin * i128::from(comps) + i128::from(comp);
            // in range of the array, so it fits a u32
            return b.const_u32(off as u32);
        }
        // A single dynamic index of a scalar 1-D array: used as is (MIR reads it by its signedness).
        if idx.len() == 1 && comps == 1 {
            return Ok(idx[0]);
        }
        let ty = if wide { ScalarType::I64 } else { ScalarType::I32 };
        let mut lin: Option<Val> = None;
        for (&v, &n) in idx.iter().zip(&self.shape) {
            let v = if v.scalar() == Some(ty) { v } else { b.cast(v, ty)? };
            lin = Some(match lin {
                None => v,
                Some(l) => {
                    let nv = b.const_scalar(ty, u64::from(n))?;
                    let m = b.mul(l, nv)?;
                    b.add(m, v)?
                }
            });
        }
        let mut lin = match lin {
            Some(l) => l,
            None => return Err(err(loc, ErrorKind::OutOfRange, format!("{what}: no index"))),
        };
        if comps > 1 {
            let cv = b.const_scalar(ty, u64::from(comps))?;
            lin = b.mul(lin, cv)?;
        }
        if comp > 0 {
            let cv = b.const_scalar(ty, u64::from(comp))?;
            lin = b.add(lin, cv)?;
        }
        Ok(lin)
    }

    fn scalar_only(&self, loc: Loc, op: &str) -> Result<(), BuildError> {
        if self.elem == ElemShape::Scalar {
            return Ok(());
        }
        // The component-wise form that exists for `op`.
        let hint = match op {
            "load" => "use load_elem with a component, or load_vec",
            "store" => "use store_elem with a component, or store_vec",
            "atomic_cas" => "atomic_cas works on arrays of scalar elements only",
            _ => "use atomic_elem with the operator and a component",
        };
        Err(err(
            loc,
            ErrorKind::TypeMismatch,
            format!("SharedArray::{op} @{}: the elements are {:?}; {hint}", self.name, self.elem),
        ))
    }

    /// `arr[idx]` for scalar elements (one index per dimension, any integer type).
    #[track_caller]
    pub fn load(&self, b: &mut KernelBuilder<'_>, idx: &[Val]) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "load")?;
        self.load_impl(b, loc, "load", idx, 0).map_err(at(loc))
    }

    /// Component `comp` of element `idx` (vector lane, or flat matrix entry: see
    /// [`SharedArray::mat_component`]).
    #[track_caller]
    pub fn load_elem(&self, b: &mut KernelBuilder<'_>, idx: &[Val], comp: u32) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.load_impl(b, loc, "load_elem", idx, comp).map_err(at(loc))
    }

    /// Every component of element `idx`, in order.
    #[track_caller]
    pub fn load_vec(&self, b: &mut KernelBuilder<'_>, idx: &[Val]) -> Result<Vec<Val>, BuildError> {
        let loc = Location::caller();
        (0..self.elem.components()).map(|c| self.load_impl(b, loc, "load_vec", idx, c).map_err(at(loc))).collect()
    }

    fn load_impl(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: &str,
        idx: &[Val],
        comp: u32,
    ) -> Result<Val, BuildError> {
        let off = self.offset(b, loc, op, idx, comp)?;
        b.load(self.buf, off)
    }

    fn store_impl(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: &str,
        idx: &[Val],
        comp: u32,
        v: Val,
    ) -> Result<(), BuildError> {
        if v.scalar() != Some(self.dtype) {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!("SharedArray::{op} @{}: the value is {} but the array holds {}", self.name, v.ty(), self.dtype),
            ));
        }
        let off = self.offset(b, loc, op, idx, comp)?;
        b.store(self.buf, off, v)
    }

    /// `arr[idx] = v` for scalar elements (`v` of the array's dtype).
    #[track_caller]
    pub fn store(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "store")?;
        self.store_impl(b, loc, "store", idx, 0, v).map_err(at(loc))
    }

    /// Stores component `comp` of element `idx`.
    #[track_caller]
    pub fn store_elem(&self, b: &mut KernelBuilder<'_>, idx: &[Val], comp: u32, v: Val) -> Result<(), BuildError> {
        let loc = Location::caller();
        self.store_impl(b, loc, "store_elem", idx, comp, v).map_err(at(loc))
    }

    /// Stores every component of element `idx` (`vs.len()` must be the element's component count).
    #[track_caller]
    pub fn store_vec(&self, b: &mut KernelBuilder<'_>, idx: &[Val], vs: &[Val]) -> Result<(), BuildError> {
        let loc = Location::caller();
        let comps = self.elem.components();
        if vs.len() != comps as usize {
            return Err(err(
                loc,
                ErrorKind::OutOfRange,
                format!(
                    "SharedArray::store_vec @{}: {} value(s) for an element of {comps} component(s)",
                    self.name,
                    vs.len()
                ),
            ));
        }
        for (c, &v) in (0u32..).zip(vs) {
            self.store_impl(b, loc, "store_vec", idx, c, v).map_err(at(loc))?;
        }
        Ok(())
    }

    fn atomic_impl(
        &self,
        b: &mut KernelBuilder<'_>,
        loc: Loc,
        op: AtomicOp,
        idx: &[Val],
        comp: u32,
        v: Val,
    ) -> Result<Val, BuildError> {
        let name = format!("atomic_{}", op.name());
        if v.scalar() != Some(self.dtype) {
            return Err(err(
                loc,
                ErrorKind::TypeMismatch,
                format!(
                    "SharedArray::{name} @{}: the operand is {} but the array holds {}",
                    self.name,
                    v.ty(),
                    self.dtype
                ),
            ));
        }
        let off = self.offset(b, loc, &name, idx, comp)?;
        b.atomic_rmw(op, Scope::Block, self.buf, off, v)
    }

    /// Atomic `arr[idx] = arr[idx] OP v` at block scope; returns the old value. `add` on integers
    /// and f32, `min max and or xor` on integers, `exch` on any non-bool dtype (MIR `atomic.rmw`).
    #[track_caller]
    pub fn atomic(&self, b: &mut KernelBuilder<'_>, op: AtomicOp, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic")?;
        self.atomic_impl(b, loc, op, idx, 0, v).map_err(at(loc))
    }

    /// [`SharedArray::atomic`] on component `comp` of element `idx`.
    #[track_caller]
    pub fn atomic_elem(
        &self,
        b: &mut KernelBuilder<'_>,
        op: AtomicOp,
        idx: &[Val],
        comp: u32,
        v: Val,
    ) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.atomic_impl(b, loc, op, idx, comp, v).map_err(at(loc))
    }

    /// `atomic_add(arr[idx], v)` (Quadrants `qd.atomic_add`); returns the old value.
    #[track_caller]
    pub fn atomic_add(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_add")?;
        self.atomic_impl(b, loc, AtomicOp::Add, idx, 0, v).map_err(at(loc))
    }

    /// `atomic_min(arr[idx], v)` (integers); returns the old value.
    #[track_caller]
    pub fn atomic_min(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_min")?;
        self.atomic_impl(b, loc, AtomicOp::Min, idx, 0, v).map_err(at(loc))
    }

    /// `atomic_max(arr[idx], v)` (integers); returns the old value.
    #[track_caller]
    pub fn atomic_max(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_max")?;
        self.atomic_impl(b, loc, AtomicOp::Max, idx, 0, v).map_err(at(loc))
    }

    /// `atomic_and(arr[idx], v)` (integers); returns the old value.
    #[track_caller]
    pub fn atomic_and(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_and")?;
        self.atomic_impl(b, loc, AtomicOp::And, idx, 0, v).map_err(at(loc))
    }

    /// `atomic_or(arr[idx], v)` (integers); returns the old value.
    #[track_caller]
    pub fn atomic_or(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_or")?;
        self.atomic_impl(b, loc, AtomicOp::Or, idx, 0, v).map_err(at(loc))
    }

    /// `atomic_xor(arr[idx], v)` (integers); returns the old value.
    #[track_caller]
    pub fn atomic_xor(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_xor")?;
        self.atomic_impl(b, loc, AtomicOp::Xor, idx, 0, v).map_err(at(loc))
    }

    /// Atomic exchange: stores `v`, returns the old value (any non-bool dtype).
    #[track_caller]
    pub fn atomic_exch(&self, b: &mut KernelBuilder<'_>, idx: &[Val], v: Val) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_exch")?;
        self.atomic_impl(b, loc, AtomicOp::Exch, idx, 0, v).map_err(at(loc))
    }

    /// Atomic compare-exchange of `arr[idx]` (integer dtypes): stores `new` if the old value's
    /// bits equal `expected`'s; returns the old value (MIR `atomic.cas block`).
    #[track_caller]
    pub fn atomic_cas(
        &self,
        b: &mut KernelBuilder<'_>,
        idx: &[Val],
        expected: Val,
        new: Val,
    ) -> Result<Val, BuildError> {
        let loc = Location::caller();
        self.scalar_only(loc, "atomic_cas")?;
        (|| {
            let off = self.offset(b, loc, "atomic_cas", idx, 0)?;
            b.atomic_cas(Scope::Block, self.buf, off, expected, new)
        })()
        .map_err(at(loc))
    }
}
