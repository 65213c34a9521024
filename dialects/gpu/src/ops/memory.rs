//! Memory: scalar and vector loads and stores through `!mgpu.ptr` (global or shared),
//! static and dynamic shared memory, and the block barrier.
//!
//! Indexing is by element offset. A vector access of width `w` (2, 4 or 8 elements, at most
//! 16 bytes) must start at an offset that is a multiple of `w`; the simulator checks this and
//! the bounds of every access at run time.

use morf_ir::asm::parser::{OpParser, PResult, UnresolvedOperand};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::{AttrData, Context, OpId, OpInfo, OperationState, Traits, Type, Value};

use super::{expect_counts, expect_in_kernel, expect_index, expect_results, ptr_of, VResult};
use crate::types::{elem_bytes, ptr_parts, SHARED};

// ----- shared pieces -----

/// Checks the optional unit attribute `nc` (read-only load).
fn check_nc(ctx: &Context, op: OpId) -> VResult {
    match ctx.attr(op, "nc") {
        Some(a) if !matches!(ctx.attr_data(a), AttrData::Unit) => {
            Err(op_error(ctx, op, "expects 'nc' to be a unit attribute"))
        }
        _ => Ok(()),
    }
}

/// Checks that `v` (`what`) has the element type `elem` of the pointer.
fn expect_elem(ctx: &Context, op: OpId, v: Value, elem: Type, what: &str) -> VResult {
    let t = ctx.value_type(v);
    if t == elem {
        Ok(())
    } else {
        Err(op_error(
            ctx,
            op,
            format!(
                "{what} has type '{}', but the pointer's element type is '{}'",
                ctx.type_to_string(t),
                ctx.type_to_string(elem)
            ),
        ))
    }
}

/// Checks a vector width `w` for element type `elem`.
fn check_width(ctx: &Context, op: OpId, w: usize, elem: Type) -> VResult {
    if ![2, 4, 8].contains(&w) {
        return Err(op_error(ctx, op, format!("vector width must be 2, 4 or 8, got {w}")));
    }
    let bytes = w * elem_bytes(ctx, elem);
    if bytes > 16 {
        return Err(op_error(
            ctx,
            op,
            format!("a vector of {w} x '{}' is {bytes} bytes, more than 16", ctx.type_to_string(elem)),
        ));
    }
    Ok(())
}

/// Parses `%p[%i]`.
fn parse_access(p: &mut OpParser<'_>) -> PResult<(UnresolvedOperand, UnresolvedOperand)> {
    let ptr = p.parse_operand()?;
    let idx = parse_index(p)?;
    Ok((ptr, idx))
}

/// Parses `[%i]`.
fn parse_index(p: &mut OpParser<'_>) -> PResult<UnresolvedOperand> {
    p.expect_punct("[")?;
    let i = p.parse_operand()?;
    p.expect_punct("]")?;
    Ok(i)
}

/// Resolves a pointer and an index given the pointer type; returns them and the element type.
fn resolve_access(
    p: &mut OpParser<'_>,
    ptr: &UnresolvedOperand,
    idx: &UnresolvedOperand,
    pty: Type,
    loc: morf_ir::Loc,
) -> PResult<(Value, Value, Type)> {
    let Some((elem, _)) = ptr_parts(p.ctx, pty) else {
        return Err(p.error_at(loc, format!("expected a '!mgpu.ptr' type, got '{}'", p.ctx.type_to_string(pty))));
    };
    let pv = p.resolve_operand(ptr, pty)?;
    let it = p.ctx.index_type();
    let iv = p.resolve_operand(idx, it)?;
    Ok((pv, iv, elem))
}

/// Prints `%p[%i]`.
fn print_access(p: &mut OpPrinter<'_>, ptr: Value, idx: Value) {
    p.print_operand(ptr);
    p.write("[");
    p.print_operand(idx);
    p.write("]");
}

// ----- load -----

/// Loads one element: `%v = mgpu.load %p[%i] : !mgpu.ptr<bf16>` (result: the element type).
///
/// Operands: `ptr`, `index`. The unit attribute `nc` marks a read-only load
/// (`ld.global.nc`), as in `%v = mgpu.load %p[%i] {nc} : !mgpu.ptr<bf16>`.
pub fn load() -> OpInfo {
    OpInfo::new("mgpu.load", "loads one element through a pointer")
        .verify(verify_load)
        .format(parse_load, print_load)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_load(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 2, 1)?;
    check_nc(ctx, op)?;
    let (elem, _) = ptr_of(ctx, op, ctx.operand(op, 0), "pointer")?;
    expect_index(ctx, op, ctx.operand(op, 1), "index")?;
    expect_elem(ctx, op, ctx.result(op, 0), elem, "result")
}

fn parse_load(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    st.operands = vec![pv, iv];
    st.result_types = vec![elem];
    Ok(())
}

fn print_load(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 2 {
        return;
    }
    p.write(" ");
    print_access(p, ops[0], ops[1]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[0]));
}

// ----- store -----

/// Stores one element: `mgpu.store %v, %p[%i] : !mgpu.ptr<bf16>`.
///
/// Operands: `value` (the element type), `ptr`, `index`.
pub fn store() -> OpInfo {
    OpInfo::new("mgpu.store", "stores one element through a pointer")
        .verify(verify_store)
        .format(parse_store, print_store)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_store(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 3, 0)?;
    let (elem, _) = ptr_of(ctx, op, ctx.operand(op, 1), "pointer")?;
    expect_index(ctx, op, ctx.operand(op, 2), "index")?;
    expect_elem(ctx, op, ctx.operand(op, 0), elem, "stored value")
}

fn parse_store(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    let vv = p.resolve_operand(&v, elem)?;
    st.operands = vec![vv, pv, iv];
    Ok(())
}

fn print_store(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 3 {
        return;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    print_access(p, ops[1], ops[2]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[1]));
}

// ----- load_vec -----

/// Loads `w` consecutive elements (2, 4 or 8; at most 16 bytes):
///
/// ```mlir
/// %a, %b, %c, %d = mgpu.load_vec %p[%i] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
/// ```
///
/// Operands: `ptr`, `index` (a multiple of `w`). Results: `w` values of the element type.
pub fn load_vec() -> OpInfo {
    OpInfo::new("mgpu.load_vec", "loads 2, 4 or 8 consecutive elements")
        .verify(verify_load_vec)
        .format(parse_load_vec, print_load_vec)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_load_vec(ctx: &Context, op: OpId) -> VResult {
    let w = ctx.results(op).len();
    expect_counts(ctx, op, 2, w)?;
    check_nc(ctx, op)?;
    let (elem, _) = ptr_of(ctx, op, ctx.operand(op, 0), "pointer")?;
    expect_index(ctx, op, ctx.operand(op, 1), "index")?;
    check_width(ctx, op, w, elem)?;
    for (i, &r) in ctx.results(op).iter().enumerate() {
        expect_elem(ctx, op, r, elem, &format!("result #{i}"))?;
    }
    Ok(())
}

fn parse_load_vec(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    p.expect_punct("->")?;
    let tys = p.parse_type_list()?;
    let (pv, iv, _) = resolve_access(p, &ptr, &idx, pty, loc)?;
    st.operands = vec![pv, iv];
    st.result_types = tys;
    Ok(())
}

fn print_load_vec(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 2 {
        return;
    }
    p.write(" ");
    print_access(p, ops[0], ops[1]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[0]));
    p.write(" -> ");
    let tys: Vec<Type> = p.ctx.results(op).iter().map(|v| p.ctx.value_type(*v)).collect();
    p.print_types(&tys);
}

// ----- store_vec -----

/// Stores `w` consecutive elements (2, 4 or 8; at most 16 bytes):
///
/// ```mlir
/// mgpu.store_vec %a, %b, %p[%i] : !mgpu.ptr<bf16>
/// ```
///
/// Operands: the `w` values (the element type), `ptr`, `index` (a multiple of `w`).
pub fn store_vec() -> OpInfo {
    OpInfo::new("mgpu.store_vec", "stores 2, 4 or 8 consecutive elements")
        .verify(verify_store_vec)
        .format(parse_store_vec, print_store_vec)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_store_vec(ctx: &Context, op: OpId) -> VResult {
    expect_results(ctx, op, 0)?;
    let ops = ctx.operands(op);
    if ops.len() < 4 {
        return Err(op_error(
            ctx,
            op,
            format!("expects the values, a pointer and an index, but got {} operands", ops.len()),
        ));
    }
    let w = ops.len() - 2;
    let (elem, _) = ptr_of(ctx, op, ops[w], "pointer")?;
    expect_index(ctx, op, ops[w + 1], "index")?;
    check_width(ctx, op, w, elem)?;
    for (i, &v) in ops[..w].iter().enumerate() {
        expect_elem(ctx, op, v, elem, &format!("stored value #{i}"))?;
    }
    Ok(())
}

fn parse_store_vec(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let mut vals = p.parse_operand_list()?;
    let Some(ptr) = vals.pop() else {
        return Err(p.error_at(loc, "expected values and a pointer"));
    };
    let idx = parse_index(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    let tys = vec![elem; vals.len()];
    let mut operands = p.resolve_operands(&vals, &tys, loc)?;
    operands.push(pv);
    operands.push(iv);
    st.operands = operands;
    Ok(())
}

fn print_store_vec(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() < 2 {
        return;
    }
    let w = ops.len() - 2;
    p.write(" ");
    for &v in &ops[..w] {
        p.print_operand(v);
        p.write(", ");
    }
    print_access(p, ops[w], ops[w + 1]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[w]));
}

// ----- shared memory -----

/// Static shared memory of `size` elements, one array per block:
///
/// ```mlir
/// %s = mgpu.shared_alloc {size = 256 : i64} : !mgpu.ptr<f32, 3>
/// ```
pub fn shared_alloc() -> OpInfo {
    OpInfo::new("mgpu.shared_alloc", "static shared memory, one array per block")
        .verify(verify_shared_alloc)
        .format(parse_typed_nullary, print_typed_nullary)
        .interpret(super::interpret_in_kernel_only)
}

/// The `size` attribute of an `mgpu.shared_alloc`.
pub fn shared_size(ctx: &Context, op: OpId) -> Option<i64> {
    ctx.attr(op, "size").and_then(|a| ctx.attr_int(a))
}

fn expect_shared_result(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 0, 1)?;
    expect_in_kernel(ctx, op)?;
    let t = ctx.value_type(ctx.result(op, 0));
    match ptr_parts(ctx, t) {
        Some((_, SHARED)) => Ok(()),
        _ => Err(op_error(
            ctx,
            op,
            format!("result must be a shared-memory pointer ('!mgpu.ptr<T, 3>'), got '{}'", ctx.type_to_string(t)),
        )),
    }
}

fn verify_shared_alloc(ctx: &Context, op: OpId) -> VResult {
    expect_shared_result(ctx, op)?;
    match shared_size(ctx, op) {
        Some(n) if n >= 1 => Ok(()),
        _ => Err(op_error(ctx, op, "requires a positive integer attribute 'size' (in elements)")),
    }
}

fn parse_typed_nullary(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let t = p.parse_colon_type()?;
    st.result_types = vec![t];
    Ok(())
}

fn print_typed_nullary(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    if let Some(&r) = p.ctx.results(op).first() {
        p.print_type(p.ctx.value_type(r));
    }
}

/// The launch's dynamic shared memory (`shared` bytes), viewed as elements of the pointer's
/// type: `%d = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>`.
pub fn dynamic_shared() -> OpInfo {
    OpInfo::new("mgpu.dynamic_shared", "the launch's dynamic shared memory")
        .traits(Traits::PURE)
        .verify(expect_shared_result)
        .format(parse_typed_nullary, print_typed_nullary)
        .interpret(super::interpret_in_kernel_only)
}

// ----- barrier -----

/// Waits until every thread of the block reaches it and makes their shared-memory writes
/// visible (`bar.sync 0`): `mgpu.barrier`. It must be reached in uniform control flow.
pub fn barrier() -> OpInfo {
    OpInfo::new("mgpu.barrier", "block-wide barrier (bar.sync 0)")
        .verify(verify_barrier)
        .format(parse_barrier, print_barrier)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_barrier(ctx: &Context, op: OpId) -> VResult {
    expect_counts(ctx, op, 0, 0)?;
    expect_in_kernel(ctx, op)
}

fn parse_barrier(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)
}

fn print_barrier(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
}
