//! Loops: `for` (sequential, with loop-carried values), `parallel` (independent
//! iterations over a k-dim box), `reduce` (a k-dim box combined into one value) and their
//! terminator `yield`.
//!
//! Each loop has one region of one block whose arguments are the induction variables
//! (`index`), then, for `for`, the loop-carried values. Bounds are half-open, steps must be
//! positive at run time, and the interpreter runs `parallel` and `reduce` in lexicographic
//! order of `(i, j, ...)`, so a reordering is visible only through float rounding.

use morf_ir::asm::formats::{parse_operands_colon_types, print_operands_colon_types};
use morf_ir::asm::parser::{OpParser, PResult, UnresolvedOperand};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::interp::{InterpResult, Machine, RtValue};
use morf_ir::opdef::{AnyType, FloatOrIndex, Index, StrAttr, TypeConstraint};
use morf_ir::{define_op, BlockId, Context, Loc, OpId, OperationState, RegionId, Type, Value};

use super::{expect_index, kind_of, parse_paren_operands, plural, resolve_indices, VResult};

// ----- shared pieces -----

/// The single region of a loop (checked by the generated verifier) and its entry block, or
/// an error.
fn body(ctx: &Context, op: OpId) -> Result<(RegionId, BlockId), morf_ir::Diagnostic> {
    let Some(&r) = ctx.regions(op).first() else {
        return Err(op_error(ctx, op, "expects one region, but got 0"));
    };
    match ctx.entry_block(r) {
        Some(b) => Ok((r, b)),
        None => Err(op_error(ctx, op, "expects a body block")),
    }
}

/// Checks that the first `k` block arguments of `b` are `index` induction variables.
fn check_ivs(ctx: &Context, op: OpId, b: BlockId, k: usize) -> VResult {
    for (i, &a) in ctx.block_args(b).iter().take(k).enumerate() {
        let t = ctx.value_type(a);
        if !Index::check(ctx, t) {
            return Err(op_error(
                ctx,
                op,
                format!("induction variable #{i} must be of type 'index', got '{}'", ctx.type_to_string(t)),
            ));
        }
    }
    Ok(())
}

/// Checks a box loop (`parallel`, `reduce`): `3k` index bound operands, then `extra` more,
/// with `k` the number of block arguments. Returns `k`.
fn check_box(ctx: &Context, op: OpId, extra: usize) -> Result<usize, morf_ir::Diagnostic> {
    let (_, b) = body(ctx, op)?;
    let k = ctx.block_args(b).len();
    let n = ctx.operands(op).len();
    if n != 3 * k + extra {
        let got = n.saturating_sub(extra);
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects equal numbers of lower bounds, upper bounds and steps, one per induction variable ({k} each, {} \
                 operand{} in all), but got {got} bound operand{}",
                3 * k,
                plural(3 * k),
                plural(got)
            ),
        ));
    }
    for (i, &v) in ctx.operands(op)[..3 * k].iter().enumerate() {
        let what = ["lower bound", "upper bound", "step"][i / k.max(1)];
        expect_index(ctx, op, v, &format!("{what} #{}", i % k.max(1)))?;
    }
    check_ivs(ctx, op, b, k)?;
    Ok(k)
}

/// Parses `(%a, %b)` as a list of induction-variable names.
fn parse_iv_list(p: &mut OpParser<'_>) -> PResult<Vec<UnresolvedOperand>> {
    parse_paren_operands(p)
}

/// Parses `(%i, %j) = (%lb0, %lb1) to (%ub0, %ub1) step (%s0, %s1)` and returns the
/// induction variables and the bound operands (lower bounds, upper bounds, steps).
fn parse_box(p: &mut OpParser<'_>) -> PResult<(Vec<UnresolvedOperand>, Vec<Value>)> {
    let loc = p.loc();
    let ivs = parse_iv_list(p)?;
    p.expect_punct("=")?;
    let lbs = parse_paren_operands(p)?;
    p.expect_keyword("to")?;
    let ubs = parse_paren_operands(p)?;
    p.expect_keyword("step")?;
    let steps = parse_paren_operands(p)?;
    let k = ivs.len();
    if lbs.len() != k || ubs.len() != k || steps.len() != k {
        return Err(p.error_at(
            loc,
            format!(
                "expected equal numbers of induction variables, lower bounds, upper bounds and steps, got {k}, {}, {} and {}",
                lbs.len(),
                ubs.len(),
                steps.len()
            ),
        ));
    }
    if let Some(bad) = ivs.iter().find(|v| v.number.is_some()) {
        return Err(p.error_at(bad.loc, "expected an induction variable name without '#'"));
    }
    let mut bounds = resolve_indices(p, &lbs)?;
    bounds.extend(resolve_indices(p, &ubs)?);
    bounds.extend(resolve_indices(p, &steps)?);
    Ok((ivs, bounds))
}

/// Entry-block arguments `(name, index, loc)` for induction variables.
fn iv_args(p: &mut OpParser<'_>, ivs: &[UnresolvedOperand]) -> Vec<(String, Type, Loc)> {
    let idx = p.ctx.index_type();
    ivs.iter().map(|v| (v.name.clone(), idx, v.loc)).collect()
}

/// Prints ` (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f)` for a box loop with `k` ivs.
fn print_box(p: &mut OpPrinter<'_>, op: OpId, k: usize) {
    let ops = p.ctx.operands(op).to_vec();
    let b = p.ctx.regions(op).first().and_then(|r| p.ctx.entry_block(*r));
    let ivs = b.map(|b| p.ctx.block_args(b).to_vec()).unwrap_or_default();
    if let Some(b) = b {
        p.bind_block_args(b);
    }
    let ivs = &ivs[..k.min(ivs.len())];
    let group = |p: &mut OpPrinter<'_>, vs: &[Value]| {
        p.write("(");
        p.print_operands(vs);
        p.write(")");
    };
    p.write(" ");
    group(p, ivs);
    p.write(" = ");
    let k = k.min(ops.len() / 3);
    group(p, &ops[..k]);
    p.write(" to ");
    group(p, &ops[k..2 * k]);
    p.write(" step ");
    group(p, &ops[2 * k..3 * k]);
}

/// Parses the body region (entry arguments `args`) and `attributes {...}` after it, and
/// fills `st` with them, `operands` and `result_types`.
fn parse_body(
    p: &mut OpParser<'_>,
    st: &mut OperationState,
    args: &[(String, Type, Loc)],
    operands: Vec<Value>,
    result_types: Vec<Type>,
) -> PResult<()> {
    let r = p.parse_region(args, false)?;
    p.parse_optional_attr_dict_with_keyword(st)?;
    st.operands = operands;
    st.result_types = result_types;
    st.regions.push(r);
    Ok(())
}

/// Prints ` { body } attributes {...}` of a loop, leaving out the attributes `elided`.
fn print_body(p: &mut OpPrinter<'_>, op: OpId, elided: &[&str]) {
    if let Some(&r) = p.ctx.regions(op).first() {
        p.write(" ");
        p.print_region(r, false);
    }
    p.print_optional_attr_dict_with_keyword(op, elided);
}

/// The `index` values of `vs`.
fn ints(m: &Machine, ctx: &Context, op: OpId, vs: &[Value]) -> InterpResult<Vec<i64>> {
    vs.iter().map(|v| m.int(ctx, op, *v)).collect()
}

/// Checks that every step is positive.
fn check_steps(ctx: &Context, op: OpId, steps: &[i64]) -> InterpResult<()> {
    match steps.iter().find(|s| **s <= 0) {
        Some(s) => Err(op_error(ctx, op, format!("step {s} must be positive"))),
        None => Ok(()),
    }
}

/// Runs the body of a box loop over every point of `[lbs, ubs)` with `steps`, in
/// lexicographic order, passing each yielded value list to `each`.
fn run_box(
    m: &mut Machine,
    ctx: &Context,
    op: OpId,
    k: usize,
    mut each: impl FnMut(Vec<RtValue>) -> InterpResult<()>,
) -> InterpResult<()> {
    let (r, _) = body(ctx, op)?;
    let ops = ctx.operands(op);
    let lbs = ints(m, ctx, op, &ops[..k])?;
    let ubs = ints(m, ctx, op, &ops[k..2 * k])?;
    let steps = ints(m, ctx, op, &ops[2 * k..3 * k])?;
    check_steps(ctx, op, &steps)?;
    if lbs.iter().zip(&ubs).any(|(l, u)| l >= u) {
        return Ok(());
    }
    let mut iv = lbs.clone();
    loop {
        let args = iv.iter().map(|&i| RtValue::Int(i)).collect();
        each(m.run_region(ctx, r, args)?)?;
        // Advance the odometer, innermost dim fastest.
        let mut d = k;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            iv[d] = iv[d].saturating_add(steps[d]);
            if iv[d] < ubs[d] {
                break;
            }
            iv[d] = lbs[d];
        }
    }
}

// ----- for -----

define_op! {
    /// A sequential loop with loop-carried values:
    ///
    /// ```mlir
    /// %r = mloop.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) {
    ///   ...
    ///   mloop.yield %next : f32
    /// }
    /// ```
    ///
    /// Operands `lb, ub, step, inits...`; the body's arguments are `(%i: index, iter args...)`;
    /// the results are the last yielded values (the inits if the loop runs zero times).
    pub struct ForOp("mloop.for") {
        summary: "a sequential loop with loop-carried values",
        traits: [SINGLE_BLOCK],
        operands: [lower_bound: Index, upper_bound: Index, step: Index],
        variadic: inits: AnyType,
        variadic_results: outputs: AnyType,
        regions: [body],
        verify: verify_for,
        format: (parse_for, print_for),
        interpret: interpret_for,
    }
}

fn verify_for(ctx: &Context, op: OpId) -> VResult {
    let f = ForOp(op);
    let inits = f.inits(ctx);
    let outputs = f.outputs(ctx);
    if outputs.len() != inits.len() {
        let n = inits.len();
        return Err(op_error(
            ctx,
            op,
            format!("expects {n} result{}, one per init, but got {}", plural(n), outputs.len()),
        ));
    }
    for (i, (&v, &r)) in inits.iter().zip(outputs).enumerate() {
        let (ti, tr) = (ctx.value_type(v), ctx.value_type(r));
        if ti != tr {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "type of init #{i} ('{}') does not match result #{i} ('{}')",
                    ctx.type_to_string(ti),
                    ctx.type_to_string(tr)
                ),
            ));
        }
    }
    let (_, b) = body(ctx, op)?;
    let args = ctx.block_args(b);
    if args.len() != 1 + inits.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects {} body argument{} (the induction variable and one per init), but got {}",
                1 + inits.len(),
                plural(1 + inits.len()),
                args.len()
            ),
        ));
    }
    check_ivs(ctx, op, b, 1)?;
    for (i, (&a, &v)) in args[1..].iter().zip(inits).enumerate() {
        let (ta, tv) = (ctx.value_type(a), ctx.value_type(v));
        if ta != tv {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "type of iter arg #{i} ('{}') does not match init #{i} ('{}')",
                    ctx.type_to_string(ta),
                    ctx.type_to_string(tv)
                ),
            ));
        }
    }
    Ok(())
}

fn parse_for(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let iv = p.parse_operand()?;
    if iv.number.is_some() {
        return Err(p.error_at(iv.loc, "expected an induction variable name without '#'"));
    }
    p.expect_punct("=")?;
    let lb = p.parse_operand()?;
    p.expect_keyword("to")?;
    let ub = p.parse_operand()?;
    p.expect_keyword("step")?;
    let step = p.parse_operand()?;
    let mut names = Vec::new();
    let mut inits = Vec::new();
    let mut tys = Vec::new();
    if p.parse_optional_keyword("iter_args")? {
        let loc = p.loc();
        p.expect_punct("(")?;
        if !p.at_punct(")") {
            loop {
                let n = p.parse_operand()?;
                if n.number.is_some() {
                    return Err(p.error_at(n.loc, "expected an iter arg name without '#'"));
                }
                p.expect_punct("=")?;
                inits.push(p.parse_operand()?);
                names.push(n);
                if !p.parse_optional_punct(",")? {
                    break;
                }
            }
        }
        p.expect_punct(")")?;
        p.expect_punct("->")?;
        p.expect_punct("(")?;
        if !p.at_punct(")") {
            tys = p.parse_type_list()?;
        }
        p.expect_punct(")")?;
        if tys.len() != inits.len() {
            return Err(p.error_at(loc, format!("{} iter args present, but {} result types", inits.len(), tys.len())));
        }
    }
    let mut operands = resolve_indices(p, &[lb, ub, step])?;
    for (o, t) in inits.iter().zip(&tys) {
        operands.push(p.resolve_operand(o, *t)?);
    }
    let mut args = iv_args(p, std::slice::from_ref(&iv));
    args.extend(names.iter().zip(&tys).map(|(n, t)| (n.name.clone(), *t, n.loc)));
    parse_body(p, st, &args, operands, tys)
}

fn print_for(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    let Some(&r) = p.ctx.regions(op).first() else {
        return;
    };
    let args = match p.ctx.entry_block(r) {
        Some(b) => {
            p.bind_block_args(b);
            p.ctx.block_args(b).to_vec()
        }
        None => Vec::new(),
    };
    p.write(" ");
    if let Some(&iv) = args.first() {
        p.print_operand(iv);
    }
    p.write(" = ");
    // Defensive: the printer may see an op the verifier rejects.
    if let [lb, ub, step, ..] = ops[..] {
        p.print_operand(lb);
        p.write(" to ");
        p.print_operand(ub);
        p.write(" step ");
        p.print_operand(step);
    }
    let f = ForOp(op);
    let inits = f.inits(p.ctx).to_vec();
    if !inits.is_empty() {
        p.write(" iter_args(");
        for (i, v) in inits.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            if let Some(&a) = args.get(i + 1) {
                p.print_operand(a);
            }
            p.write(" = ");
            p.print_operand(*v);
        }
        p.write(") -> (");
        let tys: Vec<Type> = f.outputs(p.ctx).iter().map(|v| p.ctx.value_type(*v)).collect();
        p.print_types(&tys);
        p.write(")");
    }
    print_body(p, op, &[]);
}

fn interpret_for(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let f = ForOp(op);
    let (r, _) = body(ctx, op)?;
    let lb = m.int(ctx, op, f.lower_bound(ctx))?;
    let ub = m.int(ctx, op, f.upper_bound(ctx))?;
    let step = m.int(ctx, op, f.step(ctx))?;
    check_steps(ctx, op, &[step])?;
    let inits = f.inits(ctx);
    let n = inits.len();
    let mut iters: Vec<RtValue> = inits.iter().map(|v| m.get(ctx, *v).cloned()).collect::<Result<_, _>>()?;
    let mut i = lb;
    while i < ub {
        let mut args = Vec::with_capacity(1 + n);
        args.push(RtValue::Int(i));
        args.append(&mut iters);
        iters = m.run_region(ctx, r, args)?;
        if iters.len() != n {
            return Err(op_error(
                ctx,
                op,
                format!("interpreter: the body yielded {} values, expected {n}", iters.len()),
            ));
        }
        i = i.saturating_add(step);
    }
    for (res, v) in f.outputs(ctx).iter().zip(iters) {
        m.set(*res, v);
    }
    Ok(())
}

// ----- parallel -----

define_op! {
    /// Independent iterations over a k-dim box:
    ///
    /// ```mlir
    /// mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    ///   ...
    ///   mloop.yield
    /// }
    /// ```
    ///
    /// Operands: `k` lower bounds, `k` upper bounds, `k` steps; the body's arguments are the
    /// `k` indices. No results. Iterations are independent apart from `accumulate` updates,
    /// which commute; the interpreter runs them in lexicographic order.
    pub struct ParallelOp("mloop.parallel") {
        summary: "independent iterations over a k-dim box",
        traits: [SINGLE_BLOCK],
        variadic: bounds: AnyType,
        regions: [body],
        verify: verify_parallel,
        format: (parse_parallel, print_parallel),
        interpret: interpret_parallel,
    }
}

fn verify_parallel(ctx: &Context, op: OpId) -> VResult {
    check_box(ctx, op, 0).and_then(|_| crate::mapping::verify_parallel_mapping(ctx, op))
}

fn parse_parallel(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let (ivs, bounds) = parse_box(p)?;
    let args = iv_args(p, &ivs);
    parse_body(p, st, &args, bounds, Vec::new())
}

fn print_parallel(p: &mut OpPrinter<'_>, op: OpId) {
    let k = ParallelOp(op).bounds(p.ctx).len() / 3;
    print_box(p, op, k);
    print_body(p, op, &[]);
}

fn interpret_parallel(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let k = ParallelOp(op).bounds(ctx).len() / 3;
    run_box(m, ctx, op, k, |_| Ok(()))
}

// ----- reduce -----

define_op! {
    /// A reduction over a k-dim box:
    ///
    /// ```mlir
    /// %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
    ///   ...
    ///   mloop.yield %e : f32
    /// }
    /// ```
    ///
    /// Attribute `kind`: `sum`, `max`, `min` or `prod`. Operands: `k` lower bounds, `k` upper
    /// bounds, `k` steps, then `init`. The body yields one value of init's type; the result
    /// starts from `init` and is combined with each yielded value in lexicographic order,
    /// rounded to the type at each step (with an f32 init, the fp32 accumulation of a kernel).
    pub struct ReduceOp("mloop.reduce") {
        summary: "combines the values a k-dim box of iterations yields",
        traits: [SINGLE_BLOCK],
        variadic: bounds_and_init: AnyType,
        results: [result: AnyType],
        attrs: [kind: StrAttr],
        regions: [body],
        verify: verify_reduce,
        format: (parse_reduce, print_reduce),
        interpret: interpret_reduce,
    }
}

impl ReduceOp {
    /// The init value: the last operand, after the `3k` bounds.
    pub fn init(self, ctx: &Context) -> Option<Value> {
        self.bounds_and_init(ctx).last().copied()
    }
}

fn verify_reduce(ctx: &Context, op: OpId) -> VResult {
    let r = ReduceOp(op);
    kind_of(ctx, op)?;
    check_box(ctx, op, 1)?;
    let Some(init) = r.init(ctx) else {
        return Err(op_error(ctx, op, "expects an init operand"));
    };
    let (ti, tr) = (ctx.value_type(init), ctx.value_type(r.result(ctx)));
    if ti != tr {
        return Err(op_error(
            ctx,
            op,
            format!(
                "type of init ('{}') does not match the result ('{}')",
                ctx.type_to_string(ti),
                ctx.type_to_string(tr)
            ),
        ));
    }
    if !FloatOrIndex::check(ctx, ti) {
        return Err(op_error(
            ctx,
            op,
            format!("init must have a float type or 'index', got '{}'", ctx.type_to_string(ti)),
        ));
    }
    Ok(())
}

fn parse_reduce(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    super::parse_keyword_attr(p, st, "kind", "combiner (sum, max, min or prod)")?;
    let (ivs, mut bounds) = parse_box(p)?;
    p.expect_keyword("init")?;
    p.expect_punct("(")?;
    let init = p.parse_operand()?;
    p.expect_punct(")")?;
    let ty = p.parse_colon_type()?;
    bounds.push(p.resolve_operand(&init, ty)?);
    let args = iv_args(p, &ivs);
    parse_body(p, st, &args, bounds, vec![ty])
}

fn print_reduce(p: &mut OpPrinter<'_>, op: OpId) {
    let r = ReduceOp(op);
    let kind = r.kind(p.ctx).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&kind);
    let n = r.bounds_and_init(p.ctx).len();
    print_box(p, op, n.saturating_sub(1) / 3);
    if let Some(init) = r.init(p.ctx) {
        p.write(" init(");
        p.print_operand(init);
        p.write(") : ");
        p.print_type(p.ctx.value_type(init));
    }
    print_body(p, op, &["kind"]);
}

fn interpret_reduce(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let r = ReduceOp(op);
    let kind = kind_of(ctx, op)?;
    let k = r.bounds_and_init(ctx).len().saturating_sub(1) / 3;
    let init = r.init(ctx).ok_or_else(|| op_error(ctx, op, "interpreter: expected an init operand"))?;
    let res = r.result(ctx);
    let ty = ctx.value_type(res);
    let one = |ys: &[RtValue]| -> InterpResult<RtValue> {
        match ys {
            [y] => Ok(y.clone()),
            _ => Err(op_error(ctx, op, format!("interpreter: the body yielded {} values, expected 1", ys.len()))),
        }
    };
    let out = match m.get(ctx, init)?.clone() {
        RtValue::Int(start) => {
            let mut acc = start;
            run_box(m, ctx, op, k, |ys| {
                let y = one(&ys)?.as_int().ok_or_else(|| op_error(ctx, op, "interpreter: expected an index value"))?;
                acc = kind
                    .function()
                    .eval_index(acc, y)
                    .map_err(|_| op_error(ctx, op, "integer overflow in the reduction"))?;
                Ok(())
            })?;
            RtValue::Int(acc)
        }
        RtValue::Float(start) => {
            let k_ = ctx.float_kind(ty).ok_or_else(|| op_error(ctx, op, "interpreter: expected a float result"))?;
            let mut acc = start;
            run_box(m, ctx, op, k, |ys| {
                let y = one(&ys)?.as_float().ok_or_else(|| op_error(ctx, op, "interpreter: expected a float value"))?;
                acc = k_.round(kind.function().eval(acc, y));
                Ok(())
            })?;
            RtValue::Float(acc)
        }
        _ => return Err(op_error(ctx, op, "interpreter: expected a scalar init")),
    };
    m.set(res, out);
    Ok(())
}

// ----- yield -----

define_op! {
    /// Ends a loop body: `mloop.yield` or `mloop.yield %a, %b : f32, f32`.
    ///
    /// In a `for` it yields the next loop-carried values (the loop's result types); in a
    /// `parallel` nothing; in a `reduce` one value of the init's type.
    pub struct YieldOp("mloop.yield") {
        summary: "ends a loop body, yielding values to the loop",
        traits: [TERMINATOR, PURE],
        variadic: values: AnyType,
        verify: verify_yield,
        format: (parse_operands_colon_types, print_operands_colon_types),
        interpret: interpret_yield,
    }
}

fn verify_yield(ctx: &Context, op: OpId) -> VResult {
    let no_parent = || op_error(ctx, op, "expects parent op 'mloop.for', 'mloop.parallel' or 'mloop.reduce'");
    let parent = ctx.parent_op(op).ok_or_else(no_parent)?;
    let reduce = ctx.dyn_cast::<ReduceOp>(parent);
    let want: Vec<Type> = if let Some(f) = ctx.dyn_cast::<ForOp>(parent) {
        f.outputs(ctx).iter().map(|v| ctx.value_type(*v)).collect()
    } else if ctx.isa::<ParallelOp>(parent) {
        Vec::new()
    } else if let Some(r) = reduce {
        r.init(ctx).map(|v| vec![ctx.value_type(v)]).unwrap_or_default()
    } else {
        return Err(no_parent());
    };
    let got: Vec<Type> = YieldOp(op).values(ctx).iter().map(|v| ctx.value_type(*v)).collect();
    if got != want {
        let list = |ts: &[Type]| ts.iter().map(|t| ctx.type_to_string(*t)).collect::<Vec<_>>().join(", ");
        let what = if reduce.is_some() { "init type" } else { "result types" };
        return Err(op_error(
            ctx,
            op,
            format!(
                "yields ({}), but the parent '{}' expects its {what} ({})",
                list(&got),
                ctx.op_name(parent),
                list(&want)
            ),
        ));
    }
    Ok(())
}

fn interpret_yield(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let vals = YieldOp(op).values(ctx).iter().map(|v| m.get(ctx, *v).cloned()).collect::<Result<Vec<_>, _>>()?;
    m.yield_values(vals);
    Ok(())
}
