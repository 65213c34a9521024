//! Attributes: unit, bool, integer, float, string, array, dictionary, type, symbol
//! reference and dense (or splat) elements.
//!
//! Attributes are interned in the [`Context`]: equal handles mean equal attributes. Floats
//! are stored as bit patterns so that interning is exact (`-0.0 != 0.0`, NaNs by payload).

use crate::context::{Context, Sym};
use crate::types::{Type, TypeData};

/// Handle of an interned attribute.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Attr(pub(crate) u32);

/// The data of an attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrData {
    /// A present-or-absent flag, written by its name alone in a dictionary.
    Unit,
    /// `true` or `false`.
    Bool(bool),
    /// `42 : i32` (`i64` when no type is written). Index and integer types.
    Integer {
        /// The value.
        value: i64,
        /// Its type.
        ty: Type,
    },
    /// `1.5 : f32` (`f64` when no type is written).
    Float {
        /// The value as f64 bits, already rounded to `ty`.
        bits: u64,
        /// Its float type.
        ty: Type,
    },
    /// `"text"`.
    String(String),
    /// `[a, b, c]`.
    Array(Vec<Attr>),
    /// `{a = 1, b}`; entries sorted by name.
    Dict(Vec<(Sym, Attr)>),
    /// A type used as an attribute.
    Type(Type),
    /// `@name`.
    SymbolRef(Sym),
    /// `dense<...> : tensor<...>`: elements in row-major order as f64 bits; a single
    /// element with `splat` set stands for all of them.
    Dense {
        /// The tensor type.
        ty: Type,
        /// Element bits (f64 bits for floats, the integer as f64 for integers).
        values: Vec<u64>,
        /// Whether one value stands for every element.
        splat: bool,
    },
}

impl Context {
    /// The unit attribute.
    pub fn unit_attr(&mut self) -> Attr {
        self.intern_attr(AttrData::Unit)
    }
    /// A bool attribute.
    pub fn bool_attr(&mut self, b: bool) -> Attr {
        self.intern_attr(AttrData::Bool(b))
    }
    /// An integer attribute of type `ty`.
    pub fn int_attr(&mut self, value: i64, ty: Type) -> Attr {
        self.intern_attr(AttrData::Integer { value, ty })
    }
    /// An `i64` integer attribute.
    pub fn i64_attr(&mut self, value: i64) -> Attr {
        let t = self.i64_type();
        self.int_attr(value, t)
    }
    /// A float attribute of float type `ty`; the value is rounded to the type.
    pub fn float_attr(&mut self, value: f64, ty: Type) -> Attr {
        let v = match self.float_kind(ty) {
            Some(k) => k.round(value),
            None => value,
        };
        self.intern_attr(AttrData::Float { bits: v.to_bits(), ty })
    }
    /// A string attribute.
    pub fn str_attr(&mut self, s: &str) -> Attr {
        self.intern_attr(AttrData::String(s.to_string()))
    }
    /// An array attribute.
    pub fn array_attr(&mut self, items: Vec<Attr>) -> Attr {
        self.intern_attr(AttrData::Array(items))
    }
    /// An array of `i64` integer attributes.
    pub fn i64_array_attr(&mut self, items: &[i64]) -> Attr {
        let v = items.iter().map(|&i| self.i64_attr(i)).collect();
        self.array_attr(v)
    }
    /// A dictionary attribute (entries are sorted by name; a later duplicate wins).
    pub fn dict_attr(&mut self, entries: Vec<(Sym, Attr)>) -> Attr {
        let mut e: Vec<(Sym, Attr)> = Vec::new();
        for (k, v) in entries {
            match e.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => e.push((k, v)),
            }
        }
        e.sort_by(|a, b| self.str(a.0).cmp(self.str(b.0)));
        self.intern_attr(AttrData::Dict(e))
    }
    /// A type attribute.
    pub fn type_attr(&mut self, t: Type) -> Attr {
        self.intern_attr(AttrData::Type(t))
    }
    /// A symbol reference `@name`.
    pub fn symbol_ref_attr(&mut self, name: &str) -> Attr {
        let s = self.sym(name);
        self.intern_attr(AttrData::SymbolRef(s))
    }
    /// A splat dense attribute: every element of tensor type `ty` equals `value` (rounded
    /// to the element type).
    pub fn splat_attr(&mut self, ty: Type, value: f64) -> Attr {
        let elem = self.element_type(ty);
        let v = self.round_to_type(elem, value);
        self.intern_attr(AttrData::Dense { ty, values: vec![v.to_bits()], splat: true })
    }
    /// A dense attribute with every element given (rounded to the element type).
    pub fn dense_attr(&mut self, ty: Type, values: &[f64]) -> Attr {
        let elem = self.element_type(ty);
        let values = values.iter().map(|&v| self.round_to_type(elem, v).to_bits()).collect();
        self.intern_attr(AttrData::Dense { ty, values, splat: false })
    }

    /// Rounds `v` as storing it into a value of scalar type `t` would.
    pub fn round_to_type(&self, t: Type, v: f64) -> f64 {
        match self.type_data(t) {
            TypeData::Float(k) => k.round(v),
            TypeData::Integer(1) => {
                if v != 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            TypeData::Integer(_) | TypeData::Index => v.trunc(),
            _ => v,
        }
    }

    // ----- accessors -----

    /// The integer of an integer attribute.
    pub fn attr_int(&self, a: Attr) -> Option<i64> {
        match self.attr_data(a) {
            AttrData::Integer { value, .. } => Some(*value),
            _ => None,
        }
    }
    /// The value of a float attribute.
    pub fn attr_float(&self, a: Attr) -> Option<f64> {
        match self.attr_data(a) {
            AttrData::Float { bits, .. } => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }
    /// The text of a string attribute.
    pub fn attr_str(&self, a: Attr) -> Option<&str> {
        match self.attr_data(a) {
            AttrData::String(s) => Some(s),
            _ => None,
        }
    }
    /// The type of a type attribute.
    pub fn attr_type(&self, a: Attr) -> Option<Type> {
        match self.attr_data(a) {
            AttrData::Type(t) => Some(*t),
            _ => None,
        }
    }
    /// The items of an array attribute.
    pub fn attr_array(&self, a: Attr) -> Option<&[Attr]> {
        match self.attr_data(a) {
            AttrData::Array(v) => Some(v),
            _ => None,
        }
    }
    /// An array attribute of integers as a vector.
    pub fn attr_int_array(&self, a: Attr) -> Option<Vec<i64>> {
        self.attr_array(a)?.iter().map(|&x| self.attr_int(x)).collect()
    }
    /// The bool of a bool attribute.
    pub fn attr_bool(&self, a: Attr) -> Option<bool> {
        match self.attr_data(a) {
            AttrData::Bool(b) => Some(*b),
            _ => None,
        }
    }
    /// The name in a symbol reference.
    pub fn attr_symbol(&self, a: Attr) -> Option<&str> {
        match self.attr_data(a) {
            AttrData::SymbolRef(s) => Some(self.str(*s)),
            _ => None,
        }
    }
    /// The type an attribute carries, if it is typed (integer, float, dense).
    pub fn attr_value_type(&self, a: Attr) -> Option<Type> {
        match self.attr_data(a) {
            AttrData::Integer { ty, .. } | AttrData::Float { ty, .. } | AttrData::Dense { ty, .. } => Some(*ty),
            _ => None,
        }
    }
    /// The elements of a dense attribute expanded to `n` values (splats are repeated).
    pub fn dense_values(&self, a: Attr, n: usize) -> Option<Vec<f64>> {
        match self.attr_data(a) {
            AttrData::Dense { values, splat: true, .. } => Some(vec![f64::from_bits(values[0]); n]),
            AttrData::Dense { values, .. } => Some(values.iter().map(|b| f64::from_bits(*b)).collect()),
            _ => None,
        }
    }
    /// The splat value of a dense attribute, if it is a splat (or has one distinct value).
    pub fn dense_splat_value(&self, a: Attr) -> Option<f64> {
        match self.attr_data(a) {
            AttrData::Dense { values, .. } if !values.is_empty() && values.iter().all(|v| *v == values[0]) => {
                Some(f64::from_bits(values[0]))
            }
            _ => None,
        }
    }
}
