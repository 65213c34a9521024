//! The printer of the MLIR-syntax text format, in custom or generic form.
//!
//! Value names: a value keeps the name it had in the source (`%x`) when that name is free
//! in its isolated scope; other values get numbers (`%0`, `%1`) or `%argN`, assigned in
//! print order. Printing the printed text again gives the same text (a fixed point).
//! Floats print in the shortest form that reads back to the same value of their type.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::attrs::{Attr, AttrData};
use crate::context::{BlockId, Context, OpId, RegionId, Value};
use crate::location::Loc;
use crate::numerics::FloatKind;
use crate::registry::Traits;
use crate::types::{Dim, Type, TypeData};

/// Printing options.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in generic form.
    pub generic: bool,
    /// Print `loc(...)` after each op.
    pub debug_info: bool,
}

/// Names assigned in one isolated scope.
#[derive(Default)]
struct NameScope {
    used: HashSet<String>,
    next_num: usize,
    next_arg: usize,
}

/// The printer state; also the handle custom printers write through.
pub struct OpPrinter<'a> {
    /// The context being printed.
    pub ctx: &'a Context,
    out: String,
    indent: usize,
    opts: PrintOptions,
    names: HashMap<Value, String>,
    scopes: Vec<NameScope>,
}

/// Prints `op` (usually a module) to a string.
pub fn print_op(ctx: &Context, op: OpId, opts: &PrintOptions) -> String {
    let mut p = OpPrinter::new(ctx, opts.clone());
    p.scopes.push(NameScope::default());
    p.print_operation(op);
    p.out.push('\n');
    p.out
}

impl<'a> OpPrinter<'a> {
    fn new(ctx: &'a Context, opts: PrintOptions) -> Self {
        OpPrinter { ctx, out: String::new(), indent: 0, opts, names: HashMap::new(), scopes: Vec::new() }
    }

    /// Appends raw text.
    pub fn write(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn fresh_name(&mut self, v: Value) -> String {
        let ctx = self.ctx;
        let scope = self.scopes.last_mut().expect("name scope");
        let data = ctx.value(v);
        if let Some(n) = data.name {
            let base = ctx.str(n).to_string();
            if !scope.used.contains(&base) {
                scope.used.insert(base.clone());
                return base;
            }
            let mut i = 1;
            loop {
                let cand = format!("{base}_{i}");
                if !scope.used.contains(&cand) {
                    scope.used.insert(cand.clone());
                    return cand;
                }
                i += 1;
            }
        }
        let is_arg = matches!(data.def, crate::context::ValueDef::BlockArg { .. });
        loop {
            let cand = if is_arg {
                scope.next_arg += 1;
                format!("arg{}", scope.next_arg - 1)
            } else {
                scope.next_num += 1;
                format!("{}", scope.next_num - 1)
            };
            if !scope.used.contains(&cand) {
                scope.used.insert(cand.clone());
                return cand;
            }
        }
    }

    /// The printed name of a value, assigning one on first sight.
    fn name_of(&mut self, v: Value) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        if !self.ctx.value_exists(v) {
            return "<<DELETED VALUE>>".into();
        }
        let n = self.fresh_name(v);
        self.names.insert(v, n.clone());
        n
    }

    /// Prints a use of a value (`%x`).
    pub fn print_operand(&mut self, v: Value) {
        let n = match self.names.get(&v) {
            Some(n) => n.clone(),
            None => "<<UNKNOWN SSA VALUE>>".to_string(),
        };
        self.out.push('%');
        self.out.push_str(&n);
    }

    /// Prints values separated by `, `.
    pub fn print_operands(&mut self, vs: &[Value]) {
        for (i, v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_operand(*v);
        }
    }

    /// Prints a type.
    pub fn print_type(&mut self, t: Type) {
        let s = self.ctx.type_to_string(t);
        self.out.push_str(&s);
    }

    /// Prints types separated by `, `.
    pub fn print_types(&mut self, ts: &[Type]) {
        for (i, t) in ts.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_type(*t);
        }
    }

    /// Prints an attribute.
    pub fn print_attr(&mut self, a: Attr) {
        let s = self.ctx.attr_to_string(a);
        self.out.push_str(&s);
    }

    /// Prints ` {a = 1, b}` for the op's attributes except `elided` (nothing if empty).
    pub fn print_optional_attr_dict(&mut self, op: OpId, elided: &[&str]) {
        let s = self.attr_dict_string(op, elided);
        if !s.is_empty() {
            self.out.push(' ');
            self.out.push_str(&s);
        }
    }

    /// Prints ` attributes {a = 1}` (the form used after regions) except `elided`.
    pub fn print_optional_attr_dict_with_keyword(&mut self, op: OpId, elided: &[&str]) {
        let s = self.attr_dict_string(op, elided);
        if !s.is_empty() {
            self.out.push_str(" attributes ");
            self.out.push_str(&s);
        }
    }

    fn attr_dict_string(&self, op: OpId, elided: &[&str]) -> String {
        let entries: Vec<String> = self
            .ctx
            .attrs(op)
            .iter()
            .filter(|(k, _)| !elided.contains(&self.ctx.str(*k)))
            .map(|(k, v)| self.ctx.dict_entry_to_string(self.ctx.str(*k), *v))
            .collect();
        if entries.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", entries.join(", "))
        }
    }

    /// Prints a declaration list `(%a: t, %b: t)` for the block's arguments and names them.
    pub fn print_block_arg_list(&mut self, b: BlockId) {
        self.print_block_arg_list_with_attrs(b, &[]);
    }

    /// Like [`Self::print_block_arg_list`], with a dictionary attribute per argument
    /// printed after its type when not empty.
    pub fn print_block_arg_list_with_attrs(&mut self, b: BlockId, attrs: &[Attr]) {
        let args = self.ctx.block_args(b).to_vec();
        self.out.push('(');
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let n = self.name_of(*a);
            let _ = write!(self.out, "%{n}: ");
            self.print_type(self.ctx.value_type(*a));
            if let Some(d) = attrs.get(i) {
                if !matches!(self.ctx.attr_data(*d), AttrData::Dict(e) if e.is_empty()) {
                    self.out.push(' ');
                    self.print_attr(*d);
                }
            }
        }
        self.out.push(')');
    }

    /// Names the entry block's arguments without printing them (custom forms that print
    /// their own signature call this first through [`Self::print_block_arg_list`] or this).
    pub fn bind_block_args(&mut self, b: BlockId) {
        for a in self.ctx.block_args(b).to_vec() {
            self.name_of(a);
        }
    }

    /// Opens a new isolated naming scope (for an isolated-from-above op's regions).
    pub fn push_isolated_scope(&mut self) {
        self.scopes.push(NameScope::default());
    }

    /// Closes the scope opened by [`Self::push_isolated_scope`].
    pub fn pop_isolated_scope(&mut self) {
        self.scopes.pop();
    }

    /// Prints a region `{ ... }`. With `print_entry_args` false the entry block's header
    /// is left out (its arguments must have been printed by the op, e.g. a signature).
    pub fn print_region(&mut self, r: RegionId, print_entry_args: bool) {
        self.out.push('{');
        self.indent += 1;
        let blocks: Vec<BlockId> = self.ctx.region_blocks(r).collect();
        for (i, b) in blocks.iter().enumerate() {
            let has_args = !self.ctx.block_args(*b).is_empty();
            // An empty entry block followed by other blocks needs its label: without it the
            // next block's label would start the region, and the entry block would be lost.
            let empty_entry = i == 0 && blocks.len() > 1 && self.ctx.block_ops(*b).next().is_none();
            let print_header = i > 0 || (print_entry_args && has_args) || (empty_entry && !has_args);
            if print_header {
                self.indent -= 1;
                self.newline();
                let _ = write!(self.out, "^bb{i}");
                if has_args {
                    self.print_block_arg_list(*b);
                }
                self.out.push(':');
                self.indent += 1;
            } else if i == 0 {
                self.bind_block_args(*b);
            }
            let ops: Vec<OpId> = self.ctx.block_ops(*b).collect();
            for op in ops {
                self.newline();
                self.print_operation(op);
            }
        }
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    /// Prints one operation with its results.
    pub fn print_operation(&mut self, op: OpId) {
        let results = self.ctx.results(op).to_vec();
        if !results.is_empty() {
            for (i, r) in results.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let n = self.name_of(*r);
                self.out.push('%');
                self.out.push_str(&n);
            }
            self.out.push_str(" = ");
        }
        let info = self.ctx.op_info(op).cloned();
        let isolated = info.as_ref().is_some_and(|i| i.has(Traits::ISOLATED_FROM_ABOVE));
        if isolated {
            self.push_isolated_scope();
        }
        match info.as_ref().and_then(|i| i.print) {
            Some(print) if !self.opts.generic => {
                let name = self.ctx.op_name(op).to_string();
                let short = if name == "builtin.module" { "module".to_string() } else { name };
                self.out.push_str(&short);
                print(self, op);
            }
            _ => self.print_generic(op),
        }
        if isolated {
            self.pop_isolated_scope();
        }
        if self.opts.debug_info {
            if let Loc::File { file, line, col } = self.ctx.op_loc(op) {
                let _ = write!(self.out, " loc({}:{line}:{col})", quote_string(self.ctx.str(file)));
            }
        }
    }

    fn print_generic(&mut self, op: OpId) {
        let name = self.ctx.op_name(op).to_string();
        let _ = write!(self.out, "{}(", quote_string(&name));
        let operands = self.ctx.operands(op).to_vec();
        self.print_operands(&operands);
        self.out.push(')');
        let regions = self.ctx.regions(op).to_vec();
        if !regions.is_empty() {
            self.out.push_str(" (");
            for (i, r) in regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(*r, true);
            }
            self.out.push(')');
        }
        self.print_optional_attr_dict(op, &[]);
        self.out.push_str(" : ");
        let ins: Vec<Type> = operands.iter().map(|v| self.ctx.value_type(*v)).collect();
        let outs: Vec<Type> = self.ctx.results(op).iter().map(|v| self.ctx.value_type(*v)).collect();
        let s = function_type_text(self.ctx, &ins, &outs);
        self.out.push_str(&s);
    }
}

/// Quotes a string literal with MLIR escapes.
pub fn quote_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
    out
}

/// Formats a float so that it reads back to the same value of kind `k`, in MLIR syntax
/// (always with a `.`); infinities and NaNs print as hexadecimal bit patterns.
pub fn format_float(v: f64, k: FloatKind) -> String {
    if !v.is_finite() {
        return match k {
            FloatKind::F64 => format!("0x{:016X}", v.to_bits()),
            FloatKind::F32 => format!("0x{:08X}", (v as f32).to_bits()),
            FloatKind::BF16 => format!("0x{:04X}", (v as f32).to_bits() >> 16),
            FloatKind::F16 => {
                let b: u16 = if v.is_nan() {
                    0x7E00
                } else if v > 0.0 {
                    0x7C00
                } else {
                    0xFC00
                };
                format!("0x{b:04X}")
            }
        };
    }
    let s = match k {
        FloatKind::F64 => format!("{v:?}"),
        _ => format!("{:?}", v as f32),
    };
    if s.contains('e') && !s.contains('.') {
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        format!("{m}.0e{e}")
    } else if !s.contains('.') && !s.contains('e') {
        format!("{s}.0")
    } else {
        s
    }
}

/// The text of a function type `(ins) -> outs`.
pub fn function_type_text(ctx: &Context, ins: &[Type], outs: &[Type]) -> String {
    let i: Vec<String> = ins.iter().map(|t| ctx.type_to_string(*t)).collect();
    let o: Vec<String> = outs.iter().map(|t| ctx.type_to_string(*t)).collect();
    let single_plain = outs.len() == 1 && !matches!(ctx.type_data(outs[0]), TypeData::Function { .. });
    if single_plain {
        format!("({}) -> {}", i.join(", "), o[0])
    } else {
        format!("({}) -> ({})", i.join(", "), o.join(", "))
    }
}

fn shape_prefix(ctx: &Context, shape: &[Dim]) -> String {
    let mut s = String::new();
    for d in shape {
        s.push_str(&ctx.dim_to_string(*d));
        s.push('x');
    }
    s
}

impl Context {
    /// `?` or the size.
    pub fn dim_to_string(&self, d: Dim) -> String {
        match d {
            Dim::Static(n) => n.to_string(),
            Dim::Dynamic => "?".into(),
        }
    }

    /// The text of a type.
    pub fn type_to_string(&self, t: Type) -> String {
        match self.type_data(t) {
            TypeData::Integer(w) => format!("i{w}"),
            TypeData::Index => "index".into(),
            TypeData::Float(k) => k.name().into(),
            TypeData::Tensor { shape, elem } => {
                format!("tensor<{}{}>", shape_prefix(self, shape), self.type_to_string(*elem))
            }
            TypeData::Function { inputs, results } => function_type_text(self, inputs, results),
            TypeData::Dialect { name, shape, elem, params } => {
                let mut body = Vec::new();
                if let Some(e) = elem {
                    body.push(format!("{}{}", shape_prefix(self, shape), self.type_to_string(*e)));
                }
                for p in params {
                    body.push(self.attr_to_string(*p));
                }
                if body.is_empty() {
                    format!("!{name}")
                } else {
                    format!("!{name}<{}>", body.join(", "))
                }
            }
        }
    }

    fn dict_entry_to_string(&self, k: &str, v: Attr) -> String {
        let key = if is_bare_id(k) { k.to_string() } else { quote_string(k) };
        if matches!(self.attr_data(v), AttrData::Unit) {
            key
        } else {
            format!("{key} = {}", self.attr_to_string(v))
        }
    }

    /// The text of an attribute.
    pub fn attr_to_string(&self, a: Attr) -> String {
        match self.attr_data(a) {
            AttrData::Unit => "unit".into(),
            AttrData::Bool(b) => b.to_string(),
            AttrData::Integer { value, ty } => {
                if matches!(self.type_data(*ty), TypeData::Integer(64)) {
                    value.to_string()
                } else {
                    format!("{value} : {}", self.type_to_string(*ty))
                }
            }
            AttrData::Float { bits, ty } => {
                let k = self.float_kind(*ty).unwrap_or(FloatKind::F64);
                let v = format_float(f64::from_bits(*bits), k);
                // NaN and inf print as hex bits, which read back as an integer without the type.
                if k == FloatKind::F64 && !v.starts_with("0x") {
                    v
                } else {
                    format!("{v} : {}", self.type_to_string(*ty))
                }
            }
            AttrData::String(s) => quote_string(s),
            AttrData::Array(items) => {
                let v: Vec<String> = items.iter().map(|i| self.attr_to_string(*i)).collect();
                format!("[{}]", v.join(", "))
            }
            AttrData::Dict(entries) => {
                let v: Vec<String> = entries.iter().map(|(k, x)| self.dict_entry_to_string(self.str(*k), *x)).collect();
                format!("{{{}}}", v.join(", "))
            }
            AttrData::Type(t) => self.type_to_string(*t),
            AttrData::SymbolRef(s) => {
                let n = self.str(*s);
                if is_bare_id(n) {
                    format!("@{n}")
                } else {
                    format!("@{}", quote_string(n))
                }
            }
            AttrData::Dense { ty, values, splat } => {
                let elem = self.element_type(*ty);
                let fmt_elem = |bits: u64| -> String {
                    let v = f64::from_bits(bits);
                    match self.type_data(elem) {
                        TypeData::Float(k) => format_float(v, *k),
                        TypeData::Integer(1) => (v != 0.0).to_string(),
                        _ => format!("{}", v as i64),
                    }
                };
                let body = if *splat {
                    fmt_elem(values[0])
                } else {
                    let shape: Vec<usize> =
                        self.shape_of(*ty).unwrap_or(&[]).iter().map(|d| d.as_static().unwrap_or(0) as usize).collect();
                    let mut s = String::new();
                    nested_list(&mut s, &shape, values, &fmt_elem);
                    s
                };
                format!("dense<{body}> : {}", self.type_to_string(*ty))
            }
        }
    }
}

fn nested_list(out: &mut String, shape: &[usize], values: &[u64], f: &dyn Fn(u64) -> String) {
    if shape.is_empty() {
        if let Some(v) = values.first() {
            out.push_str(&f(*v));
        }
        return;
    }
    let chunk = shape[1..].iter().product::<usize>();
    out.push('[');
    for i in 0..shape[0] {
        if i > 0 {
            out.push_str(", ");
        }
        let lo = (i * chunk).min(values.len());
        let hi = ((i + 1) * chunk).min(values.len());
        nested_list(out, &shape[1..], &values[lo..hi], f);
    }
    out.push(']');
}

/// Whether `s` can be written as a bare identifier.
pub fn is_bare_id(s: &str) -> bool {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_ascii_alphabetic() || f == '_' => {}
        _ => return false,
    }
    c.all(|x| x.is_ascii_alphanumeric() || matches!(x, '_' | '$' | '.'))
}
