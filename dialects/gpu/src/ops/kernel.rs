//! Kernels and launches: `func` (a kernel or device function), its terminator `return`,
//! `launch`, which runs a kernel from a host function, and `resident_blocks`, the host's
//! question how many CTAs of a kernel the device holds at once.

use morf_ir::asm::formats::{parse_symbol_name, print_symbol_name};
use morf_ir::asm::lexer::Tok;
use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::{op_error, plural, ModuleOp};
use morf_ir::interp::{InterpResult, Machine};
use morf_ir::opdef::{AnyType, Index, IntAttr, StrAttr, TypeAttr};
use morf_ir::{define_op, Context, Diagnostic, OpId, OperationState, Type, TypeData};

use super::{interpret_in_kernel_only, parse_attr_dict, print_attr_dict, SymbolRefAttr, UnitAttr, VResult};
use crate::types::ptr_parts;

define_op! {
    /// A kernel (with the `kernel` keyword) or device function:
    ///
    /// ```mlir
    /// mgpu.func @k(%x: !mgpu.ptr<bf16>, %n: index) kernel attributes {max_threads = 256 : i64} {
    ///   ...
    ///   mgpu.return
    /// }
    /// ```
    ///
    /// `function_type` has no results; `kernel` is a unit attribute; `max_threads` (the launch
    /// bounds) is in `1..=1024`; `min_ctas_per_sm` (the CTAs an SM must hold at once, 0: no
    /// bound) in `0..=32`; `min_ctas_planned` (a unit attribute beside a nonzero
    /// `min_ctas_per_sm`) says that bound is the lowering's plan from its register estimate,
    /// not a request, so spill relief may lower it where the assembler spills under it
    /// (`morf_passes::target::ptx::relief`); `max_registers` (a cap on a thread's registers,
    /// PTX `.maxnreg`, beside the cap the other two imply) in `16..=255`. Parameters are global pointers and
    /// scalars. A `cooperative` kernel may hold `mgpu.grid_barrier`s: it is launched with all its blocks resident at
    /// once (the runtime caps the grid at what fits), so its code must cover its work with
    /// any number of blocks (grid-stride loops). A `resident_grid` kernel is launched plainly
    /// with its grid capped the same way; it may hold an `mgpu.grid_tail`, after which the
    /// last blocks to arrive go on as a grid of their own. A kernel with `cluster = C` (2..=8) is
    /// launched in clusters of C CTAs ([`super::cluster`]); it is not cooperative. A kernel
    /// with `contract_fma` lets the PTX assembler contract its f32 multiply-adds into fused
    /// ones (one rounding instead of two; `lower-loop-to-gpu{contract-fma=true}`).
    pub struct FuncOp("mgpu.func") {
        summary: "a GPU kernel or device function",
        traits: [ISOLATED_FROM_ABOVE, SYMBOL, SINGLE_BLOCK],
        attrs: [sym_name: StrAttr, function_type: TypeAttr],
        optional_attrs: [kernel: UnitAttr, max_threads: IntAttr, min_ctas_per_sm: IntAttr, max_registers: IntAttr, cooperative: UnitAttr, resident_grid: UnitAttr, cluster: IntAttr, contract_fma: UnitAttr, min_ctas_planned: UnitAttr],
        regions: [body],
        verify: verify_func,
        format: (parse_func, print_func),
    }
}

impl FuncOp {
    /// Bytes of the static shared memory (`mgpu.shared_alloc`s) its body declares.
    pub fn static_shared_bytes(self, ctx: &Context) -> i64 {
        ctx.walk_collect(self.0)
            .into_iter()
            .filter_map(|op| ctx.dyn_cast::<super::SharedAllocOp>(op))
            .fold(0i64, |a, s| a.saturating_add(s.bytes(ctx)))
    }

    /// Whether it carries the `kernel` unit attribute.
    pub fn is_kernel(self, ctx: &Context) -> bool {
        self.kernel(ctx).is_some()
    }

    /// The parameter types of its `function_type`.
    pub fn params(self, ctx: &Context) -> Vec<Type> {
        self.function_type(ctx).and_then(|t| ctx.function_parts(t)).map(|(i, _)| i.to_vec()).unwrap_or_default()
    }
}

define_op! {
    /// Ends an `mgpu.func`: `mgpu.return`.
    pub struct ReturnOp("mgpu.return") {
        summary: "ends a kernel",
        traits: [TERMINATOR],
        verify: verify_return,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Runs a kernel from a host function:
    ///
    /// ```mlir
    /// mgpu.launch @k blocks(%g) threads(%t) shared(%s) args(%xb, %n) : !mloop.buffer<?x?xbf16>, index
    /// ```
    ///
    /// Attribute `kernel`: a symbol reference to an `mgpu.func` with `kernel`. `shared` is
    /// dynamic shared memory in bytes. One `args` operand per kernel parameter: a
    /// `!mloop.buffer` (any rank) for a pointer parameter of the same element type, passed as a
    /// pointer to its first element (row-major), or a scalar of the parameter's type.
    pub struct LaunchOp("mgpu.launch") {
        summary: "runs a kernel on a 1-D grid of 1-D blocks",
        operands: [blocks: Index, threads: Index, shared: Index],
        variadic: args: AnyType,
        attrs: [kernel: SymbolRefAttr],
        verify: verify_launch,
        format: (parse_launch, print_launch),
        interpret: interpret_launch,
    }
}

define_op! {
    /// The CTAs of a kernel that the device holds at once, at a launch configuration:
    ///
    /// ```mlir
    /// %r = mgpu.resident_blocks @k threads(%t) shared(%s)
    /// ```
    ///
    /// Attribute `kernel`: a symbol reference to an `mgpu.func` with `kernel`; `threads` and
    /// `shared` (dynamic shared memory, bytes) as its launch takes them. The runtime answers the
    /// compiled kernel's occupancy (CTAs per SM, as the driver computes it from the registers
    /// ptxas gave it, its shared memory and the CTA size) times the SMs; 0 if one CTA does not
    /// fit. The simulator, which has no SMs, answers [`crate::sim::SIM_SMS`] times the
    /// kernel's `min_ctas_per_sm` (1 without). `lower-loop-to-gpu` puts it where an
    /// `mloop.resident_programs` sized a kernel's splits.
    pub struct ResidentBlocksOp("mgpu.resident_blocks") {
        summary: "the CTAs of a kernel the device holds at once",
        operands: [threads: Index, shared: Index],
        results: [result: Index],
        attrs: [kernel: SymbolRefAttr],
        verify: verify_resident_blocks,
        format: (parse_resident_blocks, print_resident_blocks),
        interpret: interpret_resident_blocks,
    }
}

impl ResidentBlocksOp {
    /// The `mgpu.func` it asks about, looked up in the enclosing module.
    pub fn callee(self, ctx: &Context) -> Option<FuncOp> {
        lookup_kernel(ctx, module_of(ctx, self.0)?, self.kernel(ctx)?)
    }
}

fn verify_resident_blocks(ctx: &Context, op: OpId) -> VResult {
    let name = ResidentBlocksOp(op).kernel(ctx).expect("checked by the generated verifier");
    kernel_callee(ctx, op, name).map(|_| ())
}

/// The kernel `name` that host op `op` (`launch`, `resident_blocks`) refers to: an error
/// when it is no `mgpu.func` of the enclosing module or lacks `kernel`; `None` outside a
/// module (nothing to look it up in).
fn kernel_callee(ctx: &Context, op: OpId, name: &str) -> Result<Option<FuncOp>, Diagnostic> {
    let Some(m) = module_of(ctx, op) else {
        return Ok(None);
    };
    let Some(f) = lookup_kernel(ctx, m, name) else {
        return Err(op_error(ctx, op, format!("'{name}' does not reference an 'mgpu.func'")));
    };
    if !f.is_kernel(ctx) {
        return Err(op_error(ctx, op, format!("'@{name}' is not a kernel (it lacks the 'kernel' keyword)"))
            .with_note(ctx.op_loc(f.id()), "function defined here"));
    }
    Ok(Some(f))
}

fn parse_resident_blocks(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = parse_kernel_ref(p)?;
    let threads = parse_paren_operand(p, "threads")?;
    let shared = parse_paren_operand(p, "shared")?;
    p.parse_optional_attr_dict(st)?;
    st.operands = vec![threads, shared];
    let k = p.ctx.symbol_ref_attr(&name);
    st.attrs.push(("kernel".into(), k));
    st.result_types = vec![p.ctx.index_type()];
    Ok(())
}

fn print_resident_blocks(p: &mut OpPrinter<'_>, op: OpId) {
    let ctx = p.ctx;
    let r = ResidentBlocksOp(op);
    let s = ctx.symbol_ref_attr_string(r.kernel(ctx).unwrap_or("?"));
    p.write(" ");
    p.write(&s);
    for (kw, v) in [("threads", r.threads(ctx)), ("shared", r.shared(ctx))] {
        p.write(" ");
        p.write(kw);
        p.write("(");
        p.print_operand(v);
        p.write(")");
    }
    p.print_optional_attr_dict(op, &["kernel"]);
}

fn interpret_resident_blocks(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ResidentBlocksOp(op);
    let name = r.kernel(ctx).unwrap_or("?");
    let f = r.callee(ctx).ok_or_else(|| op_error(ctx, op, format!("'{name}' does not reference an 'mgpu.func'")))?;
    let per_sm = f.min_ctas_per_sm(ctx).filter(|n| *n > 0).unwrap_or(1);
    m.set(r.result(ctx), morf_ir::interp::RtValue::Int(per_sm * crate::sim::SIM_SMS));
    Ok(())
}

impl LaunchOp {
    /// The launched `mgpu.func`, looked up in the enclosing module.
    pub fn callee(self, ctx: &Context) -> Option<FuncOp> {
        lookup_kernel(ctx, module_of(ctx, self.0)?, self.kernel(ctx)?)
    }
}

/// Finds the `mgpu.func` named `name` directly inside `module`.
pub fn lookup_kernel(ctx: &Context, module: OpId, name: &str) -> Option<FuncOp> {
    let r = *ctx.regions(module).first()?;
    let b = ctx.entry_block(r)?;
    ctx.block_ops(b).filter_map(|o| ctx.dyn_cast::<FuncOp>(o)).find(|f| f.sym_name(ctx) == Some(name))
}

/// The kernel symbol of the `mgpu.launch` `op` (kept for callers holding an untyped op; same as
/// [`LaunchOp::kernel`]).
pub fn launch_kernel_name(ctx: &Context, op: OpId) -> Option<&str> {
    LaunchOp::dyn_cast(ctx, op)?.kernel(ctx)
}

/// The `builtin.module` enclosing `op`.
pub fn module_of(ctx: &Context, op: OpId) -> Option<OpId> {
    let mut cur = ctx.parent_op(op);
    while let Some(c) = cur {
        if ctx.isa::<ModuleOp>(c) {
            return Some(c);
        }
        cur = ctx.parent_op(c);
    }
    None
}

/// Element type of an `!mloop.buffer`.
pub(crate) fn buffer_elem(ctx: &Context, t: Type) -> Option<Type> {
    morf_loop::buffer_parts(ctx, t).map(|(_, e)| e)
}

fn verify_func(ctx: &Context, op: OpId) -> VResult {
    let f = FuncOp(op);
    let fty = f.function_type(ctx).expect("checked by the generated verifier");
    let Some((ins, outs)) = ctx.function_parts(fty) else {
        return Err(op_error(ctx, op, "requires 'function_type' to be a function type"));
    };
    if !outs.is_empty() {
        return Err(op_error(ctx, op, format!("must have no results, but its type has {}", outs.len())));
    }
    if f.max_threads(ctx).is_some_and(|n| !(1..=1024).contains(&n)) {
        return Err(op_error(ctx, op, "expects 'max_threads' to be an integer in 1..=1024"));
    }
    // 0: explicitly no bound (`lower-loop-to-gpu{min-ctas=none}`), not even the default one.
    if f.min_ctas_per_sm(ctx).is_some_and(|n| !(0..=32).contains(&n)) {
        return Err(op_error(ctx, op, "expects 'min_ctas_per_sm' to be an integer in 0..=32"));
    }
    if f.min_ctas_planned(ctx).is_some() && f.min_ctas_per_sm(ctx).is_none_or(|n| n == 0) {
        return Err(op_error(ctx, op, "has 'min_ctas_planned' but no 'min_ctas_per_sm' bound (1..=32) that it plans"));
    }
    if f.max_registers(ctx).is_some_and(|n| !(16..=255).contains(&n)) {
        return Err(op_error(ctx, op, "expects 'max_registers' to be an integer in 16..=255"));
    }
    if let Some(c) = f.cluster(ctx) {
        let max = super::cluster::MAX_CLUSTER;
        if !(1..=max).contains(&c) {
            return Err(op_error(ctx, op, format!("expects 'cluster' to be an integer in 1..={max}")));
        }
        if f.cooperative(ctx).is_some() {
            return Err(op_error(ctx, op, "cannot be both 'cooperative' and launched in clusters ('cluster')"));
        }
        if c > 1 && f.resident_grid(ctx).is_some() {
            return Err(op_error(ctx, op, "cannot be both 'resident_grid' and launched in clusters ('cluster')"));
        }
    }
    let Some(b) = ctx.entry_block(f.body(ctx)) else {
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
    let kernel = FuncOp(op).is_kernel(ctx);
    if kernel {
        p.write(" kernel");
    }
    let elided: &[&str] =
        if kernel { &["sym_name", "function_type", "kernel"] } else { &["sym_name", "function_type"] };
    p.print_optional_attr_dict_with_keyword(op, elided);
    p.write(" ");
    p.print_region(r, false);
}

fn verify_return(ctx: &Context, op: OpId) -> VResult {
    match ctx.parent_op(op) {
        Some(f) if ctx.isa::<FuncOp>(f) => Ok(()),
        _ => Err(op_error(ctx, op, "expects parent op 'mgpu.func'")),
    }
}

fn verify_launch(ctx: &Context, op: OpId) -> VResult {
    let l = LaunchOp(op);
    let name = l.kernel(ctx).expect("checked by the generated verifier");
    let Some(f) = kernel_callee(ctx, op, name)? else {
        return Ok(());
    };
    let floc = ctx.op_loc(f.id());
    let Some((ins, _)) = f.function_type(ctx).and_then(|t| ctx.function_parts(t)) else {
        return Ok(());
    };
    let args = l.args(ctx);
    if args.len() != ins.len() {
        return Err(op_error(
            ctx,
            op,
            format!("passes {} argument{}, but '@{name}' takes {}", args.len(), plural(args.len()), ins.len()),
        )
        .with_note(floc, "kernel defined here"));
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
            .with_note(floc, "kernel defined here"));
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

/// The `@kernel` symbol that `launch` and `resident_blocks` start with.
fn parse_kernel_ref(p: &mut OpParser<'_>) -> PResult<String> {
    let name = match p.peek().clone() {
        Tok::AtId(n) => n,
        t => return Err(p.error(format!("expected kernel name (@name), found {}", t.describe()))),
    };
    p.parse_attribute()?;
    Ok(name)
}

fn parse_launch(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = parse_kernel_ref(p)?;
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
