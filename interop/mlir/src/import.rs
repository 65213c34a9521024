//! Import: a linalg-on-tensors subset of upstream MLIR to `mtensor`.
//!
//! MLIR parses and verifies the text (its diagnostics become morf diagnostics at the same
//! `file:line:col`); then one walk turns each supported op into `mtensor` ops:
//!
//! - `func.func`, `func.return` as they are (argument attributes such as `morf.dims` kept,
//!   argument and result names read back from the source text);
//! - `linalg.generic` with parallel and reduction iterators and projected-permutation maps
//!   (constant `0` on a dim of size 1 allowed): each input is brought to the iteration space
//!   (`mtensor.transpose`, `mtensor.broadcast`), the body's `arith`/`math` ops become
//!   elementwise `mtensor` ops on iteration-space tensors, and a reduction's yield
//!   `combine(out, e)` becomes `mtensor.reduce` of `e` over the reduction loops;
//! - the named elementwise ops (`linalg.add`, `linalg.exp`, ...), `linalg.reduce`,
//!   `linalg.broadcast`, `linalg.transpose`, `linalg.copy`, `linalg.fill`;
//! - `tensor.empty`, `tensor.dim`, `tensor.cast`, `tensor.collapse_shape`,
//!   `tensor.expand_shape`, `arith.constant`, and the size arithmetic of a mean
//!   (`arith.muli`, `arith.index_cast`, `arith.sitofp`).
//!
//! A `sum` divided by the element count of its reduced dims (`tensor.dim`s through
//! `arith.sitofp`, or a constant) becomes `mtensor.reduce mean`. Anything else is a
//! diagnostic at the op's location, never a panic.

use std::collections::HashMap;

use melior::ir::attribute::{ArrayAttribute, Attribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{AffineMap, Module, OperationRef, RegionLike, Value as MValue};
use melior::ir::{AttributeLike, ValueLike};
use mlir_sys::MlirValue;
use morf_ir::interfaces::{BinaryFn, CmpPredicate, UnaryFn};
use morf_ir::interp::array::ReduceKind;
use morf_ir::{Attr, AttrData, Context, Diagnostic, Dim, Loc, OpId, OperationState, Type, TypeData, Value};

use crate::bridge::{self, Mlir};

type R<T> = Result<T, Diagnostic>;

/// Parses `text` with MLIR and imports it into a new `builtin.module` of `ctx` (which must
/// have the `mtensor` dialect registered). Locations are in `file`, lines shifted by
/// `line_offset` (for `--split-input-file` chunks). The module is verified.
pub(crate) fn import(ctx: &mut Context, file: &str, text: &str, line_offset: u32) -> R<OpId> {
    if let Some(at) = text.find('\0') {
        // MLIR takes the text as a C string: a NUL byte would end it.
        let before = &text[..at];
        let line = before.matches('\n').count() as u32 + 1 + line_offset;
        let col = before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
        let loc = Loc::File { file: ctx.sym(file), line, col };
        return Err(Diagnostic::error(loc, "unexpected character '\\0' (MLIR cannot read NUL bytes)"));
    }
    let mlir = Mlir::new();
    let Some(module) = Module::parse(&mlir.cx, text) else {
        let diags = mlir.take_diags();
        let mut errors = diags.iter().filter(|d| d.severity == morf_ir::Severity::Error);
        let Some(first) = errors.next() else {
            return Err(Diagnostic::error(Loc::Unknown, format!("MLIR could not parse '{file}'")));
        };
        let mut d = bridge::morf_diag(ctx, file, line_offset, first);
        for other in errors {
            let n = bridge::morf_diag(ctx, file, line_offset, other);
            d = d.with_note(n.loc, n.message);
        }
        return Err(d);
    };
    let mut im = Importer {
        ctx,
        file: file.to_string(),
        lines: text.lines().collect(),
        line_offset,
        block: None,
        vals: HashMap::new(),
        dims: HashMap::new(),
        arg_dims: HashMap::new(),
        means: HashMap::new(),
        created: Vec::new(),
    };
    let m = im.module(&module)?;
    im.remove_dead();
    morf_ir::verify(im.ctx, m)?;
    Ok(m)
}

/// What an MLIR value (outside `linalg` bodies) stands for in morf.
#[derive(Clone, Debug)]
enum Imp {
    /// A morf tensor.
    Tensor(Value),
    /// A morf `index` (an `mtensor.dim`).
    Index(Value),
    /// An index or integer constant.
    IndexConst(i64),
    /// A scalar constant of a morf type.
    Scalar(f64, Type),
    /// A product of tensor sizes and a constant, as an integer (`float` none) or converted
    /// to a float type: the element count of a mean.
    Count { factors: Vec<(Value, usize)>, fixed: i64, float: Option<Type> },
    /// `tensor.empty`: uninitialized, usable only as the init of a linalg op; the sizes of
    /// its dynamic dims.
    Empty { sizes: Vec<Value> },
    /// `linalg.fill` of a constant: materialized on use.
    Fill { ty: Type, value: f64, sizes: Vec<Value> },
}

/// What a value inside a `linalg.generic` body stands for.
#[derive(Clone, Debug)]
enum Bv {
    /// Block argument `k` (inputs first, then outputs).
    Arg(usize),
    /// A tensor over the iteration space.
    Space(Value),
    /// A scalar constant.
    Const(f64, Type),
    /// An element count (see [`Imp::Count`]), converted to a float type.
    Count(Vec<(Value, usize)>, i64, Type),
}

/// A dimension's size, traced back to where it comes from, to compare sizes.
#[derive(Clone, Debug, PartialEq)]
enum Root {
    Static(u64),
    Named(String),
    Val(Value, usize),
}

/// One affine result of an indexing map: a loop dim or a constant.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Ix {
    Loop(usize),
    Const(i64),
}

struct Importer<'a> {
    ctx: &'a mut Context,
    file: String,
    lines: Vec<&'a str>,
    line_offset: u32,
    /// The block morf ops go into.
    block: Option<morf_ir::BlockId>,
    /// MLIR value -> its morf meaning.
    vals: HashMap<usize, Imp>,
    /// (tensor, dim) -> its `mtensor.dim`.
    dims: HashMap<(Value, usize), Value>,
    /// Function argument -> its `morf.dims` names.
    arg_dims: HashMap<Value, Vec<Option<String>>>,
    /// A sum -> the mean made from it.
    means: HashMap<Value, Value>,
    /// The ops created, to remove the unused ones at the end.
    created: Vec<OpId>,
}

/// The key of an MLIR value.
fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

/// The op name of an MLIR op.
fn name_of(op: &OperationRef<'_, '_>) -> String {
    op.name().as_string_ref().as_str().unwrap_or("?").to_string()
}

/// The error of a reduction body whose yield is not a combiner.
const NOT_A_COMBINER: &str = "is not a reduction combiner (expected arith.addf, arith.mulf, arith.maximumf or \
     arith.minimumf of the output block argument)";

/// The ops the importer reads, for messages.
const SUPPORTED: &str = "func.func, func.return, linalg.generic, linalg.fill, linalg.reduce, linalg.broadcast, \
     linalg.transpose, linalg.copy, the named elementwise linalg ops, tensor.empty, tensor.dim, tensor.cast, \
     tensor.collapse_shape, tensor.expand_shape, arith.constant, and size arithmetic for a mean";

impl<'a> Importer<'a> {
    // ----- locations, names, errors -----

    fn loc(&mut self, op: &OperationRef<'_, '_>) -> Loc {
        bridge::morf_loc(self.ctx, &self.file, self.line_offset, op.location())
    }

    fn err(&mut self, op: &OperationRef<'_, '_>, msg: impl AsRef<str>) -> Diagnostic {
        let loc = self.loc(op);
        Diagnostic::error(loc, format!("'{}' op {}", name_of(op), msg.as_ref()))
    }

    /// The SSA name written at a source position (`%name`), if it is not a number.
    fn name_at(&self, pos: Option<(u32, u32)>) -> Option<String> {
        let (line, col) = pos?;
        let text = self.lines.get(line as usize - 1)?;
        let rest = text.get(col as usize - 1..)?;
        let rest = rest.strip_prefix('%')?;
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-')).collect();
        if name.is_empty() || name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        let after = rest[name.len()..].trim_start();
        (after.starts_with('=') || after.starts_with(':') || after.starts_with(',') || after.starts_with(')'))
            .then_some(name)
    }

    /// The names of `op`'s results in the source: `%a, %b = ` right before the op's location
    /// (which is at the op's name); `None` for a result without a usable name.
    fn result_names(&self, op: &OperationRef<'_, '_>) -> Vec<Option<String>> {
        let n = op.result_count();
        let none = vec![None; n];
        let Some((line, col)) = bridge::file_pos(op.location()) else { return none };
        let Some(text) = self.lines.get(line as usize - 1) else { return none };
        let Some(before) = text.get(..col as usize - 1) else { return none };
        let Some(before) = before.trim_end().strip_suffix('=') else { return none };
        let names: Vec<Option<String>> = before
            .split(',')
            .map(|p| {
                let name = p.trim().strip_prefix('%')?;
                let ok = !name.is_empty()
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-'));
                ok.then(|| name.to_string())
            })
            .collect();
        if names.len() == n {
            names
        } else {
            none
        }
    }

    /// Names morf value `v` as result `i` of `op` is named in the source (unless it has a name).
    fn name_result(&mut self, op: &OperationRef<'_, '_>, i: usize, v: Value) {
        if self.ctx.value(v).name.is_some() {
            return;
        }
        if let Some(Some(n)) = self.result_names(op).get(i) {
            self.ctx.set_value_name(v, Some(n));
        }
    }

    // ----- types and attributes -----

    /// The morf type of an MLIR type (their syntax is shared).
    fn morf_type(&mut self, op: &OperationRef<'_, '_>, t: melior::ir::Type<'_>) -> R<Type> {
        let text = t.to_string();
        morf_ir::asm::parse_type_str(self.ctx, &text)
            .map_err(|_| self.err(op, format!("uses the type '{text}', which morf does not support")))
    }

    /// The morf form of an MLIR attribute (their syntax is shared for builtin attributes).
    fn morf_attr(&mut self, op: &OperationRef<'_, '_>, a: Attribute<'_>) -> R<Attr> {
        let text = a.to_string();
        morf_ir::asm::parse_attr_str(self.ctx, &text)
            .map_err(|_| self.err(op, format!("has the attribute '{text}', which morf cannot read")))
    }

    fn value_type(&mut self, op: &OperationRef<'_, '_>, v: MlirValue) -> R<Type> {
        let t = bridge::value_type(v);
        self.morf_type(op, t)
    }

    fn shape(&self, t: Type) -> Vec<Dim> {
        self.ctx.shape_of(t).unwrap_or(&[]).to_vec()
    }

    /// A dense i64 array attribute (`dimensions = [1]`, `permutation = [1, 0]`).
    fn i64_array(&mut self, op: &OperationRef<'_, '_>, name: &str) -> R<Vec<i64>> {
        let a = op.attribute(name).map_err(|_| self.err(op, format!("has no '{name}' attribute")))?;
        unsafe {
            let raw = a.to_raw();
            if !mlir_sys::mlirAttributeIsADenseI64Array(raw) {
                return Err(self.err(op, format!("'{name}' is not an i64 array")));
            }
            let n = mlir_sys::mlirDenseArrayGetNumElements(raw);
            Ok((0..n).map(|i| mlir_sys::mlirDenseI64ArrayGetElement(raw, i)).collect())
        }
    }

    // ----- building morf IR -----

    /// Creates a morf op at the end of the current block and returns its first result.
    fn emit(&mut self, st: OperationState) -> Value {
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.block.expect("a function body"), op);
        self.created.push(op);
        self.ctx.results(op).first().copied().unwrap_or_else(|| panic!("emit: an op without results"))
    }

    fn tensor_ty(&mut self, shape: &[Dim], elem: Type) -> Type {
        self.ctx.tensor_type(shape, elem)
    }

    fn elem(&self, t: Type) -> Type {
        self.ctx.element_type(t)
    }

    /// `mtensor.dim v, d` (one per value and dim).
    fn dim(&mut self, loc: Loc, v: Value, d: usize) -> Value {
        if let Some(x) = self.dims.get(&(v, d)) {
            return *x;
        }
        let idx = self.ctx.index_type();
        let a = self.ctx.i64_attr(d as i64);
        let r = self.emit(OperationState::new("mtensor.dim", loc).operands(&[v]).results(&[idx]).attr("index", a));
        self.dims.insert((v, d), r);
        r
    }

    /// The sizes of the dynamic dims of `v`.
    fn dyn_sizes(&mut self, loc: Loc, v: Value) -> Vec<Value> {
        let shape = self.shape(self.ctx.value_type(v));
        let mut out = Vec::new();
        for (i, d) in shape.iter().enumerate() {
            if *d == Dim::Dynamic {
                out.push(self.dim(loc, v, i));
            }
        }
        out
    }

    /// A 0-d constant `dense<value> : tensor<elem>`.
    fn const0(&mut self, loc: Loc, value: f64, elem: Type) -> Value {
        let t = self.tensor_ty(&[], elem);
        let a = self.ctx.splat_attr(t, value);
        self.emit(OperationState::new("mtensor.constant", loc).results(&[t]).attr("value", a))
    }

    /// `mtensor.broadcast v dims [dims] sizes(sizes) : -> ty`.
    fn broadcast(&mut self, loc: Loc, v: Value, dims: &[i64], ty: Type, sizes: &[Value]) -> Value {
        let a = self.ctx.i64_array_attr(dims);
        let mut ops = vec![v];
        ops.extend_from_slice(sizes);
        self.emit(OperationState::new("mtensor.broadcast", loc).operands(&ops).results(&[ty]).attr("dims", a))
    }

    /// `v` as type `ty` (same rank and element type; dims may differ from static to dynamic
    /// or back): an identity `mtensor.broadcast`, checked at run time.
    fn cast(&mut self, loc: Loc, v: Value, ty: Type) -> Value {
        let from = self.ctx.value_type(v);
        if from == ty {
            return v;
        }
        let rank = self.shape(ty).len();
        let sizes = {
            let shape = self.shape(ty);
            let src = self.shape(from);
            let mut s = Vec::new();
            for (i, d) in shape.iter().enumerate() {
                if *d == Dim::Dynamic {
                    let _ = src;
                    s.push(self.dim(loc, v, i));
                }
            }
            s
        };
        let dims: Vec<i64> = (0..rank as i64).collect();
        self.broadcast(loc, v, &dims, ty, &sizes)
    }

    /// `mtensor.transpose v perm [perm]`.
    fn transpose(&mut self, loc: Loc, v: Value, perm: &[usize]) -> Value {
        let t = self.ctx.value_type(v);
        let shape = self.shape(t);
        let elem = self.elem(t);
        let rshape: Vec<Dim> = perm.iter().map(|p| shape[*p]).collect();
        let rt = self.tensor_ty(&rshape, elem);
        let a = self.ctx.i64_array_attr(&perm.iter().map(|p| *p as i64).collect::<Vec<_>>());
        self.emit(OperationState::new("mtensor.transpose", loc).operands(&[v]).results(&[rt]).attr("perm", a))
    }

    /// `mtensor.reduce kind v dims [dims]`.
    fn reduce(&mut self, loc: Loc, kind: ReduceKind, v: Value, dims: &[usize]) -> Value {
        let t = self.ctx.value_type(v);
        let shape = self.shape(t);
        let elem = self.elem(t);
        let rshape: Vec<Dim> = shape.iter().enumerate().filter(|(i, _)| !dims.contains(i)).map(|(_, d)| *d).collect();
        let rt = self.tensor_ty(&rshape, elem);
        let k = self.ctx.str_attr(kind.name());
        let d = self.ctx.i64_array_attr(&dims.iter().map(|x| *x as i64).collect::<Vec<_>>());
        self.emit(
            OperationState::new("mtensor.reduce", loc).operands(&[v]).results(&[rt]).attr("kind", k).attr("dims", d),
        )
    }

    /// A binary elementwise op on tensors of one type.
    fn binary(&mut self, loc: Loc, f: BinaryFn, a: Value, b: Value) -> Value {
        let t = self.ctx.value_type(a);
        let name = morf_tensor::ops::binary_op(f).name;
        self.emit(OperationState::new(name, loc).operands(&[a, b]).results(&[t]))
    }

    /// A unary elementwise op.
    fn unary(&mut self, loc: Loc, f: UnaryFn, a: Value) -> Value {
        let t = self.ctx.value_type(a);
        let name = morf_tensor::ops::unary_op(f).name;
        self.emit(OperationState::new(name, loc).operands(&[a]).results(&[t]))
    }

    /// `mtensor.convert` to element type `elem`.
    fn convert(&mut self, loc: Loc, a: Value, elem: Type) -> Value {
        let t = self.ctx.value_type(a);
        if self.elem(t) == elem {
            return a;
        }
        let rt = self.ctx.with_element_type(t, elem);
        self.emit(OperationState::new("mtensor.convert", loc).operands(&[a]).results(&[rt]))
    }

    /// Collapses away the dims at `units` (each of static size 1).
    fn drop_units(&mut self, loc: Loc, v: Value, units: &[usize]) -> Value {
        if units.is_empty() {
            return v;
        }
        let t = self.ctx.value_type(v);
        let shape = self.shape(t);
        let kept: Vec<usize> = (0..shape.len()).filter(|i| !units.contains(i)).collect();
        let groups = unit_groups(&kept, units);
        let rshape: Vec<Dim> = kept.iter().map(|i| shape[*i]).collect();
        let elem = self.elem(t);
        let rt = self.tensor_ty(&rshape, elem);
        let a = self.groups_attr(&groups);
        self.emit(
            OperationState::new("mtensor.collapse_shape", loc).operands(&[v]).results(&[rt]).attr("reassociation", a),
        )
    }

    /// Inserts dims of size 1 so that `v` gets type `ty`; `kept[i]` is the position of `v`'s
    /// dim `i` in `ty`.
    fn add_units(&mut self, loc: Loc, v: Value, kept: &[usize], ty: Type) -> Value {
        let rshape = self.shape(ty);
        let units: Vec<usize> = (0..rshape.len()).filter(|i| !kept.contains(i)).collect();
        if units.is_empty() {
            return v;
        }
        let groups = unit_groups(kept, &units);
        let mut sizes = Vec::new();
        for (j, k) in kept.iter().enumerate() {
            if rshape[*k] == Dim::Dynamic {
                sizes.push(self.dim(loc, v, j));
            }
        }
        let a = self.groups_attr(&groups);
        let mut ops = vec![v];
        ops.extend(sizes);
        self.emit(
            OperationState::new("mtensor.expand_shape", loc).operands(&ops).results(&[ty]).attr("reassociation", a),
        )
    }

    fn groups_attr(&mut self, groups: &[Vec<i64>]) -> Attr {
        let v: Vec<Attr> = groups.iter().map(|g| self.ctx.i64_array_attr(g)).collect();
        self.ctx.array_attr(v)
    }

    // ----- values -----

    fn get(&mut self, op: &OperationRef<'_, '_>, v: MlirValue) -> R<Imp> {
        match self.vals.get(&key(v)) {
            Some(i) => Ok(i.clone()),
            None => Err(self.err(op, "uses a value that the import does not know (from an unsupported op)")),
        }
    }

    /// The sizes of the dynamic dims of an init (`tensor.empty`, a fill or a tensor).
    fn init_sizes(&mut self, op: &OperationRef<'_, '_>, loc: Loc, init: &Imp) -> R<Vec<Value>> {
        match init {
            Imp::Empty { sizes, .. } | Imp::Fill { sizes, .. } => Ok(sizes.clone()),
            Imp::Tensor(t) => Ok(self.dyn_sizes(loc, *t)),
            _ => Err(self.err(op, "has an init that is not a tensor")),
        }
    }

    /// The morf tensor an MLIR value stands for, materializing fills.
    fn tensor(&mut self, op: &OperationRef<'_, '_>, v: MlirValue) -> R<Value> {
        let imp = self.get(op, v)?;
        let loc = self.loc(op);
        match imp {
            Imp::Tensor(t) => Ok(t),
            Imp::Fill { ty, value, sizes } => {
                let elem = self.elem(ty);
                let c = self.const0(loc, value, elem);
                Ok(self.broadcast(loc, c, &[], ty, &sizes))
            }
            Imp::Empty { .. } => {
                Err(self
                    .err(op, "reads a 'tensor.empty', whose contents are undefined (fill it with 'linalg.fill' first)"))
            }
            _ => Err(self.err(op, "expects a tensor operand")),
        }
    }

    // ----- module and functions -----

    fn module(&mut self, module: &Module<'_>) -> R<OpId> {
        let loc = {
            let l = module.as_operation().location();
            bridge::morf_loc(self.ctx, &self.file, self.line_offset, l)
        };
        let r = self.ctx.create_region();
        let body = self.ctx.create_block(r, &[]);
        let mut st = OperationState::new("builtin.module", loc).region(r);
        for (k, a) in module.as_operation().attributes() {
            let name = k.as_string_ref().as_str().unwrap_or("").to_string();
            if name.starts_with("morf.") {
                let op = module.as_operation();
                let ma = self.morf_attr(&op, a)?;
                st = st.attr(&name, ma);
            }
        }
        let m = self.ctx.create_op(st);
        let mut next = module.body().first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if name_of(&op) != "func.func" {
                return Err(
                    self.err(&op, format!("is not supported at module level by the linalg import ({SUPPORTED})"))
                );
            }
            let f = self.func(&op)?;
            self.ctx.append_op(body, f);
        }
        Ok(m)
    }

    fn func(&mut self, op: &OperationRef<'_, '_>) -> R<OpId> {
        let loc = self.loc(op);
        let sym = op.attribute("sym_name").map_err(|_| self.err(op, "has no 'sym_name'"))?;
        let sym = self.morf_attr(op, sym)?;
        let fty = op.attribute("function_type").map_err(|_| self.err(op, "has no 'function_type'"))?;
        let fty = morf_ir::asm::parse_attr_str(self.ctx, &fty.to_string()).map_err(|_| {
            self.err(op, format!("has the type '{fty}', which the linalg import does not support (tensors only)"))
        })?;
        let Some(AttrData::Type(ft)) = Some(self.ctx.attr_data(fty).clone()) else {
            return Err(self.err(op, "has a 'function_type' that is not a type"));
        };
        let Some((ins, outs)) = self.ctx.function_parts(ft).map(|(a, b)| (a.to_vec(), b.to_vec())) else {
            return Err(self.err(op, "has a 'function_type' that is not a function type"));
        };
        let r = self.ctx.create_region();
        let block = self.ctx.create_block(r, &ins);
        let mut st = OperationState::new("func.func", loc).attr("sym_name", sym).attr("function_type", fty).region(r);
        let mut arg_names: Vec<Vec<Option<String>>> = vec![Vec::new(); ins.len()];
        if let Ok(a) = op.attribute("arg_attrs") {
            let ma = self.morf_attr(op, a)?;
            if let Some(items) = self.ctx.attr_array(ma).map(|x| x.to_vec()) {
                for (i, d) in items.iter().enumerate().take(ins.len()) {
                    arg_names[i] = self.dim_names(*d);
                }
            }
            st = st.attr("arg_attrs", ma);
        }
        if let Ok(a) = op.attribute("sym_visibility") {
            let ma = self.morf_attr(op, a)?;
            st = st.attr("sym_visibility", ma);
        }
        let f = self.ctx.create_op(st);
        let region = op.region(0).map_err(|_| self.err(op, "has no body"))?;
        let Some(entry) = region.first_block() else {
            return Ok(f);
        };
        if entry.next_in_region().is_some() {
            return Err(self.err(op, "has more than one block, which the linalg import does not support"));
        }
        let args: Vec<Value> = self.ctx.block_args(block).to_vec();
        for (i, a) in args.iter().enumerate() {
            let ma = entry.argument(i).map_err(|_| self.err(op, "has too few block arguments"))?;
            let mv: MValue = ma.into();
            self.vals.insert(key(mv.to_raw()), Imp::Tensor(*a));
            if let Some(n) = self.name_at(bridge::file_pos(mv.location())) {
                self.ctx.set_value_name(*a, Some(&n));
            }
            self.arg_dims.insert(*a, arg_names[i].clone());
        }
        self.block = Some(block);
        let mut next = entry.first_operation();
        while let Some(o) = next {
            next = o.next_in_block();
            self.op(&o, &outs)?;
        }
        Ok(f)
    }

    /// The `morf.dims` names of an argument's attribute dictionary.
    fn dim_names(&self, dict: Attr) -> Vec<Option<String>> {
        let AttrData::Dict(entries) = self.ctx.attr_data(dict) else { return Vec::new() };
        for (k, v) in entries {
            if self.ctx.str(*k) == "morf.dims" {
                if let Some(items) = self.ctx.attr_array(*v) {
                    return items.iter().map(|a| self.ctx.attr_str(*a).map(str::to_string)).collect();
                }
            }
        }
        Vec::new()
    }

    // ----- ops -----

    fn op(&mut self, op: &OperationRef<'_, '_>, results: &[Type]) -> R<()> {
        let name = name_of(op);
        let loc = self.loc(op);
        let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
        let res: Vec<MlirValue> = op.results().map(|v| v.to_raw()).collect();
        if name.starts_with("linalg.") && res.is_empty() {
            return Err(self.err(op, "must have tensor results (linalg on buffers is not supported)"));
        }
        let imp =
            match name.as_str() {
                "func.return" => {
                    let mut vs = Vec::new();
                    for (i, v) in operands.iter().enumerate() {
                        let t = self.tensor(op, *v)?;
                        let want = results.get(i).copied().unwrap_or(self.ctx.value_type(t));
                        vs.push(self.cast(loc, t, want));
                    }
                    let ret = self.ctx.create_op(OperationState::new("func.return", loc).operands(&vs));
                    self.ctx.append_op(self.block.expect("body"), ret);
                    return Ok(());
                }
                "arith.constant" => self.constant(op, res[0])?,
                "tensor.empty" => {
                    let mut sizes = Vec::new();
                    for v in &operands {
                        match self.get(op, *v)? {
                        Imp::Index(i) => sizes.push(i),
                        _ => return Err(self.err(
                            op,
                            "has a size that is not a 'tensor.dim' (morf has no index arithmetic at the tensor level)",
                        )),
                    }
                    }
                    Imp::Empty { sizes }
                }
                "tensor.dim" => {
                    let t = self.tensor(op, operands[0])?;
                    let Imp::IndexConst(d) = self.get(op, operands[1])? else {
                        return Err(self.err(op, "has a dim index that is not a constant"));
                    };
                    let rank = self.shape(self.ctx.value_type(t)).len();
                    if d < 0 || d as usize >= rank {
                        return Err(self.err(op, format!("has dim index {d}, out of range for rank {rank}")));
                    }
                    Imp::Index(self.dim(loc, t, d as usize))
                }
                "tensor.cast" => {
                    let t = self.tensor(op, operands[0])?;
                    let ty = self.value_type(op, res[0])?;
                    Imp::Tensor(self.cast(loc, t, ty))
                }
                "tensor.collapse_shape" | "tensor.expand_shape" => {
                    let t = self.tensor(op, operands[0])?;
                    let ty = self.value_type(op, res[0])?;
                    let a = op.attribute("reassociation").map_err(|_| self.err(op, "has no 'reassociation'"))?;
                    let a = self.morf_attr(op, a)?;
                    let mut ops = vec![t];
                    for v in &operands[1..] {
                        match self.get(op, *v)? {
                            Imp::Index(i) => ops.push(i),
                            _ => return Err(self.err(op, "has an output size that is not a 'tensor.dim'")),
                        }
                    }
                    let morf_name =
                        if name == "tensor.collapse_shape" { "mtensor.collapse_shape" } else { "mtensor.expand_shape" };
                    Imp::Tensor(self.emit(
                        OperationState::new(morf_name, loc).operands(&ops).results(&[ty]).attr("reassociation", a),
                    ))
                }
                "arith.muli" => {
                    let a = self.count_of(op, operands[0])?;
                    let b = self.count_of(op, operands[1])?;
                    let mut factors = a.0;
                    factors.extend(b.0);
                    Imp::Count { factors, fixed: a.1 * b.1, float: None }
                }
                "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui" => {
                    match self.get(op, operands[0])? {
                        Imp::IndexConst(c) => Imp::IndexConst(c),
                        _ => {
                            let (factors, fixed) = self.count_of(op, operands[0])?;
                            Imp::Count { factors, fixed, float: None }
                        }
                    }
                }
                "arith.sitofp" | "arith.uitofp" => {
                    let ty = self.value_type(op, res[0])?;
                    match self.get(op, operands[0])? {
                        Imp::IndexConst(c) => Imp::Scalar(c as f64, ty),
                        _ => {
                            let (factors, fixed) = self.count_of(op, operands[0])?;
                            Imp::Count { factors, fixed, float: Some(ty) }
                        }
                    }
                }
                "linalg.fill" => {
                    let value = match self.get(op, operands[0])? {
                        Imp::Scalar(v, _) => v,
                        Imp::IndexConst(c) => c as f64,
                        _ => return Err(self.err(op, "fills with a value that is not a constant")),
                    };
                    let ty = self.value_type(op, res[0])?;
                    let init = self.get(op, operands[1])?;
                    let sizes = self.init_sizes(op, loc, &init)?;
                    Imp::Fill { ty, value, sizes }
                }
                "linalg.generic" => {
                    let outs = self.generic(op, &operands, &res)?;
                    for (i, (r, v)) in res.iter().zip(outs).enumerate() {
                        self.name_result(op, i, v);
                        self.vals.insert(key(*r), Imp::Tensor(v));
                    }
                    return Ok(());
                }
                "linalg.reduce" => Imp::Tensor(self.linalg_reduce(op, &operands, &res)?),
                "linalg.broadcast" => {
                    let x = self.tensor(op, operands[0])?;
                    let ty = self.value_type(op, res[0])?;
                    let added = self.i64_array(op, "dimensions")?;
                    let rank = self.shape(ty).len() as i64;
                    let dims: Vec<i64> = (0..rank).filter(|d| !added.contains(d)).collect();
                    let init = self.get(op, operands[1])?;
                    let sizes = self.init_sizes(op, loc, &init)?;
                    Imp::Tensor(self.broadcast(loc, x, &dims, ty, &sizes))
                }
                "linalg.transpose" => {
                    let x = self.tensor(op, operands[0])?;
                    let perm: Vec<usize> = self.i64_array(op, "permutation")?.iter().map(|p| *p as usize).collect();
                    let ty = self.value_type(op, res[0])?;
                    let t = self.transpose(loc, x, &perm);
                    Imp::Tensor(self.cast(loc, t, ty))
                }
                _ if name.starts_with("linalg.") && named_elementwise(&name).is_some() => {
                    Imp::Tensor(self.named(op, &name, &operands, &res)?)
                }
                _ => return Err(self.err(op, format!("is not supported by the linalg import ({SUPPORTED})"))),
            };
        if let Imp::Tensor(v) | Imp::Index(v) = &imp {
            self.name_result(op, 0, *v);
        }
        if let Some(r) = res.first() {
            self.vals.insert(key(*r), imp);
        }
        Ok(())
    }

    /// `arith.constant`: a dense tensor becomes `mtensor.constant`; scalars are kept.
    fn constant(&mut self, op: &OperationRef<'_, '_>, res: MlirValue) -> R<Imp> {
        let ty = self.value_type(op, res)?;
        let a = op.attribute("value").map_err(|_| self.err(op, "has no 'value'"))?;
        let ma = self.morf_attr(op, a)?;
        let loc = self.loc(op);
        if self.ctx.is_tensor(ty) {
            return Ok(Imp::Tensor(
                self.emit(OperationState::new("mtensor.constant", loc).results(&[ty]).attr("value", ma)),
            ));
        }
        match self.ctx.attr_data(ma).clone() {
            AttrData::Integer { value, .. } if matches!(self.ctx.type_data(ty), TypeData::Index) => {
                Ok(Imp::IndexConst(value))
            }
            AttrData::Integer { value, .. } => Ok(Imp::Scalar(value as f64, ty)),
            AttrData::Bool(b) => Ok(Imp::Scalar(if b { 1.0 } else { 0.0 }, ty)),
            AttrData::Float { bits, .. } => Ok(Imp::Scalar(f64::from_bits(bits), ty)),
            _ => Err(self.err(op, "has a value that the import does not support")),
        }
    }

    /// A size product: the factors (tensor, dim) and the constant part.
    fn count_of(&mut self, op: &OperationRef<'_, '_>, v: MlirValue) -> R<(Vec<(Value, usize)>, i64)> {
        match self.get(op, v)? {
            Imp::IndexConst(c) => Ok((Vec::new(), c)),
            Imp::Index(i) => {
                let def = self.ctx.defining_op(i).expect("an mtensor.dim");
                let src = self.ctx.operand(def, 0);
                let d = self.ctx.attr(def, "index").and_then(|a| self.ctx.attr_int(a)).unwrap_or(0);
                Ok((vec![(src, d as usize)], 1))
            }
            Imp::Count { factors, fixed, float: None } => Ok((factors, fixed)),
            _ => Err(self.err(op, "computes on a value that is not a tensor size (only element counts are supported)")),
        }
    }

    // ----- linalg.generic -----

    /// The results of a `linalg.generic`, in order.
    fn generic(&mut self, op: &OperationRef<'_, '_>, operands: &[MlirValue], res: &[MlirValue]) -> R<Vec<Value>> {
        let loc = self.loc(op);
        let n_out = res.len();
        if n_out == 0 || operands.len() < n_out {
            return Err(self.err(op, "must have tensor results (linalg on buffers is not supported)"));
        }
        let n_in = operands.len() - n_out;
        // Iterators and maps.
        let iters = op.attribute("iterator_types").map_err(|_| self.err(op, "has no 'iterator_types'"))?;
        let iters = ArrayAttribute::try_from(iters).map_err(|_| self.err(op, "has malformed 'iterator_types'"))?;
        let mut reduction = Vec::new();
        for i in 0..iters.len() {
            let t = iters.element(i).map(|a| a.to_string()).unwrap_or_default();
            reduction.push(t.contains("reduction"));
        }
        let n = reduction.len();
        let maps_attr = op.attribute("indexing_maps").map_err(|_| self.err(op, "has no 'indexing_maps'"))?;
        let maps_attr =
            ArrayAttribute::try_from(maps_attr).map_err(|_| self.err(op, "has malformed 'indexing_maps'"))?;
        let mut maps: Vec<Vec<Ix>> = Vec::new();
        for i in 0..maps_attr.len() {
            let a = maps_attr.element(i).map_err(|_| self.err(op, "has malformed 'indexing_maps'"))?;
            maps.push(self.map_exprs(op, a)?);
        }
        if maps.len() != operands.len() {
            return Err(self.err(op, "has one indexing map per operand expected"));
        }
        // The operands and the iteration space.
        let mut imps = Vec::new();
        let mut tys = Vec::new();
        for v in operands {
            imps.push(self.get(op, *v)?);
            tys.push(self.value_type(op, *v)?);
        }
        let mut space: Vec<Dim> = vec![Dim::Dynamic; n];
        let mut sizes: Vec<Option<Value>> = vec![None; n];
        for l in 0..n {
            for (k, map) in maps.iter().enumerate() {
                for (p, e) in map.iter().enumerate() {
                    if *e == Ix::Loop(l) {
                        if let Some(Dim::Static(s)) = self.shape(tys[k]).get(p) {
                            space[l] = Dim::Static(*s);
                        }
                    }
                }
            }
            if space[l] != Dim::Dynamic {
                continue;
            }
            // Outputs first: their `tensor.empty` carries the sizes the program names.
            let order: Vec<usize> = (n_in..maps.len()).chain(0..n_in).collect();
            'find: for k in order {
                let map = &maps[k];
                for (p, e) in map.iter().enumerate() {
                    if *e != Ix::Loop(l) {
                        continue;
                    }
                    match &imps[k] {
                        Imp::Tensor(t) => {
                            sizes[l] = Some(self.dim(loc, *t, p));
                            break 'find;
                        }
                        Imp::Empty { sizes: s, .. } | Imp::Fill { sizes: s, .. } => {
                            let j = self.shape(tys[k])[..p].iter().filter(|d| **d == Dim::Dynamic).count();
                            if let Some(x) = s.get(j) {
                                sizes[l] = Some(*x);
                                break 'find;
                            }
                        }
                        _ => {}
                    }
                }
            }
            if sizes[l].is_none() {
                return Err(self.err(op, format!("has loop d{l}, whose size the import cannot find")));
            }
        }
        let space_sizes: Vec<Value> = sizes.iter().flatten().copied().collect();
        let mut g = Generic { n, space, space_sizes, maps, imps, arg_space: HashMap::new(), consts: HashMap::new() };

        // The body.
        let region = op.region(0).map_err(|_| self.err(op, "has no body"))?;
        let body = region.first_block().ok_or_else(|| self.err(op, "has an empty body"))?;
        let mut bv: HashMap<usize, Bv> = HashMap::new();
        for i in 0..body.argument_count() {
            let a: MValue = body.argument(i).map_err(|_| self.err(op, "has a malformed body"))?.into();
            bv.insert(key(a.to_raw()), Bv::Arg(i));
        }
        let term = body.terminator().ok_or_else(|| self.err(op, "has a body without a terminator"))?;
        let yields: Vec<MlirValue> = term.operands().map(|v| v.to_raw()).collect();
        if yields.len() != n_out {
            return Err(self.err(&term, "yields a value count different from the outputs"));
        }
        let has_reduction = reduction.iter().any(|r| *r);
        // In a reduction, each yield is combine(out, e); find the combiners.
        let mut combiners: Vec<Option<(ReduceKind, MlirValue)>> = vec![None; n_out];
        let mut skip: Vec<usize> = Vec::new();
        if has_reduction {
            let mut next = body.first_operation();
            while let Some(o) = next {
                next = o.next_in_block();
                let r: Vec<MlirValue> = o.results().map(|v| v.to_raw()).collect();
                for (j, y) in yields.iter().enumerate() {
                    if r.first().map(|v| key(*v)) != Some(key(*y)) {
                        continue;
                    }
                    let Some(kind) = combiner_kind(&name_of(&o)) else {
                        return Err(self.err(&o, NOT_A_COMBINER));
                    };
                    let ops: Vec<MlirValue> = o.operands().map(|v| v.to_raw()).collect();
                    let out_arg = n_in + j;
                    let is_out = |v: &MlirValue| matches!(bv.get(&key(*v)), Some(Bv::Arg(a)) if *a == out_arg);
                    let other = if is_out(&ops[0]) {
                        ops[1]
                    } else if is_out(&ops[1]) {
                        ops[0]
                    } else {
                        let msg = "combines values without the output block argument (a reduction must yield \
                                   combine(out, value))";
                        return Err(self.err(&o, msg));
                    };
                    combiners[j] = Some((kind, other));
                    skip.push(key(r[0]));
                }
            }
        }
        let mut next = body.first_operation();
        while let Some(o) = next {
            next = o.next_in_block();
            if o.to_raw().ptr == term.to_raw().ptr {
                break;
            }
            let r: Vec<MlirValue> = o.results().map(|v| v.to_raw()).collect();
            if r.len() == 1 && skip.contains(&key(r[0])) {
                continue;
            }
            let v = self.body_op(op, &o, &mut g, &bv, n_in, has_reduction)?;
            if let Some(r0) = r.first() {
                bv.insert(key(*r0), v);
            }
        }

        // The results.
        let mut out = Vec::new();
        for j in 0..n_out {
            let rty = self.value_type(op, res[j])?;
            let map = g.maps[n_in + j].clone();
            let relem = self.elem(rty);
            if !has_reduction {
                let y = self.body_value(op, &term, &mut g, &bv, yields[j], relem, n_in, false)?;
                // Space -> the output's layout.
                let (dims, units) = split_map(&map);
                if dims.len() != n {
                    return Err(self.err(op, "has an output map that is not a permutation of the loops"));
                }
                let v = self.transpose_if(loc, y, &dims);
                let kept: Vec<usize> = (0..map.len()).filter(|p| !units.contains(p)).collect();
                let v = self.reshape_units(loc, v, &kept, rty);
                out.push(self.cast(loc, v, rty));
                continue;
            }
            let Some((kind, e)) = combiners[j] else {
                let msg = format!("yields value #{j} without combining it with the output block argument");
                return Err(self.err(&term, msg));
            };
            let e = self.body_value(op, &term, &mut g, &bv, e, relem, n_in, true)?;
            let red: Vec<usize> = (0..n).filter(|l| reduction[*l]).collect();
            let par: Vec<usize> = (0..n).filter(|l| !reduction[*l]).collect();
            let mut v = self.reduce(loc, kind, e, &red);
            let (dims, units) = split_map(&map);
            let mut sorted = dims.clone();
            sorted.sort_unstable();
            if sorted != par {
                return Err(self.err(op, "has an output map that is not a permutation of the parallel loops"));
            }
            let order: Vec<usize> = dims.iter().map(|d| par.iter().position(|p| p == d).unwrap_or(0)).collect();
            if order.iter().enumerate().any(|(i, o)| i != *o) {
                v = self.transpose(loc, v, &order);
            }
            let kept: Vec<usize> = (0..map.len()).filter(|p| !units.contains(p)).collect();
            v = self.reshape_units(loc, v, &kept, rty);
            v = self.cast(loc, v, rty);
            // Combine with the init unless it is the combiner's identity.
            match g.imps[n_in + j].clone() {
                Imp::Fill { value, .. } if is_identity(kind, value) => {}
                Imp::Empty { .. } => {
                    return Err(self.err(
                        op,
                        "reduces into a 'tensor.empty', whose contents are undefined (fill it with the identity first)",
                    ));
                }
                _ => {
                    let init = self.tensor(op, operands[n_in + j])?;
                    let init = self.cast(loc, init, rty);
                    v = self.binary(loc, combine_fn(kind), init, v);
                }
            }
            out.push(v);
        }
        Ok(out)
    }

    /// Transposes a space tensor so that dim `i` is loop `dims[i]`.
    fn transpose_if(&mut self, loc: Loc, v: Value, dims: &[usize]) -> Value {
        if dims.iter().enumerate().all(|(i, d)| i == *d) {
            v
        } else {
            self.transpose(loc, v, dims)
        }
    }

    /// Inserts the unit dims of `ty` (positions not in `kept`) into `v`.
    fn reshape_units(&mut self, loc: Loc, v: Value, kept: &[usize], ty: Type) -> Value {
        if kept.len() == self.shape(ty).len() {
            return v;
        }
        // The target with v's own dims where it has them (static or dynamic as v says).
        let vshape = self.shape(self.ctx.value_type(v));
        let mut tshape = self.shape(ty);
        for (i, k) in kept.iter().enumerate() {
            tshape[*k] = vshape[i];
        }
        let elem = self.elem(ty);
        let t = self.tensor_ty(&tshape, elem);
        self.add_units(loc, v, kept, t)
    }

    /// The results of an indexing map.
    fn map_exprs(&mut self, op: &OperationRef<'_, '_>, a: Attribute<'_>) -> R<Vec<Ix>> {
        let map = unsafe {
            if !mlir_sys::mlirAttributeIsAAffineMap(a.to_raw()) {
                return Err(self.err(op, "has an indexing map that is not an affine map"));
            }
            AffineMap::from_raw(mlir_sys::mlirAffineMapAttrGetValue(a.to_raw()))
        };
        let mut out = Vec::new();
        for i in 0..map.result_count() {
            let e = map.result(i).map_err(|_| self.err(op, "has a malformed indexing map"))?;
            if e.is_dim() {
                out.push(Ix::Loop(e.dim_position()));
            } else if e.is_constant() {
                out.push(Ix::Const(e.constant_value()));
            } else {
                return Err(self.err(
                    op,
                    format!(
                        "has the indexing map '{a}', which is not a projected permutation (only loop dims and \
                         constant 0 are supported)"
                    ),
                ));
            }
        }
        Ok(out)
    }

    /// Brings morf tensor `v` (indexed by `map`) to the iteration space of `g` with element
    /// type `elem`.
    fn in_space(&mut self, op: &OperationRef<'_, '_>, g: &Generic, v: Value, map: &[Ix]) -> R<Value> {
        let loc = self.loc(op);
        let t = self.ctx.value_type(v);
        let shape = self.shape(t);
        let elem = self.elem(t);
        let mut units = Vec::new();
        for (p, e) in map.iter().enumerate() {
            if let Ix::Const(c) = e {
                if *c != 0 || shape.get(p) != Some(&Dim::Static(1)) {
                    let msg = format!(
                        "indexes dim {p} with the constant {c}, which the import supports only as 0 on a dim of size 1"
                    );
                    return Err(self.err(op, msg));
                }
                units.push(p);
            }
        }
        // Units broadcast in place when loops left free can stand for them in order (as
        // `mtensor.broadcast` stretches a dim of size 1), else they are collapsed away.
        if !units.is_empty() {
            if let Some(all) = assign_unit_loops(map, g.n) {
                let st = self.tensor_ty(&g.space, elem);
                let bd: Vec<i64> = all.iter().map(|d| *d as i64).collect();
                let sizes = g.space_sizes.clone();
                return Ok(self.broadcast(loc, v, &bd, st, &sizes));
            }
        }
        let v = self.drop_units(loc, v, &units);
        let dims: Vec<usize> = map.iter().filter_map(|e| if let Ix::Loop(l) = e { Some(*l) } else { None }).collect();
        let mut sorted = dims.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(self.err(op, "has an indexing map that uses a loop twice (not a projected permutation)"));
        }
        let order: Vec<usize> = sorted.iter().map(|d| dims.iter().position(|x| x == d).unwrap_or(0)).collect();
        let v = self.transpose_if(loc, v, &order);
        let st = self.tensor_ty(&g.space, elem);
        if sorted.len() == g.n {
            return Ok(self.cast(loc, v, st));
        }
        let bd: Vec<i64> = sorted.iter().map(|d| *d as i64).collect();
        let sizes = g.space_sizes.clone();
        Ok(self.broadcast(loc, v, &bd, st, &sizes))
    }

    /// Block argument `k` over the iteration space.
    fn arg_space(&mut self, op: &OperationRef<'_, '_>, g: &mut Generic, k: usize, operands: &[MlirValue]) -> R<Value> {
        if let Some(v) = g.arg_space.get(&k) {
            return Ok(*v);
        }
        let t = self.tensor(op, operands[k])?;
        let map = g.maps[k].clone();
        let v = self.in_space(op, g, t, &map)?;
        g.arg_space.insert(k, v);
        Ok(v)
    }

    /// The value of a body value over the iteration space, of element type `elem` for
    /// constants.
    #[allow(clippy::too_many_arguments)]
    fn body_value(
        &mut self,
        op: &OperationRef<'_, '_>,
        at: &OperationRef<'_, '_>,
        g: &mut Generic,
        bv: &HashMap<usize, Bv>,
        v: MlirValue,
        elem: Type,
        n_in: usize,
        reduction: bool,
    ) -> R<Value> {
        let loc = self.loc(at);
        let b = match bv.get(&key(v)) {
            Some(b) => b.clone(),
            None => match self.vals.get(&key(v)).cloned() {
                Some(Imp::Scalar(c, t)) => Bv::Const(c, t),
                Some(Imp::IndexConst(c)) => Bv::Const(c as f64, elem),
                Some(Imp::Count { factors, fixed, float: Some(t) }) => Bv::Count(factors, fixed, t),
                _ => {
                    return Err(self.err(
                        at,
                        "uses a value from outside the body that is not a scalar constant or an element count",
                    ))
                }
            },
        };
        match b {
            Bv::Space(s) => Ok(s),
            Bv::Arg(k) => {
                if reduction && k >= n_in {
                    return Err(self.err(at, "uses the output block argument of a reduction outside its combiner"));
                }
                let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
                self.arg_space(op, g, k, &operands)
            }
            Bv::Const(c, t) => {
                let key = (c.to_bits(), t);
                if let Some(v) = g.consts.get(&key) {
                    return Ok(*v);
                }
                let c0 = self.const0(loc, c, t);
                let st = self.tensor_ty(&g.space, t);
                let sizes = g.space_sizes.clone();
                let v = self.broadcast(loc, c0, &[], st, &sizes);
                g.consts.insert(key, v);
                Ok(v)
            }
            Bv::Count(factors, fixed, t) => {
                let c0 = self.count_tensor(loc, &factors, fixed, t);
                let st = self.tensor_ty(&g.space, t);
                let sizes = g.space_sizes.clone();
                Ok(self.broadcast(loc, c0, &[], st, &sizes))
            }
        }
    }

    /// An element count as a 0-d float tensor, computed with tensor ops: a broadcast of
    /// ones over the counted sizes, summed (exact below 2^24 in f32), times the constant.
    fn count_tensor(&mut self, loc: Loc, factors: &[(Value, usize)], fixed: i64, t: Type) -> Value {
        if factors.is_empty() {
            return self.const0(loc, fixed as f64, t);
        }
        let sizes: Vec<Value> = factors.iter().map(|(v, d)| self.dim(loc, *v, *d)).collect();
        let one = self.const0(loc, 1.0, t);
        let bt = self.tensor_ty(&vec![Dim::Dynamic; sizes.len()], t);
        let ones = self.broadcast(loc, one, &[], bt, &sizes);
        let all: Vec<usize> = (0..sizes.len()).collect();
        let mut c = self.reduce(loc, ReduceKind::Sum, ones, &all);
        if fixed != 1 {
            let f = self.const0(loc, fixed as f64, t);
            c = self.binary(loc, BinaryFn::Mul, c, f);
        }
        c
    }

    /// One op of a `linalg.generic` body.
    fn body_op(
        &mut self,
        op: &OperationRef<'_, '_>,
        o: &OperationRef<'_, '_>,
        g: &mut Generic,
        bv: &HashMap<usize, Bv>,
        n_in: usize,
        reduction: bool,
    ) -> R<Bv> {
        let name = name_of(o);
        let loc = self.loc(o);
        let operands: Vec<MlirValue> = o.operands().map(|v| v.to_raw()).collect();
        if o.result_count() != 1 {
            return Err(self.err(o, "is not supported in a linalg body (one result expected)"));
        }
        let rty = bridge::value_type(o.result(0).map_err(|_| self.err(o, "has no result"))?.to_raw());
        let rty = self.morf_type(o, rty)?;
        if name == "arith.constant" {
            let a = o.attribute("value").map_err(|_| self.err(o, "has no 'value'"))?;
            let ma = self.morf_attr(o, a)?;
            return match self.ctx.attr_data(ma).clone() {
                AttrData::Float { bits, .. } => Ok(Bv::Const(f64::from_bits(bits), rty)),
                AttrData::Integer { value, .. } => Ok(Bv::Const(value as f64, rty)),
                AttrData::Bool(b) => Ok(Bv::Const(if b { 1.0 } else { 0.0 }, rty)),
                _ => Err(self.err(o, "has a value the import does not support")),
            };
        }
        // The mean: a sum's block argument divided by its element count.
        if name == "arith.divf" {
            if let Some(v) = self.try_mean(op, g, bv, &operands)? {
                return Ok(Bv::Space(v));
            }
        }
        let mut xs = Vec::new();
        for v in &operands {
            let vt = bridge::value_type(*v);
            let vt = self.morf_type(o, vt)?;
            xs.push(self.body_value(op, o, g, bv, *v, vt, n_in, reduction)?);
        }
        let v =
            if let Some(f) = body_binary(&name) {
                self.binary(loc, f, xs[0], xs[1])
            } else if let Some(f) = body_unary(&name) {
                self.unary(loc, f, xs[0])
            } else {
                match name.as_str() {
                    "arith.extf" | "arith.truncf" => self.convert(loc, xs[0], rty),
                    "arith.select" => {
                        let t = self.ctx.value_type(xs[1]);
                        self.emit(OperationState::new("mtensor.select", loc).operands(&xs).results(&[t]))
                    }
                    "arith.cmpf" => {
                        let a = o.attribute("predicate").map_err(|_| self.err(o, "has no 'predicate'"))?;
                        let pv = melior::ir::attribute::IntegerAttribute::try_from(a)
                            .map(|i| i.value())
                            .map_err(|_| self.err(o, "has a malformed 'predicate'"))?;
                        let p = match pv {
                            1 => CmpPredicate::Eq,
                            2 => CmpPredicate::Gt,
                            3 => CmpPredicate::Ge,
                            4 => CmpPredicate::Lt,
                            5 => CmpPredicate::Le,
                            13 => CmpPredicate::Ne,
                            _ => {
                                return Err(self.err(
                                    o,
                                    "has a predicate morf does not have (supported: oeq, ogt, oge, olt, ole, une)",
                                ))
                            }
                        };
                        let t = self.ctx.value_type(xs[0]);
                        let i1 = self.ctx.i1_type();
                        let rt = self.ctx.with_element_type(t, i1);
                        let pa = self.ctx.str_attr(p.name());
                        self.emit(
                            OperationState::new("mtensor.cmp", loc).operands(&xs).results(&[rt]).attr("predicate", pa),
                        )
                    }
                    "linalg.index" => return Err(self.err(o, "is not supported (the import has no iota)")),
                    "arith.maxnumf" | "arith.minnumf" => return Err(self.err(
                        o,
                        "ignores NaN, which morf's max/min do not; use arith.maximumf/arith.minimumf (NaN-propagating)",
                    )),
                    _ => return Err(self.err(o, "is not supported in a linalg body (arith and math float ops are)")),
                }
            };
        Ok(Bv::Space(v))
    }

    /// `divf(a, count)` where `a` is an input holding a `sum` over dims whose element count is
    /// `count`: the input's `mean` instead, brought to the iteration space.
    fn try_mean(
        &mut self,
        op: &OperationRef<'_, '_>,
        g: &mut Generic,
        bv: &HashMap<usize, Bv>,
        operands: &[MlirValue],
    ) -> R<Option<Value>> {
        let Some(Bv::Arg(k)) = bv.get(&key(operands[0])).cloned() else { return Ok(None) };
        let count = match bv.get(&key(operands[1])).cloned() {
            Some(Bv::Const(c, _)) => (Vec::new(), c),
            None => match self.vals.get(&key(operands[1])).cloned() {
                Some(Imp::Scalar(c, _)) => (Vec::new(), c),
                Some(Imp::Count { factors, fixed, float: Some(_) }) => (factors, fixed as f64),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let Some(Imp::Tensor(s)) = g.imps.get(k).cloned() else { return Ok(None) };
        let Some(def) = self.ctx.defining_op(s) else { return Ok(None) };
        if self.ctx.op_name(def) != "mtensor.reduce"
            || self.ctx.attr(def, "kind").and_then(|a| self.ctx.attr_str(a)) != Some("sum")
        {
            return Ok(None);
        }
        let input = self.ctx.operand(def, 0);
        let dims: Vec<usize> = self
            .ctx
            .attr(def, "dims")
            .and_then(|a| self.ctx.attr_int_array(a))
            .unwrap_or_default()
            .iter()
            .map(|d| *d as usize)
            .collect();
        // Compare the reduced sizes with the count: static products and dynamic roots.
        let mut want_static = 1f64;
        let mut want_roots = Vec::new();
        for d in &dims {
            match self.size_root(input, *d) {
                Root::Static(n) => want_static *= n as f64,
                r => want_roots.push(r),
            }
        }
        let mut have_static = count.1;
        let mut have_roots = Vec::new();
        for (v, d) in &count.0 {
            match self.size_root(*v, *d) {
                Root::Static(n) => have_static *= n as f64,
                r => have_roots.push(r),
            }
        }
        if want_static != have_static || want_roots.len() != have_roots.len() {
            return Ok(None);
        }
        for r in &want_roots {
            match have_roots.iter().position(|h| h == r) {
                Some(i) => {
                    have_roots.remove(i);
                }
                None => return Ok(None),
            }
        }
        let mean = match self.means.get(&s) {
            Some(m) => *m,
            None => {
                let loc = self.ctx.op_loc(def);
                let ty = self.ctx.value_type(s);
                let kind = self.ctx.str_attr("mean");
                let dims = self.ctx.attr(def, "dims").expect("a reduce has dims");
                let st = OperationState::new("mtensor.reduce", loc)
                    .operands(&[input])
                    .results(&[ty])
                    .attr("kind", kind)
                    .attr("dims", dims);
                let st = match self.ctx.attr(def, "keepdim") {
                    Some(a) => st.attr("keepdim", a),
                    None => st,
                };
                let m = self.emit(st);
                self.means.insert(s, m);
                m
            }
        };
        let map = g.maps[k].clone();
        Ok(Some(self.in_space(op, g, mean, &map)?))
    }

    /// Where the size of dim `d` of `v` comes from: a static size, a named dim of an
    /// argument (`morf.dims`), or the first value whose dim it is.
    fn size_root(&self, v: Value, d: usize) -> Root {
        let ctx = &*self.ctx;
        let (mut v, mut d) = (v, d);
        // A loop, not recursion: a long chain of ops must not exhaust the stack.
        loop {
            let shape = ctx.shape_of(ctx.value_type(v)).unwrap_or(&[]);
            if let Some(Dim::Static(n)) = shape.get(d) {
                return Root::Static(*n);
            }
            let Some(def) = ctx.defining_op(v) else {
                return match self.arg_dims.get(&v).and_then(|n| n.get(d).cloned().flatten()) {
                    Some(n) => Root::Named(n),
                    None => Root::Val(v, d),
                };
            };
            let int_array = |n: &str| ctx.attr(def, n).and_then(|a| ctx.attr_int_array(a)).unwrap_or_default();
            let next: Option<(Value, usize)> = if morf_ir::interfaces::elementwise(ctx, def).is_some() {
                Some((ctx.operand(def, 0), d))
            } else {
                match ctx.op_name(def) {
                    "mtensor.broadcast" => {
                        let dims = int_array("dims");
                        let ishape = ctx.shape_of(ctx.value_type(ctx.operand(def, 0))).unwrap_or(&[]);
                        let from_operand = dims
                            .iter()
                            .position(|x| *x as usize == d)
                            .filter(|i| ishape.get(*i) != Some(&Dim::Static(1)))
                            .map(|i| (ctx.operand(def, 0), i));
                        from_operand.or_else(|| {
                            // The size operand of this dim, when it is an `mtensor.dim`.
                            let j = shape[..d].iter().filter(|x| **x == Dim::Dynamic).count();
                            let s = ctx.operands(def).get(1 + j)?;
                            let sd = ctx.defining_op(*s).filter(|sd| ctx.op_name(*sd) == "mtensor.dim")?;
                            let k = ctx.attr(sd, "index").and_then(|a| ctx.attr_int(a)).unwrap_or(0);
                            Some((ctx.operand(sd, 0), k as usize))
                        })
                    }
                    "mtensor.reduce" => {
                        let dims = int_array("dims");
                        let keep = ctx.attr(def, "keepdim").is_some();
                        let rank = ctx.shape_of(ctx.value_type(ctx.operand(def, 0))).map_or(0, |s| s.len());
                        let kept: Vec<usize> = (0..rank).filter(|i| !dims.contains(&(*i as i64))).collect();
                        let src = if keep { Some(d) } else { kept.get(d).copied() };
                        src.map(|s| (ctx.operand(def, 0), s))
                    }
                    "mtensor.transpose" => int_array("perm").get(d).map(|p| (ctx.operand(def, 0), *p as usize)),
                    _ => None,
                }
            };
            match next {
                Some((nv, nd)) => (v, d) = (nv, nd),
                None => return Root::Val(v, d),
            }
        }
    }

    // ----- named ops -----

    /// A named elementwise linalg op.
    fn named(&mut self, op: &OperationRef<'_, '_>, name: &str, operands: &[MlirValue], res: &[MlirValue]) -> R<Value> {
        let loc = self.loc(op);
        let kind = named_elementwise(name).expect("checked");
        let n_in = operands.len().saturating_sub(1);
        let rty = self.value_type(op, res[0])?;
        let relem = self.elem(rty);
        let mut xs = Vec::new();
        for v in &operands[..n_in] {
            let t = self.tensor(op, *v)?;
            xs.push(t);
        }
        let need = match kind {
            Named::Binary(_) => 2,
            Named::Select => 3,
            _ => 1,
        };
        if xs.len() != need {
            return Err(self.err(op, format!("expects {need} inputs")));
        }
        for (i, x) in xs.iter_mut().enumerate() {
            let t = self.ctx.value_type(*x);
            if !(kind == Named::Select && i == 0) && self.elem(t) != relem {
                return Err(self.err(op, "mixes element types (the import needs the inputs' to equal the output's)"));
            }
            let want = self.ctx.with_element_type(rty, self.elem(t));
            *x = self.cast(loc, *x, want);
        }
        Ok(match kind {
            Named::Binary(f) => self.binary(loc, f, xs[0], xs[1]),
            Named::Unary(f) => self.unary(loc, f, xs[0]),
            Named::Copy => xs[0],
            Named::Square => self.binary(loc, BinaryFn::Mul, xs[0], xs[0]),
            Named::Reciprocal => {
                let one = self.const0(loc, 1.0, relem);
                let sizes = self.dyn_sizes(loc, xs[0]);
                let ones = self.broadcast(loc, one, &[], rty, &sizes);
                self.binary(loc, BinaryFn::Div, ones, xs[0])
            }
            Named::Select => self.emit(OperationState::new("mtensor.select", loc).operands(&xs).results(&[rty])),
        })
    }

    /// `linalg.reduce ins(x) outs(init) dimensions = [..] { combine }`.
    fn linalg_reduce(&mut self, op: &OperationRef<'_, '_>, operands: &[MlirValue], res: &[MlirValue]) -> R<Value> {
        let loc = self.loc(op);
        if operands.len() != 2 || res.len() != 1 {
            return Err(self.err(op, "has several inputs or outputs, which the import does not support"));
        }
        let dims: Vec<usize> = self.i64_array(op, "dimensions")?.iter().map(|d| *d as usize).collect();
        let region = op.region(0).map_err(|_| self.err(op, "has no body"))?;
        let body = region.first_block().ok_or_else(|| self.err(op, "has an empty body"))?;
        let first = body.first_operation().ok_or_else(|| self.err(op, "has an empty body"))?;
        let kind = combiner_kind(&name_of(&first)).ok_or_else(|| {
            self.err(
                &first,
                "is not a reduction combiner (expected arith.addf, arith.mulf, arith.maximumf or arith.minimumf)",
            )
        })?;
        let yielded = first.next_in_block();
        if yielded.map(|y| name_of(&y)) != Some("linalg.yield".to_string()) {
            return Err(self.err(op, "has a body with more than its combiner"));
        }
        let x = self.tensor(op, operands[0])?;
        let rty = self.value_type(op, res[0])?;
        let mut sorted = dims.clone();
        sorted.sort_unstable();
        let v = self.reduce(loc, kind, x, &sorted);
        let mut v = self.cast(loc, v, rty);
        match self.get(op, operands[1])? {
            Imp::Fill { value, .. } if is_identity(kind, value) => {}
            Imp::Empty { .. } => {
                return Err(self.err(
                    op,
                    "reduces into a 'tensor.empty', whose contents are undefined (fill it with the identity first)",
                ))
            }
            _ => {
                let init = self.tensor(op, operands[1])?;
                let init = self.cast(loc, init, rty);
                v = self.binary(loc, combine_fn(kind), init, v);
            }
        }
        Ok(v)
    }

    /// Erases the created ops whose results are unused (a sum replaced by a mean, sizes
    /// computed and not needed), last first.
    fn remove_dead(&mut self) {
        for op in std::mem::take(&mut self.created).into_iter().rev() {
            if self.ctx.op_exists(op) && self.ctx.results(op).iter().all(|r| self.ctx.uses(*r).is_empty()) {
                self.ctx.erase_op(op);
            }
        }
    }
}

/// The state of one `linalg.generic`'s translation.
struct Generic {
    /// Number of loops.
    n: usize,
    /// The iteration space's dims.
    space: Vec<Dim>,
    /// Sizes of its dynamic dims (morf `index` values), in order.
    space_sizes: Vec<Value>,
    /// The indexing maps, inputs then outputs.
    maps: Vec<Vec<Ix>>,
    /// The operands.
    imps: Vec<Imp>,
    /// Block arguments brought to the space.
    arg_space: HashMap<usize, Value>,
    /// Constants broadcast over the space: (bits, type) -> tensor.
    consts: HashMap<(u64, Type), Value>,
}

/// The loop dims of a map in order, and the positions of its constants.
fn split_map(map: &[Ix]) -> (Vec<usize>, Vec<usize>) {
    let mut dims = Vec::new();
    let mut units = Vec::new();
    for (p, e) in map.iter().enumerate() {
        match e {
            Ix::Loop(l) => dims.push(*l),
            Ix::Const(_) => units.push(p),
        }
    }
    (dims, units)
}

/// For a map whose loop dims are in increasing order, a loop for each constant position too
/// (one the map does not use), keeping the whole list strictly increasing; `None` if there is
/// no such assignment.
fn assign_unit_loops(map: &[Ix], n: usize) -> Option<Vec<usize>> {
    let used: Vec<usize> = map.iter().filter_map(|e| if let Ix::Loop(l) = e { Some(*l) } else { None }).collect();
    let mut out = Vec::new();
    let mut next = 0usize;
    for (p, e) in map.iter().enumerate() {
        match e {
            Ix::Loop(l) => {
                if *l < next {
                    return None;
                }
                out.push(*l);
                next = l + 1;
            }
            Ix::Const(_) => {
                // The next loop below the following loop dim that the map does not use.
                let bound =
                    map[p + 1..].iter().find_map(|e| if let Ix::Loop(l) = e { Some(*l) } else { None }).unwrap_or(n);
                let l = (next..bound).find(|l| !used.contains(l))?;
                out.push(l);
                next = l + 1;
            }
        }
    }
    Some(out)
}

/// Reassociation groups that merge each unit dim into a neighbouring kept dim.
fn unit_groups(kept: &[usize], units: &[usize]) -> Vec<Vec<i64>> {
    if kept.is_empty() {
        return Vec::new();
    }
    let mut groups: Vec<Vec<i64>> = kept.iter().map(|k| vec![*k as i64]).collect();
    for u in units {
        let g = kept.iter().rposition(|k| k < u).unwrap_or(0);
        groups[g].push(*u as i64);
        groups[g].sort_unstable();
    }
    groups
}

/// The reduction kind of a combiner op.
fn combiner_kind(name: &str) -> Option<ReduceKind> {
    Some(match name {
        "arith.addf" => ReduceKind::Sum,
        "arith.mulf" => ReduceKind::Prod,
        "arith.maximumf" => ReduceKind::Max,
        "arith.minimumf" => ReduceKind::Min,
        _ => return None,
    })
}

/// The binary function that combines a reduction with its init.
fn combine_fn(kind: ReduceKind) -> BinaryFn {
    match kind {
        ReduceKind::Sum | ReduceKind::Mean => BinaryFn::Add,
        ReduceKind::Prod => BinaryFn::Mul,
        ReduceKind::Max => BinaryFn::Max,
        ReduceKind::Min => BinaryFn::Min,
    }
}

/// Whether `v` is the identity of `kind`'s combiner.
fn is_identity(kind: ReduceKind, v: f64) -> bool {
    match kind {
        ReduceKind::Sum | ReduceKind::Mean => v == 0.0,
        ReduceKind::Prod => v == 1.0,
        ReduceKind::Max => v == f64::NEG_INFINITY,
        ReduceKind::Min => v == f64::INFINITY,
    }
}

/// The binary function of a body op.
fn body_binary(name: &str) -> Option<BinaryFn> {
    Some(match name {
        "arith.addf" => BinaryFn::Add,
        "arith.subf" => BinaryFn::Sub,
        "arith.mulf" => BinaryFn::Mul,
        "arith.divf" => BinaryFn::Div,
        "arith.maximumf" => BinaryFn::Max,
        "arith.minimumf" => BinaryFn::Min,
        "math.powf" => BinaryFn::Pow,
        _ => return None,
    })
}

/// The unary function of a body op.
fn body_unary(name: &str) -> Option<UnaryFn> {
    Some(match name {
        "arith.negf" => UnaryFn::Neg,
        "math.exp" => UnaryFn::Exp,
        "math.log" => UnaryFn::Log,
        "math.sqrt" => UnaryFn::Sqrt,
        "math.rsqrt" => UnaryFn::Rsqrt,
        "math.tanh" => UnaryFn::Tanh,
        "math.absf" => UnaryFn::Abs,
        "math.erf" => UnaryFn::Erf,
        _ => return None,
    })
}

/// A named elementwise linalg op.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Named {
    Binary(BinaryFn),
    Unary(UnaryFn),
    Copy,
    Square,
    Reciprocal,
    Select,
}

fn named_elementwise(name: &str) -> Option<Named> {
    Some(match name {
        "linalg.add" => Named::Binary(BinaryFn::Add),
        "linalg.sub" => Named::Binary(BinaryFn::Sub),
        "linalg.mul" => Named::Binary(BinaryFn::Mul),
        "linalg.div" => Named::Binary(BinaryFn::Div),
        "linalg.max" => Named::Binary(BinaryFn::Max),
        "linalg.min" => Named::Binary(BinaryFn::Min),
        "linalg.powf" => Named::Binary(BinaryFn::Pow),
        "linalg.exp" => Named::Unary(UnaryFn::Exp),
        "linalg.log" => Named::Unary(UnaryFn::Log),
        "linalg.abs" => Named::Unary(UnaryFn::Abs),
        "linalg.negf" => Named::Unary(UnaryFn::Neg),
        "linalg.sqrt" => Named::Unary(UnaryFn::Sqrt),
        "linalg.rsqrt" => Named::Unary(UnaryFn::Rsqrt),
        "linalg.tanh" => Named::Unary(UnaryFn::Tanh),
        "linalg.erf" => Named::Unary(UnaryFn::Erf),
        "linalg.copy" => Named::Copy,
        "linalg.square" => Named::Square,
        "linalg.reciprocal" => Named::Reciprocal,
        "linalg.select" => Named::Select,
        _ => return None,
    })
}
