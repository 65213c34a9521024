//! `loop-partial-accumulate`: turns a reduction nest into pointwise partial accumulations
//! into a workspace plus a small deterministic final reduction (step 1 of the known
//! mixed-order reduction algorithm of the project brief).
//!
//! The target is the `nest`-th top-level `mloop.parallel`/`mloop.for` directly in each
//! `func.func` body (0-based). It must be a reduction nest, as `lower-tensor-to-loop`
//! produces for a `mtensor.reduce`:
//!
//! ```text
//! mloop.parallel (kept ivs) = ... {
//!   prologue (ops without writes)
//!   %r = mloop.reduce KIND (red ivs) = (...) to (...) step (...) init(%init) : T { body; mloop.yield %e : T }
//!   epilogue(%r), ending in stores
//!   mloop.yield
//! }
//! ```
//!
//! with `KIND` one of `sum max min prod` (a mean is a sum whose division stays in the
//! epilogue), reduction bounds that do not depend on the kept ivs, and `%init` defined
//! outside the nest (or a constant in the prologue). With `nsplit = ceildiv(product of the
//! reduced extents, split-size)` the pass emits, in place of the nest:
//!
//! 1. `%W = mloop.alloc(...) : !mloop.buffer<nsplit x kept extents x T>`, and
//!    `mloop.fill %id, %W` with `%id` the identity of `KIND` (`%init` itself when it is
//!    that constant);
//! 2. a pointwise nest `mloop.parallel (red ivs..., kept ivs...)` (reduced dims outer, so
//!    its order matches a row reduction over the same tensor) holding the prologue, the
//!    reduction body, `%s = mloop.div %flat, %S` (the split of the row-major flat position
//!    of the reduced ivs: `%pos0` for one reduced dim, `%pos0 * %ext1 + %pos1` for two) and
//!    `mloop.accumulate KIND %e, %W[%s, kept positions...]`;
//! 3. the original nest, whose reduce becomes `mloop.reduce KIND (%s) = (0) to (nsplit)
//!    step (1) init(%init)` over `mloop.load %W[%s, kept positions]`; the epilogue stays;
//! 4. `mloop.dealloc %W`.
//!
//! The result equals the original up to float rounding (fp32 partials, as on a GPU).
//!
//! **Options:** `nest=K` (default 0), `split-size=S` (default 16, at least 1). A nest of
//! another shape is an error at the nest that says what is wrong.
//!
//! **Rows over several kept dims.** [`collapse_parallel_dims`] (not a pass option: the
//! fusion pass calls it on each row-fused kernel) turns a row loop `(b, m)` into one flat
//! loop `(row)` over `B*M` and the partial index `flat(b, m) div S` built here into
//! `row div S`: the 1-D shape of a row-fused kernel that `lower-loop-to-gpu` maps to
//! `row_fused` (a 2-D one fell back to a single thread).
//!
//! **Example** (`--loop-partial-accumulate='nest=0 split-size=16'`, a column sum):
//!
//! ```text
//! // before
//! mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
//!   %r = mloop.reduce sum (%i) = (%c0) to (%m) step (%c1) init(%zero) : f32 {
//!     %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!     mloop.yield %v : f32
//!   }
//!   mloop.store %r, %y[%j] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! // after
//! %ns = ...                                   // ceildiv(%m, 16)
//! %W = mloop.alloc(%ns, %n) : !mloop.buffer<?x?xf32>
//! mloop.fill %zero, %W : !mloop.buffer<?x?xf32>
//! mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
//!   %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!   %s = mloop.div %i, %c16 : index
//!   mloop.accumulate sum %v, %W[%s, %j] : !mloop.buffer<?x?xf32>
//!   mloop.yield
//! }
//! mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
//!   %r = mloop.reduce sum (%s) = (%c0) to (%ns) step (%c1) init(%zero) : f32 {
//!     %w = mloop.load %W[%s, %j] : !mloop.buffer<?x?xf32>
//!     mloop.yield %w : f32
//!   }
//!   mloop.store %r, %y[%j] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! mloop.dealloc %W : !mloop.buffer<?x?xf32>
//! ```

use std::collections::HashMap;

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, Diagnostic, Dim, OpId, Value};
use morf_loop::buffer_type;
use morf_loop::ops::{
    AccumulateOp, AddOp, AllocOp, DeallocOp, FillOp, Kind, LoadOp, MulOp, ParallelOp, ReduceOp, ResidentProgramsOp,
    YieldOp,
};

use super::loop_utils::{
    clone_body, const_float, const_int, defined_outside, identity_of, loop_parts, nested_effects, same_index,
    select_nest, target_functions, Effect, Ib,
};

/// The registry entry of `loop-partial-accumulate`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "loop-partial-accumulate",
        description: "turn a reduction nest into pointwise partial accumulations and a final split reduction",
        options: &[
            PassOptionInfo { key: "nest", help: "index of the top-level loop nest in each function", default: "0" },
            PassOptionInfo {
                key: "split-size",
                help: "points of the flattened reduced domain per partial (at least 1)",
                default: "16",
            },
            PassOptionInfo {
                key: "partials",
                help: "at most this many partials, each ceil(points / partials) points, computed at run time; 'resident' (or 'resident*R'): as many as (R times) the kernel's CTAs the device holds at once, asked at run time (0: split-size decides)",
                default: "0",
            },
        ],
        create: |o| Ok(Box::new(LoopPartialAccumulate::from_options(o)?)),
    }
}

/// The loop-partial-accumulate pass.
#[derive(Debug, Clone)]
pub struct LoopPartialAccumulate {
    /// Which top-level nest of each function.
    pub nest: usize,
    /// Points of the flattened reduced domain per partial.
    pub split_size: usize,
    /// A split sized at run time ([`SplitSize::Partials`] or [`SplitSize::Resident`]); `None`:
    /// `split_size` decides.
    pub partials: Option<SplitSize>,
}

/// What `mloop.resident_programs` answers before the GPU lowering binds it, where no device
/// model says otherwise: an H200's 132 SMs, one CTA each.
pub const ASSUMED_RESIDENT_PROGRAMS: u64 = 132;

impl Default for LoopPartialAccumulate {
    fn default() -> Self {
        LoopPartialAccumulate { nest: 0, split_size: 16, partials: None }
    }
}

impl LoopPartialAccumulate {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let split_size = o.usize("split-size", 16)?;
        if split_size == 0 {
            return Err("option 'split-size' must be at least 1".into());
        }
        let partials = SplitSize::parse_partials(&o.string("partials", "0"), ASSUMED_RESIDENT_PROGRAMS)?;
        Ok(LoopPartialAccumulate { nest: o.usize("nest", 0)?, split_size, partials })
    }
}

impl Pass for LoopPartialAccumulate {
    fn name(&self) -> &'static str {
        "loop-partial-accumulate"
    }

    fn options_text(&self) -> String {
        format!(
            "nest={} partials={} split-size={}",
            self.nest,
            SplitSize::partials_text(self.partials),
            self.split_size
        )
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        for f in target_functions(ctx, root, "loop-partial-accumulate")? {
            let nest = select_nest(ctx, f, self.nest, "nest")?;
            let split = self.partials.unwrap_or(SplitSize::Points(self.split_size as u64));
            partial_accumulate_with(ctx, nest, split)?;
        }
        Ok(())
    }
}

/// How many points of the flattened reduced domain each partial of
/// [`partial_accumulate_with`] folds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitSize {
    /// A fixed number of points per partial (`ceil(points / S)` partials).
    Points(u64),
    /// At most this many partials, whatever the extent: `max(ceil(points / K), 1)` points each,
    /// computed at run time (a split decoupled from the size: a persistent grid of `K` CTAs
    /// takes one balanced split each).
    Partials(u64),
    /// As [`SplitSize::Partials`] with `K = multiple x` the programs of the kernel the device
    /// holds at once: an `mloop.resident_programs` (whose interpreter value is `assumed`) that
    /// `lower-loop-to-gpu` binds to the kernel's occupancy at run time.
    Resident {
        /// Partials per resident program (rounds of the resident grid), at least 1.
        multiple: u64,
        /// What `mloop.resident_programs` answers before the GPU lowering binds it.
        assumed: u64,
    },
    /// As [`SplitSize::Resident`] with the resident programs given as an existing host
    /// value (an `mloop.resident_programs` that several partials of one kernel share, so
    /// that their splits are one value).
    Programs {
        /// Partials per resident program, at least 1.
        multiple: u64,
        /// The host value of the resident programs.
        programs: Value,
        /// The fewest points per partial: a split never shorter than this, whatever the
        /// occupancy (the fusion plan's fixed split, which its cost model chose against the
        /// workspace's traffic; 1 for none).
        min_points: u64,
    },
}

impl SplitSize {
    /// Reads a `partials` option value: `0` (none: `None`), a count `K`, `resident` or
    /// `resident*R` (`R` rounds of the resident grid, `1..=64`). `assumed` is what the
    /// `mloop.resident_programs` of `resident` answers before the GPU lowering binds it.
    pub fn parse_partials(text: &str, assumed: u64) -> Result<Option<SplitSize>, String> {
        let t = text.trim();
        let bad = || {
            format!("option 'partials' expects 0, a count of partials, 'resident' or 'resident*R' (R in 1..=64), got '{text}'")
        };
        if let Some(rest) = t.strip_prefix("resident") {
            let multiple = match rest.strip_prefix('*') {
                None if rest.is_empty() => 1,
                Some(r) => r.trim().parse::<u64>().ok().filter(|r| (1..=64).contains(r)).ok_or_else(bad)?,
                None => return Err(bad()),
            };
            return Ok(Some(SplitSize::Resident { multiple, assumed: assumed.max(1) }));
        }
        match t.parse::<u64>().map_err(|_| bad())? {
            0 => Ok(None),
            k => Ok(Some(SplitSize::Partials(k))),
        }
    }

    /// Whether a partial of `rows` rows at the plan's fixed `split` keeps that constant split
    /// under this run-time sizing: under [`SplitSize::Resident`], where the plan has at most
    /// `multiple x assumed` partials (one wave at one CTA per SM), which the occupancy could
    /// not lengthen (measured: a run-time split of the same rows cost LayerNorm backward at
    /// 4096 x 16384 5%, docs/perf.md, session 13). The fusion pass applies it and its cost
    /// model prices it.
    pub fn keeps_constant_split(&self, rows: u64, split: u64) -> bool {
        matches!(*self, SplitSize::Resident { multiple, assumed } if rows.div_ceil(split.max(1)) <= multiple * assumed)
    }

    /// The `partials` option text of a split sized at run time ([`SplitSize::parse_partials`]'s
    /// input); `0` for a fixed split.
    pub fn partials_text(split: Option<SplitSize>) -> String {
        match split {
            None | Some(SplitSize::Points(_)) => "0".into(),
            Some(SplitSize::Partials(k)) => k.to_string(),
            Some(SplitSize::Resident { multiple: 1, .. } | SplitSize::Programs { multiple: 1, .. }) => {
                "resident".into()
            }
            Some(SplitSize::Resident { multiple, .. } | SplitSize::Programs { multiple, .. }) => {
                format!("resident*{multiple}")
            }
        }
    }
}

/// A new `mloop.resident_programs {assumed}` before `op`; returns its value.
pub fn resident_programs(ctx: &mut Context, op: OpId, assumed: u64) -> Value {
    let it = ctx.index_type();
    let a = ctx.i64_attr(assumed.max(1) as i64);
    let r = Ib { before: op }.insert(ctx, |loc| ResidentProgramsOp::state(loc, it, a));
    ctx.result(r, 0)
}

/// Converts the reduction nest `nest` into partial accumulations with `split` points of the
/// flattened reduced domain per partial. Returns the pointwise nest.
pub fn partial_accumulate(ctx: &mut Context, nest: OpId, split: usize) -> Result<OpId, Diagnostic> {
    partial_accumulate_with(ctx, nest, SplitSize::Points(split as u64))
}

/// [`partial_accumulate`] with the split given as a [`SplitSize`].
pub fn partial_accumulate_with(ctx: &mut Context, nest: OpId, split: SplitSize) -> Result<OpId, Diagnostic> {
    let err =
        |ctx: &Context, m: &str| op_error(ctx, nest, format!("cannot be converted to partial accumulations: {m}"));
    if !ctx.isa::<ParallelOp>(nest) {
        return Err(err(ctx, "only 'mloop.parallel' reduction nests can be converted"));
    }
    let p = loop_parts(ctx, nest, false).map_err(|m| err(ctx, &m))?;
    let body_ops: Vec<OpId> = ctx.block_ops(p.body).collect();
    let reduces: Vec<usize> =
        body_ops.iter().enumerate().filter(|(_, o)| ctx.isa::<ReduceOp>(**o)).map(|(i, _)| i).collect();
    let [ri] = reduces[..] else {
        return Err(err(
            ctx,
            &format!("expected exactly one 'mloop.reduce' directly in the body, found {}", reduces.len()),
        ));
    };
    let red = body_ops[ri];
    let prologue = &body_ops[..ri];
    for &o in prologue {
        if !ctx.regions(o).is_empty() || nested_effects(ctx, o).iter().any(|e| !matches!(e, Effect::Read { .. })) {
            return Err(err(
                ctx,
                &format!("the '{}' op before the reduction writes memory or has regions", ctx.op_name(o)),
            ));
        }
    }
    let rp = loop_parts(ctx, red, true).map_err(|m| err(ctx, &format!("its 'mloop.reduce' is malformed: {m}")))?;
    let kind = ReduceOp(red).kind(ctx).unwrap_or_default();
    let Some(identity) = Kind::from_name(kind).map(identity_of) else {
        return Err(err(ctx, &format!("reduction kind '{kind}' is not one of sum, max, min, prod")));
    };
    let kind_attr = ctx.attr(red, "kind").expect("kind checked");
    for v in rp.lbs.iter().chain(&rp.ubs).chain(&rp.steps) {
        if !defined_outside(ctx, *v, nest) {
            return Err(err(ctx, "the bounds of the reduction depend on the nest"));
        }
    }
    for v in p.steps.iter().chain(&rp.steps) {
        if const_int(ctx, *v).is_some_and(|s| s <= 0) {
            return Err(err(ctx, "a step is not positive"));
        }
    }
    let mut init = rp.init.expect("reduce has an init");
    let ty = ctx.value_type(init);
    if !ctx.is_float(ty) {
        return Err(err(ctx, "the accumulator is not a float"));
    }
    let ib = Ib { before: nest };
    if !defined_outside(ctx, init, nest) {
        match ctx.defining_op(init) {
            Some(d) if ctx.operands(d).is_empty() && ctx.regions(d).is_empty() && prologue.contains(&d) => {
                let c = ctx.clone_op(d, &mut HashMap::new());
                ctx.insert_op_before(nest, c);
                init = ctx.result(c, 0);
            }
            _ => return Err(err(ctx, "the init of the reduction is computed inside the nest")),
        }
    }

    // The workspace W[nsplit, kept extents...], filled with the identity. The splits cut the
    // flattened reduced domain (row-major over every reduced dim), so each partial folds at
    // most `split` points whatever the number of reduced dims: splitting only the first
    // reduced dim would leave one f32 chain over all the inner reduced dims.
    let red_ext: Vec<Value> = (0..rp.ivs.len()).map(|d| ib.extent(ctx, rp.lbs[d], rp.ubs[d], rp.steps[d])).collect();
    let mut flat_ext = red_ext[0];
    for &e in &red_ext[1..] {
        flat_ext = ib.mul(ctx, flat_ext, e);
    }
    let s = match split {
        SplitSize::Points(n) => ib.index(ctx, n.max(1) as i64),
        SplitSize::Partials(k) => {
            let k = ib.index(ctx, k.max(1) as i64);
            let per = ib.ceildiv(ctx, flat_ext, k);
            let one = ib.index(ctx, 1);
            ib.max(ctx, per, one)
        }
        SplitSize::Resident { .. } | SplitSize::Programs { .. } => {
            let (multiple, r) = match split {
                SplitSize::Programs { multiple, programs, .. } => (multiple, programs),
                SplitSize::Resident { multiple, assumed } => (multiple, resident_programs(ctx, nest, assumed)),
                _ => unreachable!("matched above"),
            };
            let min_points = match split {
                SplitSize::Programs { min_points, .. } => min_points.max(1),
                _ => 1,
            };
            // K = multiple x max(resident, 1): the device may answer 0 (a CTA does not fit;
            // the launch then reports it).
            let one = ib.index(ctx, 1);
            let r = ib.max(ctx, r, one);
            let m = ib.index(ctx, multiple.max(1) as i64);
            let k = ib.mul(ctx, r, m);
            let per = ib.ceildiv(ctx, flat_ext, k);
            let least = ib.index(ctx, min_points as i64);
            ib.max(ctx, per, least)
        }
    };
    let nsplit = ib.ceildiv(ctx, flat_ext, s);
    let mut sizes = vec![nsplit];
    for d in 0..p.ivs.len() {
        sizes.push(ib.extent(ctx, p.lbs[d], p.ubs[d], p.steps[d]));
    }
    let dims: Vec<Dim> =
        sizes.iter().map(|v| const_int(ctx, *v).map_or(Dim::Dynamic, |c| Dim::Static(c.max(0) as u64))).collect();
    let dynamic: Vec<Value> = sizes.iter().copied().filter(|v| const_int(ctx, *v).is_none()).collect();
    let wty = buffer_type(ctx, &dims, ty);
    let alloc = ib.insert(ctx, |loc| AllocOp::state(loc, &dynamic, wty));
    let w = ctx.result(alloc, 0);
    ctx.set_value_name(w, Some("workspace"));
    let fill_value = if const_float(ctx, init) == Some(identity) { init } else { ib.float(ctx, identity, ty) };
    ib.insert(ctx, |loc| FillOp::state(loc, fill_value, w));

    // The pointwise nest: (red ivs..., kept ivs...).
    let loc = ctx.op_loc(nest);
    let region = ctx.create_region();
    let block = ctx.create_block(region, &[]);
    let mut map: HashMap<Value, Value> = HashMap::new();
    let mut new_red = Vec::new();
    let mut new_kept = Vec::new();
    for (old, list) in [(&rp.ivs, &mut new_red), (&p.ivs, &mut new_kept)] {
        for &iv in old.iter() {
            let d = ctx.value(iv).clone();
            let a = ctx.add_block_arg(block, d.ty, d.name, d.loc);
            map.insert(iv, a);
            list.push(a);
        }
    }
    let yield_op = ctx.create_op(YieldOp::state(loc, &[]));
    ctx.append_op(block, yield_op);
    let inner = Ib { before: yield_op };
    for &o in prologue {
        let c = ctx.clone_op(o, &mut map);
        ctx.insert_op_before(yield_op, c);
    }
    let e = clone_body(ctx, rp.body, &inner, &mut map);
    let [e] = e[..] else { return Err(err(ctx, "the reduction body does not yield one value")) };
    let mut flat = inner.position(ctx, new_red[0], rp.lbs[0], rp.steps[0]);
    for d in 1..new_red.len() {
        let pos = inner.position(ctx, new_red[d], rp.lbs[d], rp.steps[d]);
        let scaled = inner.mul(ctx, flat, red_ext[d]);
        flat = inner.add(ctx, scaled, pos);
    }
    let sidx = inner.div(ctx, flat, s);
    let mut acc_indices = vec![sidx];
    for (d, &iv) in new_kept.iter().enumerate() {
        acc_indices.push(inner.position(ctx, iv, p.lbs[d], p.steps[d]));
    }
    inner.insert(ctx, |loc| AccumulateOp::state(loc, e, w, &acc_indices, kind_attr));
    let mut operands: Vec<Value> = Vec::new();
    for (a, b) in [(&rp.lbs, &p.lbs), (&rp.ubs, &p.ubs), (&rp.steps, &p.steps)] {
        operands.extend(a.iter().chain(b.iter()).copied());
    }
    let pointwise = ctx.create_op(ParallelOp::state(loc, &operands).region(region));
    ctx.insert_op_before(nest, pointwise);

    // The final reduction over the splits, in place of the old reduce.
    let c0 = ib.index(ctx, 0);
    let c1 = ib.index(ctx, 1);
    let before_red = Ib { before: red };
    let mut load_indices = Vec::new();
    let sregion = ctx.create_region();
    let sblock = ctx.create_block(sregion, &[]);
    let it = ctx.index_type();
    let sname = ctx.sym("split");
    let siv = ctx.add_block_arg(sblock, it, Some(sname), loc);
    load_indices.push(siv);
    for d in 0..p.ivs.len() {
        load_indices.push(before_red.position(ctx, p.ivs[d], p.lbs[d], p.steps[d]));
    }
    let load = ctx.create_op(LoadOp::state(loc, w, &load_indices, ty));
    ctx.append_op(sblock, load);
    let lv = ctx.result(load, 0);
    let y = ctx.create_op(YieldOp::state(loc, &[lv]));
    ctx.append_op(sblock, y);
    let mut st = ReduceOp::state(ctx.op_loc(red), &[c0, nsplit, c1, init], ty, kind_attr);
    // The old reduction's attributes, `kind` included, in their order.
    st.attrs = ctx.attrs(red).iter().map(|&(k, a)| (ctx.str(k).to_string(), a)).collect();
    st.result_names = vec![ctx.value(ctx.result(red, 0)).name];
    let new_red_op = ctx.create_op(st.region(sregion));
    ctx.insert_op_before(red, new_red_op);
    let (old_r, new_r) = (ctx.result(red, 0), ctx.result(new_red_op, 0));
    ctx.replace_all_uses_with(old_r, new_r);
    ctx.erase_op(red);
    // Prologue ops only the old reduction used are dead now.
    for &o in prologue.iter().rev() {
        if ctx.op_exists(o) && morf_ir::rewrite::is_trivially_dead(ctx, o) {
            ctx.erase_op(o);
        }
    }

    let dealloc = ctx.create_op(DeallocOp::state(loc, w));
    ctx.insert_op_after(nest, dealloc);
    Ok(pointwise)
}

/// Collapses the dims of the `mloop.parallel` `nest` into one row-major dim, so that a row
/// kernel over several kept dims (a row reduction of a 3-D tensor over its last dim, whose rows
/// are `(b, m)`) has the 1-D row loop the row-fused GPU mapping takes, with its partials
/// indexed `W[%r div S, j]`:
///
/// ```text
/// mloop.parallel (%b, %m) = (%c0, %c0) to (%nb, %nm) step (%c1, %c1) {
///   ... %x[%b, %m, ...] ...
///   %f = mloop.add (mloop.mul %b, %nm), %m      // flat(b, m), as `partial_accumulate` builds it
///   %s = mloop.div %f, %c256
///   mloop.accumulate sum %v, %W[%s, %j]
/// }
/// // becomes
/// mloop.parallel (%r) = (%c0) to (%nb * %nm) step (%c1) {
///   %b = mloop.div %r, %nm
///   %m = mloop.rem %r, %nm
///   ... %x[%b, %m, ...] ...
///   %s = mloop.div %r, %c256
///   mloop.accumulate sum %v, %W[%s, %j]
/// }
/// ```
///
/// Each old iv is recomputed from `%r` by `div`/`rem` at the top of the body; every value in the
/// nest that is the row-major flat position of all the old ivs becomes `%r` (its now unused
/// `mul`/`add` chain is erased). The iterations are the same, in the same row-major order. The
/// new nest takes the old one's attributes and place and is returned; a nest with fewer than
/// two dims, or a dim that does not start at 0 with step 1, is returned unchanged. The
/// `mloop.parallel` case of [`super::loop_coalesce::coalesce`] (the `loop-coalesce` pass).
pub fn collapse_parallel_dims(ctx: &mut Context, nest: OpId) -> Result<OpId, Diagnostic> {
    if !ctx.isa::<ParallelOp>(nest) {
        return Err(op_error(ctx, nest, "cannot be collapsed: only 'mloop.parallel' nests can be collapsed"));
    }
    super::loop_coalesce::coalesce(ctx, nest)
}

/// `Some(n)` when `v` is the row-major flat position of `ivs[..n]` over the extents `ubs`
/// (`ivs[0]`, or `flat(ivs[..n-1]) * ubs[n-1] + ivs[n-1]`, the multiplication left out for
/// an extent of 1), as [`partial_accumulate`] builds the split index; the `mul`/`add` ops of
/// the expression go to `ops`.
pub(crate) fn flat_prefix_len(
    ctx: &Context,
    v: Value,
    ivs: &[Value],
    ubs: &[Value],
    ops: &mut Vec<OpId>,
) -> Option<usize> {
    if v == ivs[0] {
        return Some(1);
    }
    let def = ctx.defining_op(v)?;
    let add = ctx.dyn_cast::<AddOp>(def)?;
    let last = ivs.iter().position(|&iv| iv == add.rhs(ctx)).filter(|&l| l >= 1)?;
    let lhs = add.lhs(ctx);
    let prefix = match ctx.defining_op(lhs).and_then(|d| ctx.dyn_cast::<MulOp>(d)) {
        Some(mul) if same_index(ctx, mul.rhs(ctx), ubs[last]) => {
            ops.push(mul.0);
            mul.lhs(ctx)
        }
        _ if const_int(ctx, ubs[last]) == Some(1) => lhs,
        _ => return None,
    };
    ops.push(def);
    (flat_prefix_len(ctx, prefix, ivs, ubs, ops)? == last).then_some(last + 1)
}
