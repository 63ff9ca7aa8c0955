//! `qdc run` argument specs: how `--arg NAME=SPEC` becomes a buffer or scalar.
//!
//! SPEC is one of `iota:TYPE:N` (0, 1, 2, …), `zeros:TYPE:N`, `fill:TYPE:N:VALUE`,
//! `rand:TYPE:N:SEED` (integers uniform in [0, 1000), floats uniform in [0, 1), bools 50/50, from
//! a SplitMix64 stream: the same seed gives the same data everywhere), a path ending in `.npy`,
//! an inline list `TYPE:[V V …]` such as `u32:[1 2 3]`, or a scalar `TYPE:VALUE` such as `u32:7`.
//!
//! In an inline list every element is a scalar literal of the type or `0x…` raw bits of the
//! element (any type: `f32:[0x3f800000 0xbf800000]` is `[1.0 -1.0]`, `i32:[0xffffffff]` is
//! `[-1]`); floats given as raw bits keep every bit (NaN payloads, `-0.0`). A float scalar also
//! takes raw bits: `f32:0x3f800000`.

use crate::npy;
use qd_mir::eval::{bits_f32, bits_f64, canon};
use qd_mir::interp::{ArgValue, Buffer};
use qd_mir::ScalarType;

/// Parses a scalar literal of a type into canonical bits.
pub fn parse_scalar(ty: ScalarType, text: &str) -> Result<u64, String> {
    let bad = || format!("'{text}' is not a valid {ty} value");
    let t = text.trim();
    let bits = match ty {
        ScalarType::Bool => match t {
            "true" | "1" => 1,
            "false" | "0" => 0,
            _ => return Err(bad()),
        },
        ScalarType::F32 => bits_f32(t.parse::<f32>().map_err(|_| bad())?),
        ScalarType::F64 => bits_f64(t.parse::<f64>().map_err(|_| bad())?),
        ScalarType::I32 | ScalarType::I64 | ScalarType::U32 | ScalarType::U64 => {
            let (neg, digits) = match t.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, t),
            };
            let mag = match digits.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => digits.parse::<u64>(),
            }
            .map_err(|_| bad())?;
            let (min, max): (i128, i128) = match ty {
                ScalarType::I32 => (i32::MIN.into(), i32::MAX.into()),
                ScalarType::I64 => (i64::MIN.into(), i64::MAX.into()),
                ScalarType::U32 => (0, u32::MAX.into()),
                _ => (0, u64::MAX.into()),
            };
            let v = if neg { -i128::from(mag) } else { i128::from(mag) };
            if v < min || v > max {
                return Err(format!("{text} is out of range for {ty}"));
            }
            v as u64
        }
    };
    Ok(canon(ty, bits))
}

fn scalar_type(s: &str) -> Result<ScalarType, String> {
    ScalarType::from_name(s).ok_or_else(|| format!("unknown type '{s}' (want bool i32 u32 i64 u64 f32 f64)"))
}

fn count(s: &str) -> Result<usize, String> {
    s.parse::<usize>().map_err(|_| format!("'{s}' is not an element count"))
}

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Parses `0x…` raw bits of a scalar type (they must fit its width).
fn parse_raw_bits(ty: ScalarType, text: &str) -> Option<Result<u64, String>> {
    let hex = text.trim().strip_prefix("0x")?;
    let bits = match u64::from_str_radix(hex, 16) {
        Ok(b) => b,
        Err(_) => return Some(Err(format!("'{text}' is not valid raw bits"))),
    };
    let width = if ty == ScalarType::Bool { 1 } else { ty.bits() };
    if width < 64 && bits >> width != 0 {
        return Some(Err(format!("raw bits {text} do not fit {ty}")));
    }
    Some(Ok(canon(ty, bits)))
}

/// Parses one element of an inline list: raw bits `0x…` or a literal.
fn parse_element(ty: ScalarType, text: &str) -> Result<u64, String> {
    parse_raw_bits(ty, text).unwrap_or_else(|| parse_scalar(ty, text))
}

/// Formats an argument as a SPEC that parses back to exactly it: a buffer as an inline list
/// (integers in decimal, floats as raw bits, bools 0/1), a scalar as `TYPE:VALUE`.
pub fn format_spec(arg: &ArgValue) -> String {
    let one = |ty: ScalarType, bits: u64| match ty {
        ScalarType::Bool => (bits & 1).to_string(),
        ScalarType::I32 => (bits as u32 as i32).to_string(),
        ScalarType::I64 => (bits as i64).to_string(),
        ScalarType::U32 | ScalarType::U64 => bits.to_string(),
        ScalarType::F32 => format!("0x{:08x}", bits as u32),
        ScalarType::F64 => format!("0x{bits:016x}"),
    };
    match arg {
        ArgValue::Buffer(b) => {
            let items: Vec<String> = b.to_bits().into_iter().map(|v| one(b.elem, v)).collect();
            format!("{}:[{}]", b.elem, items.join(" "))
        }
        ArgValue::Scalar(ty, bits) => format!("{ty}:{}", one(*ty, *bits)),
    }
}

/// Parses one SPEC into an argument value.
pub fn parse_spec(spec: &str) -> Result<ArgValue, String> {
    if let Some((ty, list)) = spec.split_once(':') {
        if let Some(items) = list.trim().strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let ty = scalar_type(ty)?;
            let bits = items.split_whitespace().map(|t| parse_element(ty, t)).collect::<Result<Vec<u64>, String>>()?;
            return Ok(ArgValue::Buffer(Buffer::from_bits(ty, bits)));
        }
    }
    if spec.ends_with(".npy") {
        let bytes = std::fs::read(spec).map_err(|e| format!("cannot read {spec}: {e}"))?;
        return npy::read(&bytes).map(|a| ArgValue::Buffer(a.buffer)).map_err(|e| format!("{spec}: {e}"));
    }
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        ["iota", ty, n] => {
            let ty = scalar_type(ty)?;
            let n = count(n)?;
            let bits = (0..n).map(|i| match ty {
                ScalarType::F32 => bits_f32(i as f32),
                ScalarType::F64 => bits_f64(i as f64),
                other => canon(other, i as u64),
            });
            Ok(ArgValue::Buffer(Buffer::from_bits(ty, bits)))
        }
        ["zeros", ty, n] => {
            let ty = scalar_type(ty)?;
            Ok(ArgValue::Buffer(Buffer::from_bits(ty, (0..count(n)?).map(|_| 0))))
        }
        ["fill", ty, n, v] => {
            let ty = scalar_type(ty)?;
            let b = parse_scalar(ty, v)?;
            Ok(ArgValue::Buffer(Buffer::from_bits(ty, (0..count(n)?).map(|_| b))))
        }
        ["rand", ty, n, seed] => {
            let ty = scalar_type(ty)?;
            let seed = seed.parse::<u64>().map_err(|_| format!("'{seed}' is not a seed (u64)"))?;
            let mut rng = SplitMix(seed);
            let bits: Vec<u64> = (0..count(n)?)
                .map(|_| {
                    let r = rng.next();
                    match ty {
                        ScalarType::Bool => r >> 63,
                        ScalarType::F32 => bits_f32((r >> 40) as f32 / (1u64 << 24) as f32),
                        ScalarType::F64 => bits_f64((r >> 11) as f64 / (1u64 << 53) as f64),
                        other => canon(other, r % 1000),
                    }
                })
                .collect();
            Ok(ArgValue::Buffer(Buffer::from_bits(ty, bits)))
        }
        [ty, v] => {
            let ty = scalar_type(ty)?;
            let bits = match ty {
                ScalarType::F32 | ScalarType::F64 => parse_raw_bits(ty, v).unwrap_or_else(|| parse_scalar(ty, v))?,
                _ => parse_scalar(ty, v)?,
            };
            Ok(ArgValue::Scalar(ty, bits))
        }
        _ => Err(format!(
            "bad argument spec '{spec}' (want iota:TYPE:N, zeros:TYPE:N, fill:TYPE:N:VALUE, rand:TYPE:N:SEED, FILE.npy, TYPE:[V V …] or TYPE:VALUE)"
        )),
    }
}

/// Formats a buffer as one line of numbers separated by spaces.
pub fn format_buffer(buf: &Buffer) -> String {
    let texts: Vec<String> = buf
        .to_bits()
        .into_iter()
        .map(|bits| match buf.elem {
            ScalarType::Bool => (bits & 1).to_string(),
            ScalarType::I32 => (bits as u32 as i32).to_string(),
            ScalarType::U32 => (bits as u32).to_string(),
            ScalarType::I64 => (bits as i64).to_string(),
            ScalarType::U64 => bits.to_string(),
            ScalarType::F32 => f32::from_bits(bits as u32).to_string(),
            ScalarType::F64 => f64::from_bits(bits).to_string(),
        })
        .collect();
    texts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(spec: &str) -> String {
        match parse_spec(spec) {
            Ok(ArgValue::Buffer(b)) => format_buffer(&b),
            other => panic!("{spec}: {other:?}"),
        }
    }

    #[test]
    fn specs() {
        assert_eq!(buf("iota:u32:5"), "0 1 2 3 4");
        assert_eq!(buf("iota:f32:3"), "0 1 2");
        assert_eq!(buf("zeros:i64:2"), "0 0");
        assert_eq!(buf("fill:i32:3:-7"), "-7 -7 -7");
        assert_eq!(buf("rand:u32:4:1"), buf("rand:u32:4:1"));
        assert_ne!(buf("rand:u32:4:1"), buf("rand:u32:4:2"));
        assert!(matches!(parse_spec("u32:7"), Ok(ArgValue::Scalar(ScalarType::U32, 7))));
        assert!(matches!(parse_spec("i32:-1"), Ok(ArgValue::Scalar(ScalarType::I32, 0xFFFF_FFFF))));
    }

    #[test]
    fn inline_lists() {
        assert_eq!(buf("u32:[1 2 3]"), "1 2 3");
        assert_eq!(buf("i32:[-1 0x7 0xffffffff]"), "-1 7 -1");
        assert_eq!(buf("f32:[0x3f800000 0xbf800000 1.5]"), "1 -1 1.5");
        assert_eq!(buf("bool:[1 0 true]"), "1 0 1");
        assert_eq!(buf("u64:[]"), "");
        assert!(matches!(parse_spec("f32:0x3fc00000"), Ok(ArgValue::Scalar(ScalarType::F32, 0x3fc0_0000))));
        assert!(parse_spec("u32:[1 x]").unwrap_err().contains("not a valid u32"));
        assert!(parse_spec("u32:[0x100000000]").unwrap_err().contains("do not fit"));
        assert!(parse_spec("u8:[1]").unwrap_err().contains("unknown type"));
        // format_spec round-trips every bit, NaN payloads and -0.0 included.
        let args = [
            ArgValue::Buffer(Buffer::from_bits(ScalarType::F32, [0x7fc0_0001, 0x8000_0000, 0x3f80_0000])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::F64, [0x8000_0000_0000_0000, 1])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::I64, [u64::MAX, 5])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::Bool, [1, 0])),
            ArgValue::Buffer(Buffer::from_bits(ScalarType::U32, [])),
            ArgValue::Scalar(ScalarType::F64, (-0.0f64).to_bits()),
            ArgValue::Scalar(ScalarType::I32, 0xFFFF_FFF9),
            ArgValue::Scalar(ScalarType::Bool, 1),
        ];
        for a in args {
            let s = format_spec(&a);
            assert_eq!(parse_spec(&s).as_ref(), Ok(&a), "{s}");
        }
        assert_eq!(format_spec(&ArgValue::Buffer(Buffer::from_bits(ScalarType::I32, [0xFFFF_FFFF, 2]))), "i32:[-1 2]");
    }

    #[test]
    fn bad_specs_are_errors() {
        assert!(parse_spec("iota:u33:4").unwrap_err().contains("unknown type"));
        assert!(parse_spec("u32:-1").unwrap_err().contains("out of range"));
        assert!(parse_spec("fill:u32:x:1").unwrap_err().contains("element count"));
        assert!(parse_spec("what").unwrap_err().contains("bad argument spec"));
        assert!(parse_spec("nope.npy").unwrap_err().contains("cannot read"));
    }
}
