//! NumPy `.npy` files, read and written without a Python dependency, so `qdc run` can take its
//! inputs from NumPy (`--arg NAME=FILE.npy`) and give its outputs back (`--save NAME=FILE.npy`).
//!
//! - **Read**: format versions 1.0, 2.0 and 3.0; the dtypes `<i4 <u4 <f4 <i8 <u8 <f8 |b1` (the
//!   element types of MIR buffers; `=` is read as `<`, bools are any byte, 0 = false); C order
//!   (`'fortran_order': True` is refused); any shape, flattened in C order into one buffer
//!   (`()` is one element). The header is parsed as the Python dict literal NumPy writes; a
//!   malformed file (bad magic, unknown version, truncated header or data, extra data, an
//!   unsupported dtype, a bad shape) is an error message, never a panic.
//! - **Write**: version 1.0, a 1-D array of the buffer's dtype, the header padded so the data
//!   starts at a multiple of 64 bytes (as NumPy does).

use qd_mir::interp::Buffer;
use qd_mir::ScalarType;

const MAGIC: &[u8] = b"\x93NUMPY";

/// The dtypes `qdc` reads and writes, as NumPy spells them (`descr`).
pub const DTYPES: &str = "<i4 <u4 <f4 <i8 <u8 <f8 |b1";

/// The NumPy `descr` of a MIR element type (`<u4` for `u32`, `|b1` for `bool`).
pub fn descr(elem: ScalarType) -> &'static str {
    match elem {
        ScalarType::Bool => "|b1",
        ScalarType::I32 => "<i4",
        ScalarType::U32 => "<u4",
        ScalarType::I64 => "<i8",
        ScalarType::U64 => "<u8",
        ScalarType::F32 => "<f4",
        ScalarType::F64 => "<f8",
    }
}

fn elem_of(descr: &str) -> Result<ScalarType, String> {
    let native = descr.strip_prefix('=').map(|rest| format!("<{rest}"));
    let d = native.as_deref().unwrap_or(descr);
    Ok(match d {
        "|b1" | "<b1" => ScalarType::Bool,
        "<i4" => ScalarType::I32,
        "<u4" => ScalarType::U32,
        "<i8" => ScalarType::I64,
        "<u8" => ScalarType::U64,
        "<f4" => ScalarType::F32,
        "<f8" => ScalarType::F64,
        big if big.starts_with('>') => {
            return Err(format!("big-endian dtype '{big}' is not supported (want one of {DTYPES})"))
        }
        other => return Err(format!("unsupported dtype '{other}' (want one of {DTYPES})")),
    })
}

/// An array read from a `.npy` file: its elements, flattened in C order, and its shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// The elements (`elem` from the file's dtype).
    pub buffer: Buffer,
    /// The shape as the file gives it (`[]` for a 0-d array).
    pub shape: Vec<usize>,
}

/// Encodes a buffer as a 1-D `.npy` file (format 1.0), byte for byte what NumPy's `np.save`
/// writes for the same array.
pub fn write(buf: &Buffer) -> Vec<u8> {
    let n = buf.data.len() / buf.elem.bytes() as usize;
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({n},), }}", descr(buf.elem));
    // NumPy leaves room for the length to grow to 21 digits in place, then pads so that the data
    // starts on a 64-byte boundary; the header ends with '\n'.
    header.push_str(&" ".repeat(21usize.saturating_sub(n.to_string().len())));
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + buf.data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    // A 1-D header is well under 64 KiB: the shape is one number.
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&buf.data);
    out
}

/// Decodes a `.npy` file (see the module documentation for what is accepted).
pub fn read(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a .npy file (bad magic: it does not start with \\x93NUMPY)".into());
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => return Err(format!("truncated header: the file has {} bytes", bytes.len())),
    };
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2 | 3, 0) => 4,
        _ => return Err(format!("unsupported .npy format version {major}.{minor} (want 1.0, 2.0 or 3.0)")),
    };
    let start = 8 + len_bytes;
    let len_field =
        bytes.get(8..start).ok_or_else(|| format!("truncated header: the file has {} bytes", bytes.len()))?;
    let hlen = len_field.iter().rev().fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    let header = start
        .checked_add(hlen)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| format!("truncated header: it should be {hlen} bytes, the file has {}", bytes.len() - start))?;
    let header = std::str::from_utf8(header).map_err(|_| "the header is not UTF-8 text".to_string())?;
    let h = parse_header(header)?;
    let elem = elem_of(&h.descr)?;
    if h.fortran_order {
        return Err("Fortran-order arrays are not supported (save a C-order array: np.ascontiguousarray)".into());
    }
    let count = h
        .shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| format!("shape {:?} has too many elements", h.shape))?;
    let want =
        count.checked_mul(elem.bytes() as usize).ok_or_else(|| format!("shape {:?} has too many elements", h.shape))?;
    let data = &bytes[start + hlen..];
    if data.len() < want {
        return Err(format!(
            "truncated data: shape {} of {} needs {want} bytes, the file has {}",
            shape_text(&h.shape),
            h.descr,
            data.len()
        ));
    }
    if data.len() > want {
        return Err(format!(
            "{} bytes of data after the {want} that shape {} of {} needs",
            data.len() - want,
            shape_text(&h.shape),
            h.descr
        ));
    }
    let mut data = data.to_vec();
    if elem == ScalarType::Bool {
        for b in &mut data {
            *b = u8::from(*b != 0);
        }
    }
    Ok(Array { buffer: Buffer { elem, data }, shape: h.shape })
}

/// A shape as Python prints it: `()`, `(3,)`, `(2, 3)`.
pub fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// Parses the header's dict literal: `{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }`.
fn parse_header(text: &str) -> Result<Header, String> {
    let bad = |what: &str| format!("malformed header ({what}): {}", text.trim_end());
    let mut p = Cursor { s: text.as_bytes(), at: 0 };
    p.ws();
    if !p.eat(b'{') {
        return Err(bad("it is not a dict"));
    }
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.ws();
        if p.eat(b'}') {
            break;
        }
        let key = p.string().ok_or_else(|| bad("expected a quoted key"))?;
        if !matches!(key.as_str(), "descr" | "fortran_order" | "shape") {
            return Err(bad(&format!("unexpected key '{key}'")));
        }
        p.ws();
        if !p.eat(b':') {
            return Err(bad("expected `:` after a key"));
        }
        p.ws();
        let value = p.value().map_err(|e| bad(&e))?;
        match (key.as_str(), value) {
            ("descr", Value::Str(s)) => descr = Some(s),
            ("fortran_order", Value::Bool(b)) => fortran = Some(b),
            ("shape", Value::Tuple(t)) => shape = Some(t),
            _ => return Err(bad(&format!("'{key}' has the wrong kind of value"))),
        }
        p.ws();
        if p.eat(b',') {
            continue;
        }
        p.ws();
        if p.eat(b'}') {
            break;
        }
        return Err(bad("expected `,` or `}`"));
    }
    p.ws();
    if p.at != p.s.len() {
        return Err(bad("text after the dict"));
    }
    Ok(Header {
        descr: descr.ok_or_else(|| bad("no 'descr'"))?,
        fortran_order: fortran.ok_or_else(|| bad("no 'fortran_order'"))?,
        shape: shape.ok_or_else(|| bad("no 'shape'"))?,
    })
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// A `'…'` or `"…"` string without escapes.
    fn string(&mut self) -> Option<String> {
        let q = self.peek().filter(|&c| c == b'\'' || c == b'"')?;
        let rest = self.s.get(self.at + 1..)?;
        let end = rest.iter().position(|&c| c == q)?;
        let s = std::str::from_utf8(&rest[..end]).ok()?;
        if s.contains('\\') {
            return None;
        }
        self.at += end + 2;
        Some(s.to_string())
    }

    fn word(&mut self, w: &str) -> bool {
        if self.s.get(self.at..self.at + w.len()) == Some(w.as_bytes()) {
            self.at += w.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(b'\'' | b'"') => self.string().map(Value::Str).ok_or_else(|| "a bad string".to_string()),
            Some(b'T') if self.word("True") => Ok(Value::Bool(true)),
            Some(b'F') if self.word("False") => Ok(Value::Bool(false)),
            Some(b'(') => {
                self.at += 1;
                let mut dims = Vec::new();
                loop {
                    self.ws();
                    if self.eat(b')') {
                        return Ok(Value::Tuple(dims));
                    }
                    let digits = self.s[self.at..].iter().take_while(|c| c.is_ascii_digit()).count();
                    if digits == 0 {
                        return Err("a shape entry is not a non-negative integer".into());
                    }
                    let text = std::str::from_utf8(&self.s[self.at..self.at + digits]).unwrap_or("");
                    let d = text.parse::<usize>().map_err(|_| format!("the dimension {text} is too large"))?;
                    self.at += digits;
                    self.eat(b'L'); // Python 2 longs
                    dims.push(d);
                    self.ws();
                    if self.eat(b',') {
                        continue;
                    }
                    self.ws();
                    if self.eat(b')') {
                        return Ok(Value::Tuple(dims));
                    }
                    return Err("expected `,` or `)` in the shape".into());
                }
            }
            Some(b'[') => Err("a list value is not supported (a structured dtype?)".into()),
            _ => Err("expected a string, True, False or a tuple".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with this header text (padded as NumPy does) and data.
    fn file(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
        let mut h = header.to_string();
        let prefix = if version == 1 { 10 } else { 12 };
        while !(prefix + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[version, 0]);
        if version == 1 {
            out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(h.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn round_trip_every_dtype() {
        for elem in ScalarType::ALL {
            let data: Vec<u8> =
                (0..elem.bytes() as u8 * 5).map(|b| if elem == ScalarType::Bool { b & 1 } else { b }).collect();
            let buf = Buffer { elem, data };
            let bytes = write(&buf);
            assert_eq!((bytes.len() - buf.data.len()) % 64, 0, "data aligned to 64 bytes");
            let back = read(&bytes).expect("reads back");
            assert_eq!(back.buffer, buf);
            assert_eq!(back.shape, vec![5]);
        }
        let empty = Buffer { elem: ScalarType::F64, data: vec![] };
        assert_eq!(read(&write(&empty)).expect("empty").buffer, empty);
    }

    #[test]
    fn what_numpy_writes() {
        // np.save of np.arange(6, dtype='<i4').reshape(2, 3), byte for byte.
        let data: Vec<u8> = (0..6i32).flat_map(i32::to_le_bytes).collect();
        let f = file(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", &data);
        let a = read(&f).expect("2-D");
        assert_eq!((a.buffer.elem, a.shape.clone()), (ScalarType::I32, vec![2, 3]));
        assert_eq!(a.buffer.to_bits(), (0..6).collect::<Vec<u64>>(), "flattened in C order");
        assert_eq!(write(&a.buffer)[..10], f[..10]);
        // Version 2.0, a 0-d array, Python 2 longs, double quotes, no trailing comma.
        let f = file(2, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": ()}", &2.5f64.to_le_bytes());
        let a = read(&f).expect("0-d");
        assert_eq!((a.buffer.to_bits(), a.shape), (vec![2.5f64.to_bits()], vec![]));
        let f = file(1, "{'descr': '=u8', 'fortran_order': False, 'shape': (1L,), }", &7u64.to_le_bytes());
        assert_eq!(read(&f).expect("py2").buffer.to_bits(), vec![7]);
        let f = file(3, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", &[0, 1, 2]);
        assert_eq!(read(&f).expect("bool").buffer.data, vec![0, 1, 1], "bools as 0/1");
        let f = file(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (2, 0), }", &[]);
        assert_eq!(read(&f).expect("no elements").buffer.len(), 0);
    }

    fn err(bytes: &[u8]) -> String {
        match read(bytes) {
            Ok(a) => panic!("accepted: {a:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(err(b"hello").contains("bad magic"));
        assert!(err(b"").contains("bad magic"));
        assert!(err(b"\x93NUMPY").contains("truncated header"));
        let ok = write(&Buffer { elem: ScalarType::U32, data: vec![0; 8] });
        let mut v4 = ok.clone();
        v4[6] = 4;
        assert!(err(&v4).contains("unsupported .npy format version 4.0"));
        // Truncated data, extra data.
        assert_eq!(err(&ok[..ok.len() - 1]), "truncated data: shape (2,) of <u4 needs 8 bytes, the file has 7");
        let mut long = ok.clone();
        long.push(0);
        assert!(err(&long).contains("1 bytes of data after the 8"));
        // Truncated header.
        assert!(err(&ok[..20]).contains("truncated header"));
        // dtypes.
        let hdr = |d: &str| file(1, &format!("{{'descr': '{d}', 'fortran_order': False, 'shape': (1,), }}"), &[0; 8]);
        assert!(err(&hdr(">i4")).contains("big-endian dtype '>i4' is not supported"));
        assert!(err(&hdr("<i2")).contains("unsupported dtype '<i2' (want one of <i4 <u4 <f4 <i8 <u8 <f8 |b1)"));
        assert!(err(&hdr("<f2")).contains("unsupported dtype"));
        let f = file(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", &[0; 4]);
        assert!(err(&f).contains("a list value is not supported (a structured dtype?)"));
        // Fortran order.
        let f = file(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }", &[0; 16]);
        assert!(err(&f).contains("Fortran-order arrays are not supported"));
        // Malformed headers.
        for (h, want) in [
            ("{'descr': '<i4', 'shape': (1,), }", "no 'fortran_order'"),
            ("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unexpected key 'x'"),
            ("{'descr': '<i4', 'fortran_order': 0, 'shape': (1,), }", "expected a string, True, False or a tuple"),
            ("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", "not a non-negative integer"),
            ("{'descr': '<i4', 'fortran_order': False, 'shape': [1], }", "a list value"),
            ("{'descr': '<i4', 'fortran_order': False, 'shape': (1,) } x", "text after the dict"),
            ("['descr']", "it is not a dict"),
            ("{'descr' '<i4'}", "expected `:`"),
            ("{'shape': 'x', }", "'shape' has the wrong kind of value"),
        ] {
            let e = err(&file(1, h, &[0; 4]));
            assert!(e.contains(want), "{h}: {e}");
        }
        // A shape whose element count overflows.
        let f = file(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", &[]);
        assert!(err(&f).contains("too many elements"));
        let f = file(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (99999999999999999999999,), }", &[]);
        assert!(err(&f).contains("too large"));
        // A header that is not UTF-8.
        let mut f = file(1, "{'descr': '<u4', 'fortran_order': False, 'shape': (0,), }", &[]);
        f[12] = 0xff;
        assert!(err(&f).contains("not UTF-8"));
    }

    #[test]
    fn every_prefix_and_corruption_is_an_error_not_a_panic() {
        let f = write(&Buffer { elem: ScalarType::F32, data: vec![1; 12] });
        for n in 0..f.len() {
            assert!(read(&f[..n]).is_err(), "prefix of {n} bytes");
        }
        for i in 0..f.len() {
            for b in [0u8, b'(', b')', b'\'', b',', 0xff] {
                let mut g = f.clone();
                g[i] = b;
                let _ = read(&g);
            }
        }
    }
}
