//! Reading and writing NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! morf-run exchanges tensors with the outside world as `.npy` files.  Every value
//! is carried as an `f64` (the interpreter's number type): [`read_npy`] widens the
//! stored values exactly, [`write_npy`] converts them to the requested dtype.  bf16
//! has no NumPy dtype: bf16 tensors travel as float32 files (see `bind.rs`).
//!
//! The [`npyz`] crate does the encoding and decoding (with [`half`] for float16).  Before a
//! file's data reaches npyz, a small validator here checks the header: the magic string,
//! the version, the header length and the dict's `descr`, `fortran_order` and `shape`.
//! Both byte orders and Fortran order (transposed into C order on reading) are accepted;
//! structured, complex, string, datetime, object and extended-precision dtypes are rejected.
//! A malformed file never panics, allocates for a shape it cannot hold or parses for long:
//! every defect becomes an [`NpyError`] naming the file.

use std::fmt;
use std::path::{Path, PathBuf};

use half::f16;

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

    /// The little-endian type string written to headers, e.g. `<f4`.
    fn descr(self) -> &'static str {
        match self {
            NpyDtype::Bool => "|b1",
            NpyDtype::I8 => "|i1",
            NpyDtype::I16 => "<i2",
            NpyDtype::I32 => "<i4",
            NpyDtype::I64 => "<i8",
            NpyDtype::U8 => "|u1",
            NpyDtype::U16 => "<u2",
            NpyDtype::U32 => "<u4",
            NpyDtype::U64 => "<u8",
            NpyDtype::F16 => "<f2",
            NpyDtype::F32 => "<f4",
            NpyDtype::F64 => "<f8",
        }
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

/// The longest header [`read_npy`] accepts (NumPy writes a few hundred bytes).
const MAX_HEADER_LEN: u64 = 16 << 20;

/// The most dimensions [`write_npy`] writes (NumPy's own limit, `NPY_MAXDIMS`).
const MAX_RANK: usize = 64;

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
    // Read the rest of the header (at most MAX_HEADER_LEN bytes); `parse_header` reports
    // a bad prefix or a header longer than the file.
    if let Ok((start, len)) = prefix(&head, path) {
        (&mut file).take((start + len).saturating_sub(head.len()) as u64).read_to_end(&mut head).map_err(io)?;
    }
    let h = parse_header(&head, path)?;
    Ok((file, file_len, head, h))
}

/// An error when a file of `file_len` bytes does not hold exactly the data `h` says.
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
/// Floats are converted by rounding to nearest, ties to even; integer and bool dtypes
/// require values that they hold exactly (bool: 0 or 1).
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

/// Serializes an array to the bytes of an `.npy` file with npyz (version 1.0, C order,
/// little-endian, data aligned to 64 bytes).
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
    let io = |kind, text: String| NpyError::Io { path: path.to_path_buf(), source: std::io::Error::new(kind, text) };
    if shape.len() > MAX_RANK {
        let text = format!("an array of {} dimensions cannot be written: NumPy reads at most {MAX_RANK}", shape.len());
        return Err(io(std::io::ErrorKind::InvalidInput, text));
    }
    // The header of at most MAX_RANK dimensions fits in 2 KiB.
    let mut out = Vec::new();
    let size = data.len().checked_mul(dtype.size()).and_then(|n| n.checked_add(2048));
    size.and_then(|n| out.try_reserve_exact(n).ok()).ok_or_else(|| {
        let text = format!("cannot allocate {} bytes for the file", size.unwrap_or(usize::MAX));
        io(std::io::ErrorKind::OutOfMemory, text)
    })?;
    let o = &mut out;
    match dtype {
        NpyDtype::Bool => put(o, path, shape, dtype, data, |v| (v == 0.0 || v == 1.0).then_some(v == 1.0)),
        NpyDtype::I8 => put(o, path, shape, dtype, data, whole::<i8>),
        NpyDtype::I16 => put(o, path, shape, dtype, data, whole::<i16>),
        NpyDtype::I32 => put(o, path, shape, dtype, data, whole::<i32>),
        NpyDtype::I64 => put(o, path, shape, dtype, data, whole::<i64>),
        NpyDtype::U8 => put(o, path, shape, dtype, data, whole::<u8>),
        NpyDtype::U16 => put(o, path, shape, dtype, data, whole::<u16>),
        NpyDtype::U32 => put(o, path, shape, dtype, data, whole::<u32>),
        NpyDtype::U64 => put(o, path, shape, dtype, data, whole::<u64>),
        NpyDtype::F16 => put(o, path, shape, dtype, data, |v| Some(f64_to_f16(v))),
        NpyDtype::F32 => put(o, path, shape, dtype, data, |v| Some(v as f32)),
        NpyDtype::F64 => put(o, path, shape, dtype, data, Some),
    }?;
    Ok(out)
}

/// Writes an `.npy` file of `dtype` to `out` with npyz, each value converted by `narrow`
/// (`None`: the dtype cannot hold the value).
fn put<T: npyz::Serialize>(
    out: &mut Vec<u8>,
    path: &Path,
    shape: &[usize],
    dtype: NpyDtype,
    data: &[f64],
    narrow: impl Fn(f64) -> Option<T>,
) -> Result<(), NpyError> {
    use npyz::WriterBuilder as _;
    let io = |source| NpyError::Io { path: path.to_path_buf(), source };
    let ty = dtype.descr().parse().map_err(|e| io(std::io::Error::other(e)))?;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut w =
        npyz::WriteOptions::new().dtype(npyz::DType::Plain(ty)).shape(&shape).writer(out).begin_nd().map_err(io)?;
    for (index, &value) in data.iter().enumerate() {
        let v =
            narrow(value).ok_or_else(|| NpyError::Unrepresentable { path: path.to_path_buf(), index, dtype, value })?;
        w.push(&v).map_err(io)?;
    }
    w.finish().map_err(io)
}

/// `value` as the integer type `T`, if it is a whole number in `T`'s range.
fn whole<T: TryFrom<i128>>(value: f64) -> Option<T> {
    // `as i128` is exact for whole numbers below 2^127 and saturates above, out of every range.
    (value.fract() == 0.0).then(|| T::try_from(value as i128).ok()).flatten()
}

/// Rounds an `f64` to the nearest float16, ties to even.
///
/// `half` rounds from the top 32 bits of the `f64` (or through `f32` where the CPU has
/// F16C), which can make a value just above a tie look like a tie.  Folding the discarded
/// low bits into a sticky bit that `half` keeps makes its rounding exact.
fn f64_to_f16(value: f64) -> f16 {
    let bits = value.to_bits();
    if bits & 0xffff_ffff == 0 || value.is_nan() {
        return f16::from_f64(value);
    }
    f16::from_f64(f64::from_bits((bits & !0xffff_ffff) | (1 << 32)))
}

/// The validated header of an `.npy` file.
struct Header {
    shape: Vec<usize>,
    dtype: NpyDtype,
    /// The type string as npyz reads it (byte order included).
    ty: npyz::DType,
    fortran: bool,
    count: usize,
    /// Offset of the first data byte.
    data_start: usize,
}

/// Checks the fixed start of an `.npy` file (magic, version, header length); returns the
/// offset of the header text and its length.
fn prefix(bytes: &[u8], path: &Path) -> Result<(usize, usize), NpyError> {
    let not_npy = |reason: String| Err(NpyError::NotNpy { path: path.to_path_buf(), reason });
    if !bytes.starts_with(b"\x93NUMPY") {
        return not_npy("missing the \\x93NUMPY magic string".into());
    }
    let (start, len) = match bytes.get(6..8) {
        None => return not_npy("file ends inside the version".into()),
        Some([1, 0]) => (10, bytes.get(8..10).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])))),
        Some([2 | 3, 0]) => (12, bytes.get(8..12).map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))),
        Some(v) => return not_npy(format!("unsupported format version {}.{}", v[0], v[1])),
    };
    match len {
        None => not_npy("file ends inside the header length".into()),
        Some(len) if len > MAX_HEADER_LEN => {
            not_npy(format!("header length {len} is over the {MAX_HEADER_LEN} bytes morf-run accepts"))
        }
        Some(len) => Ok((start, len as usize)),
    }
}

/// Validates the header at the start of `bytes` (the data need not follow): the prefix,
/// then the dict's `descr`, `fortran_order` and `shape`.
fn parse_header(bytes: &[u8], path: &Path) -> Result<Header, NpyError> {
    let bad_header = |reason: String| NpyError::BadHeader { path: path.to_path_buf(), reason };
    let (start, len) = prefix(bytes, path)?;
    let text = bytes.get(start..start + len).ok_or_else(|| NpyError::NotNpy {
        path: path.to_path_buf(),
        reason: format!("header length {len} runs past the end of the file ({} bytes)", bytes.len()),
    })?;
    let text = std::str::from_utf8(text).map_err(|_| bad_header("header is not valid text".into()))?;
    let dict = match parse_literal(text) {
        Ok(Lit::Dict(entries)) => entries,
        Ok(_) => return Err(bad_header("header is not a dict literal".into())),
        Err(e) => return Err(bad_header(e)),
    };
    let get = |key: &str| {
        dict.iter()
            .find(|(k, _)| matches!(k, Lit::Str(s) if s == key))
            .map(|(_, v)| v)
            .ok_or_else(|| bad_header(format!("missing key '{key}'")))
    };
    let Lit::Bool(fortran) = *get("fortran_order")? else {
        return Err(bad_header("'fortran_order' is not True or False".into()));
    };
    let shape = match get("shape")? {
        Lit::Seq(items) => items
            .iter()
            .map(|item| {
                match item {
                    Lit::Int(v) => usize::try_from(*v).ok(),
                    _ => None,
                }
                .ok_or_else(|| bad_header(format!("shape entry {} is not a non-negative integer", item.describe())))
            })
            .collect::<Result<Vec<usize>, _>>()?,
        other => return Err(bad_header(format!("'shape' is {}, not a tuple", other.describe()))),
    };
    let unsupported =
        |descr: String, reason: String| NpyError::UnsupportedDtype { path: path.to_path_buf(), descr, reason };
    let (dtype, ty) = match get("descr")? {
        Lit::Str(s) => parse_descr(s).map_err(|reason| unsupported(format!("'{s}'"), reason))?,
        other => return Err(unsupported(other.describe(), "structured (record) dtypes are not supported".into())),
    };
    let too_many = || bad_header(format!("shape {shape:?} has too many elements"));
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).ok_or_else(too_many)?;
    count.checked_mul(dtype.size()).ok_or_else(too_many)?;
    Ok(Header { shape, dtype, ty, fortran, count, data_start: start + len })
}

/// Parses the bytes of an `.npy` file: validates the header and the data size, then
/// decodes the elements with npyz.
fn decode(bytes: &[u8], path: &Path) -> Result<NpyArray, NpyError> {
    let h = parse_header(bytes, path)?;
    check_data_size(path, &h, bytes.len() as u64)?;
    let body = &bytes[h.data_start..];
    let mut data = Vec::new();
    data.try_reserve_exact(h.count).map_err(|_| NpyError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("cannot allocate {} bytes for {} elements", h.count.saturating_mul(8), h.count),
        ),
    })?;
    let int = |index, value: i128| {
        if value.abs() > MAX_EXACT_INT {
            Err(NpyError::InexactInteger { path: path.to_path_buf(), index, dtype: h.dtype, value })
        } else {
            Ok(value as f64)
        }
    };
    let (d, hd) = (&mut data, &h);
    match h.dtype {
        // NumPy reads any nonzero byte as True; npyz would refuse all but 0 and 1.
        NpyDtype::Bool => {
            d.extend(body.iter().map(|&b| f64::from(u8::from(b != 0))));
            Ok(())
        }
        NpyDtype::I8 => fill(d, hd, body, path, |_, v: i8| Ok(v.into())),
        NpyDtype::I16 => fill(d, hd, body, path, |_, v: i16| Ok(v.into())),
        NpyDtype::I32 => fill(d, hd, body, path, |_, v: i32| Ok(v.into())),
        NpyDtype::I64 => fill(d, hd, body, path, |i, v: i64| int(i, v.into())),
        NpyDtype::U8 => fill(d, hd, body, path, |_, v: u8| Ok(v.into())),
        NpyDtype::U16 => fill(d, hd, body, path, |_, v: u16| Ok(v.into())),
        NpyDtype::U32 => fill(d, hd, body, path, |_, v: u32| Ok(v.into())),
        NpyDtype::U64 => fill(d, hd, body, path, |i, v: u64| int(i, v.into())),
        NpyDtype::F16 => fill(d, hd, body, path, |_, v: f16| Ok(v.to_f64())),
        NpyDtype::F32 => fill(d, hd, body, path, |_, v: f32| Ok(v.into())),
        NpyDtype::F64 => fill(d, hd, body, path, |_, v: f64| Ok(v)),
    }?;
    if h.fortran && h.shape.len() > 1 && h.count > 0 {
        data = fortran_to_c(&h.shape, &data);
    }
    Ok(NpyArray { shape: h.shape, dtype: h.dtype, data })
}

/// Decodes the `h.count` elements of `body` with npyz and appends them to `out`, widened
/// by `widen` (given each element's flat index).
fn fill<T: npyz::Deserialize>(
    out: &mut Vec<f64>,
    h: &Header,
    mut body: &[u8],
    path: &Path,
    widen: impl Fn(usize, T) -> Result<f64, NpyError>,
) -> Result<(), NpyError> {
    use npyz::TypeRead as _;
    let io = |source| NpyError::Io { path: path.to_path_buf(), source };
    let reader = T::reader(&h.ty).map_err(|e| io(std::io::Error::other(e)))?;
    for index in 0..h.count {
        out.push(widen(index, reader.read_one(&mut body).map_err(io)?)?);
    }
    Ok(())
}

/// Reorders column-major (Fortran) data of `shape` into row-major (C) order.
fn fortran_to_c(shape: &[usize], data: &[f64]) -> Vec<f64> {
    // Fortran strides: the first axis varies fastest.
    let strides: Vec<usize> = shape.iter().scan(1, |s, &d| Some(std::mem::replace(s, *s * d))).collect();
    let offset = |mut c: usize| {
        // Split the C-order index into per-axis indices, last axis fastest.
        (0..shape.len()).rev().fold(0, |off, axis| {
            let i = c % shape[axis];
            c /= shape[axis];
            off + i * strides[axis]
        })
    };
    (0..data.len()).map(|c| data[offset(c)]).collect()
}

/// Reads a type string such as `<f4` with npyz; returns the dtype and npyz's form of it.
fn parse_descr(descr: &str) -> Result<(NpyDtype, npyz::DType), String> {
    use npyz::TypeChar as T;
    // npyz wants `<` or `>` (or `|` for one byte); NumPy also reads `=` or nothing (the
    // machine's order), `|` on wider types (little-endian) and `?` for bool.
    let (order, body) = match descr.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
        _ => ('=', descr),
    };
    let big = order == '>' || (order == '=' && cfg!(target_endian = "big"));
    let body = if body == "?" { "b1" } else { body };
    if body.starts_with('O') {
        return Err("object arrays are not supported".into());
    }
    let ty: npyz::TypeStr = format!("{}{body}", if big { '>' } else { '<' })
        .parse()
        .map_err(|e| format!("not a recognized NumPy type string ({e})"))?;
    let code = format!("{}{}", ty.type_char().to_str(), ty.size_field());
    if let Some(dtype) = NpyDtype::ALL.into_iter().find(|d| d.descr()[1..] == code) {
        return Ok((dtype, npyz::DType::Plain(ty)));
    }
    Err(match ty.type_char() {
        T::Float => "only float16, float32 and float64 floats are supported",
        T::Complex => "complex numbers are not supported",
        T::ByteStr | T::UnicodeStr => "string arrays are not supported",
        T::TimeDelta | T::DateTime => "datetime/timedelta arrays are not supported",
        T::RawData => "raw void data is not supported",
        _ => "not a recognized NumPy type string",
    }
    .into())
}

/// A Python literal as it can appear in an `.npy` header.
#[derive(Debug)]
enum Lit {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    /// A tuple or a list.
    Seq(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

impl Lit {
    /// A short description for error messages.
    fn describe(&self) -> String {
        match self {
            Lit::Str(s) => format!("'{s}'"),
            Lit::Int(v) => v.to_string(),
            Lit::Bool(b) => if *b { "True" } else { "False" }.into(),
            Lit::None => "None".into(),
            Lit::Seq(_) => "a sequence".into(),
            Lit::Dict(_) => "a dict".into(),
        }
    }
}

/// Maximum nesting of brackets accepted in a header.
const MAX_DEPTH: usize = 32;

/// Parses the header text: one Python literal (strings, integers with Python 2's optional
/// `L`, `True`, `False`, `None`, tuples, lists and dicts) spanning the whole text.  Linear
/// in the text and nested at most [`MAX_DEPTH`] deep.
fn parse_literal(text: &str) -> Result<Lit, String> {
    let mut p = LitParser { text, pos: 0 };
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos != text.len() {
        return Err(format!("unexpected text after the dict at offset {}", p.pos));
    }
    Ok(value)
}

/// The state of [`parse_literal`].
struct LitParser<'a> {
    text: &'a str,
    pos: usize,
}

impl LitParser<'_> {
    fn skip_ws(&mut self) {
        self.pos = self.text.len() - self.text[self.pos..].trim_start().len();
    }

    /// Skips whitespace, then consumes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        let hit = self.text[self.pos..].starts_with(c);
        self.pos += usize::from(hit);
        hit
    }

    fn value(&mut self, depth: usize) -> Result<Lit, String> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let open = rest.chars().next().ok_or("unexpected end of header")?;
        if let Some(close) = match open {
            '{' => Some('}'),
            '(' => Some(')'),
            '[' => Some(']'),
            _ => None,
        } {
            if depth >= MAX_DEPTH {
                return Err("literal nested too deeply".into());
            }
            self.pos += 1;
            let (mut items, mut entries, mut comma) = (Vec::new(), Vec::new(), false);
            while !self.eat(close) {
                let item = self.value(depth + 1)?;
                if open == '{' {
                    if !self.eat(':') {
                        return Err(format!("expected ':' at offset {}", self.pos));
                    }
                    entries.push((item, self.value(depth + 1)?));
                } else {
                    items.push(item);
                }
                if self.eat(',') {
                    comma = true;
                } else if self.eat(close) {
                    break;
                } else {
                    return Err(format!("expected ',' or '{close}' at offset {}", self.pos));
                }
            }
            return Ok(match open {
                '{' => Lit::Dict(entries),
                // `(x)` is just a parenthesized value; `(x,)` is a tuple.
                '(' if items.len() == 1 && !comma => items.remove(0),
                _ => Lit::Seq(items),
            });
        }
        if open == '\'' || open == '"' {
            let mut s = String::new();
            let mut chars = rest.char_indices().skip(1);
            while let Some((i, c)) = chars.next() {
                if c == open {
                    self.pos += i + 1;
                    return Ok(Lit::Str(s));
                }
                // An escape: keep the escaped character (the names NumPy writes need no more).
                s.push(if c == '\\' { chars.next().ok_or("unterminated string")?.1 } else { c });
            }
            return Err("unterminated string".into());
        }
        if open.is_ascii_digit() || open == '-' || open == '+' {
            let sign = usize::from(!open.is_ascii_digit());
            let digits = rest[sign..].find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len() - sign);
            if digits == 0 {
                return Err(format!("expected a number at offset {}", self.pos));
            }
            let number = &rest[..sign + digits];
            let value = number.parse().map_err(|_| format!("integer {number} is too large"))?;
            // Python 2 wrote long integers with an `L` suffix.
            self.pos += number.len() + usize::from(rest[number.len()..].starts_with(['L', 'l']));
            return Ok(Lit::Int(value));
        }
        for (word, value) in [("True", Lit::Bool(true)), ("False", Lit::Bool(false)), ("None", Lit::None)] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(value);
            }
        }
        Err(format!("unexpected character at offset {}", self.pos))
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

    #[test]
    fn f16_conversion_is_exact_and_rounds_to_even() {
        let p = Path::new("h.npy");
        let bits_of = |v: f64| f64_to_f16(v).to_bits();
        // Every float16 value survives a write and a read.
        let all: Vec<f64> = (0..=u16::MAX).map(|b| f16::from_bits(b).to_f64()).collect();
        let back = decode(&encode(p, &[all.len()], NpyDtype::F16, &all).unwrap(), p).unwrap();
        for (b, (x, y)) in all.iter().zip(&back.data).enumerate() {
            assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()), "bits {b:#06x}");
        }
        // Midpoints round to the even neighbour; one f64 ulp either side decides.
        for lo in 0..0x7bffu16 {
            let mid = (f16::from_bits(lo).to_f64() + f16::from_bits(lo + 1).to_f64()) / 2.0;
            assert_eq!(bits_of(mid), lo + (lo & 1), "tie above {lo:#06x}");
            assert_eq!(bits_of(f64::from_bits(mid.to_bits() + 1)), lo + 1, "above the tie of {lo:#06x}");
            assert_eq!(bits_of(f64::from_bits(mid.to_bits() - 1)), lo, "below the tie of {lo:#06x}");
            assert_eq!(bits_of(-mid), 0x8000 | (lo + (lo & 1)));
        }
        assert_eq!(bits_of(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(bits_of(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        // Just above a tie by less than 2^-32 relative: plain `half` sees a tie and rounds down.
        assert_eq!(bits_of(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01);
        assert_eq!(bits_of(65519.99), 0x7bff);
        assert_eq!(bits_of(65520.0), 0x7c00);
        assert_eq!(bits_of(f64::MAX), 0x7c00);
        assert_eq!(bits_of(2f64.powi(-25)), 0x0000);
        assert_eq!(bits_of(2f64.powi(-25) * 1.0001), 0x0001);
        assert_eq!(bits_of(2f64.powi(-25) * (1.0 + 2f64.powi(-45))), 0x0001);
        assert_eq!(bits_of(-(2f64.powi(-14) - 2f64.powi(-26))), 0x8400);
        assert!(f64_to_f16(f64::NAN).is_nan());
    }

    /// bf16 has no NumPy dtype: bf16 tensors travel as float32 files, which hold every bf16
    /// value exactly.
    #[test]
    fn bf16_values_round_trip_through_float32_files() {
        let p = Path::new("bf16.npy");
        let all: Vec<f64> = (0..=u16::MAX).map(|b| half::bf16::from_bits(b).to_f64()).collect();
        let bytes = encode(p, &[256, 256], NpyDtype::F32, &all).unwrap();
        let back = read_npy_bytes(&bytes, p).unwrap();
        assert_eq!((back.shape.as_slice(), back.dtype), (&[256, 256][..], NpyDtype::F32));
        for (b, v) in back.data.iter().enumerate() {
            let again = half::bf16::from_f64(*v);
            assert!(again.to_bits() == b as u16 || (again.is_nan() && all[b].is_nan()), "bf16 bits {b:#06x}");
        }
    }

    #[test]
    fn validator_rejects_bad_headers_clearly() {
        let p = Path::new("v.npy");
        let msg = |bytes: &[u8]| read_npy_bytes(bytes, p).unwrap_err().to_string();
        let hdr = |shape: &str| format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
        let typed =
            |descr: &str| file_with(&format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,)}}"), &[0; 8]);
        for (bytes, want) in [
            (b"\x93NUMPZ\x01\x00".to_vec(), "not an .npy file: missing the \\x93NUMPY magic string"),
            (b"\x93NUMPY\x01".to_vec(), "not an .npy file: file ends inside the version"),
            (b"\x93NUMPY\x01\x00\x10".to_vec(), "not an .npy file: file ends inside the header length"),
            (b"\x93NUMPY\x04\x00\x10\x00".to_vec(), "not an .npy file: unsupported format version 4.0"),
            (b"\x93NUMPY\x01\x00\x10\x00{}".to_vec(), "header length 16 runs past the end of the file (12 bytes)"),
            (file_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", &[0; 4]), "unexpected text"),
            (file_with(&hdr("(2, -3)"), &[]), "shape entry -3 is not a non-negative integer"),
            (file_with(&hdr("'2'"), &[]), "'shape' is '2', not a tuple"),
            // The element count overflows usize, then the byte count does.
            (file_with(&hdr("(4294967296, 4294967296, 4294967296)"), &[]), "too many elements"),
            (file_with(&hdr("(4611686018427387904,)"), &[]), "too many elements"),
            // The shape needs more bytes than the file has: no allocation, a clear error.
            (
                file_with(&hdr("(3, 1000000000000)"), &[0; 12]),
                "truncated data: shape [3, 1000000000000] of float32 needs 12000000000000 bytes, the file has 12",
            ),
            (file_with(&hdr("(3,)"), &[0; 11]), "needs 12 bytes, the file has 11"),
            (typed("<M8[ns]"), "unsupported dtype '<M8[ns]': datetime"),
            (typed("|S4"), "unsupported dtype '|S4': string"),
            (typed("<V8"), "raw void"),
            (typed("<i3"), "not a recognized NumPy type string"),
            (file_with("{'descr': '<f4', 'fortran_order': 'no', 'shape': ()}", &[0; 4]), "'fortran_order' is not True"),
        ] {
            let m = msg(&bytes);
            assert!(m.starts_with("v.npy: ") && m.contains(want), "{m}\nwanted: {want}");
        }
        // Headers NumPy reads: other byte-order marks, `?`, Python 2 longs, lists, extra keys.
        for (descr, shape, body, data) in [
            ("=f4", "[2]", [0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0].to_vec(), [1.0, -2.0]),
            ("f4", "(2L,)", [0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0].to_vec(), [1.0, -2.0]),
            ("|i2", "(2,)", [1, 0, 0xff, 0xff].to_vec(), [1.0, -1.0]),
            ("?", "(2,)", [0, 7].to_vec(), [0.0, 1.0]),
        ] {
            let header =
                format!("{{\"descr\": \"{descr}\", \"fortran_order\": False, \"shape\": {shape}, 'x': [[[None]]]}}");
            let a = read_npy_bytes(&file_with(&header, &body), p).unwrap();
            assert_eq!(a.data, data, "{descr}");
        }
        // Nesting is linear to parse (no backtracking), and bounded.
        let nested = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': {}1{}}}",
            "[".repeat(30),
            "]".repeat(30)
        );
        assert_eq!(read_npy_bytes(&file_with(&nested, &[0; 4]), p).unwrap().data, [0.0]);
        let nested = nested.replace("[[", "[[[[");
        assert!(msg(&file_with(&nested, &[0; 4])).contains("nested too deeply"));
    }

    #[test]
    fn fortran_order_is_transposed_in_every_dtype() {
        let p = Path::new("f.npy");
        // The 2x3x2 array 0..12 in C order, stored column-major (first axis fastest).
        let c: Vec<f64> = (0..12).map(f64::from).collect();
        let f: Vec<f64> =
            (0..2).flat_map(|k| (0..3).flat_map(move |j| (0..2).map(move |i| (i * 6 + j * 2 + k) as f64))).collect();
        for dtype in [NpyDtype::U8, NpyDtype::I64, NpyDtype::F16, NpyDtype::F64] {
            let le = encode(p, &[12], dtype, &f).unwrap();
            let body = &le[10 + usize::from(u16::from_le_bytes([le[8], le[9]]))..];
            let header = format!("{{'descr': '{}', 'fortran_order': True, 'shape': (2, 3, 2), }}", dtype.descr());
            let a = read_npy_bytes(&file_with(&header, body), p).unwrap();
            assert_eq!((a.shape.as_slice(), &a.data), (&[2, 3, 2][..], &c), "{dtype}");
            // The same array big-endian.
            let be: Vec<u8> = body.chunks(dtype.size()).flat_map(|e| e.iter().rev().copied()).collect();
            let header = header.replace('<', ">");
            assert_eq!(read_npy_bytes(&file_with(&header, &be), p).unwrap().data, c, "{dtype} big-endian");
        }
    }

    #[test]
    fn writes_numpy_headers_and_refuses_absurd_ranks() {
        let p = Path::new("w.npy");
        let bytes = encode(p, &[2, 3], NpyDtype::I16, &[0.0; 6]).unwrap();
        assert!(bytes.starts_with(b"\x93NUMPY\x01\x00\x76\x00"), "{bytes:?}");
        let header = std::str::from_utf8(&bytes[10..128]).unwrap();
        assert!(header.starts_with("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3"), "{header}");
        assert!(header.ends_with(" \n") && bytes.len() == 128 + 12);
        let m = encode(p, &[1; 65], NpyDtype::F32, &[0.0]).unwrap_err().to_string();
        assert!(m.contains("65 dimensions") && m.contains("w.npy"), "{m}");
        assert_eq!(decode(&encode(p, &[1; 64], NpyDtype::F32, &[0.5]).unwrap(), p).unwrap().shape, [1; 64]);
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
