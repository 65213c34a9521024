//! The builtin ops every context knows: `builtin.module` and the `func` dialect
//! (`func.func`, `func.return`, `func.call`).

use crate::asm::formats::{
    parse_operands_colon_types, parse_symbol_name, print_operands_colon_types, print_symbol_name,
};
use crate::asm::parser::{OpParser, PResult};
use crate::asm::printer::OpPrinter;
use crate::context::{Context, OpId, OperationState};
use crate::diag::Diagnostic;
use crate::interp::{InterpResult, Machine};
use crate::opdef::AnyType;
use crate::registry::DialectInfo;

/// Registers `builtin` and `func`.
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo { name: "builtin", summary: "the top-level module", materialize_constant: None });
    r.register_dialect(DialectInfo {
        name: "func",
        summary: "functions, calls and returns",
        materialize_constant: None,
    });
    r.register_op(ModuleOp::info());
    r.register_op(FuncOp::info());
    r.register_op(ReturnOp::info());
    r.register_op(CallOp::info());
}

crate::define_op! {
    /// `builtin.module`: a top-level container of functions.
    pub struct ModuleOp("builtin.module") {
        summary: "a top-level container of functions",
        traits: [ISOLATED_FROM_ABOVE, NO_TERMINATOR, SYMBOL_TABLE, SINGLE_BLOCK],
        regions: [body],
        verify: verify_module,
        format: (parse_module, print_module),
    }
}

crate::define_op! {
    /// `func.func @name(%a: T) -> U { ... }`: a function with a name, a signature and a body.
    pub struct FuncOp("func.func") {
        summary: "a function with a name, a signature and a body",
        traits: [ISOLATED_FROM_ABOVE, SYMBOL],
        regions: [body],
        verify: verify_func,
        format: (parse_func, print_func),
    }
}

crate::define_op! {
    /// `func.return %a : T`: returns values from a function.
    pub struct ReturnOp("func.return") {
        summary: "returns values from a function",
        traits: [TERMINATOR, PURE],
        variadic: values: AnyType,
        verify: verify_return,
        format: (parse_operands_colon_types, print_operands_colon_types),
        interpret: interpret_return,
    }
}

crate::define_op! {
    /// `%r = func.call @f(%a) : (T) -> U`: calls a function of the same module.
    pub struct CallOp("func.call") {
        summary: "calls a function of the same module",
        variadic: args: AnyType,
        variadic_results: outputs: AnyType,
        verify: verify_call,
        format: (parse_call, print_call),
        interpret: interpret_call,
    }
}

/// `'name' op message` at the op's location.
pub fn op_error(ctx: &Context, op: OpId, msg: impl AsRef<str>) -> Diagnostic {
    Diagnostic::error(ctx.op_loc(op), format!("'{}' op {}", ctx.op_name(op), msg.as_ref()))
}

/// `""` for one, `"s"` otherwise: the plural ending of a count in a message.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Checks the operand and result counts of `op`.
pub fn expect_counts(ctx: &Context, op: OpId, operands: usize, results: usize) -> Result<(), Diagnostic> {
    let n = ctx.operands(op).len();
    if n != operands {
        return Err(op_error(ctx, op, format!("expects {operands} operand{}, but got {n}", plural(operands))));
    }
    expect_results(ctx, op, results)
}

/// Checks the result count of `op`.
pub fn expect_results(ctx: &Context, op: OpId, results: usize) -> Result<(), Diagnostic> {
    let r = ctx.results(op).len();
    if r != results {
        return Err(op_error(ctx, op, format!("expects {results} result{}, but got {r}", plural(results))));
    }
    Ok(())
}

/// Checks that `op` has at least `min` operands.
pub fn expect_min_operands(ctx: &Context, op: OpId, min: usize) -> Result<(), Diagnostic> {
    let n = ctx.operands(op).len();
    if n < min {
        return Err(op_error(ctx, op, format!("expects at least {min} operand{}, but got {n}", plural(min))));
    }
    Ok(())
}

/// Whether `t` is `index`.
pub fn is_index(ctx: &Context, t: crate::types::Type) -> bool {
    matches!(ctx.type_data(t), crate::types::TypeData::Index)
}

/// Checks that `v` has type `index` (`what` names it in the error).
pub fn expect_index(ctx: &Context, op: OpId, v: crate::Value, what: &str) -> Result<(), Diagnostic> {
    let t = ctx.value_type(v);
    if is_index(ctx, t) {
        Ok(())
    } else {
        Err(op_error(ctx, op, format!("{what} must be of type 'index', got '{}'", ctx.type_to_string(t))))
    }
}

/// The string attribute `name` of `op`, or an error saying the op requires it.
pub fn expect_str_attr<'c>(ctx: &'c Context, op: OpId, name: &str) -> Result<&'c str, Diagnostic> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_str(a))
        .ok_or_else(|| op_error(ctx, op, format!("requires a string attribute '{name}'")))
}

fn parse_module(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    if let crate::asm::lexer::Tok::AtId(name) = p.peek().clone() {
        p.parse_attribute()?;
        let a = p.ctx.str_attr(&name);
        st.attrs.push(("sym_name".into(), a));
    }
    p.parse_optional_attr_dict_with_keyword(st)?;
    let r = p.parse_region(&[], true)?;
    if p.ctx.region_blocks(r).next().is_none() {
        p.ctx.create_block(r, &[]);
    }
    st.regions.push(r);
    Ok(())
}

fn print_module(p: &mut OpPrinter<'_>, op: OpId) {
    if let Some(n) = p.ctx.attr(op, "sym_name").and_then(|a| p.ctx.attr_str(a)) {
        // Quoted where it is not a bare identifier (`@"M="`), like every symbol.
        let s = p.ctx.symbol_ref_attr_string(n);
        p.write(" ");
        p.write(&s);
    }
    p.print_optional_attr_dict_with_keyword(op, &["sym_name"]);
    p.write(" ");
    let r = p.ctx.regions(op)[0];
    p.print_region(r, false);
}

fn verify_module(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if ctx.regions(op).len() != 1 {
        return Err(op_error(ctx, op, "expects one region"));
    }
    if !ctx.operands(op).is_empty() || !ctx.results(op).is_empty() {
        return Err(op_error(ctx, op, "takes no operands and has no results"));
    }
    Ok(())
}

/// The function type of a `func.func`.
pub fn func_type(ctx: &Context, op: OpId) -> Option<crate::types::Type> {
    ctx.attr(op, "function_type").and_then(|a| ctx.attr_type(a))
}

/// The symbol name of an op with a `sym_name` attribute.
pub fn symbol_name(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.attr(op, "sym_name").and_then(|a| ctx.attr_str(a))
}

/// Finds the `func.func` named `name` directly inside `module`.
pub fn lookup_function(ctx: &Context, module: OpId, name: &str) -> Option<OpId> {
    let r = *ctx.regions(module).first()?;
    let b = ctx.entry_block(r)?;
    ctx.block_ops(b).find(|o| ctx.op_name(*o) == "func.func" && symbol_name(ctx, *o) == Some(name))
}

fn parse_func(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.at_keyword("private") || p.at_keyword("public") || p.at_keyword("nested") {
        let v = p.parse_keyword("visibility")?;
        let a = p.ctx.str_attr(&v);
        st.attrs.push(("sym_visibility".into(), a));
    }
    let name = parse_symbol_name(p, "function name")?;
    let args_with_attrs = p.parse_function_argument_list()?;
    let unnamed = args_with_attrs.iter().any(|a| a.0.is_empty());
    if args_with_attrs.iter().any(|a| a.3.is_some()) {
        let empty = p.ctx.dict_attr(Vec::new());
        let v = args_with_attrs.iter().map(|a| a.3.unwrap_or(empty)).collect();
        let arr = p.ctx.array_attr(v);
        st.attrs.push(("arg_attrs".into(), arr));
    }
    let args: Vec<_> = args_with_attrs.into_iter().map(|(n, t, l, _)| (n, t, l)).collect();
    let mut results = Vec::new();
    if p.parse_optional_punct("->")? {
        if p.parse_optional_punct("(")? {
            if !p.at_punct(")") {
                results = p.parse_type_list()?;
            }
            p.expect_punct(")")?;
        } else {
            results.push(p.parse_type()?);
        }
    }
    let inputs: Vec<_> = args.iter().map(|a| a.1).collect();
    let fty = p.ctx.function_type(&inputs, &results);
    let (n, t) = (p.ctx.str_attr(&name), p.ctx.type_attr(fty));
    st.attrs.push(("sym_name".into(), n));
    st.attrs.push(("function_type".into(), t));
    p.parse_optional_attr_dict_with_keyword(st)?;
    if p.at_punct("{") {
        if unnamed {
            return Err(p.error("a function with a body needs named arguments ('%name: type')"));
        }
        let r = p.parse_region(&args, true)?;
        if p.ctx.region_blocks(r).next().is_none() {
            return Err(p.error_at(st.loc, "'func.func' op body must not be empty; omit the braces for a declaration"));
        }
        st.regions.push(r);
    } else {
        let r = p.ctx.create_region();
        st.regions.push(r);
    }
    Ok(())
}

fn print_func(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    if let Some(v) = ctx.attr(op, "sym_visibility").and_then(|a| ctx.attr_str(a)) {
        p.write(" ");
        p.write(v);
    }
    print_symbol_name(p, op);
    let fty = func_type(ctx, op).unwrap_or_else(|| panic!("verified func without function_type"));
    let (ins, outs) = ctx.function_parts(fty).map(|(a, b)| (a.to_vec(), b.to_vec())).unwrap_or_default();
    let r = ctx.regions(op)[0];
    let entry = ctx.entry_block(r);
    let arg_attrs: Vec<crate::attrs::Attr> =
        ctx.attr(op, "arg_attrs").and_then(|a| ctx.attr_array(a)).map(|a| a.to_vec()).unwrap_or_default();
    match entry {
        Some(b) => p.print_block_arg_list_with_attrs(b, &arg_attrs),
        None => {
            p.write("(");
            p.print_types(&ins);
            p.write(")");
        }
    }
    if !outs.is_empty() {
        p.write(" -> ");
        if outs.len() == 1 && !matches!(ctx.type_data(outs[0]), crate::types::TypeData::Function { .. }) {
            p.print_type(outs[0]);
        } else {
            p.write("(");
            p.print_types(&outs);
            p.write(")");
        }
    }
    p.print_optional_attr_dict_with_keyword(op, &["sym_name", "function_type", "sym_visibility", "arg_attrs"]);
    if entry.is_some() {
        p.write(" ");
        p.print_region(r, false);
    }
}

fn verify_func(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(name) = symbol_name(ctx, op) else {
        return Err(op_error(ctx, op, "requires a string attribute 'sym_name'"));
    };
    let _ = name;
    if let Some(a) = ctx.attr(op, "arg_attrs") {
        let ok = ctx.attr_array(a).is_some_and(|items| {
            items.iter().all(|d| matches!(ctx.attr_data(*d), crate::attrs::AttrData::Dict(_)))
                && Some(items.len()) == func_type(ctx, op).and_then(|t| ctx.function_parts(t)).map(|f| f.0.len())
        });
        if !ok {
            return Err(op_error(ctx, op, "expects 'arg_attrs' to be an array of one dictionary per argument"));
        }
    }
    let Some(fty) = func_type(ctx, op) else {
        return Err(op_error(ctx, op, "requires a type attribute 'function_type'"));
    };
    let Some((ins, _)) = ctx.function_parts(fty) else {
        return Err(op_error(ctx, op, "requires 'function_type' to be a function type"));
    };
    if ctx.regions(op).len() != 1 || !ctx.operands(op).is_empty() || !ctx.results(op).is_empty() {
        return Err(op_error(ctx, op, "expects one region, no operands and no results"));
    }
    if let Some(b) = ctx.entry_block(ctx.regions(op)[0]) {
        let args = ctx.block_args(b);
        if args.len() != ins.len() {
            return Err(op_error(
                ctx,
                op,
                format!("entry block must have {} arguments to match function signature", ins.len()),
            ));
        }
        for (i, (a, t)) in args.iter().zip(ins).enumerate() {
            if ctx.value_type(*a) != *t {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "type of entry block argument #{i}('{}') must match the type of the corresponding argument in function signature('{}')",
                        ctx.type_to_string(ctx.value_type(*a)),
                        ctx.type_to_string(*t)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn verify_return(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(f) = ctx.parent_op(op).filter(|f| ctx.op_name(*f) == "func.func") else {
        return Err(op_error(ctx, op, "expects parent op 'func.func'"));
    };
    let Some((_, outs)) = func_type(ctx, f).and_then(|t| ctx.function_parts(t)) else {
        return Ok(());
    };
    let ops = ctx.operands(op);
    if ops.len() != outs.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} operands, but enclosing function (@{}) returns {}",
                ops.len(),
                symbol_name(ctx, f).unwrap_or("?"),
                outs.len()
            ),
        )
        .with_note(ctx.op_loc(f), "function defined here"));
    }
    for (i, (v, t)) in ops.iter().zip(outs).enumerate() {
        if ctx.value_type(*v) != *t {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{}",
                    ctx.type_to_string(ctx.value_type(*v)),
                    ctx.type_to_string(*t),
                    symbol_name(ctx, f).unwrap_or("?")
                ),
            ));
        }
    }
    Ok(())
}

fn interpret_return(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let vals = ctx.operands(op).iter().map(|v| m.get(ctx, *v).cloned()).collect::<InterpResult<Vec<_>>>()?;
    m.yield_values(vals);
    Ok(())
}

fn parse_call(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let callee = match p.peek().clone() {
        crate::asm::lexer::Tok::AtId(n) => n,
        t => return Err(p.error(format!("expected callee (@name), found {}", t.describe()))),
    };
    p.parse_attribute()?;
    let loc = p.loc();
    p.expect_punct("(")?;
    let ops = p.parse_operand_list()?;
    p.expect_punct(")")?;
    p.parse_optional_attr_dict(st)?;
    p.expect_punct(":")?;
    let tloc = p.loc();
    let fty = p.parse_type()?;
    let Some((ins, outs)) = p.ctx.function_parts(fty).map(|(a, b)| (a.to_vec(), b.to_vec())) else {
        return Err(p.error_at(tloc, "expected function type"));
    };
    st.operands = p.resolve_operands(&ops, &ins, loc)?;
    st.result_types = outs;
    let c = p.ctx.symbol_ref_attr(&callee);
    st.attrs.push(("callee".into(), c));
    Ok(())
}

fn print_call(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let callee = ctx.attr(op, "callee").and_then(|a| ctx.attr_symbol(a)).unwrap_or("?").to_string();
    p.write(" ");
    let s = ctx.symbol_ref_attr_string(&callee);
    p.write(&s);
    p.write("(");
    let ops = ctx.operands(op).to_vec();
    p.print_operands(&ops);
    p.write(")");
    p.print_optional_attr_dict(op, &["callee"]);
    p.write(" : ");
    let ins: Vec<_> = ops.iter().map(|v| ctx.value_type(*v)).collect();
    let outs: Vec<_> = ctx.results(op).iter().map(|v| ctx.value_type(*v)).collect();
    // Print through a function type so the syntax matches the generic form.
    let s = crate::asm::printer::function_type_text(ctx, &ins, &outs);
    p.write(&s);
}

fn module_of(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut cur = ctx.parent_op(op);
    while let Some(c) = cur {
        if ctx.op_name(c) == "builtin.module" {
            return Some(c);
        }
        cur = ctx.parent_op(c);
    }
    None
}

fn verify_call(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let Some(callee) = ctx.attr(op, "callee").and_then(|a| ctx.attr_symbol(a)) else {
        return Err(op_error(ctx, op, "requires a symbol reference attribute 'callee'"));
    };
    let Some(m) = module_of(ctx, op) else {
        return Ok(());
    };
    let Some(f) = lookup_function(ctx, m, callee) else {
        return Err(op_error(ctx, op, format!("'{callee}' does not reference a valid function")));
    };
    let Some((ins, outs)) = func_type(ctx, f).and_then(|t| ctx.function_parts(t)) else {
        return Ok(());
    };
    let ops: Vec<_> = ctx.operands(op).iter().map(|v| ctx.value_type(*v)).collect();
    let res: Vec<_> = ctx.results(op).iter().map(|v| ctx.value_type(*v)).collect();
    if ops != ins || res != outs {
        return Err(op_error(ctx, op, format!("type does not match the signature of @{callee}"))
            .with_note(ctx.op_loc(f), "callee defined here"));
    }
    Ok(())
}

fn interpret_call(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let callee = ctx.attr(op, "callee").and_then(|a| ctx.attr_symbol(a)).unwrap_or("");
    let f = module_of(ctx, op)
        .and_then(|mo| lookup_function(ctx, mo, callee))
        .ok_or_else(|| op_error(ctx, op, format!("'{callee}' does not reference a valid function")))?;
    let args = ctx.operands(op).iter().map(|v| m.get(ctx, *v).cloned()).collect::<InterpResult<Vec<_>>>()?;
    let outs = m.call(ctx, f, args)?;
    for (r, v) in ctx.results(op).iter().zip(outs) {
        m.set(*r, v);
    }
    Ok(())
}

impl Context {
    /// `@name`, quoted when it is not a bare identifier.
    pub fn symbol_ref_attr_string(&self, name: &str) -> String {
        if crate::asm::printer::is_bare_id(name) {
            format!("@{name}")
        } else {
            format!("@{}", crate::asm::printer::quote_string(name))
        }
    }
}
