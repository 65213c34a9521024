//! Helpers shared by the `mloop` loop transforms (`loop-interchange`, `loop-split`,
//! `loop-fuse`, `loop-partial-accumulate`): finding the target nest of a function, reading
//! the parts of `mloop.parallel` / `mloop.reduce` / `mloop.for`, building index arithmetic
//! with constant folding, and the memory effects of `mloop` ops.
//!
//! Ops are found and built through the typed handles of `morf_loop::ops`.

use std::collections::HashMap;

use morf_ir::builtin::{op_error, CallOp, FuncOp, ModuleOp};
use morf_ir::pass::PassOptions;
use morf_ir::{Attr, BlockId, Context, Diagnostic, Loc, OpId, OperationState, Type, Value, ValueDef};
use morf_loop::ops::{
    AccumulateOp, AddOp, ConstantOp, DeallocOp, DimOp, DivOp, FillOp, ForOp, Kind, LoadOp, MaxOp, MinOp, MulOp,
    ParallelOp, ReduceOp, SelectOp, StoreOp, SubOp, YieldOp,
};

/// The functions a loop transform runs on: `root` itself when it is a `func.func`, the
/// functions directly in it when it is a `builtin.module`.
pub(crate) fn target_functions(ctx: &Context, root: OpId, pass: &str) -> Result<Vec<OpId>, Diagnostic> {
    if ctx.isa::<FuncOp>(root) {
        Ok(vec![root])
    } else if ctx.isa::<ModuleOp>(root) {
        let mut out = Vec::new();
        for &r in ctx.regions(root) {
            for b in ctx.region_blocks(r) {
                out.extend(ctx.block_ops(b).filter(|&o| ctx.isa::<FuncOp>(o)));
            }
        }
        Ok(out)
    } else {
        Err(op_error(ctx, root, format!("pass '{pass}' runs on 'func.func' or 'builtin.module'")))
    }
}

/// The entry block of a function body, if it has one.
pub(crate) fn body_block(ctx: &Context, func: OpId) -> Option<BlockId> {
    let r = *ctx.regions(func).first()?;
    ctx.entry_block(r)
}

/// Whether `op` is a loop nest root (`mloop.parallel` or `mloop.for`).
pub(crate) fn is_nest(ctx: &Context, op: OpId) -> bool {
    ctx.isa::<ParallelOp>(op) || ctx.isa::<ForOp>(op)
}

/// The top-level loop nests of a function, in order.
pub(crate) fn top_level_nests(ctx: &Context, func: OpId) -> Vec<OpId> {
    match body_block(ctx, func) {
        Some(b) => ctx.block_ops(b).filter(|&o| is_nest(ctx, o)).collect(),
        None => Vec::new(),
    }
}

/// The `k`-th top-level nest of `func`, or a diagnostic at the function. A nest that carries
/// a GPU mapping (`mapping`, written by `loop-map`) anywhere is refused with a diagnostic at
/// the mapped loop: the loop transforms restructure loops the mapping names, so they run
/// before `loop-map`.
pub(crate) fn select_nest(ctx: &Context, func: OpId, k: usize, option: &str) -> Result<OpId, Diagnostic> {
    let nests = top_level_nests(ctx, func);
    if let Some(&nest) = nests.get(k) {
        if let Some(m) = ctx.walk_collect(nest).into_iter().find(|&o| ctx.attr(o, "mapping").is_some()) {
            return Err(mapped_error(ctx, m));
        }
    }
    nests.get(k).copied().ok_or_else(|| {
        op_error(
            ctx,
            func,
            format!(
                "has no loop nest {option}={k}: it has {} top-level 'mloop.parallel'/'mloop.for' nest{}",
                nests.len(),
                if nests.len() == 1 { "" } else { "s" }
            ),
        )
    })
}

/// The diagnostic at loop `op` that carries a GPU mapping (`mapping`, written by `loop-map`):
/// the loop transforms restructure loops the mapping names, so they run before `loop-map`.
pub(crate) fn mapped_error(ctx: &Context, op: OpId) -> Diagnostic {
    op_error(
        ctx,
        op,
        "carries a GPU mapping ('mapping'): loop transforms run before 'loop-map' (remove the attribute to transform \
         this nest)",
    )
}

/// An unsigned integer option that must be given.
pub(crate) fn required_usize(o: &PassOptions, key: &str) -> Result<usize, String> {
    match o.get(key) {
        None => Err(format!("option '{key}' is required")),
        Some(_) => o.usize(key, 0),
    }
}

/// A comma-separated list of unsigned integers (`1,0`).
pub(crate) fn usize_list(o: &PassOptions, key: &str) -> Result<Vec<usize>, String> {
    let Some(v) = o.get(key) else { return Ok(Vec::new()) };
    let v = v.trim().trim_start_matches('[').trim_end_matches(']');
    if v.trim().is_empty() {
        return Ok(Vec::new());
    }
    v.split(',')
        .map(|p| {
            p.trim()
                .parse::<usize>()
                .map_err(|_| format!("option '{key}' expects a comma-separated list of unsigned integers, got '{v}'"))
        })
        .collect()
}

/// The parts of an `mloop.parallel` or `mloop.reduce`: bounds, steps, body and ivs.
#[derive(Clone, Debug)]
pub(crate) struct LoopParts {
    /// Lower bounds.
    pub lbs: Vec<Value>,
    /// Upper bounds.
    pub ubs: Vec<Value>,
    /// Steps.
    pub steps: Vec<Value>,
    /// `init` of a reduce.
    pub init: Option<Value>,
    /// The body block.
    pub body: BlockId,
    /// The induction variables (the body's arguments).
    pub ivs: Vec<Value>,
}

/// The parts of an `mloop.parallel` (`reduce == false`) or `mloop.reduce` (`true`), or an
/// explanation of why the op does not have that shape.
pub(crate) fn loop_parts(ctx: &Context, op: OpId, reduce: bool) -> Result<LoopParts, String> {
    let ops = ctx.operands(op);
    let n = if reduce { ops.len().checked_sub(1).ok_or("it has no operands")? } else { ops.len() };
    if n % 3 != 0 || n == 0 {
        return Err(format!("it has {} bound operands, not 3 per dimension", n));
    }
    let k = n / 3;
    let region = *ctx.regions(op).first().ok_or("it has no region")?;
    let body = ctx.entry_block(region).ok_or("its region has no block")?;
    let ivs = ctx.block_args(body).to_vec();
    if ivs.len() != k {
        return Err(format!("its body has {} arguments for {k} dimensions", ivs.len()));
    }
    match ctx.block_last_op(body) {
        Some(t) if ctx.isa::<YieldOp>(t) => {}
        _ => return Err("its body does not end with 'mloop.yield'".into()),
    }
    Ok(LoopParts {
        lbs: ops[..k].to_vec(),
        ubs: ops[k..2 * k].to_vec(),
        steps: ops[2 * k..3 * k].to_vec(),
        init: if reduce { Some(ops[3 * k]) } else { None },
        body,
        ivs,
    })
}

/// The terminator (`mloop.yield`) of a block.
pub(crate) fn terminator(ctx: &Context, b: BlockId) -> OpId {
    ctx.block_last_op(b).expect("checked: the body ends with mloop.yield")
}

/// The `value` attribute of the constant (`mloop.constant`, or `arith.constant`) defining `v`.
fn const_attr(ctx: &Context, v: Value) -> Option<Attr> {
    let op = ctx.defining_op(v)?;
    if let Some(c) = ConstantOp::dyn_cast(ctx, op) {
        return c.value(ctx);
    }
    (ctx.op_name(op) == "arith.constant").then(|| ctx.attr(op, "value")).flatten()
}

/// The integer value of an index constant (`mloop.constant 4 : index`, or `arith.constant`).
pub(crate) fn const_int(ctx: &Context, v: Value) -> Option<i64> {
    const_attr(ctx, v).and_then(|a| ctx.attr_int(a))
}

/// The float value of a float constant.
pub(crate) fn const_float(ctx: &Context, v: Value) -> Option<f64> {
    const_attr(ctx, v).and_then(|a| ctx.attr_float(a))
}

/// Whether two index values are the same value or equal constants.
pub(crate) fn same_index(ctx: &Context, a: Value, b: Value) -> bool {
    a == b || matches!((const_int(ctx, a), const_int(ctx, b)), (Some(x), Some(y)) if x == y)
}

/// Whether `op` is an `mloop` loop: `parallel`, `reduce` or `for`.
pub(crate) fn is_loop(ctx: &Context, op: OpId) -> bool {
    ctx.isa::<ParallelOp>(op) || ctx.isa::<ReduceOp>(op) || ctx.isa::<ForOp>(op)
}

/// Whether `v` is defined outside `op` (not by an op nested in it, not a block argument of
/// one of its regions).
pub(crate) fn defined_outside(ctx: &Context, v: Value, op: OpId) -> bool {
    match ctx.value(v).def {
        ValueDef::OpResult { op: d, .. } => !ctx.is_ancestor(op, d),
        ValueDef::BlockArg { block, .. } => {
            let owner = ctx.block_parent(block).and_then(|r| ctx.region_parent(r));
            !owner.is_some_and(|o| ctx.is_ancestor(op, o))
        }
        ValueDef::Placeholder => false,
    }
}

/// Builds ops before a fixed op (or at the end of a block), folding index arithmetic on
/// constants.
pub(crate) struct Ib {
    /// Insert before this op.
    pub before: OpId,
}

/// The `state` constructor of a binary `mloop` op (`AddOp::state`).
type BinaryState = fn(Loc, Value, Value, Type) -> OperationState;

impl Ib {
    /// Creates the op `state` builds (given the anchor's location) before the anchor.
    pub fn insert(&self, ctx: &mut Context, state: impl FnOnce(Loc) -> OperationState) -> OpId {
        let st = state(ctx.op_loc(self.before));
        let op = ctx.create_op(st);
        ctx.insert_op_before(self.before, op);
        op
    }

    /// `mloop.constant v : index`.
    pub fn index(&self, ctx: &mut Context, v: i64) -> Value {
        let it = ctx.index_type();
        let a = ctx.int_attr(v, it);
        let op = self.insert(ctx, |loc| ConstantOp::state(loc, it, a));
        ctx.result(op, 0)
    }

    /// `mloop.constant v : ty` for a float type.
    pub fn float(&self, ctx: &mut Context, v: f64, ty: Type) -> Value {
        let a = ctx.float_attr(v, ty);
        let op = self.insert(ctx, |loc| ConstantOp::state(loc, ty, a));
        ctx.result(op, 0)
    }

    fn bin(&self, ctx: &mut Context, state: BinaryState, a: Value, b: Value, f: fn(i64, i64) -> Option<i64>) -> Value {
        if let (Some(x), Some(y)) = (const_int(ctx, a), const_int(ctx, b)) {
            if let Some(r) = f(x, y) {
                return self.index(ctx, r);
            }
        }
        let it = ctx.index_type();
        let op = self.insert(ctx, |loc| state(loc, a, b, it));
        ctx.result(op, 0)
    }

    /// `a + b` on index.
    pub fn add(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if const_int(ctx, b) == Some(0) {
            return a;
        }
        if const_int(ctx, a) == Some(0) {
            return b;
        }
        self.bin(ctx, AddOp::state, a, b, i64::checked_add)
    }

    /// `a - b` on index.
    pub fn sub(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if const_int(ctx, b) == Some(0) {
            return a;
        }
        self.bin(ctx, SubOp::state, a, b, i64::checked_sub)
    }

    /// `a * b` on index.
    pub fn mul(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if const_int(ctx, b) == Some(1) {
            return a;
        }
        if const_int(ctx, a) == Some(1) {
            return b;
        }
        self.bin(ctx, MulOp::state, a, b, i64::checked_mul)
    }

    /// `floor(a / b)` on index.
    pub fn div(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if const_int(ctx, b) == Some(1) {
            return a;
        }
        self.bin(ctx, DivOp::state, a, b, |x, y| if y == 0 { None } else { Some(x.div_euclid(y)) })
    }

    /// `min(a, b)` on index.
    pub fn min(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if a == b {
            return a;
        }
        self.bin(ctx, MinOp::state, a, b, |x, y| Some(x.min(y)))
    }

    /// `max(a, b)` on index.
    pub fn max(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if a == b {
            return a;
        }
        self.bin(ctx, MaxOp::state, a, b, |x, y| Some(x.max(y)))
    }

    /// The trip count `ceildiv(ub - lb, step)` of a dimension (for `ub >= lb`, `step > 0`).
    pub fn extent(&self, ctx: &mut Context, lb: Value, ub: Value, step: Value) -> Value {
        let d = self.sub(ctx, ub, lb);
        self.ceildiv(ctx, d, step)
    }

    /// `ceildiv(a, b)` for `b > 0`.
    pub fn ceildiv(&self, ctx: &mut Context, a: Value, b: Value) -> Value {
        if const_int(ctx, b) == Some(1) {
            return a;
        }
        let one = self.index(ctx, 1);
        let bm1 = self.sub(ctx, b, one);
        let s = self.add(ctx, a, bm1);
        self.div(ctx, s, b)
    }

    /// The position `(iv - lb) / step` of an iv in its dimension.
    pub fn position(&self, ctx: &mut Context, iv: Value, lb: Value, step: Value) -> Value {
        let d = self.sub(ctx, iv, lb);
        self.div(ctx, d, step)
    }
}

/// How an op touches buffers.
#[derive(Clone, Debug)]
pub(crate) enum Effect {
    /// Reads `buffer` at `indices`.
    Read { buffer: Value, indices: Vec<Value> },
    /// Writes (or read-modify-writes) `buffer` at `indices` (`None`: every element, or
    /// unknown elements).
    Write { buffer: Value, indices: Option<Vec<Value>> },
    /// Unknown effects (a call, an unknown op with buffer operands).
    Unknown,
}

/// The memory effects of one op (not of the ops nested in it).
pub(crate) fn op_effects(ctx: &Context, op: OpId) -> Vec<Effect> {
    let n = ctx.operands(op).len();
    if let Some(l) = LoadOp::dyn_cast(ctx, op).filter(|_| n >= 1) {
        vec![Effect::Read { buffer: l.buffer(ctx), indices: l.indices(ctx).to_vec() }]
    } else if let Some(s) = StoreOp::dyn_cast(ctx, op).filter(|_| n >= 2) {
        vec![Effect::Write { buffer: s.buffer(ctx), indices: Some(s.indices(ctx).to_vec()) }]
    } else if let Some(a) = AccumulateOp::dyn_cast(ctx, op).filter(|_| n >= 2) {
        vec![Effect::Write { buffer: a.buffer(ctx), indices: Some(a.indices(ctx).to_vec()) }]
    } else if let Some(f) = FillOp::dyn_cast(ctx, op).filter(|_| n == 2) {
        vec![Effect::Write { buffer: f.buffer(ctx), indices: None }]
    } else if let Some(d) = DeallocOp::dyn_cast(ctx, op).filter(|_| n == 1) {
        vec![Effect::Write { buffer: d.buffer(ctx), indices: None }]
    } else if ctx.isa::<CallOp>(op) {
        vec![Effect::Unknown]
    } else if [DimOp::info(), SelectOp::info(), ForOp::info(), ParallelOp::info(), ReduceOp::info(), YieldOp::info()]
        .into_iter()
        .any(|k| ctx.op_is(op, k))
    {
        // The `mloop` ops that may take a buffer without touching its elements: they read its
        // sizes or pass it along. (The other `mloop` ops take no buffers.)
        Vec::new()
    } else if ctx.operands(op).iter().any(|v| morf_loop::is_buffer(ctx, ctx.value_type(*v))) {
        // An op of another dialect touching a buffer: unknown.
        vec![Effect::Unknown]
    } else {
        Vec::new()
    }
}

/// The memory effects of `op` and every op nested in it.
pub(crate) fn nested_effects(ctx: &Context, op: OpId) -> Vec<Effect> {
    let mut out = Vec::new();
    for o in ctx.walk_collect(op) {
        out.extend(op_effects(ctx, o));
    }
    out
}

/// The buffers `op` and the ops nested in it store into or accumulate into, in walk order
/// (a buffer once per write).
pub(crate) fn written_buffers(ctx: &Context, op: OpId) -> Vec<Value> {
    ctx.walk_collect(op)
        .into_iter()
        .filter_map(|o| match StoreOp::dyn_cast(ctx, o) {
            Some(st) => Some(st.buffer(ctx)),
            None => AccumulateOp::dyn_cast(ctx, o).map(|a| a.buffer(ctx)),
        })
        .collect()
}

/// The identity of a reduction kind.
pub(crate) fn identity_of(kind: Kind) -> f64 {
    match kind {
        Kind::Sum => 0.0,
        Kind::Prod => 1.0,
        Kind::Max => f64::NEG_INFINITY,
        Kind::Min => f64::INFINITY,
    }
}

/// Clones the ops of `from` (all but its terminator) before `ib.before`, mapping values
/// through `map`. Returns the mapped operands of the terminator.
pub(crate) fn clone_body(ctx: &mut Context, from: BlockId, ib: &Ib, map: &mut HashMap<Value, Value>) -> Vec<Value> {
    let ops: Vec<OpId> = ctx.block_ops(from).collect();
    let (term, rest) = ops.split_last().expect("non-empty body");
    for &o in rest {
        let c = ctx.clone_op(o, map);
        ctx.insert_op_before(ib.before, c);
    }
    ctx.operands(*term).iter().map(|v| *map.get(v).unwrap_or(v)).collect()
}
