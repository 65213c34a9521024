//! Rewrite patterns, the [`Rewriter`] they mutate IR through, and the greedy driver that
//! applies folders and patterns to a fixpoint.
//!
//! The driver seeds a worklist with every op under the root in post-order. For each op it
//! erases it if it is pure and unused, else tries its folder, else its patterns by
//! decreasing benefit. After a change it re-queues the users of changed values and the
//! definers of operands. It stops at a fixpoint or after `max_iterations` full sweeps and
//! reports whether it converged.

use std::collections::HashSet;

use crate::attrs::{Attr, AttrData};
use crate::context::{Context, OpId, OperationState, Value};
use crate::registry::{FoldResult, Traits};
use crate::types::{Type, TypeData};

/// A rewrite of one op kind (or of any op when `root` is `None`).
pub trait RewritePattern {
    /// A debug name, by effect (`FoldAddOfZero`).
    fn name(&self) -> &'static str;
    /// The op name this pattern matches, or `None` for any.
    fn root(&self) -> Option<&'static str>;
    /// Patterns with a higher benefit are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Rewrites `op` and returns true, or returns false leaving the IR untouched.
    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool;
}

/// The mutation interface of patterns: it records what changed so the driver can update
/// its worklist. It is the only way a pattern changes IR: it reads the IR through
/// [`Rewriter::ctx`] (shared) and mutates it through the methods below, each of which
/// tells the driver what changed.
pub struct Rewriter<'a> {
    /// The IR; private, so that no change skips the bookkeeping.
    pub(crate) ctx: &'a mut Context,
    /// Ops created or changed since the last drain.
    pub(crate) touched: Vec<OpId>,
    /// Ops erased since the last drain.
    pub(crate) erased: HashSet<OpId>,
}

impl<'a> Rewriter<'a> {
    /// A rewriter over `ctx`.
    pub fn new(ctx: &'a mut Context) -> Self {
        Rewriter { ctx, touched: Vec::new(), erased: HashSet::new() }
    }

    /// Creates an op from `state` right before `anchor`.
    pub fn create_before(&mut self, anchor: OpId, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.ctx.insert_op_before(anchor, op);
        self.touched.push(op);
        op
    }

    /// Replaces every result of `op` by `new_values` and erases `op`.
    pub fn replace_op(&mut self, op: OpId, new_values: &[Value]) {
        let results = self.ctx.results(op).to_vec();
        assert_eq!(results.len(), new_values.len(), "replace_op: result count mismatch");
        for (r, n) in results.iter().zip(new_values) {
            self.replace_all_uses_with(*r, *n);
        }
        self.erase_op(op);
    }

    /// Replaces every use of `from` with `to`, re-queueing the users.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        let users: Vec<OpId> = self.ctx.uses(from).iter().map(|u| u.op).collect();
        self.ctx.replace_all_uses_with(from, to);
        self.touched.extend(users);
        if let Some(d) = self.ctx.defining_op(to) {
            self.touched.push(d);
        }
    }

    /// Erases an op whose results are unused.
    pub fn erase_op(&mut self, op: OpId) {
        let defs: Vec<OpId> = self.ctx.operands(op).iter().filter_map(|v| self.ctx.defining_op(*v)).collect();
        for o in self.ctx.walk_collect(op) {
            self.erased.insert(o);
        }
        self.ctx.erase_op(op);
        self.touched.extend(defs);
    }

    /// Records an in-place change of `op` (attributes, operands).
    pub fn modified(&mut self, op: OpId) {
        self.touched.push(op);
    }

    /// The IR, to read.
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// Creates a detached op from `state` (insert it with [`Rewriter::insert_before`]).
    pub fn create(&mut self, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.touched.push(op);
        op
    }

    /// Inserts the detached op `op` right before `anchor`.
    pub fn insert_before(&mut self, anchor: OpId, op: OpId) {
        self.ctx.insert_op_before(anchor, op);
        self.touched.push(op);
    }

    /// Moves `op` right before `anchor`.
    pub fn move_before(&mut self, op: OpId, anchor: OpId) {
        self.ctx.move_op_before(op, anchor);
        self.touched.push(op);
    }

    /// Sets operand `i` of `op` to `v`.
    pub fn set_operand(&mut self, op: OpId, i: usize, v: Value) {
        let old = self.ctx.operand(op, i);
        self.ctx.set_operand(op, i, v);
        self.touched.push(op);
        if let Some(d) = self.ctx.defining_op(old) {
            self.touched.push(d);
        }
    }

    /// Sets attribute `name` of `op`.
    pub fn set_attr(&mut self, op: OpId, name: &str, value: Attr) {
        self.ctx.set_attr(op, name, value);
        self.touched.push(op);
    }

    /// Removes attribute `name` of `op`; returns whether it was there.
    pub fn remove_attr(&mut self, op: OpId, name: &str) -> bool {
        let had = self.ctx.remove_attr(op, name);
        self.touched.push(op);
        had
    }

    /// Interns an attribute (attributes and types are immutable values; interning changes
    /// no op).
    pub fn attr(&mut self, data: AttrData) -> Attr {
        self.ctx.intern_attr(data)
    }

    /// Interns a type.
    pub fn ty(&mut self, data: TypeData) -> Type {
        self.ctx.intern_type(data)
    }

    /// Access to the type and attribute constructors through a [`Uniquer`], which reaches
    /// no op.
    pub fn uniquer(&mut self) -> Uniquer<'_> {
        Uniquer { ctx: self.ctx }
    }
}

/// Makes types and attributes (the helper constructors of [`Context`] that only intern),
/// without access to ops, blocks or values.
pub struct Uniquer<'a> {
    ctx: &'a mut Context,
}

impl<'a> Uniquer<'a> {
    pub(crate) fn new(ctx: &'a mut Context) -> Self {
        Uniquer { ctx }
    }
    /// An array of `i64` integers.
    pub fn i64_array_attr(&mut self, v: &[i64]) -> Attr {
        self.ctx.i64_array_attr(v)
    }
    /// An `i64` integer.
    pub fn i64_attr(&mut self, v: i64) -> Attr {
        self.ctx.i64_attr(v)
    }
    /// A float of type `ty`.
    pub fn float_attr(&mut self, v: f64, ty: Type) -> Attr {
        self.ctx.float_attr(v, ty)
    }
    /// An integer of type `ty`.
    pub fn int_attr(&mut self, v: i64, ty: Type) -> Attr {
        self.ctx.int_attr(v, ty)
    }
    /// A string.
    pub fn str_attr(&mut self, s: &str) -> Attr {
        self.ctx.str_attr(s)
    }
    /// A bool.
    pub fn bool_attr(&mut self, b: bool) -> Attr {
        self.ctx.bool_attr(b)
    }
    /// A ranked tensor type.
    pub fn tensor_type(&mut self, shape: &[crate::types::Dim], elem: Type) -> Type {
        self.ctx.tensor_type(shape, elem)
    }
}

/// Options of the greedy driver.
#[derive(Clone, Debug)]
pub struct GreedyConfig {
    /// Full sweeps before giving up.
    pub max_iterations: usize,
    /// Apply folders.
    pub fold: bool,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig { max_iterations: 10, fold: true }
    }
}

/// What the driver did.
#[derive(Clone, Debug, Default)]
pub struct GreedyStats {
    /// Whether a sweep made no change.
    pub converged: bool,
    /// Whether anything changed.
    pub changed: bool,
    /// Sweeps made.
    pub iterations: usize,
    /// Folds, pattern applications and dead-op erasures.
    pub rewrites: usize,
}

/// The constant attribute an op produces, if it is constant-like (`value` attribute).
pub fn constant_value(ctx: &Context, v: Value) -> Option<Attr> {
    let d = ctx.defining_op(v)?;
    let info = ctx.op_info(d)?;
    if info.has(Traits::CONSTANT_LIKE) {
        ctx.attr(d, "value")
    } else {
        None
    }
}

/// Whether `op` may be erased when its results are unused.
pub fn is_trivially_dead(ctx: &Context, op: OpId) -> bool {
    let pure = ctx.op_info(op).is_some_and(|i| i.has(Traits::PURE) && !i.has(Traits::TERMINATOR));
    pure && ctx.regions(op).is_empty() && ctx.results(op).iter().all(|r| ctx.uses(*r).is_empty())
}

/// Tries to fold `op`; on success replaces it and returns true.
fn try_fold(rw: &mut Rewriter<'_>, op: OpId) -> bool {
    let Some(info) = rw.ctx.op_info(op) else {
        return false;
    };
    if info.has(Traits::CONSTANT_LIKE) {
        return false;
    }
    let Some(fold) = info.fold else { return false };
    let consts: Vec<Option<Attr>> = rw.ctx.operands(op).iter().map(|v| constant_value(rw.ctx, *v)).collect();
    let Some(results) = fold(rw.ctx, op, &consts) else {
        return false;
    };
    let dialect = rw.ctx.op_name(op).split('.').next().unwrap_or("").to_string();
    let materialize = rw.ctx.registry().dialect(&dialect).and_then(|d| d.materialize_constant);
    let mut new_values = Vec::new();
    let mut created = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let res = rw.ctx.result(op, i);
        match r {
            FoldResult::Value(v) => {
                if *v == res {
                    return false;
                }
                new_values.push(*v)
            }
            FoldResult::Constant(a) => {
                let ty = rw.ctx.value_type(res);
                let loc = rw.ctx.op_loc(op);
                let Some(c) = materialize.and_then(|m| m(rw.ctx, *a, ty, loc)) else {
                    for c in created {
                        rw.ctx.erase_op(c);
                    }
                    return false;
                };
                rw.ctx.insert_op_before(op, c);
                created.push(c);
                new_values.push(rw.ctx.result(c, 0));
            }
        }
    }
    rw.touched.extend(created);
    rw.replace_op(op, &new_values);
    true
}

/// Applies folders and `patterns` under `root` until nothing changes.
pub fn apply_patterns_greedily(
    ctx: &mut Context,
    root: OpId,
    patterns: &[Box<dyn RewritePattern>],
    config: &GreedyConfig,
) -> GreedyStats {
    let mut order: Vec<usize> = (0..patterns.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(patterns[i].benefit()));
    let mut stats = GreedyStats::default();
    for _ in 0..config.max_iterations.max(1) {
        stats.iterations += 1;
        let mut changed = false;
        // Post-order: nested ops before their parents, operands before users.
        let mut worklist: Vec<OpId> = ctx.walk_collect(root);
        worklist.retain(|o| *o != root);
        worklist.reverse();
        let mut queued: HashSet<OpId> = worklist.iter().copied().collect();
        // Patterns that undo each other (A→B→A) would keep re-queueing their ops forever
        // within one sweep; a budget per sweep ends it, and the run reports no convergence.
        let mut budget = 64 + 16 * worklist.len();
        let mut rw = Rewriter::new(ctx);
        while let Some(op) = worklist.pop() {
            if budget == 0 {
                changed = true;
                break;
            }
            queued.remove(&op);
            if rw.erased.contains(&op) || !rw.ctx.op_exists(op) {
                continue;
            }
            let mut did = false;
            if is_trivially_dead(rw.ctx, op) {
                rw.erase_op(op);
                did = true;
            } else if config.fold && try_fold(&mut rw, op) {
                did = true;
            } else {
                let name = rw.ctx.op_name(op).to_string();
                for &i in &order {
                    let p = &patterns[i];
                    if p.root().is_some_and(|r| r != name) {
                        continue;
                    }
                    if p.match_and_rewrite(op, &mut rw) {
                        tracing::trace!(pattern = p.name(), "applied");
                        did = true;
                        break;
                    }
                }
            }
            if did {
                changed = true;
                budget = budget.saturating_sub(1);
                stats.rewrites += 1;
                let touched: Vec<OpId> = std::mem::take(&mut rw.touched);
                for t in touched {
                    if rw.ctx.op_exists(t) && !rw.erased.contains(&t) && t != root && queued.insert(t) {
                        worklist.push(t);
                        // Users of its results too.
                        for r in rw.ctx.results(t).to_vec() {
                            for u in rw.ctx.uses(r).to_vec() {
                                if queued.insert(u.op) {
                                    worklist.push(u.op);
                                }
                            }
                        }
                    }
                }
            }
        }
        if !changed {
            stats.converged = true;
            break;
        }
        stats.changed = true;
    }
    stats
}
