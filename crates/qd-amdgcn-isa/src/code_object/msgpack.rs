//! A small MessagePack encoder and decoder for the AMDGPU metadata note (docs/amdgcn-isa-facts.md
//! §12.6, §15).
//!
//! Only what the HSA metadata needs, plus enough of the format to read any well-formed blob:
//! nil, booleans, integers, floats, strings, binary, arrays, maps and extension values.
//! The encoder writes the shortest form of each value, as LLVM's `msgpack::Writer` does
//! (non-negative integers as positive fixint / uint8 / uint16 / uint32 / uint64; negative ones as
//! negative fixint / int8 / … ; strings as fixstr / str8 / str16 / str32; floats as float64).
//! Maps keep their entry order; [`Value::sorted`] sorts keys the way LLVM writes them.
//!
//! The decoder never panics: truncated input, oversized lengths and nesting deeper than
//! [`MAX_DEPTH`] are errors.

use std::fmt;

/// The deepest array/map nesting the decoder accepts.
pub const MAX_DEPTH: usize = 64;

/// One MessagePack value.
///
/// Integers: `UInt` holds every non-negative integer, `Int` is meant for negative ones. The encoder
/// writes a non-negative `Int` in the unsigned forms and the decoder returns `UInt` for any
/// non-negative integer, so `decode(encode(v)) == v` holds for values that keep that convention.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `nil`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// A negative integer (see the type docs).
    Int(i64),
    /// A non-negative integer.
    UInt(u64),
    /// A float (float32 values are widened when decoded).
    Float(f64),
    /// A UTF-8 string.
    Str(String),
    /// Raw bytes.
    Bin(Vec<u8>),
    /// An array.
    Array(Vec<Value>),
    /// A map, in its stored order.
    Map(Vec<(Value, Value)>),
    /// An extension value: type tag and data.
    Ext(i8, Vec<u8>),
}

/// A decoding failure: where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MsgpackError {
    /// Byte offset in the input.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for MsgpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "msgpack at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for MsgpackError {}

impl Value {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    /// An integer value in the canonical representation (`UInt` when non-negative).
    pub fn int(i: i64) -> Value {
        if i >= 0 {
            Value::UInt(i as u64)
        } else {
            Value::Int(i)
        }
    }

    /// A map built from string keys, in the given order.
    pub fn map<K: Into<String>>(entries: impl IntoIterator<Item = (K, Value)>) -> Value {
        Value::Map(entries.into_iter().map(|(k, v)| (Value::Str(k.into()), v)).collect())
    }

    /// The same value with every map (recursively) sorted by key, as LLVM writes metadata:
    /// string keys in byte order, other keys after them in their original order.
    pub fn sorted(mut self) -> Value {
        self.sort_in_place();
        self
    }

    fn sort_in_place(&mut self) {
        match self {
            Value::Array(items) => items.iter_mut().for_each(Value::sort_in_place),
            Value::Map(entries) => {
                for (k, v) in entries.iter_mut() {
                    k.sort_in_place();
                    v.sort_in_place();
                }
                entries.sort_by(|(a, _), (b, _)| match (a, b) {
                    (Value::Str(a), Value::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
                    (Value::Str(_), _) => std::cmp::Ordering::Less,
                    (_, Value::Str(_)) => std::cmp::Ordering::Greater,
                    _ => std::cmp::Ordering::Equal,
                });
            }
            _ => {}
        }
    }

    /// The value under string key `key`, when `self` is a map holding it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| matches!(k, Value::Str(s) if s == key)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, when `self` is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer as `u64`, when `self` is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::UInt(u) => Some(u),
            Value::Int(i) => u64::try_from(i).ok(),
            _ => None,
        }
    }

    /// The integer as `i64`, when it fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::UInt(u) => i64::try_from(u).ok(),
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The boolean, when `self` is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The elements, when `self` is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The entries, when `self` is a map.
    pub fn as_map(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }
}

/// Encodes `value` as MessagePack.
pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(value, &mut out);
    out
}

/// Appends the MessagePack encoding of `value` to `out`.
pub(crate) fn encode_into(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Nil => out.push(0xc0),
        Value::Bool(false) => out.push(0xc2),
        Value::Bool(true) => out.push(0xc3),
        Value::UInt(u) => encode_uint(*u, out),
        Value::Int(i) => {
            if *i >= 0 {
                encode_uint(*i as u64, out)
            } else if *i >= -32 {
                out.push(*i as i8 as u8)
            } else if let Ok(v) = i8::try_from(*i) {
                out.push(0xd0);
                out.push(v as u8);
            } else if let Ok(v) = i16::try_from(*i) {
                out.push(0xd1);
                out.extend_from_slice(&v.to_be_bytes());
            } else if let Ok(v) = i32::try_from(*i) {
                out.push(0xd2);
                out.extend_from_slice(&v.to_be_bytes());
            } else {
                out.push(0xd3);
                out.extend_from_slice(&i.to_be_bytes());
            }
        }
        Value::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Value::Str(s) => {
            let len = s.len();
            if len < 32 {
                out.push(0xa0 | len as u8);
            } else {
                encode_len(len, [0xd9, 0xda, 0xdb], out);
            }
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bin(b) => {
            encode_len(b.len(), [0xc4, 0xc5, 0xc6], out);
            out.extend_from_slice(b);
        }
        Value::Array(items) => {
            if items.len() < 16 {
                out.push(0x90 | items.len() as u8);
            } else {
                encode_len16_32(items.len(), [0xdc, 0xdd], out);
            }
            for item in items {
                encode_into(item, out);
            }
        }
        Value::Map(entries) => {
            if entries.len() < 16 {
                out.push(0x80 | entries.len() as u8);
            } else {
                encode_len16_32(entries.len(), [0xde, 0xdf], out);
            }
            for (k, v) in entries {
                encode_into(k, out);
                encode_into(v, out);
            }
        }
        Value::Ext(tag, data) => {
            let fixed = match data.len() {
                1 => Some(0xd4),
                2 => Some(0xd5),
                4 => Some(0xd6),
                8 => Some(0xd7),
                16 => Some(0xd8),
                _ => None,
            };
            match fixed {
                Some(code) => out.push(code),
                None => encode_len(data.len(), [0xc7, 0xc8, 0xc9], out),
            }
            out.push(*tag as u8);
            out.extend_from_slice(data);
        }
    }
}

fn encode_uint(u: u64, out: &mut Vec<u8>) {
    if u < 128 {
        out.push(u as u8);
    } else if let Ok(v) = u8::try_from(u) {
        out.push(0xcc);
        out.push(v);
    } else if let Ok(v) = u16::try_from(u) {
        out.push(0xcd);
        out.extend_from_slice(&v.to_be_bytes());
    } else if let Ok(v) = u32::try_from(u) {
        out.push(0xce);
        out.extend_from_slice(&v.to_be_bytes());
    } else {
        out.push(0xcf);
        out.extend_from_slice(&u.to_be_bytes());
    }
}

/// A length with 8-, 16- and 32-bit forms (str, bin, ext). Lengths beyond `u32::MAX` are
/// not representable in MessagePack; they are written saturated (never reached by metadata).
fn encode_len(len: usize, codes: [u8; 3], out: &mut Vec<u8>) {
    if let Ok(v) = u8::try_from(len) {
        out.push(codes[0]);
        out.push(v);
    } else {
        encode_len16_32(len, [codes[1], codes[2]], out);
    }
}

fn encode_len16_32(len: usize, codes: [u8; 2], out: &mut Vec<u8>) {
    if let Ok(v) = u16::try_from(len) {
        out.push(codes[0]);
        out.extend_from_slice(&v.to_be_bytes());
    } else {
        out.push(codes[1]);
        out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
    }
}

/// Decodes exactly one value that spans all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Value, MsgpackError> {
    let (value, used) = decode_prefix(bytes)?;
    if used != bytes.len() {
        return Err(MsgpackError {
            offset: used,
            message: format!("{} trailing bytes after the value", bytes.len() - used),
        });
    }
    Ok(value)
}

/// Decodes one value from the start of `bytes`; returns it and the bytes it used.
pub(crate) fn decode_prefix(bytes: &[u8]) -> Result<(Value, usize), MsgpackError> {
    let mut d = Decoder { bytes, pos: 0 };
    let value = d.value(0)?;
    Ok((value, d.pos))
}

struct Decoder<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, MsgpackError> {
        Err(MsgpackError { offset: self.pos, message: message.into() })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], MsgpackError> {
        match self.pos.checked_add(n).filter(|&end| end <= self.bytes.len()) {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => self.err(format!("truncated: wanted {n} more bytes")),
        }
    }

    fn be<const N: usize>(&mut self) -> Result<[u8; N], MsgpackError> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u8(&mut self) -> Result<u8, MsgpackError> {
        Ok(self.be::<1>()?[0])
    }

    fn u16(&mut self) -> Result<usize, MsgpackError> {
        Ok(usize::from(u16::from_be_bytes(self.be()?)))
    }

    fn u32(&mut self) -> Result<usize, MsgpackError> {
        let v = u32::from_be_bytes(self.be()?);
        usize::try_from(v).or_else(|_| self.err("length does not fit in memory"))
    }

    /// Checks that `count` items of at least `min_size` bytes each can still follow,
    /// so hostile lengths cannot make us allocate or loop.
    fn check_count(&self, count: usize, min_size: usize) -> Result<(), MsgpackError> {
        let left = self.bytes.len() - self.pos;
        match count.checked_mul(min_size) {
            Some(need) if need <= left => Ok(()),
            _ => self.err(format!("{count} elements cannot fit in the {left} bytes left")),
        }
    }

    fn string(&mut self, len: usize) -> Result<Value, MsgpackError> {
        let start = self.pos;
        let raw = self.take(len)?;
        match std::str::from_utf8(raw) {
            Ok(s) => Ok(Value::Str(s.to_owned())),
            Err(e) => Err(MsgpackError { offset: start + e.valid_up_to(), message: "string is not UTF-8".into() }),
        }
    }

    fn array(&mut self, len: usize, depth: usize) -> Result<Value, MsgpackError> {
        self.check_count(len, 1)?;
        let mut items = Vec::with_capacity(len);
        for _ in 0..len {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, len: usize, depth: usize) -> Result<Value, MsgpackError> {
        self.check_count(len, 2)?;
        let mut entries = Vec::with_capacity(len);
        for _ in 0..len {
            let k = self.value(depth + 1)?;
            let v = self.value(depth + 1)?;
            entries.push((k, v));
        }
        Ok(Value::Map(entries))
    }

    fn ext(&mut self, len: usize) -> Result<Value, MsgpackError> {
        let tag = self.u8()? as i8;
        Ok(Value::Ext(tag, self.take(len)?.to_vec()))
    }

    fn value(&mut self, depth: usize) -> Result<Value, MsgpackError> {
        if depth > MAX_DEPTH {
            return self.err(format!("nesting deeper than {MAX_DEPTH}"));
        }
        let start = self.pos;
        let b = self.u8()?;
        Ok(match b {
            0x00..=0x7f => Value::UInt(u64::from(b)),
            0x80..=0x8f => self.map(usize::from(b & 0x0f), depth)?,
            0x90..=0x9f => self.array(usize::from(b & 0x0f), depth)?,
            0xa0..=0xbf => self.string(usize::from(b & 0x1f))?,
            0xc0 => Value::Nil,
            0xc1 => {
                self.pos = start;
                return self.err("0xc1 is never used");
            }
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4 => {
                let n = usize::from(self.u8()?);
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc5 => {
                let n = self.u16()?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc6 => {
                let n = self.u32()?;
                Value::Bin(self.take(n)?.to_vec())
            }
            0xc7 => {
                let n = usize::from(self.u8()?);
                self.ext(n)?
            }
            0xc8 => {
                let n = self.u16()?;
                self.ext(n)?
            }
            0xc9 => {
                let n = self.u32()?;
                self.ext(n)?
            }
            0xca => Value::Float(f64::from(f32::from_bits(u32::from_be_bytes(self.be()?)))),
            0xcb => Value::Float(f64::from_bits(u64::from_be_bytes(self.be()?))),
            0xcc => Value::UInt(u64::from(self.u8()?)),
            0xcd => Value::UInt(u64::from(u16::from_be_bytes(self.be()?))),
            0xce => Value::UInt(u64::from(u32::from_be_bytes(self.be()?))),
            0xcf => Value::UInt(u64::from_be_bytes(self.be()?)),
            0xd0 => Value::int(i64::from(self.u8()? as i8)),
            0xd1 => Value::int(i64::from(i16::from_be_bytes(self.be()?))),
            0xd2 => Value::int(i64::from(i32::from_be_bytes(self.be()?))),
            0xd3 => Value::int(i64::from_be_bytes(self.be()?)),
            0xd4 => self.ext(1)?,
            0xd5 => self.ext(2)?,
            0xd6 => self.ext(4)?,
            0xd7 => self.ext(8)?,
            0xd8 => self.ext(16)?,
            0xd9 => {
                let n = usize::from(self.u8()?);
                self.string(n)?
            }
            0xda => {
                let n = self.u16()?;
                self.string(n)?
            }
            0xdb => {
                let n = self.u32()?;
                self.string(n)?
            }
            0xdc => {
                let n = self.u16()?;
                self.array(n, depth)?
            }
            0xdd => {
                let n = self.u32()?;
                self.array(n, depth)?
            }
            0xde => {
                let n = self.u16()?;
                self.map(n, depth)?
            }
            0xdf => {
                let n = self.u32()?;
                self.map(n, depth)?
            }
            0xe0..=0xff => Value::Int(i64::from(b as i8)),
        })
    }
}

/// Prints the value in a compact JSON-like form (maps as `{k: v, …}`, strings quoted).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bin(b) => {
                f.write_str("bin[")?;
                for (i, byte) in b.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{byte:02x}")?;
                }
                f.write_str("]")
            }
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Ext(tag, data) => write!(f, "ext({tag}, {} bytes)", data.len()),
        }
    }
}
