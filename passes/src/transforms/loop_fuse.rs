//! `loop-fuse`: fuses two top-level `mloop.parallel` nests with equal iteration domains.
//!
//! The targets are the `first`-th and `second`-th top-level `mloop.parallel`/`mloop.for`
//! nests directly in each `func.func` body (0-based, `first < second`). Both must be
//! `mloop.parallel` nests with equal domains: the same number of dimensions and, per
//! dimension, the same lower bound, upper bound and step (the same value or equal index
//! constants). The second's body (without its `mloop.yield`) moves to the end of the first's
//! body, with the second's induction variables replaced by the first's; the second nest is
//! erased.
//!
//! Fusion runs iteration `p` of the second right after iteration `p` of the first instead of
//! after all of the first, so it is legal only when no iteration of the second depends on a
//! different iteration of the first. The pass checks, for every buffer that both nests touch
//! and at least one of them writes (`store`, `accumulate`, `fill`, `dealloc`), that every
//! access of both nests uses the same indices, and that those indices are the nest's
//! induction variables (each at least once) plus loop-invariant values: then element and
//! iteration correspond one to one. Ops between the two nests that the second needs (its
//! operands, buffers it reads that they write, buffers it writes that they read) are moved
//! before the first, which requires that they do not depend on the first. Distinct buffer
//! values are assumed not to alias. Anything else is an error that says why.
//!
//! **IR expected:** `mloop` loop nests (docs/dialects/loop.md). Runs on a `func.func`, or on
//! a `builtin.module` (each of its functions). **IR produced:** the same, with two nests
//! fused. **Options:** `first=A` (default 0), `second=B` (default 1).
//!
//! **Example** (`--loop-fuse='first=0 second=1'`):
//!
//! ```text
//! // before
//! mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
//!   %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
//!   %e = mloop.exp %v : f32
//!   mloop.store %e, %t[%i] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
//!   %w = mloop.load %t[%j] : !mloop.buffer<?xf32>
//!   mloop.store %w, %y[%j] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! // after
//! mloop.parallel (%i) = (%c0) to (%n) step (%c1) {
//!   %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
//!   %e = mloop.exp %v : f32
//!   mloop.store %e, %t[%i] : !mloop.buffer<?xf32>
//!   %w = mloop.load %t[%i] : !mloop.buffer<?xf32>
//!   mloop.store %w, %y[%i] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! ```

use std::collections::{HashMap, HashSet};

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, Diagnostic, OpId, Value};
use morf_loop::ops::ParallelOp;

use super::loop_utils::{
    defined_outside, loop_parts, nested_effects, same_index, select_nest, target_functions, terminator, Effect,
};

/// The registry entry of `loop-fuse`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-fuse",
        description: "fuse two top-level mloop.parallel nests with equal domains, if legal",
        options: &[
            PassOptionInfo { key: "first", help: "index of the first top-level loop nest", default: "0" },
            PassOptionInfo { key: "second", help: "index of the second top-level loop nest", default: "1" },
        ],
        create: |o| Ok(Box::new(LoopFuse::from_options(o)?)),
    }
}

/// The loop-fuse pass.
#[derive(Debug, Clone)]
pub struct LoopFuse {
    /// The first nest (stays in place).
    pub first: usize,
    /// The second nest (moves into the first).
    pub second: usize,
}

impl Default for LoopFuse {
    fn default() -> Self {
        LoopFuse { first: 0, second: 1 }
    }
}

impl LoopFuse {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let (first, second) = (o.usize("first", 0)?, o.usize("second", 1)?);
        if first >= second {
            return Err(format!("option 'first' ({first}) must be less than option 'second' ({second})"));
        }
        Ok(LoopFuse { first, second })
    }
}

impl Pass for LoopFuse {
    fn name(&self) -> &'static str {
        "loop-fuse"
    }

    fn options_text(&self) -> String {
        format!("first={} second={}", self.first, self.second)
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-fuse")? {
            let a = select_nest(ctx, f, self.first, "first")?;
            let b = select_nest(ctx, f, self.second, "second")?;
            fuse(ctx, a, b, self.first)?;
        }
        Ok(())
    }
}

/// A printable name for a buffer value (`%t`, or `a buffer`).
fn describe(ctx: &Context, v: Value) -> String {
    match ctx.value(v).name {
        Some(n) => format!("buffer %{}", ctx.str(n)),
        None => "a buffer".into(),
    }
}

/// Why `second` cannot be fused into `first`, or `None` when it can; `mapped` maps the
/// second's ivs to the first's.
fn check_accesses(
    ctx: &Context,
    first: OpId,
    second: OpId,
    ivs: &[Value],
    mapped: &HashMap<Value, Value>,
) -> Result<(), String> {
    let e1 = nested_effects(ctx, first);
    let e2 = nested_effects(ctx, second);
    if e1.iter().chain(&e2).any(|e| matches!(e, Effect::Unknown)) {
        return Err("a nest has an op with unknown memory effects".into());
    }
    let buf = |e: &Effect| match e {
        Effect::Read { buffer, .. } | Effect::Write { buffer, .. } => Some(*buffer),
        Effect::Unknown => None,
    };
    let bufs1: HashSet<Value> = e1.iter().filter_map(buf).collect();
    let bufs2: HashSet<Value> = e2.iter().filter_map(buf).collect();
    let mut shared: Vec<Value> = bufs1.intersection(&bufs2).copied().collect();
    shared.sort_by_key(|v| e1.iter().position(|e| buf(e) == Some(*v)));
    for b in shared {
        let touches = |e: &&Effect| buf(e) == Some(b);
        let written = e1.iter().chain(&e2).filter(touches).any(|e| matches!(e, Effect::Write { .. }));
        if !written {
            continue;
        }
        // Every access, with the second's ivs renamed to the first's.
        let mut tuples: Vec<(bool, Vec<Value>)> = Vec::new();
        for (in_second, e) in e1.iter().map(|e| (false, e)).chain(e2.iter().map(|e| (true, e))) {
            if buf(e) != Some(b) {
                continue;
            }
            let idx = match e {
                Effect::Read { indices, .. } => indices.clone(),
                Effect::Write { indices: Some(i), .. } => i.clone(),
                _ => {
                    return Err(format!(
                        "{} is written as a whole (fill or dealloc) in one nest and used in the other",
                        describe(ctx, b)
                    ))
                }
            };
            let idx = idx.iter().map(|v| if in_second { *mapped.get(v).unwrap_or(v) } else { *v }).collect();
            tuples.push((in_second, idx));
        }
        let (_, first_idx) = &tuples[0];
        for (in_second, idx) in &tuples {
            let same = idx.len() == first_idx.len() && idx.iter().zip(first_idx).all(|(a, c)| same_index(ctx, *a, *c));
            if !same {
                let who = if *in_second { "the second nest" } else { "the first nest" };
                return Err(format!(
                    "{who} accesses {} at indices other than the ones where the other nest accesses it, \
                     so an iteration of the second nest would depend on other iterations of the first",
                    describe(ctx, b)
                ));
            }
        }
        // The indices must be the ivs (each at least once) plus invariants.
        for iv in ivs {
            if !first_idx.contains(iv) {
                return Err(format!(
                    "{} is accessed at indices that do not depend on every induction variable, \
                     so several iterations touch the same element",
                    describe(ctx, b)
                ));
            }
        }
        for v in first_idx {
            let invariant = defined_outside(ctx, *v, first) && defined_outside(ctx, *v, second);
            if !ivs.contains(v) && !invariant {
                return Err(format!("{} is accessed at computed indices", describe(ctx, b)));
            }
        }
    }
    Ok(())
}

/// Whether the effects `a` (of one op) and `b` (of another) conflict: one writes a buffer
/// the other touches, or either is unknown.
fn conflict(a: &[Effect], b: &[Effect]) -> bool {
    let w = |es: &[Effect]| -> Option<HashSet<Value>> {
        let mut s = HashSet::new();
        for e in es {
            match e {
                Effect::Write { buffer, .. } => {
                    s.insert(*buffer);
                }
                Effect::Unknown => return None,
                Effect::Read { .. } => {}
            }
        }
        Some(s)
    };
    let all = |es: &[Effect]| -> HashSet<Value> {
        es.iter()
            .filter_map(|e| match e {
                Effect::Read { buffer, .. } | Effect::Write { buffer, .. } => Some(*buffer),
                Effect::Unknown => None,
            })
            .collect()
    };
    let (Some(wa), Some(wb)) = (w(a), w(b)) else { return true };
    let (aa, ab) = (all(a), all(b));
    wa.iter().any(|x| ab.contains(x)) || wb.iter().any(|x| aa.contains(x))
}

/// Fuses the `mloop.parallel` `second` into `first` (both top-level nests of one block,
/// `first` before `second`). `first_index` is only used in messages.
pub fn fuse(ctx: &mut Context, first: OpId, second: OpId, first_index: usize) -> Result<(), Diagnostic> {
    let err = |ctx: &Context, m: String| op_error(ctx, second, format!("cannot be fused with nest {first_index}: {m}"));
    for op in [first, second] {
        if !ctx.isa::<ParallelOp>(op) {
            return Err(op_error(ctx, op, "cannot be fused: only 'mloop.parallel' nests can be fused"));
        }
    }
    let p1 = loop_parts(ctx, first, false).map_err(|m| op_error(ctx, first, format!("cannot be fused: {m}")))?;
    let p2 = loop_parts(ctx, second, false).map_err(|m| err(ctx, m))?;
    if p1.ivs.len() != p2.ivs.len() {
        return Err(err(
            ctx,
            format!("it has {} dimensions and nest {first_index} has {}", p2.ivs.len(), p1.ivs.len()),
        ));
    }
    for d in 0..p1.ivs.len() {
        let same = same_index(ctx, p1.lbs[d], p2.lbs[d])
            && same_index(ctx, p1.ubs[d], p2.ubs[d])
            && same_index(ctx, p1.steps[d], p2.steps[d]);
        if !same {
            return Err(err(ctx, format!("the iteration domains differ in dimension {d}")));
        }
    }
    let mapped: HashMap<Value, Value> = p2.ivs.iter().copied().zip(p1.ivs.iter().copied()).collect();
    check_accesses(ctx, first, second, &p1.ivs, &mapped).map_err(|m| err(ctx, m))?;

    // Ops between the nests that the second needs move before the first.
    let block = ctx.op_parent_block(first).expect("top-level nest");
    debug_assert_eq!(Some(block), ctx.op_parent_block(second));
    let mut between = Vec::new();
    let mut cur = ctx.next_op(first);
    while let Some(o) = cur {
        if o == second {
            break;
        }
        between.push(o);
        cur = ctx.next_op(o);
    }
    let e1 = nested_effects(ctx, first);
    let e2 = nested_effects(ctx, second);
    let mut needed: Vec<OpId> = Vec::new();
    for &x in between.iter().rev() {
        let results: Vec<Value> = ctx.walk_collect(x).iter().flat_map(|o| ctx.results(*o).to_vec()).collect();
        let used_by = |ctx: &Context, holder: OpId| {
            results.iter().any(|r| ctx.uses(*r).iter().any(|u| ctx.is_ancestor(holder, u.op)))
        };
        let ex = nested_effects(ctx, x);
        let is_needed = used_by(ctx, second) || needed.iter().any(|&n| used_by(ctx, n)) || conflict(&ex, &e2);
        if !is_needed {
            continue;
        }
        if conflict(&ex, &e1) {
            return Err(err(
                ctx,
                format!(
                    "the '{}' op between the nests is needed by the second nest but depends on the first",
                    ctx.op_name(x)
                ),
            ));
        }
        needed.push(x);
    }
    for &x in needed.iter().rev() {
        ctx.move_op_before(x, first);
    }

    // Move the second's body into the first.
    for (a, b) in p2.ivs.iter().zip(&p1.ivs) {
        ctx.replace_all_uses_with(*a, *b);
    }
    let t1 = terminator(ctx, p1.body);
    let ops: Vec<OpId> = ctx.block_ops(p2.body).collect();
    for &o in &ops[..ops.len() - 1] {
        ctx.move_op_before(o, t1);
    }
    ctx.erase_op(second);
    Ok(())
}
