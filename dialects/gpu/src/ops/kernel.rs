//! Kernels and launches: `func` (a kernel or device function), its terminator `return`, and
//! `launch`, which runs a kernel from a host function.

use morf_ir::asm::formats::{parse_symbol_name, print_symbol_name};
use morf_ir::asm::lexer::Tok;
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::{func_type, op_error, symbol_name};
use morf_ir::interp::{InterpResult, Machine};
use morf_ir::{AttrData, Context, OpId, OpInfo, OperationState, Traits, Type, TypeData};

use super::{expect_index, expect_results, plural, VResult};
use crate::types::ptr_parts;

// ----- func -----

/// A kernel (with the `kernel` keyword) or device function:
///
/// ```mlir
/// mgpu.func @k(%x: !mgpu.ptr<bf16>, %n: index) kernel attributes {max_threads = 256 : i64} {
///   ...
///   mgpu.return
/// }
/// ```
///
/// Attributes: `sym_name`, `function_type` (no results), the unit attribute `kernel`, and
/// optionally `max_threads` (the launch bounds). Parameters are pointers and scalars.
pub fn func() -> OpInfo {
    OpInfo::new("mgpu.func", "a GPU kernel or device function")
        .traits(Traits::ISOLATED_FROM_ABOVE | Traits::SYMBOL | Traits::SINGLE_BLOCK)
        .verify(verify_func)
        .format(parse_func, print_func)
}

/// Finds the `mgpu.func` named `name` directly inside `module`.
pub fn lookup_kernel(ctx: &Context, module: OpId, name: &str) -> Option<OpId> {
    let r = *ctx.regions(module).first()?;
    let b = ctx.entry_block(r)?;
    ctx.block_ops(b).find(|o| ctx.op_name(*o) == "mgpu.func" && symbol_name(ctx, *o) == Some(name))
}

/// Whether the `mgpu.func` `f` carries the `kernel` unit attribute.
pub fn is_kernel(ctx: &Context, f: OpId) -> bool {
    ctx.attr(f, "kernel").is_some()
}

/// The `max_threads` bound of the `mgpu.func` `f`, if any.
pub fn max_threads(ctx: &Context, f: OpId) -> Option<i64> {
    ctx.attr(f, "max_threads").and_then(|a| ctx.attr_int(a))
}

fn verify_func(ctx: &Context, op: OpId) -> VResult {
    if symbol_name(ctx, op).is_none() {
        return Err(op_error(ctx, op, "requires a string attribute 'sym_name'"));
    }
    let Some(fty) = func_type(ctx, op) else {
        return Err(op_error(ctx, op, "requires a type attribute 'function_type'"));
    };
    let Some((ins, outs)) = ctx.function_parts(fty) else {
        return Err(op_error(ctx, op, "requires 'function_type' to be a function type"));
    };
    if !outs.is_empty() {
        return Err(op_error(ctx, op, format!("must have no results, but its type has {}", outs.len())));
    }
    if let Some(a) = ctx.attr(op, "kernel") {
        if !matches!(ctx.attr_data(a), AttrData::Unit) {
            return Err(op_error(ctx, op, "expects 'kernel' to be a unit attribute"));
        }
    }
    if let Some(a) = ctx.attr(op, "max_threads") {
        match ctx.attr_int(a) {
            Some(n) if (1..=1024).contains(&n) => {}
            _ => return Err(op_error(ctx, op, "expects 'max_threads' to be an integer in 1..=1024")),
        }
    }
    if ctx.regions(op).len() != 1 || !ctx.operands(op).is_empty() || !ctx.results(op).is_empty() {
        return Err(op_error(ctx, op, "expects one region, no operands and no results"));
    }
    let Some(b) = ctx.entry_block(ctx.regions(op)[0]) else {
        return Err(op_error(ctx, op, "expects a body"));
    };
    let args = ctx.block_args(b);
    if args.len() != ins.len() {
        return Err(op_error(
            ctx,
            op,
            format!("entry block must have {} arguments to match the function signature", ins.len()),
        ));
    }
    for (i, (a, t)) in args.iter().zip(ins).enumerate() {
        if ctx.value_type(*a) != *t {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "type of entry block argument #{i} ('{}') must match the signature ('{}')",
                    ctx.type_to_string(ctx.value_type(*a)),
                    ctx.type_to_string(*t)
                ),
            ));
        }
        let ok = ptr_parts(ctx, *t).is_some_and(|(_, space)| space == 0)
            || matches!(ctx.type_data(*t), TypeData::Index | TypeData::Integer(_) | TypeData::Float(_));
        if !ok {
            return Err(op_error(
                ctx,
                op,
                format!("parameter #{i} must be a global '!mgpu.ptr' or a scalar, got '{}'", ctx.type_to_string(*t)),
            ));
        }
    }
    Ok(())
}

fn parse_func(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = parse_symbol_name(p, "kernel name")?;
    let args: Vec<_> = p.parse_argument_list()?;
    if args.iter().any(|a| a.0.is_empty()) {
        return Err(p.error("a kernel needs named arguments ('%name: type')"));
    }
    let inputs: Vec<Type> = args.iter().map(|a| a.1).collect();
    let fty = p.ctx.function_type(&inputs, &[]);
    let (n, t) = (p.ctx.str_attr(&name), p.ctx.type_attr(fty));
    st.attrs.push(("sym_name".into(), n));
    st.attrs.push(("function_type".into(), t));
    if p.parse_optional_keyword("kernel")? {
        let u = p.ctx.unit_attr();
        st.attrs.push(("kernel".into(), u));
    }
    p.parse_optional_attr_dict_with_keyword(st)?;
    let r = p.parse_region(&args, true)?;
    if p.ctx.region_blocks(r).next().is_none() {
        return Err(p.error_at(st.loc, "'mgpu.func' op body must not be empty"));
    }
    st.regions.push(r);
    Ok(())
}

fn print_func(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    print_symbol_name(p, op);
    let Some(&r) = ctx.regions(op).first() else {
        return;
    };
    match ctx.entry_block(r) {
        Some(b) => p.print_block_arg_list(b),
        None => p.write("()"),
    }
    let kernel = ctx.attr(op, "kernel").is_some_and(|a| matches!(ctx.attr_data(a), AttrData::Unit));
    if kernel {
        p.write(" kernel");
    }
    let elided: &[&str] =
        if kernel { &["sym_name", "function_type", "kernel"] } else { &["sym_name", "function_type"] };
    p.print_optional_attr_dict_with_keyword(op, elided);
    p.write(" ");
    p.print_region(r, false);
}

// ----- return -----

/// Ends an `mgpu.func`: `mgpu.return`.
pub fn return_() -> OpInfo {
    OpInfo::new("mgpu.return", "ends a kernel")
        .traits(Traits::TERMINATOR)
        .verify(verify_return)
        .format(parse_return, print_return)
        .interpret(super::interpret_in_kernel_only)
}

fn verify_return(ctx: &Context, op: OpId) -> VResult {
    super::expect_counts(ctx, op, 0, 0)?;
    match ctx.parent_op(op) {
        Some(f) if ctx.op_name(f) == "mgpu.func" => Ok(()),
        _ => Err(op_error(ctx, op, "expects parent op 'mgpu.func'")),
    }
}

fn parse_return(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)
}

fn print_return(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
}

// ----- launch -----

/// Runs a kernel from a host function:
///
/// ```mlir
/// mgpu.launch @k blocks(%g) threads(%t) shared(%s) args(%xb, %n) : !mloop.buffer<?x?xbf16>, index
/// ```
///
/// Attribute `kernel` (a symbol reference to an `mgpu.func` with `kernel`). Operands:
/// `blocks`, `threads`, `shared` (index; `shared` is dynamic shared memory in bytes), then one
/// per kernel parameter: a `!mloop.buffer` (any rank) for a pointer parameter of the same
/// element type, passed as a pointer to its first element (row-major), or a scalar of the
/// parameter's type.
pub fn launch() -> OpInfo {
    OpInfo::new("mgpu.launch", "runs a kernel on a 1-D grid of 1-D blocks")
        .verify(verify_launch)
        .format(parse_launch, print_launch)
        .interpret(interpret_launch)
}

/// The kernel symbol of an `mgpu.launch`.
pub fn launch_kernel_name(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.attr(op, "kernel").and_then(|a| ctx.attr_symbol(a))
}

/// The `builtin.module` enclosing `op`.
pub fn module_of(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut cur = ctx.parent_op(op);
    while let Some(c) = cur {
        if ctx.op_name(c) == "builtin.module" {
            return Some(c);
        }
        cur = ctx.parent_op(c);
    }
    None
}

/// Element type of a shaped dialect type named `mloop.buffer`.
pub(crate) fn buffer_elem(ctx: &Context, t: Type) -> Option<Type> {
    match ctx.type_data(t) {
        TypeData::Dialect { name, elem: Some(e), .. } if name == "mloop.buffer" => Some(*e),
        _ => None,
    }
}

fn verify_launch(ctx: &Context, op: OpId) -> VResult {
    expect_results(ctx, op, 0)?;
    let Some(name) = launch_kernel_name(ctx, op) else {
        return Err(op_error(ctx, op, "requires a symbol reference attribute 'kernel'"));
    };
    let ops = ctx.operands(op);
    if ops.len() < 3 {
        return Err(op_error(
            ctx,
            op,
            format!("expects at least 3 operands (blocks, threads, shared), but got {}", ops.len()),
        ));
    }
    expect_index(ctx, op, ops[0], "blocks")?;
    expect_index(ctx, op, ops[1], "threads")?;
    expect_index(ctx, op, ops[2], "shared")?;
    let Some(m) = module_of(ctx, op) else {
        return Ok(());
    };
    let Some(f) = lookup_kernel(ctx, m, name) else {
        return Err(op_error(ctx, op, format!("'{name}' does not reference an 'mgpu.func'")));
    };
    if !is_kernel(ctx, f) {
        return Err(op_error(ctx, op, format!("'@{name}' is not a kernel (it lacks the 'kernel' keyword)"))
            .with_note(ctx.op_loc(f), "function defined here"));
    }
    let Some((ins, _)) = func_type(ctx, f).and_then(|t| ctx.function_parts(t)) else {
        return Ok(());
    };
    let args = &ops[3..];
    if args.len() != ins.len() {
        return Err(op_error(
            ctx,
            op,
            format!("passes {} argument{}, but '@{name}' takes {}", args.len(), plural(args.len()), ins.len()),
        )
        .with_note(ctx.op_loc(f), "kernel defined here"));
    }
    for (i, (&a, &p)) in args.iter().zip(ins).enumerate() {
        let ta = ctx.value_type(a);
        let ok = match ptr_parts(ctx, p) {
            Some((e, _)) => buffer_elem(ctx, ta) == Some(e),
            None => ta == p,
        };
        if !ok {
            let want = match ptr_parts(ctx, p) {
                Some((e, _)) => format!("a '!mloop.buffer' of element type '{}'", ctx.type_to_string(e)),
                None => format!("'{}'", ctx.type_to_string(p)),
            };
            return Err(op_error(
                ctx,
                op,
                format!(
                    "argument #{i} has type '{}', but parameter #{i} of '@{name}' ('{}') needs {want}",
                    ctx.type_to_string(ta),
                    ctx.type_to_string(p)
                ),
            )
            .with_note(ctx.op_loc(f), "kernel defined here"));
        }
    }
    Ok(())
}

fn parse_paren_operand(p: &mut OpParser<'_>, kw: &str) -> PResult<morf_ir::Value> {
    p.expect_keyword(kw)?;
    p.expect_punct("(")?;
    let o = p.parse_operand()?;
    p.expect_punct(")")?;
    let idx = p.ctx.index_type();
    p.resolve_operand(&o, idx)
}

fn parse_launch(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = match p.peek().clone() {
        Tok::AtId(n) => n,
        t => return Err(p.error(format!("expected kernel name (@name), found {}", t.describe()))),
    };
    p.parse_attribute()?;
    let blocks = parse_paren_operand(p, "blocks")?;
    let threads = parse_paren_operand(p, "threads")?;
    let shared = parse_paren_operand(p, "shared")?;
    p.expect_keyword("args")?;
    let loc = p.loc();
    p.expect_punct("(")?;
    let args = p.parse_operand_list()?;
    p.expect_punct(")")?;
    p.parse_optional_attr_dict(st)?;
    let mut tys = Vec::new();
    if p.parse_optional_punct(":")? {
        tys = p.parse_type_list()?;
    }
    let mut operands = vec![blocks, threads, shared];
    operands.extend(p.resolve_operands(&args, &tys, loc)?);
    st.operands = operands;
    let k = p.ctx.symbol_ref_attr(&name);
    st.attrs.push(("kernel".into(), k));
    Ok(())
}

fn print_launch(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let name = launch_kernel_name(ctx, op).unwrap_or("?").to_string();
    p.write(" ");
    let s = ctx.symbol_ref_attr_string(&name);
    p.write(&s);
    let ops = ctx.operands(op).to_vec();
    for (i, kw) in ["blocks", "threads", "shared"].iter().enumerate() {
        p.write(" ");
        p.write(kw);
        p.write("(");
        if let Some(&v) = ops.get(i) {
            p.print_operand(v);
        }
        p.write(")");
    }
    let args = ops.get(3..).unwrap_or(&[]);
    p.write(" args(");
    p.print_operands(args);
    p.write(")");
    p.print_optional_attr_dict(op, &["kernel"]);
    if !args.is_empty() {
        p.write(" : ");
        let tys: Vec<Type> = args.iter().map(|v| ctx.value_type(*v)).collect();
        p.print_types(&tys);
    }
}

fn interpret_launch(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    crate::sim::run_launch(m, ctx, op)
}
