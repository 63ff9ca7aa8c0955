//! THE op table: every MIR opcode is declared exactly once here, with its text name, its format
//! and its properties. The `ops!` macro generates [`Opcode`], [`Opcode::ALL`], [`Opcode::name`],
//! [`Opcode::from_name`] (the parser's dispatch) and [`Opcode::info`] ([`OpInfo`]).
//!
//! Every consumer (verifier, printer, parser, interpreter, passes, back ends) matches on
//! `Opcode` exhaustively, with no `_ =>` arm, so adding a line here breaks the build until each of
//! them handles the new op.

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
    /// What kind of operation it is, down to the sub-kind every consumer dispatches on.
    pub class: OpClass,
}

macro_rules! ops {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $fmt:ident, args $args:tt, results $res:tt,
        [$($prop:ident),*] $(, scope $scope:ident)?, class $class:ident $(($($sub:tt)*))? ; )*) => {
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

            /// The class of this opcode with its sub-kind (its op table row's `class`): one
            /// direct match, as every consumer dispatches on it per instruction.
            pub const fn class(self) -> OpClass {
                match self { $( Opcode::$variant => OpClass::$class $(($($sub)*))?, )* }
            }

            /// Parses a text name (the parser's dispatch).
            pub fn from_name(s: &str) -> Option<Opcode> {
                match s { $( $name => Some(Opcode::$variant), )* _ => None }
            }

            /// The op table row: a lookup in a table built at compile time (the verifier asks for
            /// it several times per instruction).
            pub fn info(self) -> OpInfo {
                Self::INFO[self as usize]
            }

            /// Every op table row, in `Opcode` order.
            const INFO: [OpInfo; Opcode::ALL.len()] = [ $( {
                #[allow(unused_mut)]
                let mut info = OpInfo {
                    name: $name,
                    format: Format::$fmt,
                    num_args: ops!(@count $args),
                    num_results: ops!(@count $res),
                    pure: false, reads: false, writes: false, convergent: false,
                    sync_scope: None, terminator: false,
                    class: Opcode::$variant.class(),
                };
                $( ops!(@prop info $prop); )*
                $( info.sync_scope = Some(Scope::$scope); )?
                info
            }, )* ];
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
    Const = "const", Const, args 0, results 1, [pure], class Const;

    /// Wrapping (integer) or IEEE (float) addition.
    Add = "add", Binary, args 2, results 1, [pure], class Binary(BinOp::Add);
    /// Subtraction.
    Sub = "sub", Binary, args 2, results 1, [pure], class Binary(BinOp::Sub);
    /// Multiplication (low half for integers).
    Mul = "mul", Binary, args 2, results 1, [pure], class Binary(BinOp::Mul);
    /// Division: integers truncate toward zero (fault on zero divisor); floats IEEE.
    Div = "div", Binary, args 2, results 1, [pure], class Binary(BinOp::Div);
    /// Remainder with the sign of the dividend (fault on zero divisor for integers).
    Rem = "rem", Binary, args 2, results 1, [pure], class Binary(BinOp::Rem);
    /// Minimum (floats: IEEE minNum — a NaN operand is ignored — with min(+0, -0) = -0).
    Min = "min", Binary, args 2, results 1, [pure], class Binary(BinOp::Min);
    /// Maximum (floats: IEEE maxNum, with max(+0, -0) = +0).
    Max = "max", Binary, args 2, results 1, [pure], class Binary(BinOp::Max);
    /// Bitwise and (integers and bool).
    And = "and", Binary, args 2, results 1, [pure], class Binary(BinOp::And);
    /// Bitwise or.
    Or = "or", Binary, args 2, results 1, [pure], class Binary(BinOp::Or);
    /// Bitwise xor.
    Xor = "xor", Binary, args 2, results 1, [pure], class Binary(BinOp::Xor);
    /// Shift left; amounts ≥ the width give 0.
    Shl = "shl", Binary, args 2, results 1, [pure], class Binary(BinOp::Shl);
    /// Shift right: arithmetic for signed, logical for unsigned; amounts ≥ width saturate.
    Shr = "shr", Binary, args 2, results 1, [pure], class Binary(BinOp::Shr);
    /// Negation (wrapping for integers).
    Neg = "neg", Unary, args 1, results 1, [pure], class Unary(UnOp::Neg);
    /// Absolute value (wrapping: `abs(INT_MIN) == INT_MIN`).
    Abs = "abs", Unary, args 1, results 1, [pure], class Unary(UnOp::Abs);
    /// Bitwise not (integers and bool).
    Not = "not", Unary, args 1, results 1, [pure], class Unary(UnOp::Not);
    /// Square root (floats).
    Sqrt = "sqrt", Unary, args 1, results 1, [pure], class Unary(UnOp::Sqrt);
    /// Count leading zeros (integers; width for 0). Result has the operand's type.
    Clz = "clz", Unary, args 1, results 1, [pure], class Unary(UnOp::Clz);
    /// Population count (integers). Result has the operand's type.
    Popcount = "popcount", Unary, args 1, results 1, [pure], class Unary(UnOp::Popcount);
    /// Bit reversal (integers).
    Bitrev = "bitrev", Unary, args 1, results 1, [pure], class Unary(UnOp::Bitrev);
    /// Fused multiply-add `a*b+c` with one rounding (floats).
    Fma = "fma", Ternary, args 3, results 1, [pure], class Fma;
    /// `select %c, %a, %b`: `%a` where `%c` is true, else `%b`.
    Select = "select", Ternary, args 3, results 1, [pure], class Select;
    /// Comparison producing `bool` (signedness from the operand type; floats ordered except `ne`).
    Cmp = "cmp", Cmp, args 2, results 1, [pure], class Cmp;
    /// Numeric conversion (int↔int by source signedness, int↔float, float↔float; float→int
    /// truncates and saturates, NaN → 0; bool→number 0/1; number→bool is `!= 0`).
    Cast = "cast", Unary, args 1, results 1, [pure], class Cast;
    /// Reinterpret the bits of a scalar as another scalar of the same width.
    Bitcast = "bitcast", Unary, args 1, results 1, [pure], class Bitcast;

    /// Address of element 0 of a shared array.
    SharedAddr = "shared.addr", SharedAddr, args 0, results 1, [pure], class Memory(MemoryOp::SharedAddr);
    /// `ptr.offset %p, %i`: pointer to element `%i` (any integer, signed or unsigned) after `%p`.
    PtrOffset = "ptr.offset", Binary, args 2, results 1, [pure], class Memory(MemoryOp::PtrOffset);
    /// Load one element.
    Load = "load", Unary, args 1, results 1, [reads], class Memory(MemoryOp::Load);
    /// Store one element.
    Store = "store", Effect, args 2, results 0, [writes], class Memory(MemoryOp::Store);
    /// Atomic read-modify-write returning the old value.
    AtomicRmw = "atomic.rmw", Atomic, args 2, results 1, [reads, writes], class Memory(MemoryOp::AtomicRmw);
    /// Atomic compare-exchange `(%p, %expected, %new)` returning the old value.
    AtomicCas = "atomic.cas", AtomicCas, args 3, results 1, [reads, writes], class Memory(MemoryOp::AtomicCas);

    /// Thread index within the block, per dimension (u32).
    ThreadId = "thread_id", Dim, args 0, results 1, [pure], class Index(IndexOp::ThreadId);
    /// Block index within the grid (u32).
    BlockId = "block_id", Dim, args 0, results 1, [pure], class Index(IndexOp::BlockId);
    /// Block size (u32).
    BlockDim = "block_dim", Dim, args 0, results 1, [pure], class Index(IndexOp::BlockDim);
    /// Grid size in blocks (u32).
    GridDim = "grid_dim", Dim, args 0, results 1, [pure], class Index(IndexOp::GridDim);
    /// Lane index within the subgroup (u32).
    LaneId = "lane_id", Nullary, args 0, results 1, [pure], class Index(IndexOp::LaneId);
    /// Subgroup index within the block (u32).
    SubgroupId = "subgroup_id", Nullary, args 0, results 1, [pure], class Index(IndexOp::SubgroupId);
    /// Subgroup width (u32): a target constant, folded once the target is known.
    SubgroupSize = "subgroup_size", Nullary, args 0, results 1, [pure], class Index(IndexOp::SubgroupSize);
    /// `lanemask.lt` (CUDA `%lanemask_lt`): u64 with bits `j < lane_id` set (only `j < width`).
    LaneMaskLt = "lanemask.lt", Nullary, args 0, results 1, [pure], class Index(IndexOp::LaneMask(LaneMask::Lt));
    /// `lanemask.le` (`%lanemask_le`): u64 with bits `j <= lane_id` set.
    LaneMaskLe = "lanemask.le", Nullary, args 0, results 1, [pure], class Index(IndexOp::LaneMask(LaneMask::Le));
    /// `lanemask.eq` (`%lanemask_eq`): u64 with only bit `lane_id` set.
    LaneMaskEq = "lanemask.eq", Nullary, args 0, results 1, [pure], class Index(IndexOp::LaneMask(LaneMask::Eq));
    /// `lanemask.ge` (`%lanemask_ge`): u64 with bits `lane_id <= j < width` set.
    LaneMaskGe = "lanemask.ge", Nullary, args 0, results 1, [pure], class Index(IndexOp::LaneMask(LaneMask::Ge));
    /// `lanemask.gt` (`%lanemask_gt`): u64 with bits `lane_id < j < width` set.
    LaneMaskGt = "lanemask.gt", Nullary, args 0, results 1, [pure], class Index(IndexOp::LaneMask(LaneMask::Gt));

    /// `shuffle.idx %v, %lane`: read `%v` of lane `%lane mod width`.
    ShuffleIdx = "shuffle.idx", Binary, args 2, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Shuffle(ShuffleKind::Idx));
    /// `shuffle.up %v, %d`: read lane `lane - d`; out of range keeps the own value.
    ShuffleUp = "shuffle.up", Binary, args 2, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Shuffle(ShuffleKind::Up));
    /// `shuffle.down %v, %d`: read lane `lane + d`; out of range keeps the own value.
    ShuffleDown = "shuffle.down", Binary, args 2, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Shuffle(ShuffleKind::Down));
    /// `shuffle.xor %v, %m`: read lane `lane ^ m`; out of range keeps the own value.
    ShuffleXor = "shuffle.xor", Binary, args 2, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Shuffle(ShuffleKind::Xor));
    /// `broadcast %v, %lane`: every lane reads lane `%lane` (which must be uniform).
    Broadcast = "broadcast", Binary, args 2, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Broadcast);
    /// `ballot %p`: u64, bit i set iff lane i is active and its predicate is true.
    Ballot = "ballot", Unary, args 1, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Ballot);
    /// `ballot.first_n N %p`: u32, bits of lanes `< N` (1 ≤ N ≤ 32).
    BallotFirstN = "ballot.first_n", Count, args 1, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::BallotFirstN);
    /// `match.any %v` (CUDA `__match_any_sync`): u64, bit j set iff lane j is active and its
    /// value has the same bits as this lane's (bool as 0/1). Operand: bool, i32/u32, i64/u64,
    /// f32/f64.
    MatchAny = "match.any", Unary, args 1, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::MatchAny);
    /// `match.all %v` (CUDA `__match_all_sync`): u64, the active mask if every active lane's value
    /// has the same bits, else 0.
    MatchAll = "match.all", Unary, args 1, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::MatchAll);
    /// `activemask` (CUDA `__activemask`): u64, bit j set iff lane j is active.
    ActiveMask = "activemask", Nullary, args 0, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::ActiveMask);
    /// `elect` (PTX `elect.sync`): bool, true exactly on the lowest active lane.
    Elect = "elect", Nullary, args 0, results 1, [convergent], scope Subgroup, class Exchange(ExchangeOp::Elect);
    /// True iff the predicate is true on every active lane of the tile.
    VoteAll = "vote.all", Tiled, args 1, results 1, [convergent], scope Subgroup, class Collective(Collective::VoteAll);
    /// True iff the predicate is true on some active lane of the tile.
    VoteAny = "vote.any", Tiled, args 1, results 1, [convergent], scope Subgroup, class Collective(Collective::VoteAny);
    /// True iff the value is equal (`==`) on every active lane of the tile.
    VoteEq = "vote.eq", Tiled, args 1, results 1, [convergent], scope Subgroup, class Collective(Collective::VoteEq);
    /// Reduction over the active lanes of each tile; every lane of the tile gets the result.
    SubgroupReduce = "subgroup.reduce", Group, args 1, results 1, [convergent], scope Subgroup, class Collective(Collective::Reduce);
    /// Inclusive or exclusive scan in lane order over the active lanes of each tile.
    SubgroupScan = "subgroup.scan", Scan, args 1, results 1, [convergent], scope Subgroup, class Collective(Collective::Scan);
    /// `subgroup.segreduce op %v, %head`: per-lane inclusive scan restarted at each head flag.
    SegmentedReduce = "subgroup.segreduce", Group, args 2, results 1, [convergent], scope Subgroup, class Collective(Collective::SegReduce);
    /// Subgroup execution barrier (converges the subgroup; no memory ordering).
    SubgroupSync = "subgroup.sync", Effect, args 0, results 0, [convergent], scope Subgroup, class Sync(SyncOp::SubgroupSync);
    /// Block barrier (`__syncthreads`): execution and shared-memory ordering across the block.
    BlockSync = "block.sync", Effect, args 0, results 0, [convergent, reads, writes], scope Block, class Sync(SyncOp::BlockSync);
    /// Block barrier that also combines a predicate over the block (`and`/`or`: bool, `count`: u32).
    BlockSyncPred = "block.sync_pred", SyncPred, args 1, results 1, [convergent, reads, writes], scope Block, class Sync(SyncOp::BlockSyncPred);
    /// Memory fence with a scope.
    Fence = "fence", Fence, args 0, results 0, [reads, writes], class Sync(SyncOp::Fence);
    /// `nanosleep %ns` (CUDA `__nanosleep`): a hint to suspend the thread for about `%ns` (u32)
    /// nanoseconds. No effect on any value, but never deleted.
    Nanosleep = "nanosleep", Effect, args 1, results 0, [], class Sync(SyncOp::Nanosleep);

    /// `if %c -> (T…) { then } else { else }`.
    If = "if", If, args 1, results var, [], class If;
    /// `loop (%x: T = %init…) -> (T…) { body }`: the body ends in `continue`, `break` or `return`.
    Loop = "loop", Loop, args var, results var, [], class Loop;
    /// Ends an `if` arm, giving the `if`'s results.
    Yield = "yield", Terminator, args var, results 0, [terminator], class Terminator(Terminator::Yield);
    /// Leaves the innermost loop, giving the loop's results.
    Break = "break", Terminator, args var, results 0, [terminator], class Terminator(Terminator::Break);
    /// Starts the next iteration of the innermost loop with new carried values.
    Continue = "continue", Terminator, args var, results 0, [terminator], class Terminator(Terminator::Continue);
    /// Ends the thread.
    Return = "return", Terminator, args 0, results 0, [terminator], class Terminator(Terminator::Return);
}

/// `Opcode` accessors answering "is this op of class C, and which one?" — the one place such a
/// question is answered, so consumers can handle one class exhaustively and leave the rest.
macro_rules! class_accessors {
    ($( $(#[$doc:meta])* $name:ident: $variant:ident($sub:ty); )*) => {
        $(
            $(#[$doc])*
            pub fn $name(self) -> Option<$sub> {
                if let OpClass::$variant(x) = self.class() {
                    Some(x)
                } else {
                    None
                }
            }
        )*
    };
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of operation an opcode is, with its sub-kind: the one classification every
/// consumer dispatches on (the verifier, the folder, the collective expansion, the interpreter,
/// [`crate::eval`] and every back end). Each op table row names its class, so a new opcode is
/// classified where it is declared; and since no consumer matches on it with a wildcard arm, a new
/// class or sub-kind breaks the build in every place that must handle it.
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
    /// Addresses, loads, stores and atomics.
    Memory(MemoryOp),
    /// Launch indices and sizes and the lane masks.
    Index(IndexOp),
    /// Lane data exchange without a tile: shuffles, `broadcast`, ballots, `match.*`, `activemask`,
    /// `elect`.
    Exchange(ExchangeOp),
    /// A tiled lane-combining op: votes, reductions, scans.
    Collective(Collective),
    /// Barriers, fences and `nanosleep`.
    Sync(SyncOp),
    /// `if`.
    If,
    /// `loop`.
    Loop,
    /// A region terminator.
    Terminator(Terminator),
}

/// A scalar binary operation ([`OpClass::Binary`]; [`crate::eval::binary`] evaluates it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `add`
    Add,
    /// `sub`
    Sub,
    /// `mul`
    Mul,
    /// `div`
    Div,
    /// `rem`
    Rem,
    /// `min`
    Min,
    /// `max`
    Max,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `shl`
    Shl,
    /// `shr`
    Shr,
}

/// A scalar unary operation ([`OpClass::Unary`]; [`crate::eval::unary`] evaluates it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `neg`
    Neg,
    /// `abs`
    Abs,
    /// `not`
    Not,
    /// `sqrt`
    Sqrt,
    /// `clz`
    Clz,
    /// `popcount`
    Popcount,
    /// `bitrev`
    Bitrev,
}

/// Addresses, loads, stores and atomics ([`OpClass::Memory`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOp {
    /// `shared.addr`
    SharedAddr,
    /// `ptr.offset`
    PtrOffset,
    /// `load`
    Load,
    /// `store`
    Store,
    /// `atomic.rmw`
    AtomicRmw,
    /// `atomic.cas`
    AtomicCas,
}

/// Which lanes a `lanemask.*` op sets, relative to the own lane.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaneMask {
    /// `lanemask.lt`: lanes below.
    Lt,
    /// `lanemask.le`: lanes below and the own.
    Le,
    /// `lanemask.eq`: the own lane.
    Eq,
    /// `lanemask.ge`: the own lane and above.
    Ge,
    /// `lanemask.gt`: lanes above.
    Gt,
}

/// Launch indices, sizes and lane masks ([`OpClass::Index`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum IndexOp {
    /// `thread_id`
    ThreadId,
    /// `block_id`
    BlockId,
    /// `block_dim`
    BlockDim,
    /// `grid_dim`
    GridDim,
    /// `lane_id`
    LaneId,
    /// `subgroup_id`
    SubgroupId,
    /// `subgroup_size`
    SubgroupSize,
    /// `lanemask.*`
    LaneMask(LaneMask),
}

/// Which lane a `shuffle.*` reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleKind {
    /// `shuffle.idx`: lane `%lane mod width`.
    Idx,
    /// `shuffle.up`: lane `lane - d`.
    Up,
    /// `shuffle.down`: lane `lane + d`.
    Down,
    /// `shuffle.xor`: lane `lane ^ m`.
    Xor,
}

/// Lane data exchange without a tile ([`OpClass::Exchange`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExchangeOp {
    /// `shuffle.idx`, `shuffle.up`, `shuffle.down`, `shuffle.xor`
    Shuffle(ShuffleKind),
    /// `broadcast`
    Broadcast,
    /// `ballot`
    Ballot,
    /// `ballot.first_n`
    BallotFirstN,
    /// `match.any`
    MatchAny,
    /// `match.all`
    MatchAll,
    /// `activemask`
    ActiveMask,
    /// `elect`
    Elect,
}

/// Barriers, fences and `nanosleep` ([`OpClass::Sync`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SyncOp {
    /// `subgroup.sync`
    SubgroupSync,
    /// `block.sync`
    BlockSync,
    /// `block.sync_pred`
    BlockSyncPred,
    /// `fence`
    Fence,
    /// `nanosleep`
    Nanosleep,
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
    class_accessors! {
        /// The scalar binary operation of this opcode, if it is one (`add` … `shr`).
        as_binop: Binary(BinOp);
        /// The scalar unary operation of this opcode, if it is one (`neg` … `bitrev`).
        as_unop: Unary(UnOp);
        /// The memory operation, if this opcode is one.
        memory: Memory(MemoryOp);
        /// The index or lane-mask operation, if this opcode is one.
        index: Index(IndexOp);
        /// The lane exchange, if this opcode is one.
        exchange: Exchange(ExchangeOp);
        /// The tiled collective, if this opcode is one.
        collective: Collective(Collective);
        /// The barrier, fence or sleep, if this opcode is one.
        sync: Sync(SyncOp);
        /// The region terminator, if this opcode is one.
        terminator: Terminator(Terminator);
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
    /// The identity element's canonical bits on `ty`: `x op identity == x` for every `x`
    /// (`bool` as 0/1, 32-bit types zero-extended, floats as their IEEE bits).
    pub fn identity(self, ty: ScalarType) -> u64 {
        use ScalarType as S;
        let ones = |ty: ScalarType| match ty {
            S::Bool => 1,
            S::I32 | S::U32 | S::F32 => u64::from(u32::MAX),
            S::I64 | S::U64 | S::F64 => u64::MAX,
        };
        match (self, ty) {
            (GroupOp::Add | GroupOp::Or | GroupOp::Xor, _) => 0,
            (GroupOp::Mul, S::F32) => u64::from(1.0f32.to_bits()),
            (GroupOp::Mul, S::F64) => 1.0f64.to_bits(),
            (GroupOp::Mul, S::Bool | S::I32 | S::U32 | S::I64 | S::U64) => 1,
            (GroupOp::And, _) => ones(ty),
            (GroupOp::Min, S::F32) => u64::from(f32::INFINITY.to_bits()),
            (GroupOp::Min, S::F64) => f64::INFINITY.to_bits(),
            (GroupOp::Min, S::I32) => i32::MAX as u64,
            (GroupOp::Min, S::I64) => i64::MAX as u64,
            (GroupOp::Min, S::U32 | S::U64 | S::Bool) => ones(ty),
            (GroupOp::Max, S::F32) => u64::from(f32::NEG_INFINITY.to_bits()),
            (GroupOp::Max, S::F64) => f64::NEG_INFINITY.to_bits(),
            (GroupOp::Max, S::I32) => u64::from(i32::MIN as u32),
            (GroupOp::Max, S::I64) => i64::MIN as u64,
            (GroupOp::Max, S::U32 | S::U64 | S::Bool) => 0,
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

    /// The identity's bits ([`GroupOp::identity`] on the operand type; for `bool`, 0 or 1,
    /// which is also its `u32` working value).
    pub fn identity(&self) -> u64 {
        self.op.identity(self.orig)
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
            // The compile-time table is in `Opcode` order.
            assert_eq!((info.name, info.class), (op.name(), op.class()), "{op:?}");
            match op.class() {
                OpClass::Binary(_) => assert!(info.format == Format::Binary && info.pure, "{op}"),
                OpClass::Unary(_) => assert!(info.format == Format::Unary && info.pure, "{op}"),
                OpClass::Collective(_) => assert!(info.convergent && info.sync_scope == Some(Scope::Subgroup), "{op}"),
                OpClass::Exchange(_) => assert!(info.convergent, "{op}"),
                OpClass::Terminator(_) => assert!(info.terminator, "{op}"),
                OpClass::If => assert_eq!(info.format, Format::If),
                OpClass::Loop => assert_eq!(info.format, Format::Loop),
                OpClass::Memory(m) => match m {
                    MemoryOp::SharedAddr | MemoryOp::PtrOffset => assert!(info.pure, "{op}"),
                    MemoryOp::Load => assert!(info.reads && !info.writes, "{op}"),
                    MemoryOp::Store => assert!(info.writes && !info.reads, "{op}"),
                    MemoryOp::AtomicRmw | MemoryOp::AtomicCas => assert!(info.reads && info.writes, "{op}"),
                },
                OpClass::Const
                | OpClass::Fma
                | OpClass::Select
                | OpClass::Cmp
                | OpClass::Cast
                | OpClass::Bitcast
                | OpClass::Index(_) => assert!(info.pure, "{op}"),
                OpClass::Sync(_) => assert!(!info.pure, "{op}"),
            }
            assert!(!info.terminator || matches!(op.class(), OpClass::Terminator(_)), "{op}");
        }
    }

    #[test]
    fn every_class_belongs_to_one_opcode_at_most_once() {
        // Sub-kinds are precise: no two opcodes share a class (except the classes that carry no
        // sub-kind and name one opcode each), so dispatching on the class loses nothing.
        for (i, &a) in Opcode::ALL.iter().enumerate() {
            for &b in &Opcode::ALL[i + 1..] {
                assert_ne!(a.class(), b.class(), "{a} and {b}");
            }
        }
    }
}
