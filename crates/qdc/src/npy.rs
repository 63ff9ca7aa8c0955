//! Minimal `.npy` (NumPy format 1.0/2.0) reader and writer for 1-D little-endian arrays, so
//! `qdc run` can take inputs from and give outputs to NumPy without a Python dependency.

use qd_mir::interp::Buffer;
use qd_mir::ScalarType;

const MAGIC: &[u8] = b"\x93NUMPY";

fn descr(elem: ScalarType) -> &'static str {
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

/// Encodes a buffer as a 1-D `.npy` file.
pub fn write(buf: &Buffer) -> Vec<u8> {
    let n = buf.data.len() / buf.elem.bytes() as usize;
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", descr(buf.elem), n);
    // Pad so that the data starts on a 64-byte boundary; the header ends with '\n'.
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + buf.data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&buf.data);
    out
}

/// Decodes a 1-D (or 0-D) C-order little-endian `.npy` file.
pub fn read(bytes: &[u8]) -> Result<Buffer, String> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (bad magic)".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated .npy header".into());
            }
            (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12)
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes.get(start..start + hlen).ok_or("truncated .npy header")?;
    let header = core::str::from_utf8(header).map_err(|_| "non-UTF-8 .npy header")?;
    let field = |key: &str| -> Option<&str> {
        let at = header.find(&format!("'{key}'"))?;
        let rest = header[at + key.len() + 2..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let d = field("descr").ok_or("missing 'descr' in .npy header")?;
    let d = d.strip_prefix('\'').and_then(|s| s.split('\'').next()).ok_or("bad 'descr' in .npy header")?;
    let elem = match d {
        "|b1" => ScalarType::Bool,
        "<i4" => ScalarType::I32,
        "<u4" => ScalarType::U32,
        "<i8" => ScalarType::I64,
        "<u8" => ScalarType::U64,
        "<f4" => ScalarType::F32,
        "<f8" => ScalarType::F64,
        other => return Err(format!("unsupported .npy dtype '{other}' (want one of <i4 <u4 <i8 <u8 <f4 <f8 |b1)")),
    };
    if field("fortran_order").is_some_and(|s| s.starts_with("True")) {
        return Err("Fortran-order .npy arrays are not supported".into());
    }
    let shape = field("shape").ok_or("missing 'shape' in .npy header")?;
    let shape = shape.strip_prefix('(').and_then(|s| s.split(')').next()).ok_or("bad 'shape' in .npy header")?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| format!("bad dimension '{s}' in .npy shape")))
        .collect::<Result<_, _>>()?;
    if dims.len() > 1 {
        return Err(format!("only 1-D .npy arrays are supported (shape has {} dimensions)", dims.len()));
    }
    let n = dims.first().copied().unwrap_or(1);
    let data = &bytes[start + hlen..];
    let want = n * elem.bytes() as usize;
    if data.len() != want {
        return Err(format!(".npy data is {} bytes, shape says {want}", data.len()));
    }
    Ok(Buffer { elem, data: data.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_dtype() {
        for elem in ScalarType::ALL {
            let data: Vec<u8> =
                (0..elem.bytes() as u8 * 5).map(|b| if elem == ScalarType::Bool { b & 1 } else { b }).collect();
            let buf = Buffer { elem, data };
            let bytes = write(&buf);
            assert_eq!((bytes.len() - buf.data.len()) % 64, 0, "data aligned to 64 bytes");
            let back = read(&bytes).expect("reads back");
            assert_eq!(back.elem, elem);
            assert_eq!(back.data, buf.data);
        }
    }

    #[test]
    fn rejects_bad_files() {
        assert!(read(b"hello").unwrap_err().contains("magic"));
        let mut bytes = write(&Buffer { elem: ScalarType::U32, data: vec![0; 8] });
        bytes.pop();
        assert!(read(&bytes).unwrap_err().contains("bytes"));
    }
}
