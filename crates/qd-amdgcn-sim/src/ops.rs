//! The simulator's meaning of every [`Op`]: one exhaustive `match` (no catch-all arm) from the
//! table row to a small semantic descriptor that the executors in `salu`, `valu`, `crosslane` and
//! `mem_ops` interpret. Adding a row to the table breaks the build here until the simulator knows
//! what the new instruction does.
//!
//! The variants are named after the instructions they model (`s_not_b32` is `SUn::Not`,
//! `v_cvt_f32_i32` is `VUn::CvtF32I32`), so only the ones whose name does not say it all carry a doc.
#![allow(missing_docs)]

use qd_amdgcn_isa::Op;

/// Scalar one-source operations (width from the row's shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SUn {
    Not,
    Brev,
    Bcnt1,
    Ff1,
    Flbit,
    Abs,
    Sext8,
}

/// The bitwise combination of a saveexec instruction (`EXEC = src OP EXEC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveOp {
    And,
    Or,
    Xor,
    Andn2,
}

/// Scalar two-source operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SBin {
    AddU32,
    SubU32,
    AddI32,
    SubI32,
    AddcU32,
    SubbU32,
    MinI32,
    MinU32,
    MaxI32,
    MaxU32,
    Cselect,
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
    Xnor,
    Lshl,
    Lshr,
    Ashr,
    MulI32,
    BfeU32,
    BfeI32,
    MulHiU32,
    MulHiI32,
    /// `s_bfm_b32`: a mask of S0[4:0] ones shifted left by S1[4:0].
    Bfm,
    /// `s_lshlN_add_u32`: (S0 << N) + S1, SCC = the 64-bit sum ≥ 2^32.
    LshlAdd(u8),
}

/// A comparison relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Float: both ordered (neither is NaN).
    O,
    /// Float: unordered (either is NaN).
    U,
    /// Float: ordered and not equal (`lg`).
    Lg,
    /// Float: unordered or not equal (`neq`).
    Neq,
}

/// The operand type of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpTy {
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

/// SOPP branch conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Always,
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// Vector one-source operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VUn {
    Mov,
    MovB64,
    Not,
    Bfrev,
    FfbhU,
    FfblB,
    FfbhI,
    CvtF32I32,
    CvtF32U32,
    CvtU32F32,
    CvtI32F32,
    CvtF64I32,
    CvtF64U32,
    CvtI32F64,
    CvtU32F64,
    CvtF32F64,
    CvtF64F32,
    Rcp,
    Sqrt,
    Rsq,
    Exp,
    Log,
    Trunc,
    Floor,
    RcpF64,
    RsqF64,
    SqrtF64,
    FrexpMantF32,
    FrexpMantF64,
    FrexpExpF32,
    FrexpExpF64,
    RcpIflag,
    TruncF64,
    FloorF64,
    RndneF32,
    RndneF64,
    FractF32,
    FractF64,
    CvtF32Ubyte0,
}

/// Vector two-source operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VBin {
    AddF32,
    SubF32,
    SubrevF32,
    MulF32,
    MulI32I24,
    MulU32U24,
    MulHiU32U24,
    MinF32,
    MaxF32,
    MinI32,
    MaxI32,
    MinU32,
    MaxU32,
    Lshrrev,
    Ashrrev,
    Lshlrev,
    And,
    Or,
    Xor,
    AddU32,
    SubU32,
    SubrevU32,
    MulLoU32,
    MulHiU32,
    MulHiI32,
    Lshlrev64,
    Lshrrev64,
    Ashrrev64,
    Bcnt,
    MbcntLo,
    MbcntHi,
    AddF64,
    MulF64,
    MinF64,
    MaxF64,
    LdexpF32,
    LdexpF64,
}

/// Vector three-source operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VTer {
    /// `v_fmac_f32`: the destination is the addend.
    FmacF32,
    MadU32U24,
    FmaF32,
    FmaF64,
    BfeU32,
    BfeI32,
    BfiB32,
    Alignbit,
    LshlAddU32,
    AddLshlU32,
    Add3U32,
    LshlAddU64,
    DivFixupF32,
    DivFixupF64,
    Med3I32,
    Med3U32,
    Med3F32,
    Min3F32,
    Min3I32,
    Min3U32,
    Max3F32,
    Max3I32,
    Max3U32,
}

/// Carry-out / carry-in integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VCarry {
    AddCo,
    SubCo,
    SubrevCo,
    Addc,
    Subb,
    Subbrev,
}

/// Read-modify-write atomic operations (LDS and global).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Swap,
    Add,
    Sub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    AddF32,
}

/// Global load/store element kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemW {
    U8,
    U16,
    Dwords(u8),
}

/// What an instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    // scalar ALU
    SMov,
    SUn(SUn),
    SSaveexec(SaveOp),
    SGetpc,
    SSetpc,
    SSwappc,
    SBin(SBin),
    SMovk,
    SAddk,
    SMulk,
    SCmpk(Rel, bool),
    SCmp(Rel, bool),
    SBitcmp1,
    SWaitcntVscnt,
    // program control
    SNop,
    SEndpgm,
    SBranch(Cond),
    SBarrier,
    SWaitcnt,
    SWaitcntDepctr,
    STrap,
    SHint,
    // scalar memory
    SLoad,
    SBufferLoad,
    SDcacheInv,
    SMemtime,
    // vector ALU
    VUn(VUn),
    VBin(VBin),
    VTer(VTer),
    VCndmask,
    VCarry(VCarry),
    VCmp(Rel, CmpTy),
    VCmpx(Rel, CmpTy),
    VMadU64U32,
    VMadI64I32,
    /// `v_div_scale_f32` (false) / `_f64` (true).
    VDivScale(bool),
    /// `v_div_fmas_f32` (false) / `_f64` (true): reads VCC.
    VDivFmas(bool),
    /// `v_cmp_class_f32` (false) / `_f64` (true).
    VCmpClass(bool),
    VReadfirstlane,
    VReadlane,
    VWritelane,
    VPermlane16,
    VPermlanex16,
    VPermlane64,
    VNop,
    // LDS
    DsLoad,
    DsLoadU8,
    DsLoad2,
    DsStore,
    DsStoreB8,
    DsAtomic(AtomOp, bool),
    DsCmpst,
    DsBpermute,
    DsPermute,
    DsSwizzle,
    DsAddtid,
    // vector memory
    FlatLoad,
    FlatStore,
    GLoad(MemW),
    GStore(MemW),
    GAtomic(AtomOp),
    GCas,
    CacheCtl,
}

/// The semantics of `op` (exhaustive over the table).
pub fn sem(op: Op) -> Sem {
    use Sem::*;
    match op {
        Op::SMovB32 | Op::SMovB64 => SMov,
        Op::SNotB32 | Op::SNotB64 => SUn(self::SUn::Not),
        Op::SBrevB32 => SUn(self::SUn::Brev),
        Op::SBcnt1I32B32 | Op::SBcnt1I32B64 => SUn(self::SUn::Bcnt1),
        Op::SFf1I32B32 | Op::SFf1I32B64 => SUn(self::SUn::Ff1),
        Op::SFlbitI32B32 | Op::SFlbitI32B64 => SUn(self::SUn::Flbit),
        Op::SAbsI32 => SUn(self::SUn::Abs),
        Op::SSextI32I8 => SUn(self::SUn::Sext8),
        Op::SAndSaveexecB64 | Op::SAndSaveexecB32 => SSaveexec(SaveOp::And),
        Op::SOrSaveexecB64 | Op::SOrSaveexecB32 => SSaveexec(SaveOp::Or),
        Op::SXorSaveexecB64 | Op::SXorSaveexecB32 => SSaveexec(SaveOp::Xor),
        Op::SAndn2SaveexecB64 | Op::SAndn2SaveexecB32 => SSaveexec(SaveOp::Andn2),
        Op::SSwappcB64 => SSwappc,
        Op::SGetpcB64 => SGetpc,
        Op::SSetpcB64 => SSetpc,
        Op::SAddU32 => SBin(self::SBin::AddU32),
        Op::SSubU32 => SBin(self::SBin::SubU32),
        Op::SAddI32 => SBin(self::SBin::AddI32),
        Op::SSubI32 => SBin(self::SBin::SubI32),
        Op::SAddcU32 => SBin(self::SBin::AddcU32),
        Op::SSubbU32 => SBin(self::SBin::SubbU32),
        Op::SMinI32 => SBin(self::SBin::MinI32),
        Op::SMinU32 => SBin(self::SBin::MinU32),
        Op::SMaxI32 => SBin(self::SBin::MaxI32),
        Op::SMaxU32 => SBin(self::SBin::MaxU32),
        Op::SCselectB32 | Op::SCselectB64 => SBin(self::SBin::Cselect),
        Op::SAndB32 | Op::SAndB64 => SBin(self::SBin::And),
        Op::SOrB32 | Op::SOrB64 => SBin(self::SBin::Or),
        Op::SXorB32 | Op::SXorB64 => SBin(self::SBin::Xor),
        Op::SAndn2B32 | Op::SAndn2B64 => SBin(self::SBin::Andn2),
        Op::SOrn2B64 => SBin(self::SBin::Orn2),
        Op::SXnorB64 => SBin(self::SBin::Xnor),
        Op::SLshlB32 | Op::SLshlB64 => SBin(self::SBin::Lshl),
        Op::SLshrB32 | Op::SLshrB64 => SBin(self::SBin::Lshr),
        Op::SAshrI32 | Op::SAshrI64 => SBin(self::SBin::Ashr),
        Op::SMulI32 => SBin(self::SBin::MulI32),
        Op::SBfeU32 => SBin(self::SBin::BfeU32),
        Op::SBfeI32 => SBin(self::SBin::BfeI32),
        Op::SMulHiU32 => SBin(self::SBin::MulHiU32),
        Op::SMulHiI32 => SBin(self::SBin::MulHiI32),
        Op::SBfmB32 => SBin(self::SBin::Bfm),
        Op::SLshl1AddU32 => SBin(self::SBin::LshlAdd(1)),
        Op::SLshl2AddU32 => SBin(self::SBin::LshlAdd(2)),
        Op::SLshl3AddU32 => SBin(self::SBin::LshlAdd(3)),
        Op::SLshl4AddU32 => SBin(self::SBin::LshlAdd(4)),
        Op::SMovkI32 => SMovk,
        Op::SAddkI32 => SAddk,
        Op::SMulkI32 => SMulk,
        Op::SCmpkEqI32 => SCmpk(Rel::Eq, true),
        Op::SCmpkLgU32 => SCmpk(Rel::Ne, false),
        Op::SWaitcntVscnt => SWaitcntVscnt,
        Op::SCmpEqI32 => SCmp(Rel::Eq, true),
        Op::SCmpEqU32 | Op::SCmpEqU64 => SCmp(Rel::Eq, false),
        Op::SCmpLgI32 => SCmp(Rel::Ne, true),
        Op::SCmpLgU32 | Op::SCmpLgU64 => SCmp(Rel::Ne, false),
        Op::SCmpGtI32 => SCmp(Rel::Gt, true),
        Op::SCmpGtU32 => SCmp(Rel::Gt, false),
        Op::SCmpGeI32 => SCmp(Rel::Ge, true),
        Op::SCmpGeU32 => SCmp(Rel::Ge, false),
        Op::SCmpLtI32 => SCmp(Rel::Lt, true),
        Op::SCmpLtU32 => SCmp(Rel::Lt, false),
        Op::SCmpLeI32 => SCmp(Rel::Le, true),
        Op::SCmpLeU32 => SCmp(Rel::Le, false),
        Op::SBitcmp1B32 => SBitcmp1,
        Op::SNop => SNop,
        Op::SEndpgm => SEndpgm,
        Op::SBranch => SBranch(Cond::Always),
        Op::SCbranchScc0 => SBranch(Cond::Scc0),
        Op::SCbranchScc1 => SBranch(Cond::Scc1),
        Op::SCbranchVccz => SBranch(Cond::Vccz),
        Op::SCbranchVccnz => SBranch(Cond::Vccnz),
        Op::SCbranchExecz => SBranch(Cond::Execz),
        Op::SCbranchExecnz => SBranch(Cond::Execnz),
        Op::SBarrier => SBarrier,
        Op::SWaitcnt => SWaitcnt,
        Op::SWaitcntDepctr => SWaitcntDepctr,
        Op::STrap => STrap,
        Op::SSleep | Op::SSetprio | Op::SIcacheInv | Op::SSendmsg | Op::SDelayAlu | Op::SClause => SHint,
        Op::SLoadDword | Op::SLoadDwordx2 | Op::SLoadDwordx4 | Op::SLoadDwordx8 => SLoad,
        Op::SBufferLoadDword => SBufferLoad,
        Op::SDcacheInv => SDcacheInv,
        Op::SMemtime => SMemtime,
        Op::VMovB32 => VUn(self::VUn::Mov),
        Op::VMovB64 => VUn(self::VUn::MovB64),
        Op::VNotB32 => VUn(self::VUn::Not),
        Op::VBfrevB32 => VUn(self::VUn::Bfrev),
        Op::VFfbhU32 => VUn(self::VUn::FfbhU),
        Op::VFfblB32 => VUn(self::VUn::FfblB),
        Op::VFfbhI32 => VUn(self::VUn::FfbhI),
        Op::VCvtF32I32 => VUn(self::VUn::CvtF32I32),
        Op::VCvtF32U32 => VUn(self::VUn::CvtF32U32),
        Op::VCvtU32F32 => VUn(self::VUn::CvtU32F32),
        Op::VCvtI32F32 => VUn(self::VUn::CvtI32F32),
        Op::VCvtF64I32 => VUn(self::VUn::CvtF64I32),
        Op::VCvtF64U32 => VUn(self::VUn::CvtF64U32),
        Op::VCvtI32F64 => VUn(self::VUn::CvtI32F64),
        Op::VCvtU32F64 => VUn(self::VUn::CvtU32F64),
        Op::VCvtF32F64 => VUn(self::VUn::CvtF32F64),
        Op::VCvtF64F32 => VUn(self::VUn::CvtF64F32),
        Op::VRcpF32 => VUn(self::VUn::Rcp),
        Op::VSqrtF32 => VUn(self::VUn::Sqrt),
        Op::VRsqF32 => VUn(self::VUn::Rsq),
        Op::VExpF32 => VUn(self::VUn::Exp),
        Op::VLogF32 => VUn(self::VUn::Log),
        Op::VTruncF32 => VUn(self::VUn::Trunc),
        Op::VFloorF32 => VUn(self::VUn::Floor),
        Op::VPermlane64B32 => VPermlane64,
        Op::VReadfirstlaneB32 => VReadfirstlane,
        Op::VNop => VNop,
        Op::VAddF32 => VBin(self::VBin::AddF32),
        Op::VSubF32 => VBin(self::VBin::SubF32),
        Op::VSubrevF32 => VBin(self::VBin::SubrevF32),
        Op::VMulF32 => VBin(self::VBin::MulF32),
        Op::VMulI32I24 => VBin(self::VBin::MulI32I24),
        Op::VMulU32U24 => VBin(self::VBin::MulU32U24),
        Op::VMulHiU32U24 => VBin(self::VBin::MulHiU32U24),
        Op::VMinF32 => VBin(self::VBin::MinF32),
        Op::VMaxF32 => VBin(self::VBin::MaxF32),
        Op::VMinI32 => VBin(self::VBin::MinI32),
        Op::VMaxI32 => VBin(self::VBin::MaxI32),
        Op::VMinU32 => VBin(self::VBin::MinU32),
        Op::VMaxU32 => VBin(self::VBin::MaxU32),
        Op::VLshrrevB32 => VBin(self::VBin::Lshrrev),
        Op::VAshrrevI32 => VBin(self::VBin::Ashrrev),
        Op::VLshlrevB32 => VBin(self::VBin::Lshlrev),
        Op::VAndB32 => VBin(self::VBin::And),
        Op::VOrB32 => VBin(self::VBin::Or),
        Op::VXorB32 => VBin(self::VBin::Xor),
        Op::VAddU32 => VBin(self::VBin::AddU32),
        Op::VSubU32 => VBin(self::VBin::SubU32),
        Op::VSubrevU32 => VBin(self::VBin::SubrevU32),
        Op::VFmacF32 => VTer(self::VTer::FmacF32),
        Op::VCndmaskB32 => VCndmask,
        Op::VAddCoU32 => VCarry(self::VCarry::AddCo),
        Op::VSubCoU32 => VCarry(self::VCarry::SubCo),
        Op::VSubrevCoU32 => VCarry(self::VCarry::SubrevCo),
        Op::VAddcCoU32 => VCarry(self::VCarry::Addc),
        Op::VSubbCoU32 => VCarry(self::VCarry::Subb),
        Op::VSubbrevCoU32 => VCarry(self::VCarry::Subbrev),
        Op::VCmpLtI32 => VCmp(Rel::Lt, CmpTy::I32),
        Op::VCmpEqI32 => VCmp(Rel::Eq, CmpTy::I32),
        Op::VCmpLeI32 => VCmp(Rel::Le, CmpTy::I32),
        Op::VCmpGtI32 => VCmp(Rel::Gt, CmpTy::I32),
        Op::VCmpNeI32 => VCmp(Rel::Ne, CmpTy::I32),
        Op::VCmpGeI32 => VCmp(Rel::Ge, CmpTy::I32),
        Op::VCmpLtU32 => VCmp(Rel::Lt, CmpTy::U32),
        Op::VCmpEqU32 => VCmp(Rel::Eq, CmpTy::U32),
        Op::VCmpLeU32 => VCmp(Rel::Le, CmpTy::U32),
        Op::VCmpGtU32 => VCmp(Rel::Gt, CmpTy::U32),
        Op::VCmpNeU32 => VCmp(Rel::Ne, CmpTy::U32),
        Op::VCmpGeU32 => VCmp(Rel::Ge, CmpTy::U32),
        Op::VCmpLtI64 => VCmp(Rel::Lt, CmpTy::I64),
        Op::VCmpEqI64 => VCmp(Rel::Eq, CmpTy::I64),
        Op::VCmpLeI64 => VCmp(Rel::Le, CmpTy::I64),
        Op::VCmpGtI64 => VCmp(Rel::Gt, CmpTy::I64),
        Op::VCmpNeI64 => VCmp(Rel::Ne, CmpTy::I64),
        Op::VCmpGeI64 => VCmp(Rel::Ge, CmpTy::I64),
        Op::VCmpLtU64 => VCmp(Rel::Lt, CmpTy::U64),
        Op::VCmpEqU64 => VCmp(Rel::Eq, CmpTy::U64),
        Op::VCmpLeU64 => VCmp(Rel::Le, CmpTy::U64),
        Op::VCmpGtU64 => VCmp(Rel::Gt, CmpTy::U64),
        Op::VCmpNeU64 => VCmp(Rel::Ne, CmpTy::U64),
        Op::VCmpGeU64 => VCmp(Rel::Ge, CmpTy::U64),
        Op::VCmpLtF32 => VCmp(Rel::Lt, CmpTy::F32),
        Op::VCmpEqF32 => VCmp(Rel::Eq, CmpTy::F32),
        Op::VCmpLeF32 => VCmp(Rel::Le, CmpTy::F32),
        Op::VCmpGtF32 => VCmp(Rel::Gt, CmpTy::F32),
        Op::VCmpLgF32 => VCmp(Rel::Lg, CmpTy::F32),
        Op::VCmpGeF32 => VCmp(Rel::Ge, CmpTy::F32),
        Op::VCmpOF32 => VCmp(Rel::O, CmpTy::F32),
        Op::VCmpUF32 => VCmp(Rel::U, CmpTy::F32),
        Op::VCmpNeqF32 => VCmp(Rel::Neq, CmpTy::F32),
        Op::VCmpLtF64 => VCmp(Rel::Lt, CmpTy::F64),
        Op::VCmpEqF64 => VCmp(Rel::Eq, CmpTy::F64),
        Op::VCmpLeF64 => VCmp(Rel::Le, CmpTy::F64),
        Op::VCmpGtF64 => VCmp(Rel::Gt, CmpTy::F64),
        Op::VCmpLgF64 => VCmp(Rel::Lg, CmpTy::F64),
        Op::VCmpGeF64 => VCmp(Rel::Ge, CmpTy::F64),
        Op::VCmpOF64 => VCmp(Rel::O, CmpTy::F64),
        Op::VCmpUF64 => VCmp(Rel::U, CmpTy::F64),
        Op::VCmpNeqF64 => VCmp(Rel::Neq, CmpTy::F64),
        Op::VCmpxLtI32 => VCmpx(Rel::Lt, CmpTy::I32),
        Op::VCmpxEqI32 => VCmpx(Rel::Eq, CmpTy::I32),
        Op::VCmpxLeI32 => VCmpx(Rel::Le, CmpTy::I32),
        Op::VCmpxGtI32 => VCmpx(Rel::Gt, CmpTy::I32),
        Op::VCmpxNeI32 => VCmpx(Rel::Ne, CmpTy::I32),
        Op::VCmpxGeI32 => VCmpx(Rel::Ge, CmpTy::I32),
        Op::VCmpxLtU32 => VCmpx(Rel::Lt, CmpTy::U32),
        Op::VCmpxEqU32 => VCmpx(Rel::Eq, CmpTy::U32),
        Op::VCmpxLeU32 => VCmpx(Rel::Le, CmpTy::U32),
        Op::VCmpxGtU32 => VCmpx(Rel::Gt, CmpTy::U32),
        Op::VCmpxNeU32 => VCmpx(Rel::Ne, CmpTy::U32),
        Op::VCmpxGeU32 => VCmpx(Rel::Ge, CmpTy::U32),
        Op::VMulLoU32 => VBin(self::VBin::MulLoU32),
        Op::VMulHiU32 => VBin(self::VBin::MulHiU32),
        Op::VMulHiI32 => VBin(self::VBin::MulHiI32),
        Op::VMadU32U24 => VTer(self::VTer::MadU32U24),
        Op::VFmaF32 => VTer(self::VTer::FmaF32),
        Op::VFmaF64 => VTer(self::VTer::FmaF64),
        Op::VBfeU32 => VTer(self::VTer::BfeU32),
        Op::VBfeI32 => VTer(self::VTer::BfeI32),
        Op::VBfiB32 => VTer(self::VTer::BfiB32),
        Op::VAlignbitB32 => VTer(self::VTer::Alignbit),
        Op::VLshlAddU32 => VTer(self::VTer::LshlAddU32),
        Op::VAddLshlU32 => VTer(self::VTer::AddLshlU32),
        Op::VAdd3U32 => VTer(self::VTer::Add3U32),
        Op::VLshlrevB64 => VBin(self::VBin::Lshlrev64),
        Op::VLshrrevB64 => VBin(self::VBin::Lshrrev64),
        Op::VAshrrevI64 => VBin(self::VBin::Ashrrev64),
        Op::VBcntU32B32 => VBin(self::VBin::Bcnt),
        Op::VMbcntLoU32B32 => VBin(self::VBin::MbcntLo),
        Op::VMbcntHiU32B32 => VBin(self::VBin::MbcntHi),
        Op::VAddF64 => VBin(self::VBin::AddF64),
        Op::VMulF64 => VBin(self::VBin::MulF64),
        Op::VMinF64 => VBin(self::VBin::MinF64),
        Op::VMaxF64 => VBin(self::VBin::MaxF64),
        Op::VMadU64U32 => VMadU64U32,
        Op::VReadlaneB32 => VReadlane,
        Op::VWritelaneB32 => VWritelane,
        Op::VLshlAddU64 => VTer(self::VTer::LshlAddU64),
        Op::VPermlane16B32 => VPermlane16,
        Op::VPermlanex16B32 => VPermlanex16,
        Op::VDivScaleF32 => VDivScale(false),
        Op::VDivScaleF64 => VDivScale(true),
        Op::VDivFmasF32 => VDivFmas(false),
        Op::VDivFmasF64 => VDivFmas(true),
        Op::VDivFixupF32 => VTer(self::VTer::DivFixupF32),
        Op::VDivFixupF64 => VTer(self::VTer::DivFixupF64),
        Op::VRcpF64 => VUn(self::VUn::RcpF64),
        Op::VRsqF64 => VUn(self::VUn::RsqF64),
        Op::VSqrtF64 => VUn(self::VUn::SqrtF64),
        Op::VLdexpF32 => VBin(self::VBin::LdexpF32),
        Op::VLdexpF64 => VBin(self::VBin::LdexpF64),
        Op::VFrexpMantF32 => VUn(self::VUn::FrexpMantF32),
        Op::VFrexpMantF64 => VUn(self::VUn::FrexpMantF64),
        Op::VFrexpExpI32F32 => VUn(self::VUn::FrexpExpF32),
        Op::VFrexpExpI32F64 => VUn(self::VUn::FrexpExpF64),
        Op::VCmpClassF32 => VCmpClass(false),
        Op::VCmpClassF64 => VCmpClass(true),
        Op::VRcpIflagF32 => VUn(self::VUn::RcpIflag),
        Op::VTruncF64 => VUn(self::VUn::TruncF64),
        Op::VFloorF64 => VUn(self::VUn::FloorF64),
        Op::VRndneF32 => VUn(self::VUn::RndneF32),
        Op::VRndneF64 => VUn(self::VUn::RndneF64),
        Op::VFractF32 => VUn(self::VUn::FractF32),
        Op::VFractF64 => VUn(self::VUn::FractF64),
        Op::VMed3I32 => VTer(self::VTer::Med3I32),
        Op::VMed3U32 => VTer(self::VTer::Med3U32),
        Op::VMed3F32 => VTer(self::VTer::Med3F32),
        Op::VMin3F32 => VTer(self::VTer::Min3F32),
        Op::VMin3I32 => VTer(self::VTer::Min3I32),
        Op::VMin3U32 => VTer(self::VTer::Min3U32),
        Op::VMax3F32 => VTer(self::VTer::Max3F32),
        Op::VMax3I32 => VTer(self::VTer::Max3I32),
        Op::VMax3U32 => VTer(self::VTer::Max3U32),
        Op::VCvtF32Ubyte0 => VUn(self::VUn::CvtF32Ubyte0),
        Op::VMadI64I32 => VMadI64I32,
        Op::DsReadB32 | Op::DsReadB64 | Op::DsReadB128 => DsLoad,
        Op::DsRead2B32 => DsLoad2,
        Op::DsWriteB32 | Op::DsWriteB64 | Op::DsWriteB128 => DsStore,
        Op::DsAddU32 => DsAtomic(AtomOp::Add, false),
        Op::DsSubU32 => DsAtomic(AtomOp::Sub, false),
        Op::DsMinI32 => DsAtomic(AtomOp::SMin, false),
        Op::DsMaxI32 => DsAtomic(AtomOp::SMax, false),
        Op::DsMinU32 => DsAtomic(AtomOp::UMin, false),
        Op::DsMaxU32 => DsAtomic(AtomOp::UMax, false),
        Op::DsAndB32 => DsAtomic(AtomOp::And, false),
        Op::DsOrB32 => DsAtomic(AtomOp::Or, false),
        Op::DsXorB32 => DsAtomic(AtomOp::Xor, false),
        Op::DsAddF32 => DsAtomic(AtomOp::AddF32, false),
        Op::DsAddRtnU32 => DsAtomic(AtomOp::Add, true),
        Op::DsSubRtnU32 => DsAtomic(AtomOp::Sub, true),
        Op::DsMinRtnI32 => DsAtomic(AtomOp::SMin, true),
        Op::DsMaxRtnI32 => DsAtomic(AtomOp::SMax, true),
        Op::DsMinRtnU32 => DsAtomic(AtomOp::UMin, true),
        Op::DsMaxRtnU32 => DsAtomic(AtomOp::UMax, true),
        Op::DsAndRtnB32 => DsAtomic(AtomOp::And, true),
        Op::DsOrRtnB32 => DsAtomic(AtomOp::Or, true),
        Op::DsXorRtnB32 => DsAtomic(AtomOp::Xor, true),
        Op::DsWrxchgRtnB32 => DsAtomic(AtomOp::Swap, true),
        Op::DsAddRtnF32 => DsAtomic(AtomOp::AddF32, true),
        Op::DsCmpstRtnB32 => DsCmpst,
        Op::DsBpermuteB32 => DsBpermute,
        Op::DsPermuteB32 => DsPermute,
        Op::DsSwizzleB32 => DsSwizzle,
        Op::DsReadAddtidB32 => DsAddtid,
        Op::DsReadU8 => DsLoadU8,
        Op::DsWriteB8 => DsStoreB8,
        Op::DsAddRtnU64 => DsAtomic(AtomOp::Add, true),
        Op::DsSubRtnU64 => DsAtomic(AtomOp::Sub, true),
        Op::DsMinRtnI64 => DsAtomic(AtomOp::SMin, true),
        Op::DsMaxRtnI64 => DsAtomic(AtomOp::SMax, true),
        Op::DsMinRtnU64 => DsAtomic(AtomOp::UMin, true),
        Op::DsMaxRtnU64 => DsAtomic(AtomOp::UMax, true),
        Op::DsAndRtnB64 => DsAtomic(AtomOp::And, true),
        Op::DsOrRtnB64 => DsAtomic(AtomOp::Or, true),
        Op::DsXorRtnB64 => DsAtomic(AtomOp::Xor, true),
        Op::DsWrxchgRtnB64 => DsAtomic(AtomOp::Swap, true),
        Op::DsCmpstRtnB64 => DsCmpst,
        Op::FlatLoadDword => FlatLoad,
        Op::FlatStoreDword => FlatStore,
        Op::GlobalLoadUbyte => GLoad(MemW::U8),
        Op::GlobalLoadUshort => GLoad(MemW::U16),
        Op::GlobalLoadDword => GLoad(MemW::Dwords(1)),
        Op::GlobalLoadDwordx2 => GLoad(MemW::Dwords(2)),
        Op::GlobalLoadDwordx4 => GLoad(MemW::Dwords(4)),
        Op::GlobalStoreByte => GStore(MemW::U8),
        Op::GlobalStoreShort => GStore(MemW::U16),
        Op::GlobalStoreDword => GStore(MemW::Dwords(1)),
        Op::GlobalStoreDwordx2 => GStore(MemW::Dwords(2)),
        Op::GlobalStoreDwordx4 => GStore(MemW::Dwords(4)),
        Op::GlobalAtomicSwap => GAtomic(AtomOp::Swap),
        Op::GlobalAtomicCmpswap | Op::GlobalAtomicCmpswapX2 => GCas,
        Op::GlobalAtomicAdd | Op::GlobalAtomicAddX2 => GAtomic(AtomOp::Add),
        Op::GlobalAtomicSub => GAtomic(AtomOp::Sub),
        Op::GlobalAtomicSmin => GAtomic(AtomOp::SMin),
        Op::GlobalAtomicUmin => GAtomic(AtomOp::UMin),
        Op::GlobalAtomicSmax => GAtomic(AtomOp::SMax),
        Op::GlobalAtomicUmax => GAtomic(AtomOp::UMax),
        Op::GlobalAtomicAnd => GAtomic(AtomOp::And),
        Op::GlobalAtomicOr => GAtomic(AtomOp::Or),
        Op::GlobalAtomicXor => GAtomic(AtomOp::Xor),
        Op::GlobalAtomicAddF32 => GAtomic(AtomOp::AddF32),
        Op::GlobalAtomicSwapX2 => GAtomic(AtomOp::Swap),
        Op::GlobalAtomicSubX2 => GAtomic(AtomOp::Sub),
        Op::GlobalAtomicSminX2 => GAtomic(AtomOp::SMin),
        Op::GlobalAtomicUminX2 => GAtomic(AtomOp::UMin),
        Op::GlobalAtomicSmaxX2 => GAtomic(AtomOp::SMax),
        Op::GlobalAtomicUmaxX2 => GAtomic(AtomOp::UMax),
        Op::GlobalAtomicAndX2 => GAtomic(AtomOp::And),
        Op::GlobalAtomicOrX2 => GAtomic(AtomOp::Or),
        Op::GlobalAtomicXorX2 => GAtomic(AtomOp::Xor),
        Op::BufferWbl2
        | Op::BufferInvl2
        | Op::BufferInv
        | Op::BufferWbinvl1Vol
        | Op::BufferGl0Inv
        | Op::BufferGl1Inv => CacheCtl,
    }
}

/// Transcendental VALU ops (the "trans" unit of gfx940 and GFX11, for hazard rows 13).
pub(crate) fn is_trans(s: Sem) -> bool {
    matches!(
        s,
        Sem::VUn(
            VUn::Rcp
                | VUn::Sqrt
                | VUn::Rsq
                | VUn::Exp
                | VUn::Log
                | VUn::RcpF64
                | VUn::RsqF64
                | VUn::SqrtF64
                | VUn::RcpIflag
        )
    )
}

/// Whether the instruction executes on the vector ALU (everything `GCNHazardRecognizer` calls VALU).
pub(crate) fn is_valu(s: Sem) -> bool {
    matches!(
        s,
        Sem::VUn(_)
            | Sem::VBin(_)
            | Sem::VTer(_)
            | Sem::VCndmask
            | Sem::VCarry(_)
            | Sem::VCmp(..)
            | Sem::VCmpx(..)
            | Sem::VMadU64U32
            | Sem::VMadI64I32
            | Sem::VDivScale(_)
            | Sem::VDivFmas(_)
            | Sem::VCmpClass(_)
            | Sem::VReadfirstlane
            | Sem::VReadlane
            | Sem::VWritelane
            | Sem::VPermlane16
            | Sem::VPermlanex16
            | Sem::VPermlane64
            | Sem::VNop
    )
}

/// Whether the instruction is a scalar ALU instruction (SOP1/SOP2/SOPK/SOPC; not SOPP).
pub fn is_salu(s: Sem) -> bool {
    matches!(
        s,
        Sem::SMov
            | Sem::SUn(_)
            | Sem::SSaveexec(_)
            | Sem::SGetpc
            | Sem::SSetpc
            | Sem::SSwappc
            | Sem::SBin(_)
            | Sem::SMovk
            | Sem::SAddk
            | Sem::SMulk
            | Sem::SCmpk(..)
            | Sem::SCmp(..)
            | Sem::SBitcmp1
    )
}

/// LDS instructions (including the LDS-routed permutes).
pub fn is_ds(s: Sem) -> bool {
    matches!(
        s,
        Sem::DsLoad
            | Sem::DsLoadU8
            | Sem::DsLoad2
            | Sem::DsStore
            | Sem::DsStoreB8
            | Sem::DsAtomic(..)
            | Sem::DsCmpst
            | Sem::DsBpermute
            | Sem::DsPermute
            | Sem::DsSwizzle
            | Sem::DsAddtid
    )
}

/// FLAT/GLOBAL vector memory instructions.
pub fn is_vmem(s: Sem) -> bool {
    matches!(s, Sem::FlatLoad | Sem::FlatStore | Sem::GLoad(_) | Sem::GStore(_) | Sem::GAtomic(_) | Sem::GCas)
}
