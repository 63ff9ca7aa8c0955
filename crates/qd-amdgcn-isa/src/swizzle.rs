//! The `ds_swizzle_b32` offset patterns (docs/amdgcn-isa-facts.md §10.5):
//! the 16-bit offset field decoded into its mode, and the source-lane function of each mode.

/// A decoded ds_swizzle offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// `offset[15]` = 1, below 0xC000: within each group of 4, lane k reads lane `sel[k]`.
    QuadPerm([u8; 4]),
    /// `offset[15]` = 0: within each group of 32, lane j reads `((j & and) | or) ^ xor`.
    Bitmask {
        /// and mask, `offset[4:0]`.
        and: u8,
        /// or mask, `offset[9:5]`.
        or: u8,
        /// xor mask, `offset[14:10]`.
        xor: u8,
    },
    /// `offset[15:13]` = 0b110: rotate within each group of 32; `offset[10]` = 1 rotates right
    /// (lane j reads j − amount), 0 left (lane j reads j + amount); amount = `offset[9:5]`;
    /// `offset[4:0]` is the mode's lane mask field, kept so decode/encode is lossless (the wave
    /// simulator documents its use).
    Rotate {
        /// Direction bit.
        right: bool,
        /// Rotation amount 0..=31.
        amount: u8,
        /// `offset[4:0]`.
        mask: u8,
    },
    /// `offset[15:13]` = 0b111: the FFT butterfly mode with parameter `offset[4:0]`.
    Fft(u8),
}

impl Swizzle {
    /// Decodes the 16-bit offset.
    pub fn decode(offset: u16) -> Swizzle {
        if offset & 0x8000 == 0 {
            Swizzle::Bitmask {
                and: (offset & 0x1F) as u8,
                or: (offset >> 5 & 0x1F) as u8,
                xor: (offset >> 10 & 0x1F) as u8,
            }
        } else if offset >= 0xE000 {
            Swizzle::Fft((offset & 0x1F) as u8)
        } else if offset >= 0xC000 {
            Swizzle::Rotate {
                right: offset >> 10 & 1 == 1,
                amount: (offset >> 5 & 0x1F) as u8,
                mask: (offset & 0x1F) as u8,
            }
        } else {
            Swizzle::QuadPerm(std::array::from_fn(|k| (offset >> (2 * k) & 3) as u8))
        }
    }

    /// The source lane of lane `i` (each mode works within groups of 32 lanes; the RDNA3 and
    /// MI-series ISA guides' DS_SWIZZLE_B32 pseudocode). The one definition: the simulator
    /// executes it and the shuffle selector proves its candidates with it.
    pub fn src_lane(self, i: u32) -> u32 {
        let (group, j) = (i & 0x20, i & 0x1F);
        match self {
            Swizzle::Fft(mask) => {
                let mask = u32::from(mask);
                let rev = j.reverse_bits() >> 27;
                ((rev >> mask.count_ones()) | (j & mask)) & 0x1F | group
            }
            Swizzle::Rotate { right, amount, mask } => {
                let (amount, mask) = (u32::from(amount), u32::from(mask));
                let rot = if right { 32 - amount } else { amount };
                ((j & mask) | (j.wrapping_add(rot) & !mask)) & 0x1F | group
            }
            Swizzle::QuadPerm(sel) => (i & !3) | u32::from(sel[(i & 3) as usize] & 3),
            Swizzle::Bitmask { and, or, xor } => {
                (((j & u32::from(and)) | u32::from(or)) ^ u32::from(xor)) & 0x1F | group
            }
        }
    }

    /// The 16-bit offset.
    pub fn encode(self) -> u16 {
        match self {
            Swizzle::QuadPerm(s) => {
                0x8000 | s.iter().enumerate().fold(0, |acc, (k, &x)| acc | (u16::from(x) & 3) << (2 * k))
            }
            Swizzle::Bitmask { and, or, xor } => {
                u16::from(and & 0x1F) | u16::from(or & 0x1F) << 5 | u16::from(xor & 0x1F) << 10
            }
            Swizzle::Rotate { right, amount, mask } => {
                0xC000 | u16::from(right) << 10 | u16::from(amount & 0x1F) << 5 | u16::from(mask & 0x1F)
            }
            Swizzle::Fft(n) => 0xE000 | u16::from(n & 0x1F),
        }
    }
}
