//! Op interfaces: questions a pass asks of any op without knowing its dialect.
//!
//! The one interface today is **elementwise**: which scalar function an op applies to each
//! element (or to its scalar operands). The scalar functions are defined once, here, by the
//! lists [`for_each_unary_fn!`](crate::for_each_unary_fn) and
//! [`for_each_binary_fn!`](crate::for_each_binary_fn): each entry names the function, its op
//! name suffix, the typed op struct the dialects generate for it, a summary and its f64
//! semantics. `mtensor` and `mloop` generate one op per entry from the same list, the
//! tensor-to-loop conversion maps one to the other through [`Elementwise`], and the PTX
//! emitter matches [`UnaryFn`] exhaustively, so a new entry without a GPU lowering does not
//! compile.

use crate::context::{Context, OpId};

/// Calls macro `$m` with the unary float functions, one
/// `(Variant, "suffix", OpStruct, "summary", f64 semantics)` per entry.
#[macro_export]
macro_rules! for_each_unary_fn {
    ($m:ident) => {
        $m! {
            (Neg, "neg", NegOp, "negation", |a: f64| -a),
            (Exp, "exp", ExpOp, "exponential", f64::exp),
            (Log, "log", LogOp, "natural logarithm", f64::ln),
            (Sqrt, "sqrt", SqrtOp, "square root", f64::sqrt),
            (Rsqrt, "rsqrt", RsqrtOp, "reciprocal square root", |a: f64| 1.0 / a.sqrt()),
            (Tanh, "tanh", TanhOp, "hyperbolic tangent", f64::tanh),
            (Abs, "abs", AbsOp, "absolute value", f64::abs),
            (Erf, "erf", ErfOp, "error function", $crate::numerics::erf),
        }
    };
}

/// Calls macro `$m` with the binary float functions, one
/// `(Variant, "suffix", OpStruct, "summary", commutative, f64 semantics)` per entry.
/// `max` and `min` propagate NaN from either side; the rest follow IEEE 754.
#[macro_export]
macro_rules! for_each_binary_fn {
    ($m:ident) => {
        $m! {
            (Add, "add", AddOp, "sum of two values", true, |a: f64, b: f64| a + b),
            (Sub, "sub", SubOp, "difference of two values", false, |a: f64, b: f64| a - b),
            (Mul, "mul", MulOp, "product of two values", true, |a: f64, b: f64| a * b),
            (Div, "div", DivOp, "quotient of two values", false, |a: f64, b: f64| a / b),
            (Max, "max", MaxOp, "maximum of two values (NaN-propagating)", true, $crate::interfaces::nan_max),
            (Min, "min", MinOp, "minimum of two values (NaN-propagating)", true, $crate::interfaces::nan_min),
            (Pow, "pow", PowOp, "power of two floats", false, f64::powf),
        }
    };
}

macro_rules! define_unary_enum {
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $f:expr)),* $(,)?) => {
        /// A unary float function (see [`for_each_unary_fn!`](crate::for_each_unary_fn)).
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum UnaryFn {
            $(#[doc = $sum] $v,)*
        }
        impl UnaryFn {
            /// Every unary function, in list order.
            pub const ALL: &'static [UnaryFn] = &[$(UnaryFn::$v),*];
            /// The op name suffix (`exp`).
            pub fn name(self) -> &'static str {
                match self { $(UnaryFn::$v => $s,)* }
            }
            /// The f64 semantics; the caller rounds once to the result type.
            pub fn eval(self, a: f64) -> f64 {
                match self { $(UnaryFn::$v => ($f)(a),)* }
            }
            /// The function named `name` (a suffix such as `exp`).
            pub fn from_name(name: &str) -> Option<UnaryFn> {
                match name { $($s => Some(UnaryFn::$v),)* _ => None }
            }
        }
    };
}
for_each_unary_fn!(define_unary_enum);

macro_rules! define_binary_enum {
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $comm:literal, $f:expr)),* $(,)?) => {
        /// A binary float function (see [`for_each_binary_fn!`](crate::for_each_binary_fn)).
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum BinaryFn {
            $(#[doc = $sum] $v,)*
        }
        impl BinaryFn {
            /// Every binary function, in list order.
            pub const ALL: &'static [BinaryFn] = &[$(BinaryFn::$v),*];
            /// The op name suffix (`add`).
            pub fn name(self) -> &'static str {
                match self { $(BinaryFn::$v => $s,)* }
            }
            /// Whether `f(a, b) == f(b, a)`.
            pub fn commutative(self) -> bool {
                match self { $(BinaryFn::$v => $comm,)* }
            }
            /// The f64 semantics; the caller rounds once to the result type.
            pub fn eval(self, a: f64, b: f64) -> f64 {
                match self { $(BinaryFn::$v => ($f)(a, b),)* }
            }
            /// The function named `name` (a suffix such as `add`).
            pub fn from_name(name: &str) -> Option<BinaryFn> {
                match name { $($s => Some(BinaryFn::$v),)* _ => None }
            }
        }
    };
}
for_each_binary_fn!(define_binary_enum);

impl BinaryFn {
    /// The exact 64-bit integer semantics on `index` operands, where the function has one:
    /// `div` is floor division. `Err` carries the reason (division by zero, overflow, or no
    /// integer meaning for `pow`).
    pub fn eval_index(self, a: i64, b: i64) -> Result<i64, &'static str> {
        let r = match self {
            BinaryFn::Add => a.checked_add(b),
            BinaryFn::Sub => a.checked_sub(b),
            BinaryFn::Mul => a.checked_mul(b),
            BinaryFn::Max => Some(a.max(b)),
            BinaryFn::Min => Some(a.min(b)),
            BinaryFn::Div => return floor_div_rem(a, b).map(|(q, _)| q),
            BinaryFn::Pow => return Err("'pow' has no index form"),
        };
        r.ok_or("integer overflow")
    }
}

/// Floor division of index values and the matching remainder (the sign of the divisor).
pub fn floor_div_rem(a: i64, b: i64) -> Result<(i64, i64), &'static str> {
    if b == 0 {
        return Err("division by zero");
    }
    let (Some(q), Some(r)) = (a.checked_div(b), a.checked_rem(b)) else {
        return Err("integer overflow");
    };
    let adjust = r != 0 && ((r < 0) != (b < 0));
    Ok(if adjust { (q - 1, r + b) } else { (q, r) })
}

/// A comparison predicate with IEEE semantics: any comparison with a NaN is false except
/// `ne`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CmpPredicate {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpPredicate {
    /// Every predicate.
    pub const ALL: [CmpPredicate; 6] =
        [CmpPredicate::Eq, CmpPredicate::Ne, CmpPredicate::Lt, CmpPredicate::Le, CmpPredicate::Gt, CmpPredicate::Ge];
    /// Its spelling in the IR (`lt`).
    pub fn name(self) -> &'static str {
        match self {
            CmpPredicate::Eq => "eq",
            CmpPredicate::Ne => "ne",
            CmpPredicate::Lt => "lt",
            CmpPredicate::Le => "le",
            CmpPredicate::Gt => "gt",
            CmpPredicate::Ge => "ge",
        }
    }
    /// The predicate spelled `name`.
    pub fn from_name(name: &str) -> Option<CmpPredicate> {
        CmpPredicate::ALL.into_iter().find(|p| p.name() == name)
    }
    /// Compares two values.
    pub fn eval(self, a: f64, b: f64) -> bool {
        match self {
            CmpPredicate::Eq => a == b,
            CmpPredicate::Ne => a != b,
            CmpPredicate::Lt => a < b,
            CmpPredicate::Le => a <= b,
            CmpPredicate::Gt => a > b,
            CmpPredicate::Ge => a >= b,
        }
    }
}

/// What an elementwise op computes per element.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Elementwise {
    /// A unary float function of operand 0.
    Unary(UnaryFn),
    /// A binary function of operands 0 and 1.
    Binary(BinaryFn),
    /// A comparison of operands 0 and 1, giving an `i1`.
    Cmp(CmpPredicate),
    /// Operand 1 where operand 0 (an `i1`) holds, else operand 2.
    Select,
    /// Operand 0 converted to the result's element type.
    Convert,
}

/// The elementwise interface of an op kind: what `op` computes per element (`None` when an
/// attribute it needs is malformed; the verifier reports that).
pub type ElementwiseFn = fn(&Context, OpId) -> Option<Elementwise>;

/// The elementwise interface of every select op ([`Elementwise::Select`]).
pub fn select_interface(_: &Context, _: OpId) -> Option<Elementwise> {
    Some(Elementwise::Select)
}

/// The elementwise interface of every convert op ([`Elementwise::Convert`]).
pub fn convert_interface(_: &Context, _: OpId) -> Option<Elementwise> {
    Some(Elementwise::Convert)
}

/// What `op` computes per element, if its kind implements the elementwise interface.
pub fn elementwise(ctx: &Context, op: OpId) -> Option<Elementwise> {
    (ctx.op_info(op)?.elementwise?)(ctx, op)
}

/// Maximum that propagates NaN from either side.
pub fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Minimum that propagates NaN from either side.
pub fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}
