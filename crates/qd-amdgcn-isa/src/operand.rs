//! Instruction operands: SGPR/VGPR ranges, the special scalar registers, inline constants and
//! literals, and their shared 8/9-bit source-field numbering (docs/amdgcn-isa-facts.md §2).
//!
//! An operand is stored as the assembler shows it (`s[4:5]`, `vcc`, `-1`, `0.5`, `0x1234`). Its
//! width is part of the operand for registers; for constants the width is the slot's (the
//! instruction shape's), so `1.0` in an f64 slot means the double 1.0.

use crate::target::Family;

/// A run of consecutive registers of one file: `s5` is `{ first: 5, len: 1 }`, `v[2:3]` is
/// `{ first: 2, len: 2 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegRange {
    /// The first register.
    pub first: u16,
    /// Number of 32-bit registers (1, 2, 4 or 8).
    pub len: u8,
}

impl RegRange {
    /// One register.
    pub fn one(first: u16) -> RegRange {
        RegRange { first, len: 1 }
    }

    /// An aligned or unaligned pair starting at `first`.
    pub fn pair(first: u16) -> RegRange {
        RegRange { first, len: 2 }
    }

    /// The last register of the range.
    pub fn last(self) -> u16 {
        self.first + u16::from(self.len) - 1
    }
}

/// The float inline constants (source codes 240–248). In an f64 slot they are doubles, in an
/// integer slot their f32 bit pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InlineFloat {
    /// 0.5 (code 240).
    Half,
    /// -0.5 (241).
    NegHalf,
    /// 1.0 (242).
    One,
    /// -1.0 (243).
    NegOne,
    /// 2.0 (244).
    Two,
    /// -2.0 (245).
    NegTwo,
    /// 4.0 (246).
    Four,
    /// -4.0 (247).
    NegFour,
    /// 1/(2π) (248).
    InvTwoPi,
}

impl InlineFloat {
    /// Every inline float, in code order.
    pub const ALL: [InlineFloat; 9] = [
        InlineFloat::Half,
        InlineFloat::NegHalf,
        InlineFloat::One,
        InlineFloat::NegOne,
        InlineFloat::Two,
        InlineFloat::NegTwo,
        InlineFloat::Four,
        InlineFloat::NegFour,
        InlineFloat::InvTwoPi,
    ];

    /// The source-field code (240..=248).
    pub fn code(self) -> u16 {
        240 + InlineFloat::ALL.iter().position(|&c| c == self).unwrap_or(0) as u16
    }

    /// The f32 value (1/(2π) is the hardware's 0x3E22F983).
    pub fn f32_bits(self) -> u32 {
        match self {
            InlineFloat::Half => 0.5f32.to_bits(),
            InlineFloat::NegHalf => (-0.5f32).to_bits(),
            InlineFloat::One => 1.0f32.to_bits(),
            InlineFloat::NegOne => (-1.0f32).to_bits(),
            InlineFloat::Two => 2.0f32.to_bits(),
            InlineFloat::NegTwo => (-2.0f32).to_bits(),
            InlineFloat::Four => 4.0f32.to_bits(),
            InlineFloat::NegFour => (-4.0f32).to_bits(),
            InlineFloat::InvTwoPi => 0x3E22_F983,
        }
    }

    /// The f64 value (1/(2π) is the hardware's 0x3FC45F306DC9C882).
    pub fn f64_bits(self) -> u64 {
        match self {
            InlineFloat::InvTwoPi => 0x3FC4_5F30_6DC9_C882,
            other => f64::from(f32::from_bits(other.f32_bits())).to_bits(),
        }
    }

    /// The assembler spelling (`0.5`, `-4.0`, `0.15915494`).
    pub fn text(self) -> &'static str {
        match self {
            InlineFloat::Half => "0.5",
            InlineFloat::NegHalf => "-0.5",
            InlineFloat::One => "1.0",
            InlineFloat::NegOne => "-1.0",
            InlineFloat::Two => "2.0",
            InlineFloat::NegTwo => "-2.0",
            InlineFloat::Four => "4.0",
            InlineFloat::NegFour => "-4.0",
            InlineFloat::InvTwoPi => "0.15915494",
        }
    }
}

/// One operand of an instruction, in assembler order (see [`crate::Shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Operand {
    /// An unused slot (the padding of [`crate::Inst::operands`]), or `off` for the saddr of
    /// a global instruction that takes a 64-bit VGPR address.
    #[default]
    None,
    /// Scalar registers `s5`, `s[4:5]` (0..=101 on GFX9, 0..=105 on GFX11).
    Sgpr(RegRange),
    /// Vector registers `v0`, `v[2:3]` (0..=255).
    Vgpr(RegRange),
    /// The 64-bit `vcc` (vcc_lo:vcc_hi), wave64 lane masks.
    Vcc,
    /// `vcc_lo` (also the wave32 `vcc`).
    VccLo,
    /// `vcc_hi`.
    VccHi,
    /// The 64-bit `exec`.
    Exec,
    /// `exec_lo` (also the wave32 `exec`).
    ExecLo,
    /// `exec_hi`.
    ExecHi,
    /// `m0` (code 124 on GFX9, 125 on GFX11).
    M0,
    /// `null` (GFX11 code 124: reads 0, writes are discarded).
    Null,
    /// `src_scc` (code 253): SCC as a 0/1 source.
    Scc,
    /// An inline integer constant, -16..=64.
    Int(i8),
    /// An inline float constant.
    Float(InlineFloat),
    /// A 32-bit literal dword appended to the instruction.
    Literal(u32),
}

impl Operand {
    /// `s<n>`.
    pub fn s(n: u16) -> Operand {
        Operand::Sgpr(RegRange::one(n))
    }

    /// `s[n:n+1]`.
    pub fn s2(n: u16) -> Operand {
        Operand::Sgpr(RegRange::pair(n))
    }

    /// `s[first:first+len-1]`.
    pub fn sr(first: u16, len: u8) -> Operand {
        Operand::Sgpr(RegRange { first, len })
    }

    /// `v<n>`.
    pub fn v(n: u16) -> Operand {
        Operand::Vgpr(RegRange::one(n))
    }

    /// `v[n:n+1]`.
    pub fn v2(n: u16) -> Operand {
        Operand::Vgpr(RegRange::pair(n))
    }

    /// `v[first:first+len-1]`.
    pub fn vr(first: u16, len: u8) -> Operand {
        Operand::Vgpr(RegRange { first, len })
    }

    /// The cheapest encoding of a 32-bit value: an inline integer, an inline float (by bit
    /// pattern) or a literal.
    pub fn imm32(value: u32) -> Operand {
        let signed = value as i32;
        if (-16..=64).contains(&signed) {
            return Operand::Int(signed as i8);
        }
        if let Some(f) = InlineFloat::ALL.into_iter().find(|f| f.f32_bits() == value) {
            return Operand::Float(f);
        }
        Operand::Literal(value)
    }

    /// Whether this is a constant (inline or literal).
    pub(crate) fn is_const(self) -> bool {
        matches!(self, Operand::Int(_) | Operand::Float(_) | Operand::Literal(_))
    }

    /// Whether this operand reads a scalar value through the constant bus when used as a VALU
    /// source (SGPRs, special scalar registers and literals; not inline constants).
    pub fn uses_constant_bus(self) -> bool {
        matches!(
            self,
            Operand::Sgpr(_)
                | Operand::Vcc
                | Operand::VccLo
                | Operand::VccHi
                | Operand::Exec
                | Operand::ExecLo
                | Operand::ExecHi
                | Operand::M0
                | Operand::Scc
                | Operand::Literal(_)
        )
    }

    /// The 8/9-bit source-field code of this operand in `family` (VGPRs are 256 + n; a literal is
    /// 255; registers are their first register). `None` for [`Operand::None`], for `null` on GFX9
    /// and for register numbers out of the family's range.
    pub(crate) fn src_code(self, family: Family) -> Option<u16> {
        let max_sgpr = match family {
            Family::Gfx9 => 101,
            Family::Gfx11 => 105,
        };
        Some(match self {
            Operand::None => return None,
            Operand::Sgpr(r) if r.last() <= max_sgpr => r.first,
            Operand::Sgpr(_) => return None,
            Operand::Vgpr(r) if r.last() <= 255 => 256 + r.first,
            Operand::Vgpr(_) => return None,
            Operand::Vcc | Operand::VccLo => 106,
            Operand::VccHi => 107,
            Operand::Exec | Operand::ExecLo => 126,
            Operand::ExecHi => 127,
            Operand::M0 => match family {
                Family::Gfx9 => 124,
                Family::Gfx11 => 125,
            },
            Operand::Null => match family {
                Family::Gfx9 => return None,
                Family::Gfx11 => 124,
            },
            Operand::Scc => 253,
            Operand::Int(i) if (0..=64).contains(&i) => 128 + i as u16,
            Operand::Int(i) if (-16..0).contains(&i) => (192 - i16::from(i)) as u16,
            Operand::Int(_) => return None,
            Operand::Float(f) => f.code(),
            Operand::Literal(_) => 255,
        })
    }
}
