//! Buffer ops: `dim`, `alloc`, `constant_buffer`, `dealloc`, `load`, `store`,
//! `accumulate` and `fill`.
//!
//! Buffers are mutable and shared: every handle to one buffer sees every write. That is
//! why no buffer op but `dim` is pure (cse must not merge two loads across a store, nor
//! two `constant_buffer`s that are later written). Accesses are bounds-checked at run
//! time; an out-of-bounds access is a diagnostic at the op, never a panic.

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{array::Array, checked_elements, InterpResult, Machine, RtValue};
use morf_ir::opdef::{AnyAttr, AnyType, Index, IntAttr, StrAttr};
use morf_ir::{define_op, Attr, AttrData, Context, Diagnostic, Dim, FoldResult, OpId, OperationState, Type, Value};

use super::{
    buffer, buffer_of, constant_int, kind_of, offset, plural, resolve_indices, scalar, scalar_value, Buffer, VResult,
};
use crate::types::buffer_parts;

// ----- shared pieces -----

/// Checks the indices `idx` of an access to buffer `buf`: one per dim, and a constant index
/// into a static dim in range. Returns the buffer's dims and element type.
fn check_access(ctx: &Context, op: OpId, buf: Value, idx: &[Value]) -> Result<(Vec<Dim>, Type), Diagnostic> {
    let (shape, elem) = buffer_of(ctx, op, buf)?;
    if idx.len() != shape.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects {} index operand{}, one per buffer dim, but got {}",
                shape.len(),
                plural(shape.len()),
                idx.len()
            ),
        ));
    }
    for (d, (&v, dim)) in idx.iter().zip(&shape).enumerate() {
        if let (Some(c), Dim::Static(n)) = (constant_int(ctx, v), dim) {
            if c < 0 || c as u64 >= *n {
                return Err(op_error(ctx, op, format!("constant index {c} is out of range for dim {d} of size {n}")));
            }
        }
    }
    Ok((shape, elem))
}

/// Checks that `v` (`what`) has the buffer's element type `elem`.
fn check_value_type(ctx: &Context, op: OpId, v: Value, elem: Type, what: &str) -> VResult {
    let t = ctx.value_type(v);
    if t != elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "{what} type '{}' does not match the buffer element type '{}'",
                ctx.type_to_string(t),
                ctx.type_to_string(elem)
            ),
        ));
    }
    Ok(())
}

/// Parses `%b[%i, %j]`; returns the buffer and the indices.
fn parse_access(
    p: &mut OpParser<'_>,
) -> PResult<(morf_ir::asm::parser::UnresolvedOperand, Vec<morf_ir::asm::parser::UnresolvedOperand>)> {
    let b = p.parse_operand()?;
    p.expect_punct("[")?;
    let idx = p.parse_operand_list()?;
    p.expect_punct("]")?;
    Ok((b, idx))
}

/// Parses `attr-dict : !mloop.buffer<...>` and checks that the type is a buffer.
fn parse_buffer_type(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<(Type, Type)> {
    p.parse_optional_attr_dict(st)?;
    p.expect_punct(":")?;
    let loc = p.loc();
    let t = p.parse_type()?;
    match buffer_parts(p.ctx, t) {
        Some((_, e)) => Ok((t, e)),
        None => Err(p.error_at(loc, format!("expected a '!mloop.buffer' type, got '{}'", p.ctx.type_to_string(t)))),
    }
}

/// Prints `%b[%i, %j]` for buffer `buf` and indices `idx`.
fn print_access(p: &mut OpPrinter<'_>, buf: Value, idx: &[Value]) {
    p.print_operand(buf);
    p.write("[");
    p.print_operands(idx);
    p.write("]");
}

/// Prints ` %v, %b[%i, %j] attr-dict : T` with `T` the type of buffer `buf`.
fn print_value_access(p: &mut OpPrinter<'_>, op: OpId, v: Value, buf: Value, idx: &[Value], elided: &[&str]) {
    p.write(" ");
    p.print_operand(v);
    p.write(", ");
    print_access(p, buf, idx);
    print_attrs_and_type(p, op, buf, elided);
}

/// Prints ` attr-dict : T` with `T` the type of `v`.
fn print_attrs_and_type(p: &mut OpPrinter<'_>, op: OpId, v: Value, elided: &[&str]) {
    p.print_optional_attr_dict(op, elided);
    p.write(" : ");
    p.print_type(p.ctx.value_type(v));
}

// ----- dim -----

define_op! {
    /// The run-time size of one dim: `%d = mloop.dim %b, 0 : !mloop.buffer<?x?xbf16>` gives an
    /// `index`. Attribute `index`: the dim, an integer in `[0, rank)`.
    pub struct DimOp("mloop.dim") {
        summary: "the size of one dim of a buffer",
        traits: [PURE],
        operands: [source: Buffer],
        results: [result: Index],
        attrs: [index: IntAttr],
        verify: verify_dim,
        format: (parse_dim, print_dim),
        fold: fold_dim,
        interpret: interpret_dim,
    }
}

fn dim_index(ctx: &Context, op: OpId) -> Result<i64, Diagnostic> {
    DimOp(op).index(ctx).ok_or_else(|| op_error(ctx, op, "requires an integer attribute 'index'"))
}

fn verify_dim(ctx: &Context, op: OpId) -> VResult {
    let d = DimOp(op);
    let (shape, _) = buffer_of(ctx, op, d.source(ctx))?;
    let i = dim_index(ctx, op)?;
    if i < 0 || i as usize >= shape.len() {
        return Err(op_error(ctx, op, format!("dim index {i} is out of range for a buffer of rank {}", shape.len())));
    }
    Ok(())
}

fn parse_dim(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let b = p.parse_operand()?;
    p.expect_punct(",")?;
    let i = p.parse_integer()?;
    let a = p.ctx.i64_attr(i);
    st.attrs.push(("index".into(), a));
    let (t, _) = parse_buffer_type(p, st)?;
    st.operands = vec![p.resolve_operand(&b, t)?];
    st.result_types = vec![p.ctx.index_type()];
    Ok(())
}

fn print_dim(p: &mut OpPrinter<'_>, op: OpId) {
    let source = DimOp(op).source(p.ctx);
    p.write(" ");
    p.print_operand(source);
    let i = dim_index(p.ctx, op).unwrap_or(-1);
    p.write(&format!(", {i}"));
    print_attrs_and_type(p, op, source, &["index"]);
}

fn fold_dim(ctx: &mut Context, op: OpId, _: &[Option<Attr>]) -> Option<Vec<FoldResult>> {
    let i = dim_index(ctx, op).ok()?;
    let (shape, _) = buffer_parts(ctx, ctx.value_type(DimOp(op).source(ctx)))?;
    let n = shape.get(usize::try_from(i).ok()?)?.as_static()?;
    let t = ctx.index_type();
    Some(vec![FoldResult::Constant(ctx.int_attr(n as i64, t))])
}

fn interpret_dim(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let i = dim_index(ctx, op)?;
    let d = DimOp(op);
    let b = buffer(m, ctx, op, d.source(ctx))?;
    let n =
        b.borrow().shape.get(i as usize).copied().ok_or_else(|| op_error(ctx, op, format!("dim {i} out of range")))?;
    m.set(d.result(ctx), RtValue::Int(n as i64));
    Ok(())
}

// ----- alloc -----

define_op! {
    /// A new buffer: `%b = mloop.alloc(%m, %n) : !mloop.buffer<?x?xf32>`, with one `index` size
    /// per dynamic dim, in order. Its contents are undefined (the interpreter fills NaN).
    pub struct AllocOp("mloop.alloc") {
        summary: "allocates a buffer with undefined contents",
        variadic: sizes: Index,
        results: [buffer: Buffer],
        verify: verify_alloc,
        format: (parse_alloc, print_alloc),
        interpret: interpret_alloc,
    }
}

fn verify_alloc(ctx: &Context, op: OpId) -> VResult {
    let a = AllocOp(op);
    let (shape, _) = buffer_of(ctx, op, a.buffer(ctx))?;
    let want = shape.iter().filter(|d| matches!(d, Dim::Dynamic)).count();
    let sizes = a.sizes(ctx);
    if sizes.len() != want {
        return Err(op_error(
            ctx,
            op,
            format!("expects {want} size operand{}, one per dynamic dim, but got {}", plural(want), sizes.len()),
        ));
    }
    Ok(())
}

fn parse_alloc(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let sizes = super::parse_paren_operands(p)?;
    let (t, _) = parse_buffer_type(p, st)?;
    st.operands = resolve_indices(p, &sizes)?;
    st.result_types = vec![t];
    Ok(())
}

fn print_alloc(p: &mut OpPrinter<'_>, op: OpId) {
    let a = AllocOp(op);
    let sizes = a.sizes(p.ctx).to_vec();
    p.write("(");
    p.print_operands(&sizes);
    p.write(")");
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(a.buffer(p.ctx)));
}

fn interpret_alloc(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = AllocOp(op);
    let r = a.buffer(ctx);
    let (dims, elem) = buffer_parts(ctx, ctx.value_type(r))
        .ok_or_else(|| op_error(ctx, op, "interpreter: expected a buffer result"))?;
    let mut sizes = a.sizes(ctx).iter();
    let mut shape = Vec::with_capacity(dims.len());
    for (i, d) in dims.iter().enumerate() {
        match d {
            Dim::Static(n) => shape.push(*n as usize),
            Dim::Dynamic => {
                let v = sizes.next().ok_or_else(|| op_error(ctx, op, "interpreter: missing size operand"))?;
                let n = m.int(ctx, op, *v)?;
                if n < 0 {
                    return Err(op_error(ctx, op, format!("size {n} for dim {i} is negative")));
                }
                shape.push(n as usize);
            }
        }
    }
    checked_elements(ctx, op, &shape)?;
    let data = Rc::new(RefCell::new(Array::splat(shape, f64::NAN)));
    m.set(r, RtValue::Buffer { elem, data });
    Ok(())
}

// ----- constant_buffer -----

define_op! {
    /// A new buffer holding constants:
    /// `%k = mloop.constant_buffer dense<[1.0, 2.0]> : !mloop.buffer<2xf32>`.
    ///
    /// Attribute `value`: a dense (or splat) elements attribute of the buffer's static shape and
    /// element type; the parser stores it with the equivalent tensor type
    /// (`dense<[1.0, 2.0]> : tensor<2xf32>`). Each execution makes a fresh buffer.
    pub struct ConstantBufferOp("mloop.constant_buffer") {
        summary: "a new buffer initialized from a dense elements attribute",
        results: [buffer: Buffer],
        attrs: [value: AnyAttr],
        verify: verify_constant_buffer,
        format: (parse_constant_buffer, print_constant_buffer),
        interpret: interpret_constant_buffer,
    }
}

fn verify_constant_buffer(ctx: &Context, op: OpId) -> VResult {
    let c = ConstantBufferOp(op);
    let (shape, elem) = buffer_of(ctx, op, c.buffer(ctx))?;
    if shape.iter().any(|d| matches!(d, Dim::Dynamic)) {
        return Err(op_error(ctx, op, "result must have a static shape"));
    }
    let Some(a) = c.value(ctx) else {
        return Ok(());
    };
    let AttrData::Dense { ty, .. } = ctx.attr_data(a) else {
        return Err(op_error(ctx, op, "requires 'value' to be a dense elements attribute"));
    };
    let (ashape, aelem) = (ctx.shape_of(*ty).unwrap_or(&[]), ctx.element_type(*ty));
    if ashape != shape.as_slice() || aelem != elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "type of 'value' ('{}') does not match the result shape and element type ('{}')",
                ctx.type_to_string(*ty),
                ctx.type_to_string(ctx.value_type(c.buffer(ctx)))
            ),
        ));
    }
    Ok(())
}

fn parse_constant_buffer(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let loc = p.loc();
    let a = p.parse_attribute()?;
    let AttrData::Dense { ty, values, splat } = p.ctx.attr_data(a).clone() else {
        return Err(p.error_at(loc, "expected a dense elements attribute such as 'dense<1.0> : !mloop.buffer<4xf32>'"));
    };
    let Some((shape, elem)) = buffer_parts(p.ctx, ty).map(|(s, e)| (s.to_vec(), e)) else {
        return Err(p.error_at(loc, "expected the elements literal to have a '!mloop.buffer' type"));
    };
    // Keep the attribute in tensor form, so the generic form is plain MLIR.
    let tt = p.ctx.tensor_type(&shape, elem);
    let v = p.ctx.intern_attr(AttrData::Dense { ty: tt, values, splat });
    st.attrs.push(("value".into(), v));
    st.result_types = vec![ty];
    Ok(())
}

fn print_constant_buffer(p: &mut OpPrinter<'_>, op: OpId) {
    let c = ConstantBufferOp(op);
    p.print_optional_attr_dict(op, &["value"]);
    if let Some(a) = c.value(p.ctx) {
        let s = p.ctx.attr_to_string(a);
        // `dense<...> : tensor<...>`: keep the literal, write the buffer type instead.
        let body = s.rfind(" : ").map_or(s.as_str(), |i| &s[..i]).to_string();
        p.write(" ");
        p.write(&body);
    }
    p.write(" : ");
    p.print_type(p.ctx.value_type(c.buffer(p.ctx)));
}

fn interpret_constant_buffer(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let c = ConstantBufferOp(op);
    let r = c.buffer(ctx);
    let (dims, elem) = buffer_parts(ctx, ctx.value_type(r))
        .ok_or_else(|| op_error(ctx, op, "interpreter: expected a buffer result"))?;
    let shape: Vec<usize> = dims.iter().map(|d| d.as_static().unwrap_or(0) as usize).collect();
    let n = checked_elements(ctx, op, &shape)?;
    let a = c.value(ctx).ok_or_else(|| op_error(ctx, op, "requires attribute 'value'"))?;
    let data = ctx
        .dense_values(a, n)
        .filter(|d| d.len() == n)
        .ok_or_else(|| op_error(ctx, op, "interpreter: malformed 'value'"))?;
    m.set(r, RtValue::Buffer { elem, data: Rc::new(RefCell::new(Array::new(shape, data))) });
    Ok(())
}

// ----- dealloc -----

define_op! {
    /// Frees a buffer: `mloop.dealloc %b : !mloop.buffer<?x?xf32>`.
    ///
    /// The verifier rejects any use of the buffer after the `dealloc` in the same block
    /// (including uses nested in later ops) and a second `dealloc`.
    pub struct DeallocOp("mloop.dealloc") {
        summary: "frees a buffer",
        operands: [buffer: Buffer],
        verify: verify_dealloc,
        format: (parse_dealloc, print_dealloc),
        interpret: interpret_dealloc,
    }
}

fn verify_dealloc(ctx: &Context, op: OpId) -> VResult {
    let b = DeallocOp(op).buffer(ctx);
    let Some(block) = ctx.op_parent_block(op) else {
        return Ok(());
    };
    // For each other use, the ancestor of its user that lives in this block.
    let mut later: Vec<(OpId, OpId)> = Vec::new();
    for u in ctx.uses(b) {
        if u.op == op {
            continue;
        }
        let mut cur = Some(u.op);
        while let Some(c) = cur {
            if ctx.op_parent_block(c) == Some(block) {
                later.push((c, u.op));
                break;
            }
            cur = ctx.parent_op(c);
        }
    }
    if later.is_empty() {
        return Ok(());
    }
    let mut cur = ctx.next_op(op);
    while let Some(c) = cur {
        if let Some(&(_, user)) = later.iter().find(|(a, _)| *a == c) {
            let e = if ctx.isa::<DeallocOp>(user) {
                op_error(ctx, user, "deallocates a buffer that is already deallocated")
            } else {
                op_error(ctx, user, "uses a buffer after its 'mloop.dealloc'")
            };
            return Err(e.with_note(ctx.op_loc(op), "deallocated here"));
        }
        cur = ctx.next_op(c);
    }
    Ok(())
}

fn parse_dealloc(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let b = p.parse_operand()?;
    let (t, _) = parse_buffer_type(p, st)?;
    st.operands = vec![p.resolve_operand(&b, t)?];
    Ok(())
}

fn print_dealloc(p: &mut OpPrinter<'_>, op: OpId) {
    let b = DeallocOp(op).buffer(p.ctx);
    p.write(" ");
    p.print_operand(b);
    print_attrs_and_type(p, op, b, &[]);
}

fn interpret_dealloc(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    // Memory is reclaimed when the last handle goes; the verifier rules out later uses.
    buffer(m, ctx, op, DeallocOp(op).buffer(ctx)).map(|_| ())
}

// ----- load -----

define_op! {
    /// Reads one element: `%v = mloop.load %b[%i, %j] : !mloop.buffer<?x?xbf16>` gives a `bf16`.
    /// A rank-0 buffer is read as `%b[]`.
    pub struct LoadOp("mloop.load") {
        summary: "reads one element of a buffer",
        operands: [buffer: Buffer],
        variadic: indices: Index,
        results: [value: AnyType],
        verify: verify_load,
        format: (parse_load, print_load),
        interpret: interpret_load,
    }
}

fn verify_load(ctx: &Context, op: OpId) -> VResult {
    let l = LoadOp(op);
    let (_, elem) = check_access(ctx, op, l.buffer(ctx), l.indices(ctx))?;
    let rt = ctx.value_type(l.value(ctx));
    if rt != elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match the buffer element type '{}'",
                ctx.type_to_string(rt),
                ctx.type_to_string(elem)
            ),
        ));
    }
    Ok(())
}

fn parse_load(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let (b, idx) = parse_access(p)?;
    let (t, e) = parse_buffer_type(p, st)?;
    let mut ops = vec![p.resolve_operand(&b, t)?];
    ops.extend(resolve_indices(p, &idx)?);
    st.operands = ops;
    st.result_types = vec![e];
    Ok(())
}

fn print_load(p: &mut OpPrinter<'_>, op: OpId) {
    let l = LoadOp(op);
    p.write(" ");
    print_access(p, l.buffer(p.ctx), l.indices(p.ctx));
    print_attrs_and_type(p, op, l.buffer(p.ctx), &[]);
}

fn interpret_load(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let l = LoadOp(op);
    let v = {
        let RtValue::Buffer { data, .. } = m.get(ctx, l.buffer(ctx))? else {
            return Err(op_error(ctx, op, "interpreter: expected a buffer operand"));
        };
        let d = data.borrow();
        d.data[offset(m, ctx, op, l.indices(ctx), &d.shape)?]
    };
    let r = l.value(ctx);
    m.set(r, scalar_value(ctx, ctx.value_type(r), v));
    Ok(())
}

// ----- store -----

define_op! {
    /// Writes one element: `mloop.store %v, %b[%i, %j] : !mloop.buffer<?x?xbf16>`; `%v` has
    /// the element type.
    pub struct StoreOp("mloop.store") {
        summary: "writes one element of a buffer",
        operands: [value: AnyType, buffer: Buffer],
        variadic: indices: Index,
        verify: verify_store,
        format: (parse_store, print_store),
        interpret: interpret_store,
    }
}

fn verify_store(ctx: &Context, op: OpId) -> VResult {
    let s = StoreOp(op);
    let (_, elem) = check_access(ctx, op, s.buffer(ctx), s.indices(ctx))?;
    check_value_type(ctx, op, s.value(ctx), elem, "stored value")
}

/// Parses `%v, %b[%i, %j] attr-dict : T` into operands `(v, b, indices...)`.
fn parse_value_access(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let (b, idx) = parse_access(p)?;
    let (t, e) = parse_buffer_type(p, st)?;
    let mut ops = vec![p.resolve_operand(&v, e)?, p.resolve_operand(&b, t)?];
    ops.extend(resolve_indices(p, &idx)?);
    st.operands = ops;
    Ok(())
}

fn print_store(p: &mut OpPrinter<'_>, op: OpId) {
    let s = StoreOp(op);
    print_value_access(p, op, s.value(p.ctx), s.buffer(p.ctx), s.indices(p.ctx), &[]);
}

fn parse_store(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_value_access(p, st)
}

fn interpret_store(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let s = StoreOp(op);
    let v = scalar(m, ctx, op, s.value(ctx))?;
    let RtValue::Buffer { data, .. } = m.get(ctx, s.buffer(ctx))? else {
        return Err(op_error(ctx, op, "interpreter: expected a buffer operand"));
    };
    let mut d = data.borrow_mut();
    let off = offset(m, ctx, op, s.indices(ctx), &d.shape)?;
    d.data[off] = v;
    Ok(())
}

// ----- accumulate -----

define_op! {
    /// A partial accumulation: `mloop.accumulate sum %v, %w[%s, %j] : !mloop.buffer<?x?xf32>`
    /// sets `w[s, j] = w[s, j] (+) v`, rounded to the element type. Attribute `kind`: `sum`,
    /// `max`, `min` or `prod`. Updates of one element commute, so they may be reordered.
    pub struct AccumulateOp("mloop.accumulate") {
        summary: "combines a value into one element of a buffer",
        operands: [value: AnyType, buffer: Buffer],
        variadic: indices: Index,
        attrs: [kind: StrAttr],
        verify: verify_accumulate,
        format: (parse_accumulate, print_accumulate),
        interpret: interpret_accumulate,
    }
}

fn verify_accumulate(ctx: &Context, op: OpId) -> VResult {
    let a = AccumulateOp(op);
    kind_of(ctx, op)?;
    let (_, elem) = check_access(ctx, op, a.buffer(ctx), a.indices(ctx))?;
    check_value_type(ctx, op, a.value(ctx), elem, "accumulated value")
}

fn parse_accumulate(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    super::parse_keyword_attr(p, st, "kind", "combiner (sum, max, min or prod)")?;
    parse_value_access(p, st)
}

fn print_accumulate(p: &mut OpPrinter<'_>, op: OpId) {
    let a = AccumulateOp(op);
    let k = a.kind(p.ctx).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&k);
    print_value_access(p, op, a.value(p.ctx), a.buffer(p.ctx), a.indices(p.ctx), &["kind"]);
}

fn interpret_accumulate(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let a = AccumulateOp(op);
    let kind = kind_of(ctx, op)?;
    let v = scalar(m, ctx, op, a.value(ctx))?;
    let RtValue::Buffer { data, elem } = m.get(ctx, a.buffer(ctx))? else {
        return Err(op_error(ctx, op, "interpreter: expected a buffer operand"));
    };
    let mut d = data.borrow_mut();
    let off = offset(m, ctx, op, a.indices(ctx), &d.shape)?;
    d.data[off] = ctx.round_to_type(*elem, kind.function().eval(d.data[off], v));
    Ok(())
}

// ----- fill -----

define_op! {
    /// Sets every element: `mloop.fill %v, %b : !mloop.buffer<?x?xf32>`; `%v` has the element
    /// type.
    pub struct FillOp("mloop.fill") {
        summary: "sets every element of a buffer",
        operands: [value: AnyType, buffer: Buffer],
        verify: verify_fill,
        format: (parse_fill, print_fill),
        interpret: interpret_fill,
    }
}

fn verify_fill(ctx: &Context, op: OpId) -> VResult {
    let f = FillOp(op);
    let (_, elem) = buffer_of(ctx, op, f.buffer(ctx))?;
    check_value_type(ctx, op, f.value(ctx), elem, "fill value")
}

fn parse_fill(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let b = p.parse_operand()?;
    let (t, e) = parse_buffer_type(p, st)?;
    st.operands = vec![p.resolve_operand(&v, e)?, p.resolve_operand(&b, t)?];
    Ok(())
}

fn print_fill(p: &mut OpPrinter<'_>, op: OpId) {
    let f = FillOp(op);
    let (v, b) = (f.value(p.ctx), f.buffer(p.ctx));
    p.write(" ");
    p.print_operands(&[v, b]);
    print_attrs_and_type(p, op, b, &[]);
}

fn interpret_fill(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let f = FillOp(op);
    let v = scalar(m, ctx, op, f.value(ctx))?;
    let b = buffer(m, ctx, op, f.buffer(ctx))?;
    b.borrow_mut().data.iter_mut().for_each(|x| *x = v);
    Ok(())
}
