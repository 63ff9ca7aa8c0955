//! THE op table: every MIR opcode is declared exactly once here, with its text name, its format
//! and its properties. The `ops!` macro generates [`Opcode`], [`Opcode::ALL`], [`Opcode::name`],
//! [`Opcode::from_name`] (the parser's dispatch) and [`Opcode::info`] ([`OpInfo`]).
//!
//! Every consumer (verifier, printer, parser, interpreter, passes, back ends) matches on
//! `Opcode` exhaustively, with no `_ =>` arm, so adding a line here breaks the build until each of
//! them handles the new op.

use crate::eval::{BinOp, UnOp};
use crate::types::ScalarType;
use core::fmt;

/// How an instruction's immediates, operands and regions are laid out (drives parser and printer).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// `%r = const 42 : u32` — one immediate, no operands.
    Const,
    /// `%r = lane_id : u32` — nothing.
    Nullary,
    /// `%r = thread_id x : u32` — a dimension immediate.
    Dim,
    /// `%r = op %a : T` — one operand.
    Unary,
    /// `%r = op %a, %b : T` — two operands.
    Binary,
    /// `%r = op %a, %b, %c : T` — three operands.
    Ternary,
    /// `%r = cmp lt %a, %b : bool` — a condition and two operands.
    Cmp,
    /// `%r = shared.addr @name : ptr<shared, T>` — a shared-array immediate.
    SharedAddr,
    /// `%old = atomic.rmw add device %p, %v : u32` — atomic op and scope, then operands.
    Atomic,
    /// `%old = atomic.cas device %p, %cmp, %new : u32` — a scope, then operands.
    AtomicCas,
    /// `%r = ballot.first_n 16 %p : u32` — a count, then operands.
    Count,
    /// `%r = vote.all tile(3) %p : bool` — an optional tile, then operands.
    Tiled,
    /// `%r = subgroup.reduce add tile(3) %v : u32` — group operator, optional tile, operands.
    Group,
    /// `%r = subgroup.scan exclusive add %v : u32` — inclusive/exclusive, operator, tile, operands.
    Scan,
    /// `%r = block.sync_pred count %p : u32` — predicate combiner, operand.
    SyncPred,
    /// `fence block` — a scope.
    Fence,
    /// `if %c -> (T…) { … } else { … }`.
    If,
    /// `loop (%x: T = %init, …) -> (T…) { … }`.
    Loop,
    /// `yield %a, …` / `break …` / `continue …` / `return` — variadic operands, ends a region.
    Terminator,
    /// `store %p, %v` — operands, no result.
    Effect,
}

/// Memory/synchronisation scope of atomics and fences (and the sync scope of convergent ops).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The subgroup (warp / wave).
    Subgroup,
    /// The block (CUDA block, workgroup).
    Block,
    /// The whole device.
    Device,
}

impl Scope {
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Subgroup => "subgroup",
            Scope::Block => "block",
            Scope::Device => "device",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<Scope> {
        match s {
            "subgroup" => Some(Scope::Subgroup),
            "block" => Some(Scope::Block),
            "device" => Some(Scope::Device),
            _ => None,
        }
    }
}

/// The properties the op table records for each opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// Text name.
    pub name: &'static str,
    /// Layout of immediates, operands and regions.
    pub format: Format,
    /// Number of fixed operands (`None`: variadic).
    pub num_args: Option<u8>,
    /// Number of results (`None`: given by the instruction, for `if` and `loop`).
    pub num_results: Option<u8>,
    /// No side effects, no memory access and not convergent: may be folded, CSE'd and deleted.
    pub pure: bool,
    /// Reads memory.
    pub reads: bool,
    /// Writes memory.
    pub writes: bool,
    /// Communicates across lanes: must not move across control flow or be made control-dependent.
    pub convergent: bool,
    /// The scope the op synchronises or communicates over, if any.
    pub sync_scope: Option<Scope>,
    /// Ends a region.
    pub terminator: bool,
}

macro_rules! ops {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $fmt:ident, args $args:tt, results $res:tt,
        [$($prop:ident),*] $(, scope $scope:ident)? ; )*) => {
        /// A MIR opcode. See `docs/mir.md` for the semantics of each.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[$doc])* $variant, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$variant, )* ];

            /// The text name.
            pub fn name(self) -> &'static str {
                match self { $( Opcode::$variant => $name, )* }
            }

            /// Parses a text name (the parser's dispatch).
            pub fn from_name(s: &str) -> Option<Opcode> {
                match s { $( $name => Some(Opcode::$variant), )* _ => None }
            }

            /// The op table row.
            pub fn info(self) -> OpInfo {
                match self {
                    $( Opcode::$variant => {
                        #[allow(unused_mut)]
                        let mut info = OpInfo {
                            name: $name,
                            format: Format::$fmt,
                            num_args: ops!(@count $args),
                            num_results: ops!(@count $res),
                            pure: false, reads: false, writes: false, convergent: false,
                            sync_scope: None, terminator: false,
                        };
                        $( ops!(@prop info $prop); )*
                        $( info.sync_scope = Some(Scope::$scope); )?
                        info
                    } )*
                }
            }
        }
    };
    (@count var) => { None };
    (@count $n:literal) => { Some($n) };
    (@prop $i:ident pure) => { $i.pure = true; };
    (@prop $i:ident reads) => { $i.reads = true; };
    (@prop $i:ident writes) => { $i.writes = true; };
    (@prop $i:ident convergent) => { $i.convergent = true; };
    (@prop $i:ident terminator) => { $i.terminator = true; };
}

ops! {
    /// A constant of any scalar type.
    Const = "const", Const, args 0, results 1, [pure];

    /// Wrapping (integer) or IEEE (float) addition.
    Add = "add", Binary, args 2, results 1, [pure];
    /// Subtraction.
    Sub = "sub", Binary, args 2, results 1, [pure];
    /// Multiplication (low half for integers).
    Mul = "mul", Binary, args 2, results 1, [pure];
    /// Division: integers truncate toward zero (fault on zero divisor); floats IEEE.
    Div = "div", Binary, args 2, results 1, [pure];
    /// Remainder with the sign of the dividend (fault on zero divisor for integers).
    Rem = "rem", Binary, args 2, results 1, [pure];
    /// Minimum (floats: IEEE minNum — a NaN operand is ignored — with min(+0, -0) = -0).
    Min = "min", Binary, args 2, results 1, [pure];
    /// Maximum (floats: IEEE maxNum, with max(+0, -0) = +0).
    Max = "max", Binary, args 2, results 1, [pure];
    /// Bitwise and (integers and bool).
    And = "and", Binary, args 2, results 1, [pure];
    /// Bitwise or.
    Or = "or", Binary, args 2, results 1, [pure];
    /// Bitwise xor.
    Xor = "xor", Binary, args 2, results 1, [pure];
    /// Shift left; amounts ≥ the width give 0.
    Shl = "shl", Binary, args 2, results 1, [pure];
    /// Shift right: arithmetic for signed, logical for unsigned; amounts ≥ width saturate.
    Shr = "shr", Binary, args 2, results 1, [pure];
    /// Negation (wrapping for integers).
    Neg = "neg", Unary, args 1, results 1, [pure];
    /// Absolute value (wrapping: `abs(INT_MIN) == INT_MIN`).
    Abs = "abs", Unary, args 1, results 1, [pure];
    /// Bitwise not (integers and bool).
    Not = "not", Unary, args 1, results 1, [pure];
    /// Square root (floats).
    Sqrt = "sqrt", Unary, args 1, results 1, [pure];
    /// Count leading zeros (integers; width for 0). Result has the operand's type.
    Clz = "clz", Unary, args 1, results 1, [pure];
    /// Population count (integers). Result has the operand's type.
    Popcount = "popcount", Unary, args 1, results 1, [pure];
    /// Bit reversal (integers).
    Bitrev = "bitrev", Unary, args 1, results 1, [pure];
    /// Fused multiply-add `a*b+c` with one rounding (floats).
    Fma = "fma", Ternary, args 3, results 1, [pure];
    /// `select %c, %a, %b`: `%a` where `%c` is true, else `%b`.
    Select = "select", Ternary, args 3, results 1, [pure];
    /// Comparison producing `bool` (signedness from the operand type; floats ordered except `ne`).
    Cmp = "cmp", Cmp, args 2, results 1, [pure];
    /// Numeric conversion (int↔int by source signedness, int↔float, float↔float; float→int
    /// truncates and saturates, NaN → 0; bool→number 0/1; number→bool is `!= 0`).
    Cast = "cast", Unary, args 1, results 1, [pure];
    /// Reinterpret the bits of a scalar as another scalar of the same width.
    Bitcast = "bitcast", Unary, args 1, results 1, [pure];

    /// Address of element 0 of a shared array.
    SharedAddr = "shared.addr", SharedAddr, args 0, results 1, [pure];
    /// `ptr.offset %p, %i`: pointer to element `%i` (any integer, signed or unsigned) after `%p`.
    PtrOffset = "ptr.offset", Binary, args 2, results 1, [pure];
    /// Load one element.
    Load = "load", Unary, args 1, results 1, [reads];
    /// Store one element.
    Store = "store", Effect, args 2, results 0, [writes];
    /// Atomic read-modify-write returning the old value.
    AtomicRmw = "atomic.rmw", Atomic, args 2, results 1, [reads, writes];
    /// Atomic compare-exchange `(%p, %expected, %new)` returning the old value.
    AtomicCas = "atomic.cas", AtomicCas, args 3, results 1, [reads, writes];

    /// Thread index within the block, per dimension (u32).
    ThreadId = "thread_id", Dim, args 0, results 1, [pure];
    /// Block index within the grid (u32).
    BlockId = "block_id", Dim, args 0, results 1, [pure];
    /// Block size (u32).
    BlockDim = "block_dim", Dim, args 0, results 1, [pure];
    /// Grid size in blocks (u32).
    GridDim = "grid_dim", Dim, args 0, results 1, [pure];
    /// Lane index within the subgroup (u32).
    LaneId = "lane_id", Nullary, args 0, results 1, [pure];
    /// Subgroup index within the block (u32).
    SubgroupId = "subgroup_id", Nullary, args 0, results 1, [pure];
    /// Subgroup width (u32): a target constant, folded once the target is known.
    SubgroupSize = "subgroup_size", Nullary, args 0, results 1, [pure];
    /// `lanemask.lt` (CUDA `%lanemask_lt`): u64 with bits `j < lane_id` set (only `j < width`).
    LaneMaskLt = "lanemask.lt", Nullary, args 0, results 1, [pure];
    /// `lanemask.le` (`%lanemask_le`): u64 with bits `j <= lane_id` set.
    LaneMaskLe = "lanemask.le", Nullary, args 0, results 1, [pure];
    /// `lanemask.eq` (`%lanemask_eq`): u64 with only bit `lane_id` set.
    LaneMaskEq = "lanemask.eq", Nullary, args 0, results 1, [pure];
    /// `lanemask.ge` (`%lanemask_ge`): u64 with bits `lane_id <= j < width` set.
    LaneMaskGe = "lanemask.ge", Nullary, args 0, results 1, [pure];
    /// `lanemask.gt` (`%lanemask_gt`): u64 with bits `lane_id < j < width` set.
    LaneMaskGt = "lanemask.gt", Nullary, args 0, results 1, [pure];

    /// `shuffle.idx %v, %lane`: read `%v` of lane `%lane mod width`.
    ShuffleIdx = "shuffle.idx", Binary, args 2, results 1, [convergent], scope Subgroup;
    /// `shuffle.up %v, %d`: read lane `lane - d`; out of range keeps the own value.
    ShuffleUp = "shuffle.up", Binary, args 2, results 1, [convergent], scope Subgroup;
    /// `shuffle.down %v, %d`: read lane `lane + d`; out of range keeps the own value.
    ShuffleDown = "shuffle.down", Binary, args 2, results 1, [convergent], scope Subgroup;
    /// `shuffle.xor %v, %m`: read lane `lane ^ m`; out of range keeps the own value.
    ShuffleXor = "shuffle.xor", Binary, args 2, results 1, [convergent], scope Subgroup;
    /// `broadcast %v, %lane`: every lane reads lane `%lane` (which must be uniform).
    Broadcast = "broadcast", Binary, args 2, results 1, [convergent], scope Subgroup;
    /// `ballot %p`: u64, bit i set iff lane i is active and its predicate is true.
    Ballot = "ballot", Unary, args 1, results 1, [convergent], scope Subgroup;
    /// `ballot.first_n N %p`: u32, bits of lanes `< N` (1 ≤ N ≤ 32).
    BallotFirstN = "ballot.first_n", Count, args 1, results 1, [convergent], scope Subgroup;
    /// `match.any %v` (CUDA `__match_any_sync`): u64, bit j set iff lane j is active and its
    /// value has the same bits as this lane's (bool as 0/1). Operand: bool, i32/u32, i64/u64,
    /// f32/f64.
    MatchAny = "match.any", Unary, args 1, results 1, [convergent], scope Subgroup;
    /// `match.all %v` (CUDA `__match_all_sync`): u64, the active mask if every active lane's value
    /// has the same bits, else 0.
    MatchAll = "match.all", Unary, args 1, results 1, [convergent], scope Subgroup;
    /// `activemask` (CUDA `__activemask`): u64, bit j set iff lane j is active.
    ActiveMask = "activemask", Nullary, args 0, results 1, [convergent], scope Subgroup;
    /// `elect` (PTX `elect.sync`): bool, true exactly on the lowest active lane.
    Elect = "elect", Nullary, args 0, results 1, [convergent], scope Subgroup;
    /// True iff the predicate is true on every active lane of the tile.
    VoteAll = "vote.all", Tiled, args 1, results 1, [convergent], scope Subgroup;
    /// True iff the predicate is true on some active lane of the tile.
    VoteAny = "vote.any", Tiled, args 1, results 1, [convergent], scope Subgroup;
    /// True iff the value is equal (`==`) on every active lane of the tile.
    VoteEq = "vote.eq", Tiled, args 1, results 1, [convergent], scope Subgroup;
    /// Reduction over the active lanes of each tile; every lane of the tile gets the result.
    SubgroupReduce = "subgroup.reduce", Group, args 1, results 1, [convergent], scope Subgroup;
    /// Inclusive or exclusive scan in lane order over the active lanes of each tile.
    SubgroupScan = "subgroup.scan", Scan, args 1, results 1, [convergent], scope Subgroup;
    /// `subgroup.segreduce op %v, %head`: per-lane inclusive scan restarted at each head flag.
    SegmentedReduce = "subgroup.segreduce", Group, args 2, results 1, [convergent], scope Subgroup;
    /// Subgroup execution barrier (converges the subgroup; no memory ordering).
    SubgroupSync = "subgroup.sync", Effect, args 0, results 0, [convergent], scope Subgroup;
    /// Block barrier (`__syncthreads`): execution and shared-memory ordering across the block.
    BlockSync = "block.sync", Effect, args 0, results 0, [convergent, reads, writes], scope Block;
    /// Block barrier that also combines a predicate over the block (`and`/`or`: bool, `count`: u32).
    BlockSyncPred = "block.sync_pred", SyncPred, args 1, results 1, [convergent, reads, writes], scope Block;
    /// Memory fence with a scope.
    Fence = "fence", Fence, args 0, results 0, [reads, writes];
    /// `nanosleep %ns` (CUDA `__nanosleep`): a hint to suspend the thread for about `%ns` (u32)
    /// nanoseconds. No effect on any value, but never deleted.
    Nanosleep = "nanosleep", Effect, args 1, results 0, [];

    /// `if %c -> (T…) { then } else { else }`.
    If = "if", If, args 1, results var, [];
    /// `loop (%x: T = %init…) -> (T…) { body }`: the body ends in `continue`, `break` or `return`.
    Loop = "loop", Loop, args var, results var, [];
    /// Ends an `if` arm, giving the `if`'s results.
    Yield = "yield", Terminator, args var, results 0, [terminator];
    /// Leaves the innermost loop, giving the loop's results.
    Break = "break", Terminator, args var, results 0, [terminator];
    /// Starts the next iteration of the innermost loop with new carried values.
    Continue = "continue", Terminator, args var, results 0, [terminator];
    /// Ends the thread.
    Return = "return", Terminator, args 0, results 0, [terminator];
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of operation an opcode is: the one classification of the op table that passes and
/// checks dispatch on (the folder, the collective expansion, the verifier's structure checks,
/// [`crate::eval`]), so that none of them lists every opcode again. [`Opcode::class`] is an
/// exhaustive match: a new opcode breaks the build here until it is classified.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// `const`.
    Const,
    /// A scalar binary op (`add` … `shr`).
    Binary(BinOp),
    /// A scalar unary op (`neg` … `bitrev`).
    Unary(UnOp),
    /// `fma`.
    Fma,
    /// `select`.
    Select,
    /// `cmp`.
    Cmp,
    /// `cast`.
    Cast,
    /// `bitcast`.
    Bitcast,
    /// Addresses, loads, stores and atomics (`shared.addr`, `ptr.offset`, `load`, `store`,
    /// `atomic.rmw`, `atomic.cas`).
    Memory,
    /// Launch indices and sizes (`thread_id` … `subgroup_size`) and the lane masks
    /// (`lanemask.*`).
    Index,
    /// Lane data exchange without a tile: shuffles, `broadcast`, ballots, `match.*`, `activemask`,
    /// `elect`.
    Exchange,
    /// A tiled lane-combining op: votes, reductions, scans.
    Collective(Collective),
    /// Barriers, fences and `nanosleep`.
    Sync,
    /// `if`.
    If,
    /// `loop`.
    Loop,
    /// A region terminator.
    Terminator(Terminator),
}

/// The tiled lane-combining ops ([`OpClass::Collective`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Collective {
    /// `vote.all`
    VoteAll,
    /// `vote.any`
    VoteAny,
    /// `vote.eq`
    VoteEq,
    /// `subgroup.reduce`
    Reduce,
    /// `subgroup.scan`
    Scan,
    /// `subgroup.segreduce`
    SegReduce,
}

/// The region terminators ([`OpClass::Terminator`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    /// `yield`
    Yield,
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return`
    Return,
}

impl Opcode {
    /// The class of this opcode (see [`OpClass`]).
    pub fn class(self) -> OpClass {
        use Opcode as O;
        match self {
            O::Const => OpClass::Const,
            O::Add => OpClass::Binary(BinOp::Add),
            O::Sub => OpClass::Binary(BinOp::Sub),
            O::Mul => OpClass::Binary(BinOp::Mul),
            O::Div => OpClass::Binary(BinOp::Div),
            O::Rem => OpClass::Binary(BinOp::Rem),
            O::Min => OpClass::Binary(BinOp::Min),
            O::Max => OpClass::Binary(BinOp::Max),
            O::And => OpClass::Binary(BinOp::And),
            O::Or => OpClass::Binary(BinOp::Or),
            O::Xor => OpClass::Binary(BinOp::Xor),
            O::Shl => OpClass::Binary(BinOp::Shl),
            O::Shr => OpClass::Binary(BinOp::Shr),
            O::Neg => OpClass::Unary(UnOp::Neg),
            O::Abs => OpClass::Unary(UnOp::Abs),
            O::Not => OpClass::Unary(UnOp::Not),
            O::Sqrt => OpClass::Unary(UnOp::Sqrt),
            O::Clz => OpClass::Unary(UnOp::Clz),
            O::Popcount => OpClass::Unary(UnOp::Popcount),
            O::Bitrev => OpClass::Unary(UnOp::Bitrev),
            O::Fma => OpClass::Fma,
            O::Select => OpClass::Select,
            O::Cmp => OpClass::Cmp,
            O::Cast => OpClass::Cast,
            O::Bitcast => OpClass::Bitcast,
            O::SharedAddr | O::PtrOffset | O::Load | O::Store | O::AtomicRmw | O::AtomicCas => OpClass::Memory,
            O::ThreadId | O::BlockId | O::BlockDim | O::GridDim | O::LaneId | O::SubgroupId | O::SubgroupSize => {
                OpClass::Index
            }
            O::LaneMaskLt | O::LaneMaskLe | O::LaneMaskEq | O::LaneMaskGe | O::LaneMaskGt => OpClass::Index,
            O::ShuffleIdx | O::ShuffleUp | O::ShuffleDown | O::ShuffleXor | O::Broadcast | O::Ballot => {
                OpClass::Exchange
            }
            O::BallotFirstN => OpClass::Exchange,
            O::MatchAny | O::MatchAll | O::ActiveMask | O::Elect => OpClass::Exchange,
            O::VoteAll => OpClass::Collective(Collective::VoteAll),
            O::VoteAny => OpClass::Collective(Collective::VoteAny),
            O::VoteEq => OpClass::Collective(Collective::VoteEq),
            O::SubgroupReduce => OpClass::Collective(Collective::Reduce),
            O::SubgroupScan => OpClass::Collective(Collective::Scan),
            O::SegmentedReduce => OpClass::Collective(Collective::SegReduce),
            O::SubgroupSync | O::BlockSync | O::BlockSyncPred | O::Fence | O::Nanosleep => OpClass::Sync,
            O::If => OpClass::If,
            O::Loop => OpClass::Loop,
            O::Yield => OpClass::Terminator(Terminator::Yield),
            O::Break => OpClass::Terminator(Terminator::Break),
            O::Continue => OpClass::Terminator(Terminator::Continue),
            O::Return => OpClass::Terminator(Terminator::Return),
        }
    }
}

/// A comparison condition (signedness comes from the operand type).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CmpCond {
    /// `==`
    Eq,
    /// `!=` (true when either float operand is NaN)
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpCond {
    /// All conditions.
    pub const ALL: [CmpCond; 6] = [CmpCond::Eq, CmpCond::Ne, CmpCond::Lt, CmpCond::Le, CmpCond::Gt, CmpCond::Ge];
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            CmpCond::Eq => "eq",
            CmpCond::Ne => "ne",
            CmpCond::Lt => "lt",
            CmpCond::Le => "le",
            CmpCond::Gt => "gt",
            CmpCond::Ge => "ge",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<CmpCond> {
        CmpCond::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// A launch dimension.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// x
    X,
    /// y
    Y,
    /// z
    Z,
}

impl Dim {
    /// Index 0..3.
    pub fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<Dim> {
        match s {
            "x" => Some(Dim::X),
            "y" => Some(Dim::Y),
            "z" => Some(Dim::Z),
            _ => None,
        }
    }
}

/// The read-modify-write operation of `atomic.rmw`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// add (integers, f32)
    Add,
    /// min (integers)
    Min,
    /// max (integers)
    Max,
    /// and (integers)
    And,
    /// or (integers)
    Or,
    /// xor (integers)
    Xor,
    /// exchange (any 32/64-bit scalar)
    Exch,
}

impl AtomicOp {
    /// All atomic operations.
    pub const ALL: [AtomicOp; 7] =
        [AtomicOp::Add, AtomicOp::Min, AtomicOp::Max, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor, AtomicOp::Exch];
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exch => "exch",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<AtomicOp> {
        AtomicOp::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// The operator of a subgroup reduction or scan.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GroupOp {
    /// `+` (identity 0)
    Add,
    /// `*` (identity 1)
    Mul,
    /// min (identity: +inf / type max)
    Min,
    /// max (identity: -inf / type min)
    Max,
    /// bitwise and (identity: all ones), integers and bool
    And,
    /// bitwise or (identity 0)
    Or,
    /// bitwise xor (identity 0)
    Xor,
}

impl GroupOp {
    /// All group operators.
    pub const ALL: [GroupOp; 7] =
        [GroupOp::Add, GroupOp::Mul, GroupOp::Min, GroupOp::Max, GroupOp::And, GroupOp::Or, GroupOp::Xor];
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            GroupOp::Add => "add",
            GroupOp::Mul => "mul",
            GroupOp::Min => "min",
            GroupOp::Max => "max",
            GroupOp::And => "and",
            GroupOp::Or => "or",
            GroupOp::Xor => "xor",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<GroupOp> {
        GroupOp::ALL.into_iter().find(|c| c.name() == s)
    }
    /// The operator a collective applies to `bool` values (carried as 0/1): `add max or` → `or`,
    /// `mul min and` → `and`, `xor` → `xor` — bit-identical to [`crate::eval::combine`] on bools.
    pub fn on_bool(self) -> GroupOp {
        match self {
            GroupOp::Add | GroupOp::Or | GroupOp::Max => GroupOp::Or,
            GroupOp::Mul | GroupOp::And | GroupOp::Min => GroupOp::And,
            GroupOp::Xor => GroupOp::Xor,
        }
    }
    /// The binary opcode that combines two values.
    pub fn opcode(self) -> Opcode {
        match self {
            GroupOp::Add => Opcode::Add,
            GroupOp::Mul => Opcode::Mul,
            GroupOp::Min => Opcode::Min,
            GroupOp::Max => Opcode::Max,
            GroupOp::And => Opcode::And,
            GroupOp::Or => Opcode::Or,
            GroupOp::Xor => Opcode::Xor,
        }
    }
    /// The [`BinOp`] that combines two values (for back ends that evaluate or lower binary ops).
    pub fn binop(self) -> BinOp {
        match self {
            GroupOp::Add => BinOp::Add,
            GroupOp::Mul => BinOp::Mul,
            GroupOp::Min => BinOp::Min,
            GroupOp::Max => BinOp::Max,
            GroupOp::And => BinOp::And,
            GroupOp::Or => BinOp::Or,
            GroupOp::Xor => BinOp::Xor,
        }
    }
}

/// The domain a collective computes in, shared by the `expand` pass and the back ends: `bool`
/// travels as `u32` 0/1 combined with its bool operator ([`GroupOp::on_bool`]); every other type
/// as itself with the operator itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GroupDomain {
    /// The operand's type.
    pub orig: ScalarType,
    /// The type values are combined and shuffled in.
    pub work: ScalarType,
    /// The collective's operator.
    pub op: GroupOp,
    /// The operator applied in `work`.
    pub work_op: GroupOp,
}

impl GroupDomain {
    /// The domain of `op` on values of type `orig`.
    pub fn new(orig: ScalarType, op: GroupOp) -> GroupDomain {
        if orig == ScalarType::Bool {
            GroupDomain { orig, work: ScalarType::U32, op, work_op: op.on_bool() }
        } else {
            GroupDomain { orig, work: orig, op, work_op: op }
        }
    }

    /// The identity's bits (`eval::identity` of the operator on the operand type; for `bool`,
    /// 0 or 1, which is also its `u32` working value).
    pub fn identity(&self) -> u64 {
        crate::eval::identity(self.op, self.orig)
    }
}

/// How `block.sync_pred` combines its predicate over the block.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PredOp {
    /// true iff every thread's predicate is true (bool)
    And,
    /// true iff some thread's predicate is true (bool)
    Or,
    /// number of threads whose predicate is true (u32)
    Count,
}

impl PredOp {
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            PredOp::And => "and",
            PredOp::Or => "or",
            PredOp::Count => "count",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<PredOp> {
        match s {
            "and" => Some(PredOp::And),
            "or" => Some(PredOp::Or),
            "count" => Some(PredOp::Count),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_agree_with_the_table() {
        for &op in Opcode::ALL {
            let info = op.info();
            match op.class() {
                OpClass::Binary(_) => assert!(info.format == Format::Binary && info.pure, "{op}"),
                OpClass::Unary(_) => assert!(info.format == Format::Unary && info.pure, "{op}"),
                OpClass::Collective(_) => assert!(info.convergent && info.sync_scope == Some(Scope::Subgroup), "{op}"),
                OpClass::Exchange => assert!(info.convergent, "{op}"),
                OpClass::Terminator(_) => assert!(info.terminator, "{op}"),
                OpClass::If => assert_eq!(info.format, Format::If),
                OpClass::Loop => assert_eq!(info.format, Format::Loop),
                OpClass::Memory => {
                    assert!(info.reads || info.writes || op == Opcode::SharedAddr || op == Opcode::PtrOffset)
                }
                OpClass::Const
                | OpClass::Fma
                | OpClass::Select
                | OpClass::Cmp
                | OpClass::Cast
                | OpClass::Bitcast
                | OpClass::Index => assert!(info.pure, "{op}"),
                OpClass::Sync => assert!(!info.pure, "{op}"),
            }
            assert!(!info.terminator || matches!(op.class(), OpClass::Terminator(_)), "{op}");
        }
    }
}
