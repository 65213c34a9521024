//! Types: integers, `index`, floats, ranked tensors with static and dynamic dims, function
//! types, and dialect types (`!mloop.buffer<?x384xbf16>`).
//!
//! Types are interned in the [`Context`]: equality of [`Type`] handles is equality of types.

use crate::attrs::Attr;
use crate::context::Context;
use crate::numerics::FloatKind;

/// Handle of an interned type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Type(pub(crate) u32);

/// One dimension of a shaped type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dim {
    /// A size known at compile time.
    Static(u64),
    /// A size known only at run time, written `?`.
    Dynamic,
}

impl Dim {
    /// The static size, if known.
    pub fn as_static(self) -> Option<u64> {
        match self {
            Dim::Static(n) => Some(n),
            Dim::Dynamic => None,
        }
    }
    /// Whether two dims may describe the same size (`?` is compatible with anything).
    pub fn compatible(self, other: Dim) -> bool {
        match (self, other) {
            (Dim::Static(a), Dim::Static(b)) => a == b,
            _ => true,
        }
    }
}

/// The largest static dimension size accepted, and the largest static element count of a
/// shaped type: bigger sizes are rejected by the parser and the verifier, so that no
/// later stage overflows computing sizes.
pub const MAX_DIM: u64 = 1 << 40;
/// The largest rank of a shaped type.
pub const MAX_RANK: usize = 16;

/// The data of a type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// A signless integer of the given width: `i1`, `i8`, `i16`, `i32`, `i64`.
    Integer(u32),
    /// The `index` type (sizes and positions).
    Index,
    /// A float type.
    Float(FloatKind),
    /// A ranked tensor `tensor<?x384xf32>`.
    Tensor {
        /// The dims, outermost first.
        shape: Vec<Dim>,
        /// The element type.
        elem: Type,
    },
    /// A function type `(inputs) -> results`.
    Function {
        /// Argument types.
        inputs: Vec<Type>,
        /// Result types.
        results: Vec<Type>,
    },
    /// A dialect type `!dialect.name<dims x elem, params...>`.
    Dialect {
        /// The full name, such as `mloop.buffer`.
        name: String,
        /// Dims of a shaped dialect type (empty otherwise).
        shape: Vec<Dim>,
        /// Element type of a shaped dialect type.
        elem: Option<Type>,
        /// Further parameters.
        params: Vec<Attr>,
    },
}

impl Context {
    /// `iN`.
    pub fn int_type(&mut self, width: u32) -> Type {
        self.intern_type(TypeData::Integer(width))
    }
    /// `i1`.
    pub fn i1_type(&mut self) -> Type {
        self.int_type(1)
    }
    /// `i64`.
    pub fn i64_type(&mut self) -> Type {
        self.int_type(64)
    }
    /// `index`.
    pub fn index_type(&mut self) -> Type {
        self.intern_type(TypeData::Index)
    }
    /// A float type.
    pub fn float_type(&mut self, k: FloatKind) -> Type {
        self.intern_type(TypeData::Float(k))
    }
    /// `f32`.
    pub fn f32_type(&mut self) -> Type {
        self.float_type(FloatKind::F32)
    }
    /// `f64`.
    pub fn f64_type(&mut self) -> Type {
        self.float_type(FloatKind::F64)
    }
    /// A ranked tensor type.
    pub fn tensor_type(&mut self, shape: &[Dim], elem: Type) -> Type {
        self.intern_type(TypeData::Tensor { shape: shape.to_vec(), elem })
    }
    /// A function type.
    pub fn function_type(&mut self, inputs: &[Type], results: &[Type]) -> Type {
        self.intern_type(TypeData::Function { inputs: inputs.to_vec(), results: results.to_vec() })
    }

    /// The float kind of a float type.
    pub fn float_kind(&self, t: Type) -> Option<FloatKind> {
        match self.type_data(t) {
            TypeData::Float(k) => Some(*k),
            _ => None,
        }
    }
    /// Whether `t` is a float type.
    pub fn is_float(&self, t: Type) -> bool {
        matches!(self.type_data(t), TypeData::Float(_))
    }
    /// Whether `t` is an integer or index type.
    pub fn is_int_or_index(&self, t: Type) -> bool {
        matches!(self.type_data(t), TypeData::Integer(_) | TypeData::Index)
    }
    /// Whether `t` is a ranked tensor type.
    pub fn is_tensor(&self, t: Type) -> bool {
        matches!(self.type_data(t), TypeData::Tensor { .. })
    }
    /// Shape and element type of a tensor type.
    pub fn tensor_parts(&self, t: Type) -> Option<(&[Dim], Type)> {
        match self.type_data(t) {
            TypeData::Tensor { shape, elem } => Some((shape, *elem)),
            _ => None,
        }
    }
    /// The shape of a shaped type (tensor or shaped dialect type).
    pub fn shape_of(&self, t: Type) -> Option<&[Dim]> {
        match self.type_data(t) {
            TypeData::Tensor { shape, .. } => Some(shape),
            TypeData::Dialect { shape, elem: Some(_), .. } => Some(shape),
            _ => None,
        }
    }
    /// The element type of a shaped type, or the type itself for a scalar.
    pub fn element_type(&self, t: Type) -> Type {
        match self.type_data(t) {
            TypeData::Tensor { elem, .. } => *elem,
            TypeData::Dialect { elem: Some(e), .. } => *e,
            _ => t,
        }
    }
    /// Inputs and results of a function type.
    pub fn function_parts(&self, t: Type) -> Option<(&[Type], &[Type])> {
        match self.type_data(t) {
            TypeData::Function { inputs, results } => Some((inputs, results)),
            _ => None,
        }
    }
    /// The same shape with another element type.
    pub fn with_element_type(&mut self, t: Type, elem: Type) -> Type {
        match self.type_data(t).clone() {
            TypeData::Tensor { shape, .. } => self.tensor_type(&shape, elem),
            TypeData::Dialect { name, shape, elem: Some(_), params } => {
                self.intern_type(TypeData::Dialect { name, shape, elem: Some(elem), params })
            }
            _ => elem,
        }
    }
}
