//! Scalar computations as `arith` and `math` ops: the bodies of `linalg.generic` (tensor
//! level) and the `mloop` scalar ops (loop and GPU levels). The matches on [`UnaryFn`] and
//! [`BinaryFn`] are exhaustive: a new scalar function does not compile until it has an MLIR
//! mapping here.

use melior::ir::{Location, Type};
use mlir_sys::{MlirBlock, MlirValue};
use morf_ir::interfaces::{BinaryFn, CmpPredicate, UnaryFn};
use morf_ir::TypeData;

use super::{Exporter, SResult};

/// The `arith.cmpf` predicate (its enum value and name) of a morf comparison: ordered, except
/// `ne`, which holds for NaN operands as morf's does (`une`).
pub(crate) fn cmpf_predicate(p: CmpPredicate) -> (i64, &'static str) {
    match p {
        CmpPredicate::Eq => (1, "oeq"),
        CmpPredicate::Gt => (2, "ogt"),
        CmpPredicate::Ge => (3, "oge"),
        CmpPredicate::Lt => (4, "olt"),
        CmpPredicate::Le => (5, "ole"),
        CmpPredicate::Ne => (13, "une"),
    }
}

/// The `arith.cmpi` predicate (signed) of a morf comparison.
pub(crate) fn cmpi_predicate(p: CmpPredicate) -> (i64, &'static str) {
    match p {
        CmpPredicate::Eq => (0, "eq"),
        CmpPredicate::Ne => (1, "ne"),
        CmpPredicate::Lt => (2, "slt"),
        CmpPredicate::Le => (3, "sle"),
        CmpPredicate::Gt => (4, "sgt"),
        CmpPredicate::Ge => (5, "sge"),
    }
}

/// The op of a unary float function.
pub(crate) fn unary_op_name(f: UnaryFn) -> &'static str {
    match f {
        UnaryFn::Neg => "arith.negf",
        UnaryFn::Exp => "math.exp",
        UnaryFn::Log => "math.log",
        UnaryFn::Sqrt => "math.sqrt",
        UnaryFn::Rsqrt => "math.rsqrt",
        UnaryFn::Tanh => "math.tanh",
        UnaryFn::Abs => "math.absf",
        UnaryFn::Erf => "math.erf",
    }
}

/// The op of a binary function on floats.
pub(crate) fn binary_float_op_name(f: BinaryFn) -> &'static str {
    match f {
        BinaryFn::Add => "arith.addf",
        BinaryFn::Sub => "arith.subf",
        BinaryFn::Mul => "arith.mulf",
        BinaryFn::Div => "arith.divf",
        BinaryFn::Max => "arith.maximumf",
        BinaryFn::Min => "arith.minimumf",
        BinaryFn::Pow => "math.powf",
    }
}

/// The op of a binary function on `index` (signed; `div` rounds toward -inf as morf's does).
pub(crate) fn binary_index_op_name(f: BinaryFn) -> Option<&'static str> {
    Some(match f {
        BinaryFn::Add => "arith.addi",
        BinaryFn::Sub => "arith.subi",
        BinaryFn::Mul => "arith.muli",
        BinaryFn::Div => "arith.floordivsi",
        BinaryFn::Max => "arith.maxsi",
        BinaryFn::Min => "arith.minsi",
        BinaryFn::Pow => return None,
    })
}

impl<'c> Exporter<'c, '_> {
    /// Whether a morf scalar type is a float.
    pub fn is_float(&self, t: morf_ir::Type) -> bool {
        self.m.is_float(t)
    }

    /// `f(x)` of type `ty`.
    pub fn unary(&self, b: MlirBlock, loc: Location<'c>, f: UnaryFn, x: MlirValue, ty: Type<'c>) -> SResult<MlirValue> {
        self.op1(b, unary_op_name(f), loc, &[x], ty, &[])
    }

    /// `f(x, y)` of morf scalar type `t`.
    pub fn binary(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        f: BinaryFn,
        x: MlirValue,
        y: MlirValue,
        t: morf_ir::Type,
    ) -> SResult<MlirValue> {
        let ty = self.ty(t)?;
        let name = if self.is_float(t) {
            binary_float_op_name(f)
        } else {
            binary_index_op_name(f).ok_or_else(|| format!("'{}' has no integer form", f.name()))?
        };
        self.op1(b, name, loc, &[x, y], ty, &[])
    }

    /// `x cmp y` for operands of morf scalar type `t`, an `i1`.
    pub fn cmp(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        p: CmpPredicate,
        x: MlirValue,
        y: MlirValue,
        t: morf_ir::Type,
    ) -> SResult<MlirValue> {
        let i1 = self.ty_i1()?;
        if self.is_float(t) {
            let a = self.attr(&format!("{} : i64", cmpf_predicate(p).0))?;
            self.op1(b, "arith.cmpf", loc, &[x, y], i1, &[("predicate", a)])
        } else {
            let a = self.attr(&format!("{} : i64", cmpi_predicate(p).0))?;
            self.op1(b, "arith.cmpi", loc, &[x, y], i1, &[("predicate", a)])
        }
    }

    /// `i1`.
    pub fn ty_i1(&self) -> SResult<Type<'c>> {
        crate::bridge::parse_type(self.cx, "i1")
    }

    /// `c ? x : y` of type `ty`.
    pub fn select(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        c: MlirValue,
        x: MlirValue,
        y: MlirValue,
        ty: Type<'c>,
    ) -> SResult<MlirValue> {
        self.op1(b, "arith.select", loc, &[c, x, y], ty, &[])
    }

    /// `x` converted from morf scalar type `from` to `to`: float to float (rounding to
    /// nearest even), `index` to float, integer or index to integer or index.
    pub fn convert(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        x: MlirValue,
        from: morf_ir::Type,
        to: morf_ir::Type,
    ) -> SResult<MlirValue> {
        if from == to {
            return Ok(x);
        }
        let m = self.m;
        let tt = self.ty(to)?;
        match (m.type_data(from), m.type_data(to)) {
            (TypeData::Float(a), TypeData::Float(c)) => {
                let (wa, wc) = (a.bits(), c.bits());
                if wa < wc {
                    self.op1(b, "arith.extf", loc, &[x], tt, &[])
                } else if wa > wc {
                    self.op1(b, "arith.truncf", loc, &[x], tt, &[])
                } else {
                    // f16 <-> bf16: through f32, which holds both exactly.
                    let f32t = Type::float32(self.cx);
                    let w = self.op1(b, "arith.extf", loc, &[x], f32t, &[])?;
                    self.op1(b, "arith.truncf", loc, &[w], tt, &[])
                }
            }
            (TypeData::Index, TypeData::Float(_)) => {
                let i64t = crate::bridge::parse_type(self.cx, "i64")?;
                let w = self.op1(b, "arith.index_cast", loc, &[x], i64t, &[])?;
                self.op1(b, "arith.sitofp", loc, &[w], tt, &[])
            }
            (TypeData::Integer(_), TypeData::Float(_)) => self.op1(b, "arith.sitofp", loc, &[x], tt, &[]),
            (TypeData::Index, TypeData::Integer(_)) | (TypeData::Integer(_), TypeData::Index) => {
                self.op1(b, "arith.index_cast", loc, &[x], tt, &[])
            }
            _ => Err(format!("cannot convert '{}' to '{}'", m.type_to_string(from), m.type_to_string(to))),
        }
    }

    /// `arith.constant` of a scalar: `value` of morf scalar type `t`.
    pub fn scalar_const(&self, b: MlirBlock, loc: Location<'c>, value: f64, t: morf_ir::Type) -> SResult<MlirValue> {
        let ty = self.ty(t)?;
        let text = match self.m.type_data(t) {
            TypeData::Float(_) => float_text(value, &self.m.type_to_string(t)),
            TypeData::Integer(1) => (if value != 0.0 { "true" } else { "false" }).to_string(),
            _ => format!("{} : {}", value as i64, self.m.type_to_string(t)),
        };
        let a = self.attr(&text)?;
        self.op1(b, "arith.constant", loc, &[], ty, &[("value", a)])
    }
}

/// The MLIR text of a float attribute: a decimal that reads back exactly, or the bit
/// pattern for NaN and infinities.
pub(crate) fn float_text(v: f64, ty: &str) -> String {
    if v.is_finite() {
        // The shortest exact decimal, with the '.' MLIR's float literals need.
        let mut t = format!("{v:e}");
        if !t.contains('.') {
            let e = t.find('e').unwrap_or(t.len());
            t.insert_str(e, ".0");
        }
        format!("{t} : {ty}")
    } else {
        let bits = match ty {
            "f64" => format!("0x{:016X}", v.to_bits()),
            "f32" => format!("0x{:08X}", (v as f32).to_bits()),
            "f16" => format!("0x{:04X}", half::f16::from_f64(v).to_bits()),
            "bf16" => format!("0x{:04X}", half::bf16::from_f64(v).to_bits()),
            _ => format!("0x{:08X}", (v as f32).to_bits()),
        };
        format!("{bits} : {ty}")
    }
}
