//! Reading and writing NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! morf-run exchanges tensors with the outside world as `.npy` files.  Every value
//! is carried as an `f64` (the interpreter's number type): [`read_npy`] widens the
//! stored values exactly, [`write_npy`] converts them to the requested dtype.
//!
//! The format is small enough to handle here directly: a magic string, a version,
//! a header length, a Python dict literal (`descr`, `fortran_order`, `shape`) and
//! then the raw element bytes.  Both byte orders and Fortran order (transposed into
//! C order on reading) are accepted; structured, complex, string, datetime, object
//! and extended-precision dtypes are rejected with an [`NpyError`].  A malformed
//! file never panics: every defect becomes an error naming the file.

use std::fmt;
use std::path::{Path, PathBuf};

/// The element types that `.npy` files read and written by morf-run may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NpyDtype {
    /// `bool` (`|b1`): one byte, 0 or 1.
    Bool,
    /// `int8` (`|i1`).
    I8,
    /// `int16` (`<i2`).
    I16,
    /// `int32` (`<i4`).
    I32,
    /// `int64` (`<i8`).
    I64,
    /// `uint8` (`|u1`).
    U8,
    /// `uint16` (`<u2`).
    U16,
    /// `uint32` (`<u4`).
    U32,
    /// `uint64` (`<u8`).
    U64,
    /// `float16` (`<f2`), IEEE binary16.
    F16,
    /// `float32` (`<f4`).
    F32,
    /// `float64` (`<f8`).
    F64,
}

impl NpyDtype {
    /// Every dtype, in declaration order.
    pub const ALL: [NpyDtype; 12] = [
        NpyDtype::Bool,
        NpyDtype::I8,
        NpyDtype::I16,
        NpyDtype::I32,
        NpyDtype::I64,
        NpyDtype::U8,
        NpyDtype::U16,
        NpyDtype::U32,
        NpyDtype::U64,
        NpyDtype::F16,
        NpyDtype::F32,
        NpyDtype::F64,
    ];

    /// The NumPy name of the dtype, e.g. `"float32"`.
    pub fn name(self) -> &'static str {
        match self {
            NpyDtype::Bool => "bool",
            NpyDtype::I8 => "int8",
            NpyDtype::I16 => "int16",
            NpyDtype::I32 => "int32",
            NpyDtype::I64 => "int64",
            NpyDtype::U8 => "uint8",
            NpyDtype::U16 => "uint16",
            NpyDtype::U32 => "uint32",
            NpyDtype::U64 => "uint64",
            NpyDtype::F16 => "float16",
            NpyDtype::F32 => "float32",
            NpyDtype::F64 => "float64",
        }
    }

    /// The dtype with the given NumPy name (as returned by [`NpyDtype::name`]).
    pub fn from_name(name: &str) -> Option<NpyDtype> {
        NpyDtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            NpyDtype::Bool | NpyDtype::I8 | NpyDtype::U8 => 1,
            NpyDtype::I16 | NpyDtype::U16 | NpyDtype::F16 => 2,
            NpyDtype::I32 | NpyDtype::U32 | NpyDtype::F32 => 4,
            NpyDtype::I64 | NpyDtype::U64 | NpyDtype::F64 => 8,
        }
    }

    /// The kind character of the type string (`b`, `i`, `u` or `f`).
    fn kind(self) -> char {
        match self {
            NpyDtype::Bool => 'b',
            NpyDtype::I8 | NpyDtype::I16 | NpyDtype::I32 | NpyDtype::I64 => 'i',
            NpyDtype::U8 | NpyDtype::U16 | NpyDtype::U32 | NpyDtype::U64 => 'u',
            NpyDtype::F16 | NpyDtype::F32 | NpyDtype::F64 => 'f',
        }
    }

    /// The little-endian `descr` string written to headers, e.g. `<f4`.
    fn descr(self) -> String {
        let order = if self.size() == 1 { '|' } else { '<' };
        format!("{order}{}{}", self.kind(), self.size())
    }
}

impl fmt::Display for NpyDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dense array read from an `.npy` file, in C (row-major) order.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// Dimensions; empty for a 0-d (scalar) array.
    pub shape: Vec<usize>,
    /// The element type stored in the file.
    pub dtype: NpyDtype,
    /// The elements, widened exactly to `f64`, in row-major order.
    pub data: Vec<f64>,
}

/// Why an `.npy` file could not be read or written.  Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    /// The file could not be opened, read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file does not start like an `.npy` file (magic, version, header length).
    #[error("{}: not an .npy file: {reason}", path.display())]
    NotNpy {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The header dict is malformed.
    #[error("{}: malformed .npy header: {reason}", path.display())]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The dtype in the header is valid NumPy but not one morf-run handles.
    #[error("{}: unsupported dtype {descr}: {reason}", path.display())]
    UnsupportedDtype {
        /// The file.
        path: PathBuf,
        /// The `descr` entry of the header, as written there.
        descr: String,
        /// Why it is not supported.
        reason: String,
    },
    /// The data section is shorter than the header's shape and dtype require.
    #[error(
        "{}: truncated data: shape {shape:?} of {dtype} needs {expected} bytes, the file has {actual}",
        path.display()
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// The shape from the header.
        shape: Vec<usize>,
        /// The dtype from the header.
        dtype: NpyDtype,
        /// Bytes of data required.
        expected: usize,
        /// Bytes of data present.
        actual: usize,
    },
    /// The data section is longer than the header's shape and dtype require.
    #[error(
        "{}: {extra} unexpected bytes after the data of shape {shape:?} of {dtype}",
        path.display()
    )]
    TrailingData {
        /// The file.
        path: PathBuf,
        /// The shape from the header.
        shape: Vec<usize>,
        /// The dtype from the header.
        dtype: NpyDtype,
        /// Number of surplus bytes.
        extra: usize,
    },
    /// An integer element does not fit exactly in an `f64` (magnitude above 2^53).
    #[error(
        "{}: element {index} of {dtype} is {value}, which is not exactly representable as f64 (|value| > 2^53)",
        path.display()
    )]
    InexactInteger {
        /// The file.
        path: PathBuf,
        /// Flat (C-order) index of the element.
        index: usize,
        /// The dtype from the header.
        dtype: NpyDtype,
        /// The value, as an integer.
        value: i128,
    },
    /// `write_npy` was given a data length that does not match the shape.
    #[error(
        "{}: shape {shape:?} has {expected} elements but {actual} values were given",
        path.display()
    )]
    ShapeMismatch {
        /// The file.
        path: PathBuf,
        /// The requested shape.
        shape: Vec<usize>,
        /// The number of elements of `shape`.
        expected: usize,
        /// The number of values given.
        actual: usize,
    },
    /// `write_npy` was given a value the integer or bool dtype cannot hold.
    #[error(
        "{}: value {value} (element {index}) cannot be stored as {dtype}",
        path.display()
    )]
    Unrepresentable {
        /// The file.
        path: PathBuf,
        /// Flat index of the value.
        index: usize,
        /// The requested dtype.
        dtype: NpyDtype,
        /// The offending value.
        value: f64,
    },
}

/// Largest integer magnitude that every integer up to it is exactly an `f64`.
const MAX_EXACT_INT: i128 = 1 << 53;

/// Reads an `.npy` file into an [`NpyArray`] in C order, widening values to `f64`.
///
/// The header is read and checked first: nothing is allocated for the data before the
/// shape is known to be addressable and (for a regular file) to match the file's size.
/// Pipes and devices are read up to the size the header gives, so `/dev/zero` or an
/// endless stream is an error, not an endless read.
pub fn read_npy(path: &Path) -> Result<NpyArray, NpyError> {
    use std::io::Read as _;
    let io = |source| NpyError::Io { path: path.to_path_buf(), source };
    let (mut file, file_len, head, h) = open_and_parse_header(path)?;
    let expected = h.count * h.dtype.size();
    if let Some(len) = file_len {
        check_data_size(path, &h, len)?;
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(head.len().saturating_add(expected)).map_err(|_| {
        io(std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("cannot allocate {expected} bytes for the data of shape {:?}", h.shape),
        ))
    })?;
    bytes.extend_from_slice(&head);
    // One byte more than needed tells trailing data from the end of the file.
    (&mut file).take(expected as u64 + 1).read_to_end(&mut bytes).map_err(io)?;
    decode(&bytes, path)
}

/// The longest header [`read_npy`] reads from a file (NumPy writes a few hundred bytes).
const MAX_HEADER_LEN: u64 = 16 << 20;

/// Opens `path` and reads and parses its header; returns the file positioned at the data,
/// its length when it is a regular file, the header bytes and the header.
fn open_and_parse_header(path: &Path) -> Result<(std::fs::File, Option<u64>, Vec<u8>, Header), NpyError> {
    use std::io::Read as _;
    let io = |source| NpyError::Io { path: path.to_path_buf(), source };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let md = file.metadata().map_err(io)?;
    if md.is_dir() {
        return Err(io(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory")));
    }
    let file_len = md.is_file().then_some(md.len());
    let mut head = Vec::new();
    (&mut file).take(12).read_to_end(&mut head).map_err(io)?;
    let header_len = match head.get(6..8) {
        Some([1, 0]) => head.get(8..10).map(|b| u16::from_le_bytes([b[0], b[1]]) as u64),
        Some([2, 0] | [3, 0]) => head.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64),
        _ => None,
    };
    if let Some(len) = header_len {
        // Version 1.0 has a 10-byte prefix: two of the 12 bytes read are header text.
        let prefix = if head.get(6) == Some(&1) { 10 } else { 12 };
        let want = (prefix + len).saturating_sub(head.len() as u64);
        if len > MAX_HEADER_LEN {
            return Err(NpyError::NotNpy {
                path: path.to_path_buf(),
                reason: format!("header length {len} is over the {MAX_HEADER_LEN} bytes morf-run accepts"),
            });
        }
        if file_len.is_some_and(|n| n < prefix + len) {
            return Err(NpyError::NotNpy {
                path: path.to_path_buf(),
                reason: format!("header length {len} runs past the end of the file ({} bytes)", file_len.unwrap_or(0)),
            });
        }
        (&mut file).take(want).read_to_end(&mut head).map_err(io)?;
    }
    let h = parse_header(&head, path)?;
    Ok((file, file_len, head, h))
}

/// An error when a regular file of `file_len` bytes does not hold exactly the data `h` says.
fn check_data_size(path: &Path, h: &Header, file_len: u64) -> Result<(), NpyError> {
    let expected = h.count as u64 * h.dtype.size() as u64;
    let actual = file_len.saturating_sub(h.data_start as u64);
    if actual < expected {
        return Err(NpyError::Truncated {
            path: path.to_path_buf(),
            shape: h.shape.clone(),
            dtype: h.dtype,
            expected: expected as usize,
            actual: actual as usize,
        });
    }
    if actual > expected {
        return Err(NpyError::TrailingData {
            path: path.to_path_buf(),
            shape: h.shape.clone(),
            dtype: h.dtype,
            extra: (actual - expected) as usize,
        });
    }
    Ok(())
}

/// Parses the bytes of an `.npy` file held in memory; `name` is the file named in errors.
///
/// The header is validated before any element storage is allocated: a shape whose
/// element count overflows, or whose data would be larger than `bytes`, is an error.
pub fn read_npy_bytes(bytes: &[u8], name: &Path) -> Result<NpyArray, NpyError> {
    decode(bytes, name)
}

/// What the header of an `.npy` file says, without its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyHeader {
    /// Dimensions; empty for a 0-d array.
    pub shape: Vec<usize>,
    /// The element type stored in the file.
    pub dtype: NpyDtype,
    /// Element count (the product of `shape`).
    pub count: usize,
}

/// Reads only the header of the `.npy` file at `path` and, for a regular file, checks
/// that the file is exactly as long as the header says. Lets a caller size a run before
/// loading any data.
pub fn read_npy_header(path: &Path) -> Result<NpyHeader, NpyError> {
    let (_, file_len, _, h) = open_and_parse_header(path)?;
    if let Some(len) = file_len {
        check_data_size(path, &h, len)?;
    }
    Ok(NpyHeader { shape: h.shape, dtype: h.dtype, count: h.count })
}

/// Writes `data` (C order, `shape.iter().product()` values) as an `.npy` file of `dtype`.
///
/// Floats are converted by rounding (`as f32` for float32, round-to-nearest-even for
/// float16); integer and bool dtypes require values that they hold exactly (bool: 0 or 1).
///
/// The file is replaced atomically ([`morf_ir::io::write_atomic`]): a failed write leaves
/// the old file in place, and a symbolic link at `path` is replaced, not followed.
pub fn write_npy(path: &Path, shape: &[usize], dtype: NpyDtype, data: &[f64]) -> Result<(), NpyError> {
    let bytes = encode(path, shape, dtype, data)?;
    morf_ir::io::write_atomic(path, &bytes).map_err(|source| NpyError::Io { path: path.to_path_buf(), source })
}

/// The bytes of the `.npy` file [`write_npy`] would write (`path` is only named in errors).
pub fn npy_bytes(path: &Path, shape: &[usize], dtype: NpyDtype, data: &[f64]) -> Result<Vec<u8>, NpyError> {
    encode(path, shape, dtype, data)
}

/// Serializes an array to the bytes of an `.npy` file (version 1.0, or 2.0 for huge headers).
fn encode(path: &Path, shape: &[usize], dtype: NpyDtype, data: &[f64]) -> Result<Vec<u8>, NpyError> {
    let expected = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if expected != Some(data.len()) {
        return Err(NpyError::ShapeMismatch {
            path: path.to_path_buf(),
            shape: shape.to_vec(),
            expected: expected.unwrap_or(usize::MAX),
            actual: data.len(),
        });
    }
    let shape_text = match shape {
        [d] => format!("({d},)"),
        _ => {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", dims.join(", "))
        }
    };
    let mut header = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}", dtype.descr());
    // Magic (6) + version (2) + length (2 or 4) + text + '\n', padded to a multiple of 64.
    let padded = |prefix: usize| (prefix + header.len() + 1).div_ceil(64) * 64;
    let prefix = if padded(10) - 10 <= u16::MAX as usize { 10 } else { 12 };
    let total = padded(prefix);
    header.push_str(&" ".repeat(total - prefix - header.len() - 1));
    header.push('\n');

    let mut out = Vec::new();
    let size = data.len().checked_mul(dtype.size()).and_then(|n| n.checked_add(total));
    size.and_then(|n| out.try_reserve_exact(n).ok()).ok_or_else(|| NpyError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("cannot allocate {} bytes for the file", size.unwrap_or(usize::MAX)),
        ),
    })?;
    out.extend_from_slice(b"\x93NUMPY");
    if prefix == 10 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        let len = u32::try_from(header.len()).map_err(|_| NpyError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other("the .npy header would exceed 4 GiB"),
        })?;
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());

    for (index, &value) in data.iter().enumerate() {
        let bad = || NpyError::Unrepresentable { path: path.to_path_buf(), index, dtype, value };
        match dtype {
            NpyDtype::F64 => out.extend_from_slice(&value.to_le_bytes()),
            NpyDtype::F32 => out.extend_from_slice(&(value as f32).to_le_bytes()),
            NpyDtype::F16 => out.extend_from_slice(&f64_to_f16_bits(value).to_le_bytes()),
            NpyDtype::Bool => {
                if value == 0.0 {
                    out.push(0);
                } else if value == 1.0 {
                    out.push(1);
                } else {
                    return Err(bad());
                }
            }
            _ => {
                let (lo, hi): (i128, i128) = match dtype {
                    NpyDtype::I8 => (i8::MIN.into(), i8::MAX.into()),
                    NpyDtype::I16 => (i16::MIN.into(), i16::MAX.into()),
                    NpyDtype::I32 => (i32::MIN.into(), i32::MAX.into()),
                    NpyDtype::I64 => (i64::MIN.into(), i64::MAX.into()),
                    NpyDtype::U8 => (0, u8::MAX.into()),
                    NpyDtype::U16 => (0, u16::MAX.into()),
                    NpyDtype::U32 => (0, u32::MAX.into()),
                    _ => (0, u64::MAX.into()),
                };
                // `as i128` saturates, so out-of-range values stay out of range.
                if value.fract() != 0.0 || !value.is_finite() || value.abs() >= 1.9e19 {
                    return Err(bad());
                }
                let v = value as i128;
                if v < lo || v > hi {
                    return Err(bad());
                }
                // Two's complement, little-endian, truncated to the element size.
                out.extend_from_slice(&(v as u64).to_le_bytes()[..dtype.size()]);
            }
        }
    }
    Ok(out)
}

/// The parsed header of an `.npy` file.
struct Header {
    shape: Vec<usize>,
    dtype: NpyDtype,
    big_endian: bool,
    fortran: bool,
    count: usize,
    /// Offset of the first data byte.
    data_start: usize,
}

/// Parses the header at the start of `bytes` (the data need not follow).
fn parse_header(bytes: &[u8], path: &Path) -> Result<Header, NpyError> {
    let not_npy = |reason: String| NpyError::NotNpy { path: path.to_path_buf(), reason };
    let bad_header = |reason: String| NpyError::BadHeader { path: path.to_path_buf(), reason };

    if bytes.len() < 6 || &bytes[..6] != b"\x93NUMPY" {
        return Err(not_npy("missing the \\x93NUMPY magic string".into()));
    }
    if bytes.len() < 8 {
        return Err(not_npy("file ends inside the version".into()));
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (header_start, header_len) = match (major, minor) {
        (1, 0) => {
            let b = bytes.get(8..10).ok_or_else(|| not_npy("file ends inside the header length".into()))?;
            (10usize, u16::from_le_bytes([b[0], b[1]]) as usize)
        }
        (2, 0) | (3, 0) => {
            let b = bytes.get(8..12).ok_or_else(|| not_npy("file ends inside the header length".into()))?;
            (12, u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        }
        _ => return Err(not_npy(format!("unsupported format version {major}.{minor}"))),
    };
    let header_end = header_start.checked_add(header_len).filter(|&end| end <= bytes.len()).ok_or_else(|| {
        not_npy(format!("header length {header_len} runs past the end of the file ({} bytes)", bytes.len()))
    })?;
    let text = std::str::from_utf8(&bytes[header_start..header_end])
        .map_err(|_| bad_header("header is not valid text".into()))?;

    let dict = match PyParser::new(text).parse_all() {
        Ok(PyValue::Dict(entries)) => entries,
        Ok(_) => return Err(bad_header("header is not a dict literal".into())),
        Err(e) => return Err(bad_header(e)),
    };
    let get = |key: &str| {
        dict.iter()
            .find(|(k, _)| matches!(k, PyValue::Str(s) if s == key))
            .map(|(_, v)| v)
            .ok_or_else(|| bad_header(format!("missing key '{key}'")))
    };

    let fortran = match get("fortran_order")? {
        PyValue::Bool(b) => *b,
        _ => return Err(bad_header("'fortran_order' is not True or False".into())),
    };
    let shape = match get("shape")? {
        PyValue::Tuple(items) | PyValue::List(items) => items
            .iter()
            .map(|item| match item {
                PyValue::Int(v) if *v >= 0 && *v <= usize::MAX as i128 => Ok(*v as usize),
                _ => Err(bad_header(format!("shape entry {} is not a non-negative integer", item.describe()))),
            })
            .collect::<Result<Vec<usize>, _>>()?,
        other => return Err(bad_header(format!("'shape' is {}, not a tuple", other.describe()))),
    };
    let (dtype, big_endian) = match get("descr")? {
        PyValue::Str(s) => parse_descr(s).map_err(|reason| NpyError::UnsupportedDtype {
            path: path.to_path_buf(),
            descr: format!("'{s}'"),
            reason,
        })?,
        other => {
            return Err(NpyError::UnsupportedDtype {
                path: path.to_path_buf(),
                descr: other.describe(),
                reason: "structured (record) dtypes are not supported".into(),
            })
        }
    };

    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| bad_header(format!("shape {shape:?} has too many elements")))?;
    count.checked_mul(dtype.size()).ok_or_else(|| bad_header(format!("shape {shape:?} has too many elements")))?;
    Ok(Header { shape, dtype, big_endian, fortran, count, data_start: header_end })
}

/// Parses the bytes of an `.npy` file.
fn decode(bytes: &[u8], path: &Path) -> Result<NpyArray, NpyError> {
    let Header { shape, dtype, big_endian, fortran, count, data_start } = parse_header(bytes, path)?;
    // Cannot overflow: parse_header checked it.
    let expected = count * dtype.size();
    let body = &bytes[data_start..];
    if body.len() < expected {
        return Err(NpyError::Truncated { path: path.to_path_buf(), shape, dtype, expected, actual: body.len() });
    }
    if body.len() > expected {
        return Err(NpyError::TrailingData { path: path.to_path_buf(), shape, dtype, extra: body.len() - expected });
    }

    let mut data = Vec::new();
    data.try_reserve_exact(count).map_err(|_| NpyError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("cannot allocate {} bytes for {count} elements", count.saturating_mul(8)),
        ),
    })?;
    for (index, chunk) in body.chunks_exact(dtype.size()).enumerate() {
        let mut raw = [0u8; 8];
        if big_endian {
            for (dst, src) in raw.iter_mut().zip(chunk.iter().rev()) {
                *dst = *src;
            }
        } else {
            raw[..chunk.len()].copy_from_slice(chunk);
        }
        let bits = u64::from_le_bytes(raw);
        let int = |value: i128| {
            if value.abs() > MAX_EXACT_INT {
                Err(NpyError::InexactInteger { path: path.to_path_buf(), index, dtype, value })
            } else {
                Ok(value as f64)
            }
        };
        let value = match dtype {
            NpyDtype::Bool => f64::from(u8::from(bits != 0)),
            NpyDtype::I8 => f64::from(bits as u8 as i8),
            NpyDtype::I16 => f64::from(bits as u16 as i16),
            NpyDtype::I32 => f64::from(bits as u32 as i32),
            NpyDtype::I64 => int(i128::from(bits as i64))?,
            NpyDtype::U8 => f64::from(bits as u8),
            NpyDtype::U16 => f64::from(bits as u16),
            NpyDtype::U32 => f64::from(bits as u32),
            NpyDtype::U64 => int(i128::from(bits))?,
            NpyDtype::F16 => f16_bits_to_f64(bits as u16),
            NpyDtype::F32 => f64::from(f32::from_bits(bits as u32)),
            NpyDtype::F64 => f64::from_bits(bits),
        };
        data.push(value);
    }
    if fortran && shape.len() > 1 && count > 0 {
        data = fortran_to_c(&shape, &data);
    }
    Ok(NpyArray { shape, dtype, data })
}

/// Reorders column-major (Fortran) data of `shape` into row-major (C) order.
fn fortran_to_c(shape: &[usize], data: &[f64]) -> Vec<f64> {
    // Fortran strides: the first axis varies fastest.
    let mut strides = Vec::with_capacity(shape.len());
    let mut s = 1usize;
    for &d in shape {
        strides.push(s);
        s *= d;
    }
    let mut index = vec![0usize; shape.len()];
    let mut out = Vec::with_capacity(data.len());
    for _ in 0..data.len() {
        let offset: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.push(data[offset]);
        // Advance the C-order multi-index (last axis fastest).
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    out
}

/// Interprets a type string such as `<f4`; returns the dtype and whether it is big-endian.
fn parse_descr(descr: &str) -> Result<(NpyDtype, bool), String> {
    let mut chars = descr.chars();
    let (order, rest) = match chars.next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, chars.as_str()),
        _ => ('=', descr),
    };
    let big_endian = match order {
        '>' => true,
        '<' | '|' => false,
        _ => cfg!(target_endian = "big"),
    };
    let mut rest_chars = rest.chars();
    let kind = rest_chars.next().ok_or("empty type string")?;
    let size_text = rest_chars.as_str();
    let dtype = match (kind, size_text) {
        ('b', "1") | ('?', "") => NpyDtype::Bool,
        ('i', "1") => NpyDtype::I8,
        ('i', "2") => NpyDtype::I16,
        ('i', "4") => NpyDtype::I32,
        ('i', "8") => NpyDtype::I64,
        ('u', "1") => NpyDtype::U8,
        ('u', "2") => NpyDtype::U16,
        ('u', "4") => NpyDtype::U32,
        ('u', "8") => NpyDtype::U64,
        ('f', "2") => NpyDtype::F16,
        ('f', "4") => NpyDtype::F32,
        ('f', "8") => NpyDtype::F64,
        ('f', _) => return Err("only float16, float32 and float64 floats are supported".into()),
        ('i' | 'u', _) => return Err("only 1, 2, 4 and 8 byte integers are supported".into()),
        ('c', _) => return Err("complex numbers are not supported".into()),
        ('O', _) => return Err("object arrays are not supported".into()),
        ('S' | 'a' | 'U', _) => return Err("string arrays are not supported".into()),
        ('M' | 'm', _) => return Err("datetime/timedelta arrays are not supported".into()),
        ('V', _) => return Err("raw void data is not supported".into()),
        _ => return Err("not a recognized NumPy type string".into()),
    };
    Ok((dtype, big_endian))
}

/// Widens an IEEE binary16 value (given by its bits) exactly to `f64`.
fn f16_bits_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let man = f64::from(bits & 0x3ff);
    let magnitude = match exp {
        0 => man * 2f64.powi(-24),
        31 if man == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + man) * 2f64.powi(exp - 25),
    };
    sign * magnitude
}

/// Rounds an `f64` to the nearest IEEE binary16 value (ties to even) and returns its bits.
fn f64_to_f16_bits(value: f64) -> u16 {
    let sign = if value.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = value.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    // 65520 is halfway between the largest finite value 65504 and 2^16; it rounds to even (inf).
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        // Subnormal range: multiples of 2^-24.  A result of 1024 is the smallest normal,
        // which is exactly its encoding.
        return sign | (a * 2f64.powi(24)).round_ties_even() as u16;
    }
    let exp = ((a.to_bits() >> 52) as i32) - 1023; // in -14..=15
    let mantissa = (a * 2f64.powi(10 - exp)).round_ties_even() as u32; // in 1024..=2048
                                                                       // A mantissa of 2048 carries into the exponent field, which is the correct encoding.
    sign | ((((exp + 15) as u32) << 10) + (mantissa - 1024)) as u16
}

/// A Python literal as it can appear in an `.npy` header.
#[derive(Debug, Clone, PartialEq)]
enum PyValue {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<PyValue>),
    List(Vec<PyValue>),
    Dict(Vec<(PyValue, PyValue)>),
}

impl PyValue {
    /// A short description for error messages.
    fn describe(&self) -> String {
        match self {
            PyValue::Str(s) => format!("'{s}'"),
            PyValue::Int(v) => v.to_string(),
            PyValue::Bool(b) => if *b { "True" } else { "False" }.into(),
            PyValue::None => "None".into(),
            PyValue::Tuple(_) => "a tuple".into(),
            PyValue::List(_) => "a list".into(),
            PyValue::Dict(_) => "a dict".into(),
        }
    }
}

/// Maximum nesting of brackets accepted in a header.
const MAX_DEPTH: usize = 32;

/// A recursive-descent parser for the Python literals of `.npy` headers.
struct PyParser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> PyParser<'a> {
    fn new(text: &'a str) -> Self {
        PyParser { text, pos: 0 }
    }

    /// Parses one literal that must span the whole text (surrounding whitespace allowed).
    fn parse_all(&mut self) -> Result<PyValue, String> {
        let value = self.value(0)?;
        self.skip_ws();
        if self.pos != self.text.len() {
            return Err(format!("unexpected text after the dict at offset {}", self.pos));
        }
        Ok(value)
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn value(&mut self, depth: usize) -> Result<PyValue, String> {
        if depth > MAX_DEPTH {
            return Err("literal nested too deeply".into());
        }
        self.skip_ws();
        match self.peek() {
            None => Err("unexpected end of header".into()),
            Some('{') => {
                self.pos += 1;
                let mut entries = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some('}') {
                        self.pos += 1;
                        return Ok(PyValue::Dict(entries));
                    }
                    let key = self.value(depth + 1)?;
                    self.skip_ws();
                    if self.peek() != Some(':') {
                        return Err(format!("expected ':' at offset {}", self.pos));
                    }
                    self.pos += 1;
                    let value = self.value(depth + 1)?;
                    entries.push((key, value));
                    if !self.separator('}')? {
                        self.pos += 1;
                        return Ok(PyValue::Dict(entries));
                    }
                }
            }
            Some(open @ ('(' | '[')) => {
                let close = if open == '(' { ')' } else { ']' };
                self.pos += 1;
                let mut items = Vec::new();
                let mut saw_comma = false;
                loop {
                    self.skip_ws();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    if self.separator(close)? {
                        saw_comma = true;
                    } else {
                        self.pos += 1;
                        break;
                    }
                }
                Ok(match open {
                    // `(x)` is just a parenthesized value; `(x,)` is a tuple.
                    '(' if items.len() == 1 && !saw_comma => items.remove(0),
                    '(' => PyValue::Tuple(items),
                    _ => PyValue::List(items),
                })
            }
            Some(quote @ ('\'' | '"')) => {
                self.pos += 1;
                let mut s = String::new();
                let mut chars = self.rest().char_indices();
                while let Some((i, c)) = chars.next() {
                    if c == quote {
                        self.pos += i + 1;
                        return Ok(PyValue::Str(s));
                    }
                    if c == '\\' {
                        match chars.next() {
                            Some((_, 'n')) => s.push('\n'),
                            Some((_, 't')) => s.push('\t'),
                            Some((_, e)) => s.push(e),
                            None => break,
                        }
                    } else {
                        s.push(c);
                    }
                }
                Err("unterminated string".into())
            }
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => {
                let rest = self.rest();
                let sign_len = usize::from(c == '-' || c == '+');
                let digits = rest[sign_len..].find(|ch: char| !ch.is_ascii_digit()).unwrap_or(rest.len() - sign_len);
                if digits == 0 {
                    return Err(format!("expected a number at offset {}", self.pos));
                }
                let text = &rest[..sign_len + digits];
                let value: i128 = text.parse().map_err(|_| format!("integer {text} is too large"))?;
                self.pos += sign_len + digits;
                // Python 2 wrote long integers with an `L` suffix.
                if matches!(self.peek(), Some('L' | 'l')) {
                    self.pos += 1;
                }
                Ok(PyValue::Int(value))
            }
            Some(_) => {
                for (word, value) in
                    [("True", PyValue::Bool(true)), ("False", PyValue::Bool(false)), ("None", PyValue::None)]
                {
                    if self.rest().starts_with(word) {
                        self.pos += word.len();
                        return Ok(value);
                    }
                }
                Err(format!("unexpected character at offset {}", self.pos))
            }
        }
    }

    /// After an item: consumes a `,` and returns true, or sees `close` (not consumed) and
    /// returns false.
    fn separator(&mut self, close: char) -> Result<bool, String> {
        self.skip_ws();
        match self.peek() {
            Some(',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => Ok(false),
            _ => Err(format!("expected ',' or '{close}' at offset {}", self.pos)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A fresh scratch directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("morf-npy-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Sample values every dtype holds exactly.
    fn sample(dtype: NpyDtype, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| match dtype {
                NpyDtype::Bool => (i % 2) as f64,
                NpyDtype::U8 | NpyDtype::U16 | NpyDtype::U32 | NpyDtype::U64 => (i * 7 % 101) as f64,
                NpyDtype::I8 | NpyDtype::I16 | NpyDtype::I32 | NpyDtype::I64 => (i as f64) * 3.0 - 50.0,
                NpyDtype::F16 => (i as f64) * 0.25 - 3.5,
                NpyDtype::F32 => (i as f64) * 0.1f32 as f64 - 1.0e-3f32 as f64,
                NpyDtype::F64 => (i as f64) * 0.1 - 1e-300,
            })
            .collect()
    }

    #[test]
    fn round_trip_every_dtype_and_shape() {
        let dir = scratch("roundtrip");
        let shapes: [&[usize]; 6] = [&[], &[0], &[5], &[2, 3], &[2, 0, 4], &[2, 3, 4]];
        for dtype in NpyDtype::ALL {
            for shape in shapes {
                let n = shape.iter().product();
                let data = sample(dtype, n);
                let path = dir.join(format!("{}-{}.npy", dtype.name(), shape.len()));
                write_npy(&path, shape, dtype, &data).unwrap();
                let bytes = std::fs::read(&path).unwrap();
                let header_end = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
                assert_eq!(header_end % 64, 0, "header is padded to 64 bytes");
                let back = read_npy(&path).unwrap();
                assert_eq!(back.shape, shape);
                assert_eq!(back.dtype, dtype);
                if dtype == NpyDtype::F32 {
                    let rounded: Vec<f64> = data.iter().map(|&v| v as f32 as f64).collect();
                    assert_eq!(back.data, rounded);
                } else {
                    assert_eq!(back.data, data, "{dtype} {shape:?}");
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn extreme_values_round_trip() {
        let cases: [(NpyDtype, &[f64]); 10] = [
            (NpyDtype::I8, &[-128.0, 127.0]),
            (NpyDtype::I16, &[-32768.0, 32767.0]),
            (NpyDtype::I32, &[-2147483648.0, 2147483647.0]),
            (NpyDtype::I64, &[-9007199254740992.0, 9007199254740992.0]),
            (NpyDtype::U8, &[0.0, 255.0]),
            (NpyDtype::U16, &[65535.0]),
            (NpyDtype::U32, &[4294967295.0]),
            (NpyDtype::U64, &[9007199254740992.0]),
            (NpyDtype::F32, &[f64::INFINITY, -0.0, 3.4028234663852886e38]),
            (NpyDtype::F64, &[f64::MAX, f64::MIN_POSITIVE, 5e-324, f64::NEG_INFINITY]),
        ];
        let p = Path::new("x.npy");
        for (dtype, values) in cases {
            let bytes = encode(p, &[values.len()], dtype, values).unwrap();
            let back = decode(&bytes, p).unwrap();
            assert_eq!(back.data, values, "{dtype}");
        }
        let nan = decode(&encode(p, &[1], NpyDtype::F32, &[f64::NAN]).unwrap(), p).unwrap();
        assert!(nan.data[0].is_nan());
    }

    #[test]
    fn f16_conversion_is_exact_and_rounds_to_even() {
        for bits in 0..=u16::MAX {
            let v = f16_bits_to_f64(bits);
            if v.is_nan() {
                assert!(f16_bits_to_f64(f64_to_f16_bits(v)).is_nan());
            } else {
                assert_eq!(f64_to_f16_bits(v), bits, "bits {bits:#06x} value {v}");
            }
        }
        assert_eq!(f16_bits_to_f64(0x3c00), 1.0);
        assert_eq!(f16_bits_to_f64(0x7bff), 65504.0);
        assert_eq!(f16_bits_to_f64(0x0001), 2f64.powi(-24));
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
        assert_eq!(f64_to_f16_bits(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(f64_to_f16_bits(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(f64_to_f16_bits(65519.99), 0x7bff);
        assert_eq!(f64_to_f16_bits(65520.0), 0x7c00);
        assert_eq!(f64_to_f16_bits(2f64.powi(-25)), 0x0000);
        assert_eq!(f64_to_f16_bits(2f64.powi(-25) * 1.0001), 0x0001);
        assert_eq!(f64_to_f16_bits(-(2f64.powi(-14) - 2f64.powi(-26))), 0x8400);
    }

    #[test]
    fn write_rejects_bad_input() {
        let p = Path::new("out.npy");
        let err = encode(p, &[2, 2], NpyDtype::F32, &[1.0; 3]).unwrap_err();
        assert!(matches!(err, NpyError::ShapeMismatch { .. }), "{err}");
        assert!(err.to_string().contains("out.npy"));
        for (dtype, value) in [
            (NpyDtype::I8, 128.0),
            (NpyDtype::U8, -1.0),
            (NpyDtype::I32, 0.5),
            (NpyDtype::I64, f64::NAN),
            (NpyDtype::U64, 1e30),
            (NpyDtype::Bool, 2.0),
        ] {
            let err = encode(p, &[1], dtype, &[value]).unwrap_err();
            assert!(matches!(err, NpyError::Unrepresentable { .. }), "{err}");
        }
    }

    /// Builds a v1.0 file from a header dict and raw data bytes.
    fn file_with(header: &str, body: &[u8]) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn big_endian_fortran_and_versions() {
        let p = Path::new("h.npy");
        let body: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| v.to_be_bytes()).collect();
        let a = decode(&file_with("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}\n", &body), p).unwrap();
        assert_eq!(a.data, [1.5, -2.0]);

        // Fortran order: the 2x3 matrix [[0,1,2],[3,4,5]] stored column by column.
        let body: Vec<u8> = [0i16, 3, 1, 4, 2, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
        let a = decode(&file_with("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }", &body), p).unwrap();
        assert_eq!(a.shape, [2, 3]);
        assert_eq!(a.data, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);

        // Version 3.0 (u32 header length, UTF-8 header).
        let header = "{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (1L, 2L)}\n";
        let mut bytes = b"\x93NUMPY\x03\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[7, 0, 0, 1]);
        let a = decode(&bytes, p).unwrap();
        assert_eq!((a.shape.as_slice(), a.data.as_slice()), (&[1, 2][..], &[7.0, 256.0][..]));
    }

    #[test]
    fn clear_errors_for_bad_files() {
        let p = Path::new("bad.npy");
        let msg = |bytes: Vec<u8>| decode(&bytes, p).unwrap_err().to_string();
        let hdr = |descr: &str| format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1,)}}");
        for (descr, want) in [
            ("'<c8'", "complex"),
            ("'|O'", "object"),
            ("'<f16'", "float"),
            ("'<U3'", "string"),
            ("[('a', '<f4')]", "structured"),
        ] {
            let m = msg(file_with(&hdr(descr), &[0; 16]));
            assert!(m.contains("unsupported dtype") && m.contains(want), "{m}");
            assert!(m.contains("bad.npy"), "{m}");
        }
        let m = msg(file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", &[0; 15]));
        assert!(m.contains("truncated") && m.contains("16") && m.contains("15"), "{m}");
        let m = msg(file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", &[0; 5]));
        assert!(m.contains("1 unexpected bytes"), "{m}");
        let m = msg(file_with("{'descr': '<i8', 'fortran_order': False, 'shape': (1,)}", &i64::MAX.to_le_bytes()));
        assert!(m.contains("not exactly representable"), "{m}");
        let m = msg(b"PK\x03\x04 this is a zip".to_vec());
        assert!(m.contains("not an .npy file"), "{m}");
        let m = msg(file_with("{'descr': '<f4', 'shape': (1,)}", &[0; 4]));
        assert!(m.contains("missing key 'fortran_order'"), "{m}");
        let m = msg(file_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}",
            &[],
        ));
        assert!(m.contains("too many elements"), "{m}");

        let missing = read_npy(Path::new("/nonexistent/dir/missing.npy")).unwrap_err();
        assert!(matches!(missing, NpyError::Io { .. }));
        assert!(missing.to_string().contains("missing.npy"), "{missing}");
    }

    #[test]
    fn huge_shapes_fail_before_allocating() {
        let p = Path::new("huge.npy");
        // 2^61 f64 elements: the element count fits, the byte count overflows.
        let m = read_npy_bytes(
            &file_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", &[]),
            p,
        )
        .unwrap_err()
        .to_string();
        assert!(m.contains("too many elements") && m.contains("huge.npy"), "{m}");
        // 10^12 float32 elements claimed by a file of 8 data bytes: truncated, nothing allocated.
        let m = read_npy_bytes(
            &file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000)}", &[0; 8]),
            p,
        )
        .unwrap_err()
        .to_string();
        assert!(m.contains("truncated") && m.contains("4000000000000"), "{m}");
        // A zero dimension makes any other dimension harmless.
        let a = read_npy_bytes(
            &file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 18446744073709551615)}", &[]),
            p,
        )
        .unwrap();
        assert!(a.data.is_empty());
    }

    #[test]
    fn header_only_reads() {
        let dir = scratch("header");
        let path = dir.join("a.npy");
        write_npy(&path, &[2, 3], NpyDtype::F32, &[0.0; 6]).unwrap();
        let h = read_npy_header(&path).unwrap();
        assert_eq!((h.shape.as_slice(), h.dtype, h.count), (&[2, 3][..], NpyDtype::F32, 6));
        // A header that claims more data than the file has is caught from the file size.
        let big = dir.join("big.npy");
        std::fs::write(&big, file_with("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,)}", &[0; 16]))
            .unwrap();
        let m = read_npy_header(&big).unwrap_err().to_string();
        assert!(m.contains("truncated") && m.contains("800000000000"), "{m}");
        let m = read_npy_header(&dir.join("missing.npy")).unwrap_err().to_string();
        assert!(m.contains("missing.npy"), "{m}");
        std::fs::write(dir.join("short.npy"), b"\x93NUM").unwrap();
        assert!(read_npy_header(&dir.join("short.npy")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_folders_are_errors_not_endless_reads() {
        if Path::new("/dev/zero").exists() {
            let m = read_npy(Path::new("/dev/zero")).unwrap_err().to_string();
            assert!(m.contains("not an .npy file"), "{m}");
        }
        let dir = scratch("folder");
        assert!(read_npy(&dir).unwrap_err().to_string().contains("is a directory"));
        assert!(read_npy_header(&dir).is_err());
        // A header length of 4 GiB is refused before it is read.
        let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
        bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        std::fs::write(dir.join("long.npy"), &bytes).unwrap();
        let m = read_npy(&dir.join("long.npy")).unwrap_err().to_string();
        assert!(m.contains("header length 4294967295"), "{m}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn streamed_reads_match_in_memory_parsing() {
        let dir = scratch("stream");
        let good = encode(Path::new("x"), &[2, 3], NpyDtype::F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let p = dir.join("a.npy");
        std::fs::write(&p, &good).unwrap();
        assert_eq!(read_npy(&p).unwrap(), read_npy_bytes(&good, &p).unwrap());
        // Every truncation and one extra byte give the same error both ways.
        for len in [0, 5, 9, 11, 40, good.len() - 1] {
            std::fs::write(&p, &good[..len]).unwrap();
            let a = read_npy(&p).unwrap_err().to_string();
            let b = read_npy_bytes(&good[..len], &p).unwrap_err().to_string();
            assert_eq!(a, b, "prefix {len}");
        }
        let mut long = good.clone();
        long.push(0);
        std::fs::write(&p, &long).unwrap();
        assert!(read_npy(&p).unwrap_err().to_string().contains("1 unexpected bytes"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn write_replaces_a_symlink_instead_of_following_it() {
        let dir = scratch("symlink");
        let target = dir.join("target.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.join("out.npy");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_npy(&link, &[1], NpyDtype::F32, &[1.0]).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(read_npy(&link).unwrap().data, [1.0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every prefix of a valid file and many corrupted variants must give an error, not a panic.
    #[test]
    fn garbage_never_panics() {
        let p = Path::new("fuzz.npy");
        let good = encode(p, &[2, 3], NpyDtype::F64, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        for len in 0..good.len() {
            assert!(decode(&good[..len], p).is_err(), "prefix of length {len} accepted");
        }
        // A small xorshift generator: deterministic pseudo-random corruption.
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20000 {
            let mut bytes = good.clone();
            let flips = 1 + next() % 4;
            for _ in 0..flips {
                let i = (next() % bytes.len() as u64) as usize;
                bytes[i] = next() as u8;
            }
            let cut = (next() % (bytes.len() as u64 + 1)) as usize;
            let _ = decode(&bytes[..cut], p);
            let _ = decode(&bytes, p);
        }
        for _ in 0..2000 {
            let len = (next() % 200) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if bytes.len() >= 8 && next() % 2 == 0 {
                bytes[..8].copy_from_slice(b"\x93NUMPY\x01\x00");
            }
            let _ = decode(&bytes, p);
        }
        // Pathological headers.
        for header in [
            "",
            "{",
            "{'descr'",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999999999999999999999,)}",
            "{'descr': '<f4', 'fortran_order': 1, 'shape': ()}",
            "{'descr': '', 'fortran_order': False, 'shape': ()}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': 3}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': ('a',)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} trailing",
            "{'descr': '\\",
            "[1, 2, 3]",
        ] {
            assert!(decode(&file_with(header, &[0; 8]), p).is_err(), "{header}");
        }
        let deep = format!("{}{}", "(".repeat(10000), ")".repeat(10000));
        assert!(decode(&file_with(&deep, &[]), p).is_err());
    }

    /// Whether `python3 -c 'import numpy'` works here.
    fn have_numpy() -> bool {
        Command::new("python3").args(["-c", "import numpy"]).output().map(|o| o.status.success()).unwrap_or(false)
    }

    #[test]
    fn reads_files_written_by_numpy() {
        if !have_numpy() {
            eprintln!("skipping reads_files_written_by_numpy: python3 with numpy is not available");
            return;
        }
        let dir = scratch("numpy");
        let script = r#"
import sys, numpy as np
d = sys.argv[1]
base = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 7.5
for name in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
             'uint64', 'float16', 'float32', 'float64']:
    a = np.abs(base) if name.startswith('uint') else base
    a = (a > 0) if name == 'bool' else a.astype(name)
    np.save(f'{d}/{name}.npy', a)
    np.save(f'{d}/{name}_be.npy', a.astype(a.dtype.newbyteorder('>')))
    np.save(f'{d}/{name}_f.npy', np.asfortranarray(a))
np.save(f'{d}/scalar.npy', np.float32(2.5))
np.save(f'{d}/empty.npy', np.zeros((3, 0), np.float32))
np.save(f'{d}/complex.npy', np.zeros(2, np.complex64))
np.save(f'{d}/object.npy', np.array([1, 'a'], dtype=object), allow_pickle=True)
np.save(f'{d}/bigint.npy', np.array([2**60], np.int64))
a = np.linspace(-1, 1, 7).astype(np.float32)
np.lib.format.write_array(open(f'{d}/v2.npy', 'wb'), a, version=(2, 0))
np.lib.format.write_array(open(f'{d}/v3.npy', 'wb'), a, version=(3, 0))
np.save(f'{d}/v1.npy', a)
"#;
        let status = Command::new("python3").args(["-c", script, dir.to_str().unwrap()]).status().unwrap();
        assert!(status.success(), "numpy script failed");

        let base: Vec<f64> = (0..24).map(|i| i as f64 - 7.5).collect();
        for dtype in NpyDtype::ALL {
            let expect: Vec<f64> = base
                .iter()
                .map(|&v| match dtype {
                    NpyDtype::Bool => f64::from(u8::from(v > 0.0)),
                    NpyDtype::F16 | NpyDtype::F32 | NpyDtype::F64 => v,
                    _ if dtype.name().starts_with("uint") => v.abs().trunc(),
                    _ => v.trunc(),
                })
                .collect();
            for suffix in ["", "_be", "_f"] {
                let a = read_npy(&dir.join(format!("{}{suffix}.npy", dtype.name()))).unwrap();
                assert_eq!(a.dtype, dtype);
                assert_eq!(a.shape, [2, 3, 4]);
                assert_eq!(a.data, expect, "{dtype}{suffix}");
            }
        }
        let s = read_npy(&dir.join("scalar.npy")).unwrap();
        assert_eq!((s.shape.len(), s.data.as_slice()), (0, &[2.5][..]));
        let e = read_npy(&dir.join("empty.npy")).unwrap();
        assert_eq!((e.shape.as_slice(), e.data.len()), (&[3, 0][..], 0));
        let v1 = read_npy(&dir.join("v1.npy")).unwrap();
        for v in ["v2", "v3"] {
            assert_eq!(read_npy(&dir.join(format!("{v}.npy"))).unwrap(), v1);
        }
        for (name, want) in [("complex", "complex"), ("object", "object"), ("bigint", "not exactly representable")] {
            let m = read_npy(&dir.join(format!("{name}.npy"))).unwrap_err().to_string();
            assert!(m.contains(want) && m.contains(name), "{m}");
        }

        // And numpy reads what we write.
        for dtype in NpyDtype::ALL {
            let data = sample(dtype, 6);
            write_npy(&dir.join(format!("ours_{}.npy", dtype.name())), &[2, 3], dtype, &data).unwrap();
        }
        write_npy(&dir.join("ours_scalar.npy"), &[], NpyDtype::F64, &[0.1]).unwrap();
        let check = r#"
import sys, numpy as np
d = sys.argv[1]
for name in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
             'uint64', 'float16', 'float32', 'float64']:
    a = np.load(f'{d}/ours_{name}.npy')
    assert a.dtype == np.dtype(name) and a.shape == (2, 3), (name, a.dtype, a.shape)
s = np.load(f'{d}/ours_scalar.npy')
assert s.shape == () and s == 0.1
assert list(np.load(f'{d}/ours_int8.npy').ravel()) == [-50, -47, -44, -41, -38, -35]
"#;
        let status = Command::new("python3").args(["-c", check, dir.to_str().unwrap()]).status().unwrap();
        assert!(status.success(), "numpy could not read our files");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
