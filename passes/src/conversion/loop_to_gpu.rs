//! `lower-loop-to-gpu`: maps the top-level loop nests of `mloop` functions onto GPU kernels
//! of the `mgpu` dialect (docs/dialects/gpu.md; docs/conversion-loop-to-gpu.md).
//!
//! Each `func.func` becomes the host function: its `mloop.dim`, scalar, `alloc`, `fill` and
//! `dealloc` ops stay, and each top-level nest (an `mloop.parallel`, `mloop.for`, or a
//! rank-0 `mloop.reduce` with the ops that consume its result) is replaced by one
//! `mgpu.launch` of a new `mgpu.func` kernel `@<func>_k<N>` appended to the module. The
//! kernel's parameters are the buffers the nest touches (as `!mgpu.ptr<elem>`), the dynamic
//! sizes of those buffers and the index values the nest uses (`mloop.dim` results, splits);
//! float scalars computed outside the nest are recomputed inside it.
//!
//! The mapping of a nest follows its `morf.kernel` attribute (docs/fusion.md, "Materialized
//! form") or, without one, its structure (see [`super::schedule::Mapping`]):
//!
//! - pointwise, other shapes: one thread per point of the parallel domain, grid-stride, inner
//!   `reduce`s as sequential `mloop.for`s with an accumulator;
//! - finals (`kind = "final"`): CTAs of 32 columns x R warps, warp-strided splits, warp
//!   partials combined in shared memory in warp order, epilogue by warp 0;
//! - column reductions (`parallel(j) { reduce(i) }`): split-K, two launches: row blocks into
//!   a workspace `[blocks, N]` (alloc/dealloc on the host), then the final mapping over it;
//! - row reductions (reduced dims innermost): a warp (or a CTA for long rows) per output
//!   point, lane-strided partials, `mgpu.warp_reduce` (+ shared memory and `mgpu.barrier`
//!   across warps); stores of the row by its first thread;
//! - rank-0 reductions: one CTA, block reduction, epilogue by thread 0;
//! - row-fused kernels: a persistent grid loops over splits `s = block_id; s += grid_dim`;
//!   the CTA's warps take the rows of the split, each row's reductions are computed by its
//!   threads and combined, the pointwise part follows, and the partials are accumulated per
//!   column in shared memory (one row per warp, combined in warp order at the end of the
//!   split and added to `W[s, :]` once) or straight into the CTA's own `W[s, :]`; with N
//!   static or hinted, a register-resident fast form (vector loads of each row once, `[j]`
//!   buffers hoisted, partials in registers) guarded at run time;
//! - nests with `accumulate` that none of these proves race-free: one thread.
//!
//! Every extent may be dynamic: loops are grid-stride / lane-strided with exact bounds, so
//! M >= 1, N >= 1 of any value work (tails, grids larger than the work).
//!
//! **Options:** `threads`, `threads-per-row`, `vector`, `rows-per-cta`, `grid` (0 = the
//! heuristic's choice, [`super::schedule::choose_schedule`]), `device` (`sms=...,smem=...`
//! overrides of the H200 description), `size-hints=M=4096,N=384` (sizes of named dynamic
//! dims for the heuristic), `fast` (1: the register-resident row-fused form where N is static
//! or hinted, behind a run-time guard that falls back to the looped form; 0: never), `report`
//! (print each nest's schedule, its source and the reasons of a poor mapping to stderr,
//! docs/conversion-loop-to-gpu.md "Schedule report"; `morf-opt --schedule-report`).
//!
//! **Example:**
//!
//! ```text
//! // before
//! mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
//!   %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
//!   mloop.store %v, %y[%i] : !mloop.buffer<?xf32>
//!   mloop.yield
//! }
//! // after (host)
//! mgpu.launch @f_k0 blocks(%g) threads(%t) shared(%c0) args(%x, %y, %m) : ...
//! // after (kernel)
//! mgpu.func @f_k0(%arg0: !mgpu.ptr<f32>, %arg1: !mgpu.ptr<f32>, %arg2: index) kernel {
//!   %tid = mgpu.thread_id : index ... grid-stride mloop.for over %arg2 ...
//!     %v = mgpu.load %arg0[%e] {nc} : !mgpu.ptr<f32>
//!     mgpu.store %v, %arg1[%e] : !mgpu.ptr<f32>
//!   mgpu.return
//! }
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};

use morf_gpu::ops as mgpu;
use morf_gpu::ptr_type;
use morf_ir::builtin::{op_error, symbol_name, FuncOp, ModuleOp};
use morf_ir::conversion::ConversionTarget;
use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise, UnaryFn};
use morf_ir::opdef::Op;
use morf_ir::pass::{NamedPipeline, Pass, PassInfo, PassOptionInfo, PassOptions, PassRegistry, PassResult};
use morf_ir::{Attr, BlockId, Context, Diagnostic, Dim, Loc, OpId, OperationState, Type, TypeData, Value};
use morf_loop::ops as mloop;
use morf_loop::{buffer_type, is_buffer};

use super::schedule::{
    choose_schedule, fast_regs, final_vec_lanes, flush_lanes, is_final_lanes, mapping_applies,
    planned_ctas_per_sm_with, pow2_floor, register_cap, split_rows, Fallback, Mapping, NestShape, Overrides,
    PartialStore, Schedule, MAX_STAGED_ROWS, SCHEDULE_ATTR,
};
use crate::fusion::device::Device;
use crate::transforms::loop_partial_accumulate::{collapse_parallel_dims, flat_prefix_len};
use crate::transforms::loop_utils::{
    const_int, defined_outside, loop_parts, same_index, written_buffers, Ib, LoopParts,
};

#[path = "mapped.rs"]
mod mapped;

#[path = "looped_vectors.rs"]
mod looped_vectors;

#[path = "fast_form.rs"]
mod fast_form;
use fast_form::*;

#[path = "column_reductions.rs"]
mod column_reductions;

#[path = "vector_forms.rs"]
mod vector_forms;
use vector_forms::*;

#[path = "flat_partials.rs"]
mod flat_partials;

/// Where a final reduction runs that follows the row-fused kernel filling its workspace
/// (`lower-loop-to-gpu{final=...}`, [`super::grid_merge`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FinalForm {
    /// `grid`: in the row kernel's grid, behind an `mgpu.grid_barrier` (one cooperative
    /// launch).
    #[default]
    Grid,
    /// `tail`: in the last CTAs of the row kernel's grid to finish their rows, behind an
    /// `mgpu.grid_tail` (one plain launch; the other CTAs return as they finish).
    Tail,
    /// `launch`: its own launch.
    Launch,
}

/// The options of [`LowerLoopToGpu`].
#[derive(Clone, Debug, Default)]
pub struct LoopToGpuOptions {
    /// Schedule overrides (0 = heuristic).
    pub overrides: Overrides,
    /// The device the heuristic targets.
    pub device: Device,
    /// Sizes of named dynamic dims (`size-hints=M=4096,N=384`).
    pub size_hints: BTreeMap<String, u64>,
    /// `gpu-choose-schedule`'s dry run: when set, `morf.schedule` attributes are ignored (the
    /// heuristic chooses) and every schedule chosen is recorded here with its nest.
    pub dry_run: Option<ScheduleLog>,
    /// `report`: print the schedule of each top-level nest to stderr (not in a dry run).
    pub report: bool,
    /// `atomics`: a nest the templates would run on one thread may take loop-map's strategy
    /// with atomic accumulates (`loop-map{atomics=true}`); off by default (deterministic).
    pub atomics: bool,
    /// `chunk-major`: a register-resident row kernel emits a body's ops chunk by chunk of the
    /// thread's columns (every op for the first vector of columns, then the next) instead of
    /// op by op over all of them; the same ops and results, shorter live ranges (fewer
    /// registers for ptxas). Off by default (a tuner knob): no faster on eight example
    /// kernels (docs/perf.md, eighth session), 1.8% faster on LayerNorm backward at 576000 x
    /// 384 with 16 lanes a row (eighteenth session).
    pub chunk_major: bool,
    /// `interleave-splits`: in a register-resident row kernel with column partials, split `s`
    /// of `S` takes the row groups `s, s + S, s + 2S, ...` instead of a block of consecutive
    /// ones, so the CTAs stream neighbouring rows at any time (as a grid-stride copy does)
    /// rather than one distant block each. The same partials, summed in another order.
    pub interleave_splits: bool,
    /// `dynamic-splits`: a register-resident row kernel's CTAs take their splits from a work
    /// counter (`mgpu.work_loop`: each CTA its own first, then the next one free) instead of
    /// every `grid_dim`-th one, so CTAs that finish early take more; the same splits, each
    /// summed as before (the partials' bits do not depend on which CTA ran a split). It
    /// balances only where there are more splits than CTAs (`resident-splits`, or
    /// `fuse-mixed-reductions{partials=K}` beyond the grid). Not with a cluster per row.
    pub dynamic_splits: bool,
    /// `resident-splits`: with `fuse-mixed-reductions{partials=resident}`, this many splits
    /// per CTA that fits (1, the default: a split a CTA): smaller splits, more partial rows.
    pub resident_splits: u32,
    /// `batch-reductions`: in a register-resident row kernel, independent row reductions
    /// (none uses another's result, as LayerNorm backward's two row sums) take their
    /// partials one after the other and are then reduced together: one block (and cluster)
    /// reduction, one barrier, for all of them, and in the reload form one pass over the row
    /// (`KernelBuilder::reduce_batches`). `None` (`auto`, the default): batched except in
    /// the reload form of a single CTA per row that reloads from global memory (no staged
    /// rows), where it measured slower (LayerNorm backward at 4096 x 16384 on the H200: 185.9
    /// -> 194.6 us; reloading from a ring it gains, 144.0 -> 137.9; a cluster per row gains,
    /// 754.0 -> 713.7 at 8192 x 32768); `Some(b)` forces it on or off.
    pub batch_reductions: Option<bool>,
    /// Where a final reduction right after the row-fused kernel that fills its workspace runs
    /// (`final`): by default in that kernel's grid ([`FinalForm::Grid`]).
    pub final_form: FinalForm,
    /// `split-final=grid`: a split-K column reduction's final runs in its partial's grid,
    /// behind a grid barrier, at the partial's CTA size (one cooperative launch). Off by
    /// default (`split-final=launch`, two launches): on the H100 (forty-first session) it
    /// saved 0.7-1.9 us at 65536 x 200 but lost 30-50 us at 8388608 x 3, where the final is
    /// one column tile over 16384 split rows: in its own launch a CTA of 1024 threads walks
    /// them (12.6 us), in the merged kernel a CTA of the partial's 256 (rmsnorm_bwd's
    /// partial and final 152.4 + 12.6 us apart, 213.4 merged). A merge that keeps the final's
    /// own CTA size (or its threads' work) would need the partial at that size too.
    pub split_final_grid: bool,
    /// `final-lanes`: the lanes of a final reduction's row segment (its `threads_per_row`:
    /// 1, 2, 4, 8, 16 or 32, each lane `vector` columns); 0 (the default): the latency model
    /// ([`final_vec_lanes`]) in the vector form, [`super::schedule::final_tile_cols`] in the
    /// scalar form. Wins over `threads-per-row` for final reductions.
    pub final_lanes: u32,
    /// `looped-vectors=false`: the looped form of a row (a row kernel without a
    /// register-resident form) keeps one scalar access per column instead of `v` columns a
    /// step (docs/conversion-loop-to-gpu.md, "Vectors in the looped form"); for A/B timing.
    /// Default true.
    pub no_looped_vectors: bool,
    /// `stream-copies`: a streamed kernel's staging-ring copies (`cp.async` of a staged row)
    /// carry the evict-first L2 hint too (`mgpu.copy_async {stream}`). Off by default: on the
    /// H200 (twenty-seventh session) it cost 1.5-2% at 16384 x 8192 (colmax_rowsum,
    /// row_col_stats, reduce3d) and gained 4% only at colmax_rowsum 4096 x 16384; a tuner knob.
    pub stream_copies: bool,
    /// `early-accumulates`: a register-resident row kernel emits the `accumulate`s that need
    /// no row reduction's result before its first row reduction
    /// (`KernelBuilder::early_accumulates`): fewer registers (RMSNorm backward at N = 1024:
    /// 193 -> 159, 120 with shared accumulators), the same bits. Off by default: on the H200
    /// the cached RMSNorm kernel at 65536 x 1024 ran 1.5% slower with it (109.9 -> 111.5 us),
    /// the other benchmark rows within 0.5%; a tuner knob. `false` still lets the lowering
    /// take them for an f32 row held under a tight register cap (`KernelBuilder::tight_registers`).
    pub early_accumulates: bool,
    /// `min-ctas`: the CTAs per SM ptxas is told to keep resident (`.minnctapersm`) for a
    /// register-resident row kernel, which bounds its registers.
    pub min_ctas: MinCtas,
    /// `remat-converts`: every kernel widens a loaded bf16 again after a barrier or a warp
    /// reduction instead of holding the f32 across it ([`super::remat_converts`]): fewer registers where the row
    /// is held through the row reduction. Off by default (a tuner knob).
    pub remat_converts: bool,
    /// `scalars-ahead`: a register-resident row kernel loads each per-row scalar input
    /// (`rstd[i]`, read at the row's index in one form) this many rows ahead and carries the
    /// scalars of the rows between, so that a row's arithmetic does not wait on those loads.
    /// `None` (`auto`, the default): one row ahead where the kernel keeps its next row in
    /// flight (`rows-in-flight=2`), none elsewhere (staged rows: on an H100 one row ahead
    /// measured 0.4% faster to 7% slower, forty-ninth session); `Some(d)`: `d` rows ahead in
    /// every row loop of the fast form (not packed rows, which load theirs by the group),
    /// `Some(0)` loading them in the row. A tuner knob.
    pub scalars_ahead: Option<u32>,
    /// `contract-fma`: every kernel gets `contract_fma`, so its f32 `mul`/`add`/`sub` are
    /// emitted without `.rn` and ptxas may fuse a multiply and an add into one `fma`.
    pub contract_fma: bool,
    /// `max-registers`: every kernel gets `max_registers` (PTX `.maxnreg`), a cap on a
    /// thread's registers beside the one its launch bounds imply (ptxas takes the lower);
    /// 0: none (the default).
    pub max_registers: u32,
    /// `reciprocal-divisors=false`: every division stays one. By default (`true`), where a
    /// thread's vector of columns is divided by one value (a split-K partial's `e[i, j] /
    /// s[i]`), the vector form multiplies by one reciprocal of it instead of dividing each
    /// element (`invariant-divisor-to-reciprocal`'s numerics, within about 1.5 ulp; f32 and
    /// f64 only).
    pub exact_divisions: bool,
}

/// The `min-ctas` option of `lower-loop-to-gpu`: how a register-resident row kernel's
/// `.minnctapersm` is set (a knob of the tuner: it trades registers against occupancy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MinCtas {
    /// `0` (the default): the CTAs the schedule plans ([`super::schedule::planned_ctas_per_sm`]),
    /// marked `min_ctas_planned`: spill relief lowers it where the assembler spills under it.
    #[default]
    Planned,
    /// `margin`: the plan with a quarter margin on the register estimate
    /// ([`planned_ctas_per_sm_with`]; the default until the forty-seventh session), marked
    /// `min_ctas_planned` too.
    Margin,
    /// `none`: no bound, ptxas chooses the registers.
    Unbounded,
    /// `N`: N CTAs per SM.
    Fixed(u64),
}

impl MinCtas {
    /// Parses the option's value.
    pub fn parse(s: &str) -> Result<MinCtas, String> {
        match s {
            "" | "0" | "planned" => Ok(MinCtas::Planned),
            "none" => Ok(MinCtas::Unbounded),
            "margin" => Ok(MinCtas::Margin),
            n => match n.parse::<u64>() {
                Ok(n @ 1..=32) => Ok(MinCtas::Fixed(n)),
                _ => Err(format!("option 'min-ctas' must be 0 (planned), 'margin', 'none' or 1..32, got '{s}'")),
            },
        }
    }

    /// The bound for a kernel the schedule planned for `planned` CTAs per SM: `Some(0)`
    /// stands for "no bound at all" (not even the default for large CTAs).
    pub fn apply(self, planned: Option<u64>) -> Option<u64> {
        match self {
            MinCtas::Planned | MinCtas::Margin => planned,
            MinCtas::Unbounded => Some(0),
            MinCtas::Fixed(n) => Some(n),
        }
    }

    /// Whether a bound it gives is the lowering's plan (`min_ctas_planned`), which spill
    /// relief may lower, rather than a request (`N`, or `none`).
    pub fn plans(self) -> bool {
        matches!(self, MinCtas::Planned | MinCtas::Margin)
    }
}

/// Sets `kernel`'s CTAs-per-SM bound `ctas` (`min_ctas_per_sm`), marked `min_ctas_planned`
/// where it is a nonzero plan (`planned`) rather than a request.
pub(crate) fn set_min_ctas(ctx: &mut Context, kernel: OpId, ctas: u64, planned: bool) {
    let n = ctx.i64_attr(ctas as i64);
    ctx.set_attr(kernel, "min_ctas_per_sm", n);
    if planned && ctas > 0 {
        let unit = ctx.unit_attr();
        ctx.set_attr(kernel, "min_ctas_planned", unit);
    } else {
        ctx.remove_attr(kernel, "min_ctas_planned");
    }
}

/// An entry of a nest's `morf.kernel` dictionary (docs/fusion.md, "Materialized form").
fn kernel_entry(ctx: &Context, op: OpId, key: &str) -> Option<Attr> {
    let a = ctx.attr(op, "morf.kernel")?;
    let morf_ir::AttrData::Dict(entries) = ctx.attr_data(a) else { return None };
    entries.iter().find(|(k, _)| ctx.str(*k) == key).map(|(_, v)| *v)
}

/// The `kind` of a nest's `morf.kernel` attribute.
fn kernel_kind(ctx: &Context, op: OpId) -> Option<String> {
    kernel_entry(ctx, op, "kind").and_then(|v| ctx.attr_str(v)).map(str::to_string)
}

/// The `split` of a nest's `morf.kernel` attribute.
fn kernel_split(ctx: &Context, op: OpId) -> Option<i64> {
    kernel_entry(ctx, op, "split").and_then(|v| ctx.attr_int(v))
}

/// Whether a nest's `morf.kernel` attribute has `partials = K` (K > 0) or `partials =
/// "resident"` (`"resident*R"`): a split sized at run time, `max(ceil(rows / K), 1)` rows,
/// whose value the nest's accumulates divide by.
fn kernel_balanced(ctx: &Context, op: OpId) -> bool {
    kernel_entry(ctx, op, "partials").is_some_and(|v| {
        ctx.attr_int(v).is_some_and(|k| k > 0) || ctx.attr_str(v).is_some_and(|t| t.starts_with("resident"))
    })
}

/// The `mloop.div %iv, %split` ops of nest `op`: the split index of row `%iv` (a split sized at
/// run time, `split` its host value).
fn row_split_divs(ctx: &Context, op: OpId, iv: Value, split: Value) -> Vec<OpId> {
    ctx.walk_collect(op)
        .into_iter()
        .filter(|&d| ctx.dyn_cast::<mloop::DivOp>(d).is_some_and(|d| d.lhs(ctx) == iv && d.rhs(ctx) == split))
        .collect()
}

/// The `mloop.resident_programs` ops that host value `v` is computed from (through the
/// host's scalar ops of the block that holds them).
fn resident_programs_of(ctx: &Context, v: Value) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        let Some(d) = ctx.defining_op(v) else { continue };
        if !seen.insert(d) || !ctx.regions(d).is_empty() {
            continue;
        }
        if ctx.isa::<mloop::ResidentProgramsOp>(d) {
            out.push(d);
        } else {
            stack.extend(ctx.operands(d).iter().copied());
        }
    }
    out
}

/// `v` where `anchor` can use it: `v` itself if it is a block argument or defined before
/// `anchor` in its block, else a copy of its (pure, host scalar) defining op placed before
/// `anchor`, operands likewise.
fn value_before(ctx: &mut Context, v: Value, anchor: OpId) -> Value {
    let Some(d) = ctx.defining_op(v) else { return v };
    let Some(block) = ctx.op_parent_block(anchor) else { return v };
    if ctx.op_parent_block(d) != Some(block) || ctx.block_ops(block).take_while(|&o| o != anchor).any(|o| o == d) {
        return v;
    }
    let operands = ctx.operands(d).to_vec();
    let mut map = HashMap::new();
    for o in operands {
        let n = value_before(ctx, o, anchor);
        map.insert(o, n);
    }
    let index = ctx.results(d).iter().position(|&r| r == v).unwrap_or(0);
    let c = ctx.clone_op(d, &mut map);
    ctx.insert_op_before(anchor, c);
    ctx.result(c, index)
}

/// Gives each `mgpu.resident_blocks` of `body` that asks about kernel `name` the shared bytes
/// of that kernel's launch (after a merge changed them).
fn rebind_resident_shared(ctx: &mut Context, body: BlockId, name: &str) {
    let launch =
        ctx.block_ops(body).find(|&o| mgpu::LaunchOp::dyn_cast(ctx, o).is_some_and(|l| l.kernel(ctx) == Some(name)));
    let Some(shared) = launch.map(|l| mgpu::LaunchOp(l).shared(ctx)) else { return };
    let ops: Vec<OpId> = ctx.block_ops(body).filter(|&o| ctx.isa::<mgpu::ResidentBlocksOp>(o)).collect();
    for r in ops {
        if mgpu::ResidentBlocksOp(r).kernel(ctx) == Some(name) {
            let old = ctx.operands(r)[1];
            let v = value_before(ctx, shared, r);
            ctx.set_operand(r, 1, v);
            erase_dead_host_values(ctx, old);
        }
    }
}

/// Erases the defining op of host value `v` when nothing uses it (a scalar op without
/// regions or effects), then its operands' likewise.
fn erase_dead_host_values(ctx: &mut Context, v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        let Some(d) = ctx.defining_op(v) else { continue };
        let pure = ctx.op_info(d).is_some_and(|i| i.has(morf_ir::Traits::PURE));
        if !pure || !ctx.regions(d).is_empty() || ctx.results(d).iter().any(|&r| !ctx.uses(r).is_empty()) {
            continue;
        }
        stack.extend(ctx.operands(d).iter().copied());
        ctx.erase_op(d);
    }
}

/// Replaces each `mloop.resident_programs` of `ops` (not yet bound) with an
/// `mgpu.resident_blocks` of `kernel` at the launch's `threads` and `shared` bytes: the
/// split of the kernel's partials then follows its occupancy on the device it runs on.
/// With `per_cta > 1` (`resident-splits`), the value is that many times the blocks.
fn bind_resident_programs(ctx: &mut Context, ops: &[OpId], kernel: &str, threads: Value, shared: Value, per_cta: u32) {
    for &ph in ops {
        if !ctx.isa::<mloop::ResidentProgramsOp>(ph) {
            continue;
        }
        let (t, sh) = (value_before(ctx, threads, ph), value_before(ctx, shared, ph));
        let it = ctx.index_type();
        let sym = ctx.symbol_ref_attr(kernel);
        let loc = ctx.op_loc(ph);
        let st = mgpu::ResidentBlocksOp::state(loc, t, sh, it, sym);
        let r = ctx.create_op(st);
        ctx.insert_op_before(ph, r);
        let mut new = ctx.result(r, 0);
        if per_cta > 1 {
            let a = ctx.int_attr(per_cta as i64, it);
            let c = ctx.create_op(mloop::ConstantOp::state(loc, it, a));
            ctx.insert_op_before(ph, c);
            let k = ctx.result(c, 0);
            let m = ctx.create_op(mloop::MulOp::state(loc, new, k, it));
            ctx.insert_op_before(ph, m);
            new = ctx.result(m, 0);
        }
        let old = ctx.result(ph, 0);
        ctx.replace_all_uses_with(old, new);
        ctx.erase_op(ph);
    }
}

/// The split a row-fused kernel's partials use: rows per split, fixed or a host value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SplitBy {
    /// A fixed number of rows.
    Rows(i64),
    /// A value computed before the nest (`morf.kernel = {partials = K}`).
    Value(Value),
}

/// Columns below which a 2-D nest that only accumulates partials (a column reduction's partial
/// launch, no store) keeps the thread-per-(split, column) form ([`partials_to_rows`]); a
/// pointwise nest with partials takes the row form at any width.
pub(crate) const ROW_FORM_MIN_COLS: u64 = 64;

/// The extent `v` has: a constant, a static dim, or the size hint of a named dynamic dim.
fn known_size(
    ctx: &Context,
    names: &HashMap<(Value, usize), String>,
    opts: &LoopToGpuOptions,
    v: Value,
) -> Option<u64> {
    if let Some(n) = const_int(ctx, v) {
        return u64::try_from(n).ok();
    }
    let dim = ctx.defining_op(v).and_then(|d| ctx.dyn_cast::<mloop::DimOp>(d))?;
    let (buf, k) = (dim.source(ctx), dim.index(ctx)? as usize);
    if let Some(Dim::Static(n)) = buffer_shape(ctx, buf).get(k) {
        return Some(*n);
    }
    opts.size_hints.get(names.get(&(buf, k))?).copied()
}

/// [`partials_to_rows`] on every function of `module`: `gpu-choose-schedule` runs it on the
/// IR it annotates, so that its `morf.schedule` attributes land on the nests the lowering
/// will lower.
pub(super) fn partials_to_rows_in_module(ctx: &mut Context, module: OpId, opts: &LoopToGpuOptions) {
    let Some(mblock) = ctx.regions(module).first().and_then(|r| ctx.entry_block(*r)) else { return };
    let funcs: Vec<OpId> = ctx.block_ops(mblock).filter(|&o| ctx.isa::<FuncOp>(o)).collect();
    for f in funcs {
        let names = dim_names(ctx, f);
        if let Some(body) = ctx.regions(f).first().and_then(|r| ctx.entry_block(*r)) {
            partials_to_rows(ctx, body, &names, opts);
        }
    }
}

/// Gives back the `div 1` that `canonicalize` folds away in a nest of split 1 (`{split = 1}`:
/// a partial row per row, as the fusion pass plans for two_norms_shared_weight's 64-row second
/// norm): each `accumulate` of such a nest whose workspace row is not a `mloop.div` gets
/// `W[x div 1, j]` for `W[x, j]`, the form every partial's recognizer of the lowering expects
/// (`W[i div S, j]`, `W[flat(i..) div S, j]`). Without it the row kernel fell back to loop-map's
/// mapped strategy (the "row-fused accumulate is not W[i div S, j]" fallback): two_norms at
/// 4096 x 16384 with K = 64 ran 301.8 us that way on an H100, 181.0 with the row kernel.
fn restore_unit_splits(ctx: &mut Context, body: BlockId) {
    for op in ctx.block_ops(body).collect::<Vec<_>>() {
        if !ctx.isa::<mloop::ParallelOp>(op) || kernel_split(ctx, op) != Some(1) {
            continue;
        }
        let it = ctx.index_type();
        let mut one = None;
        for a in ctx.walk_collect(op) {
            if !ctx.isa::<mloop::AccumulateOp>(a) {
                continue;
            }
            let x = ctx.operands(a).get(2).copied();
            let Some(x) = x.filter(|&x| ctx.defining_op(x).and_then(|d| ctx.dyn_cast::<mloop::DivOp>(d)).is_none())
            else {
                continue;
            };
            let one = *one.get_or_insert_with(|| Ib { before: op }.index(ctx, 1));
            let d = Ib { before: a }.insert(ctx, |loc| mloop::DivOp::state(loc, x, one, it));
            let dv = ctx.result(d, 0);
            ctx.set_operand(a, 2, dv);
        }
    }
}

/// Rewrites each k-D pointwise nest with partials (`{kind = "pointwise", split = S}` over
/// `(i.., j)` from 0 step 1, k >= 2, a flat body, every `accumulate` into `W[flat(i..) div S,
/// j]`) into the row form `parallel(i..) { parallel(j) { body } }` with `{kind = "row-fused",
/// split = S}`, its rows collapsed into one flat row loop where there are several
/// (`collapse_parallel_dims`: `W[r div S, j]`): the
/// same points in the same row order, now lowered as a row kernel without reductions (a warp,
/// lanes, a thread or a CTA per row by the row's length, vector accesses and register partials
/// on the fast path) instead of a thread per (split, column) that walks its split's rows one
/// element at a time. A nest that stores nothing (a column reduction's partials alone) keeps
/// that form under [`ROW_FORM_MIN_COLS`] known columns.
///
/// A k-D pointwise nest without partials (no `morf.kernel`, or `{kind = "pointwise"}`, and
/// no `accumulate`) takes the row form `{kind = "row-fused"}` too where its known rows do not
/// fill its thread-per-point vectors and a few of them make an aligned group a thread takes
/// ([`short_unaligned_rows`]), unless every access is at the point's flat position
/// ([`vector_forms::flat_points`]: the thread-per-point form's flat vectors): the
/// thread-per-point form would access a few bytes a thread there (one element at odd N), the
/// row form packs rows into 16-byte pieces.
fn partials_to_rows(
    ctx: &mut Context,
    body: BlockId,
    names: &HashMap<(Value, usize), String>,
    opts: &LoopToGpuOptions,
) {
    restore_unit_splits(ctx, body);
    for op in ctx.block_ops(body).collect::<Vec<_>>() {
        // A nest with a `mapping` keeps its loops: the mapping names them (mapped.rs).
        if !ctx.isa::<mloop::ParallelOp>(op) || mapped::has_mapping(ctx, op) {
            continue;
        }
        let split = kernel_split(ctx, op).filter(|s| *s > 0);
        let kind = kernel_kind(ctx, op);
        if kind.as_deref().is_some_and(|k| k != "pointwise") || (split.is_some() && kind.is_none()) {
            continue;
        }
        let Ok(p) = loop_parts(ctx, op, false) else { continue };
        let k = p.ivs.len();
        if k < 2 || (0..k).any(|d| const_int(ctx, p.lbs[d]) != Some(0) || const_int(ctx, p.steps[d]) != Some(1)) {
            continue;
        }
        // The rows: every iv but the last (one flat row index once collapsed); the columns: j.
        let (rows, j) = (&p.ivs[..k - 1], p.ivs[k - 1]);
        let ops: Vec<OpId> = ctx.block_ops(p.body).collect();
        if ops.iter().any(|&o| !ctx.regions(o).is_empty()) {
            continue;
        }
        let cols = known_size(ctx, names, opts, p.ubs[k - 1]);
        if split.is_none() {
            let accumulates = ops.iter().any(|&o| ctx.isa::<mloop::AccumulateOp>(o));
            // Where every access is at the point's flat position, the flat vectors of the
            // thread-per-point form fill 16 bytes a thread at any N, with no row to pack.
            if accumulates
                || !cols.is_some_and(|n| short_unaligned_rows(ctx, &ops, j, n))
                || vector_forms::flat_points(ctx, names, &p)
            {
                continue;
            }
        } else if (!ops.iter().any(|&o| ctx.isa::<mloop::StoreOp>(o)) && cols.is_some_and(|n| n < ROW_FORM_MIN_COLS))
            || flat_partials::flat_partials_plan(ctx, names, opts, op).is_some()
        {
            // (The flat partials form keeps the nest: `partial_pointwise` takes it.)
            continue;
        }
        let acc_ok = |o: OpId| {
            let x = ctx.operands(o);
            x.len() == 4
                && x[3] == j
                && ctx.defining_op(x[2]).and_then(|d| ctx.dyn_cast::<mloop::DivOp>(d)).is_some_and(|d| {
                    const_int(ctx, d.rhs(ctx)) == split
                        && flat_prefix_len(ctx, d.lhs(ctx), rows, &p.ubs[..k - 1], &mut Vec::new()) == Some(k - 1)
                })
        };
        if !ops.iter().filter(|&&o| ctx.isa::<mloop::AccumulateOp>(o)).all(|&o| acc_ok(o)) {
            continue;
        }
        // The inner loop over j takes the body; the nest keeps the rows.
        let loc = ctx.op_loc(op);
        let inner_region = ctx.create_region();
        let inner_blk = ctx.create_block(inner_region, &[]);
        let jd = ctx.value(j).clone();
        let nj = ctx.add_block_arg(inner_blk, jd.ty, jd.name, jd.loc);
        ctx.replace_all_uses_with(j, nj);
        for o in ops {
            ctx.detach_op(o);
            ctx.append_op(inner_blk, o);
        }
        let inner = ctx.create_op(
            mloop::ParallelOp::state(loc, &[p.lbs[k - 1], p.ubs[k - 1], p.steps[k - 1]]).region(inner_region),
        );
        let outer_region = ctx.create_region();
        let outer_blk = ctx.create_block(outer_region, &[]);
        for &i in rows {
            let id = ctx.value(i).clone();
            let ni = ctx.add_block_arg(outer_blk, id.ty, id.name, id.loc);
            ctx.replace_all_uses_with(i, ni);
        }
        ctx.append_op(outer_blk, inner);
        let y = ctx.create_op(mloop::YieldOp::state(loc, &[]));
        ctx.append_op(outer_blk, y);
        let bounds: Vec<Value> =
            p.lbs[..k - 1].iter().chain(&p.ubs[..k - 1]).chain(&p.steps[..k - 1]).copied().collect();
        let outer = ctx.create_op(mloop::ParallelOp::state(loc, &bounds).region(outer_region));
        ctx.insert_op_before(op, outer);
        let mut attrs = vec![(ctx.sym("kind"), ctx.str_attr("row-fused"))];
        if let Some(priced) = kernel_entry(ctx, op, "priced") {
            attrs.push((ctx.sym("priced"), priced));
        }
        if let Some(split) = split {
            attrs.push((ctx.sym("split"), ctx.i64_attr(split)));
        }
        attrs.push((ctx.sym("style"), ctx.str_attr("persistent")));
        let kernel = ctx.dict_attr(attrs);
        ctx.set_attr(outer, "morf.kernel", kernel);
        for &(name, a) in ctx.attrs(op).to_vec().iter() {
            let n = ctx.str(name).to_string();
            if n != "morf.kernel" {
                ctx.set_attr(outer, &n, a);
            }
        }
        ctx.erase_op(op);
        // Rows over several dims become one flat row loop (the 1-D row loop the row form
        // takes; a partial's W[flat(rows) div S, j] becomes W[r div S, j]), as fusion does
        // for its row kernels.
        if k > 2 {
            let _ = collapse_parallel_dims(ctx, outer);
        }
    }
}

/// Whether a pointwise body (`ops`, column iv `j`) over rows of `n` columns has short rows
/// its thread-per-point vectors do not fill, which the row form can pack: a row of `n`
/// elements of its widest float buffer accessed at `[..., j]` is not a multiple of 16 bytes,
/// and 2, 4 or 8 of them make a group of 8-byte pieces within
/// [`super::schedule::PACKED_MAX_BYTES`] (bf16: N up to 15 but 8, the even N from 18 to 30 but 24;
/// f32: 1-3, 5-7, 9-11, 13-15).
fn short_unaligned_rows(ctx: &Context, ops: &[OpId], j: Value, n: u64) -> bool {
    let mut bytes = 0u64;
    for &o in ops {
        let (buf, idx) = match LoopOp::of(ctx, o) {
            LoopOp::Load(l) => (l.buffer(ctx), ctx.operands(o)[1..].to_vec()),
            LoopOp::Store(s) => (s.buffer(ctx), ctx.operands(o)[2..].to_vec()),
            _ => continue,
        };
        if idx.last() == Some(&j) {
            bytes = bytes.max(float_bytes(ctx, ctx.element_type(ctx.value_type(buf))).map_or(0, u64::from));
        }
    }
    let row = n * bytes;
    row > 0
        && !row.is_multiple_of(16)
        && [2, 4, 8].iter().any(|g| g * row <= super::schedule::PACKED_MAX_BYTES && (g * row).is_multiple_of(8))
}

/// The schedules a dry run of the lowering chose, with their nests, in order (a split-K
/// column reduction records its partial launch, then its final launch).
pub type ScheduleLog = std::rc::Rc<std::cell::RefCell<Vec<(OpId, Schedule)>>>;

/// An `auto|true|false` option: `None` for `auto`.
fn tri(o: &PassOptions, key: &str) -> Result<Option<bool>, String> {
    match o.string(key, "auto").as_str() {
        "auto" => Ok(None),
        "true" | "1" => Ok(Some(true)),
        "false" | "0" => Ok(Some(false)),
        other => Err(format!("option '{key}' must be 'auto', 'true' or 'false', got '{other}'")),
    }
}

impl LoopToGpuOptions {
    /// These options with the CTA size pinned to `threads`: a final reduction that joins the
    /// grid of the kernel before it takes that kernel's CTA size.
    fn with_threads(&self, threads: u32) -> LoopToGpuOptions {
        let mut o = self.clone();
        o.overrides.threads = threads;
        o
    }

    /// Reads the options from `key=value` text options.
    pub fn from_pass_options(o: &PassOptions) -> Result<Self, String> {
        let u = |k: &str| o.usize(k, 0).map(|v| v as u32);
        let overrides = Overrides {
            threads: u("threads")?,
            threads_per_row: u("threads-per-row")?,
            vector: u("vector")?,
            rows_per_cta: u("rows-per-cta")?,
            grid: o.usize("grid", 0)? as u64,
            no_fast: o.usize("fast", 1)? == 0,
            split_rows: u("split-rows")?,
            rows_in_flight: u("rows-in-flight")?,
            staged_rows: u("staged-rows")?,
            reload: tri(o, "reload")?,
            shared_accs: tri(o, "shared-accs")?,
            cluster: u("cluster")?,
            stream_loads: tri(o, "stream-loads")?,
            packed_rows: u("packed-rows")?,
            warp_transpose: tri(o, "warp-transpose")?,
            flat_partials: tri(o, "flat-partials")?,
            vectors_in_flight: u("vectors-in-flight")?,
            flat_warps: tri(o, "flat-warps")?,
        };
        if ![0, 1, 2, 4].contains(&overrides.vectors_in_flight) {
            return Err(format!(
                "option 'vectors-in-flight' must be 1, 2 or 4 (0: heuristic), got {}",
                overrides.vectors_in_flight
            ));
        }
        if ![0, 1, 2, 4, 8].contains(&overrides.packed_rows) {
            return Err(format!(
                "option 'packed-rows' must be 2, 4 or 8 (0 or 1: one row a thread), got {}",
                overrides.packed_rows
            ));
        }
        if ![0, 1, 2, 4, 8].contains(&overrides.cluster) {
            return Err(format!(
                "option 'cluster' must be 2, 4 or 8 (0: heuristic, 1: none), got {}",
                overrides.cluster
            ));
        }
        if overrides.rows_in_flight > 2 {
            return Err(format!("option 'rows-in-flight' must be 0, 1 or 2, got {}", overrides.rows_in_flight));
        }
        if overrides.staged_rows > MAX_STAGED_ROWS {
            return Err(format!(
                "option 'staged-rows' must be at most {MAX_STAGED_ROWS} (0: heuristic, 1: none), got {}",
                overrides.staged_rows
            ));
        }
        if overrides.threads > 1024 {
            return Err(format!("option 'threads' must be at most 1024, got {}", overrides.threads));
        }
        let device = Device::parse(&o.string("device", ""))?;
        let size_hints = o.named_sizes("size-hints")?;
        let report = o.bool("report", false)?;
        let atomics = o.bool("atomics", false)?;
        let chunk_major = o.bool("chunk-major", false)?;
        let interleave_splits = o.bool("interleave-splits", false)?;
        let dynamic_splits = o.bool("dynamic-splits", false)?;
        let resident_splits = match u32::try_from(o.usize("resident-splits", 1)?) {
            Ok(n @ 1..=64) => n,
            _ => return Err("option 'resident-splits' must be in 1..=64".into()),
        };
        let batch_reductions = tri(o, "batch-reductions")?;
        let min_ctas = MinCtas::parse(&o.string("min-ctas", "0"))?;
        let final_lanes = o.usize("final-lanes", 0)?;
        let final_lanes = match u32::try_from(final_lanes) {
            Ok(l) if l == 0 || is_final_lanes(l) => l,
            _ => {
                return Err(format!(
                    "option 'final-lanes' must be 1, 2, 4, 8, 16 or 32 (0: heuristic), got {final_lanes}"
                ))
            }
        };
        let early_accumulates = o.bool("early-accumulates", false)?;
        let remat_converts = o.bool("remat-converts", false)?;
        let contract_fma = o.bool("contract-fma", false)?;
        let scalars_ahead = match o.string("scalars-ahead", "auto").as_str() {
            "auto" => None,
            d => match d.parse::<u32>() {
                Ok(d @ 0..=8) => Some(d),
                _ => return Err(format!("option 'scalars-ahead' must be 'auto' or 0..8, got '{d}'")),
            },
        };
        let max_registers = o.usize("max-registers", 0)?;
        let max_registers = match u32::try_from(max_registers) {
            Ok(n @ (0 | 16..=255)) => n,
            _ => return Err(format!("option 'max-registers' must be 16..255 (0: none), got '{max_registers}'")),
        };
        let exact_divisions = !o.bool("reciprocal-divisors", true)?;
        let no_looped_vectors = !o.bool("looped-vectors", true)?;
        let stream_copies = o.bool("stream-copies", false)?;
        let split_final_grid = match o.string("split-final", "launch").as_str() {
            "grid" => true,
            "launch" => false,
            other => return Err(format!("option 'split-final' must be 'grid' or 'launch', got '{other}'")),
        };
        let final_form = match o.string("final", "grid").as_str() {
            "grid" => FinalForm::Grid,
            "tail" => FinalForm::Tail,
            "launch" => FinalForm::Launch,
            other => return Err(format!("option 'final' must be 'grid', 'tail' or 'launch', got '{other}'")),
        };
        Ok(LoopToGpuOptions {
            overrides,
            device,
            size_hints,
            dry_run: None,
            report,
            atomics,
            chunk_major,
            interleave_splits,
            dynamic_splits,
            resident_splits,
            batch_reductions,
            final_form,
            split_final_grid,
            final_lanes,
            early_accumulates,
            min_ctas,
            remat_converts,
            contract_fma,
            scalars_ahead,
            max_registers,
            exact_divisions,
            no_looped_vectors,
            stream_copies,
        })
    }
}

/// The option table of `lower-loop-to-gpu`.
pub const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo { key: "threads", help: "threads per CTA (0: heuristic)", default: "0" },
    PassOptionInfo { key: "threads-per-row", help: "threads per row: 1, 2, 4, 8 or 16 (a row-fused kernel: several rows a warp), 32, or the CTA (0: heuristic)", default: "0" },
    PassOptionInfo { key: "vector", help: "elements per vector access (0: 16 bytes)", default: "0" },
    PassOptionInfo { key: "rows-per-cta", help: "rows a row-fused CTA holds at once (0: heuristic)", default: "0" },
    PassOptionInfo { key: "grid", help: "the most CTAs of a launch (0: heuristic)", default: "0" },
    PassOptionInfo {
        key: "fast",
        help: "1: register-resident row-fused kernels for static/hinted N (guarded); 0: never",
        default: "1",
    },
    PassOptionInfo {
        key: "split-rows",
        help: "rows per block of a split-K column reduction, fixed (0: the heuristic's least, raised at run time until the blocks fit one wave of the partial kernel's resident threads)",
        default: "0",
    },
    PassOptionInfo {
        key: "rows-in-flight",
        help: "rows a warp or CTA of a register-resident row kernel has loaded at once: 1, or 2 to load the next row during the current one (0: heuristic)",
        default: "0",
    },
    PassOptionInfo {
        key: "staged-rows",
        help: "rows a warp or CTA of a register-resident row kernel keeps in flight through shared memory (asynchronous copies, after any shared partials): 1 for none, 2..8 (0: heuristic, which stages for a CTA per row, and two rows for a warp per row whose heavy row would otherwise give CTAs up for its next row in registers)",
        default: "0",
    },
    PassOptionInfo {
        key: "reload",
        help: "register-resident row kernels load the row again after each row reduction instead of holding it in registers: true, false, or auto (a CTA per row whose row does not fit the registers)",
        default: "auto",
    },
    PassOptionInfo {
        key: "shared-accs",
        help: "column partials accumulate in shared memory instead of registers: a CTA per row's (true implies reload unless reload=false holds the row; auto where they do not fit the registers), or with true a warp per row's with shared partials (in its partial rows); false never",
        default: "auto",
    },
    PassOptionInfo {
        key: "cluster",
        help: "CTAs per row of a register-resident CTA-per-row kernel, launched as a thread-block cluster that combines each row reduction through distributed shared memory: 2, 4 or 8, 1 for none (0: heuristic)",
        default: "0",
    },
    PassOptionInfo {
        key: "stream-loads",
        help: "kernels load their full-rank read-only tensors with cache streaming (ld.global.cs: evict-first in L1 and L2): true, false, or auto (kernels that store no tensor of that rank, i.e. pure reductions, and packed rows, read once)",
        default: "auto",
    },
    PassOptionInfo {
        key: "stream-copies",
        help: "a kernel that streams its loads (stream-loads) marks its staging ring's cp.async copies evict-first in L2 too (a tuner knob)",
        default: "false",
    },
    PassOptionInfo {
        key: "packed-rows",
        help: "a thread per row whose row is one vector (a short row: N x bytes <= 8, or an odd row such as N = 3) takes this many consecutive rows at once, loading and storing each row input in aligned pieces of up to 16 bytes, then computes them one by one: 2, 4 or 8, at most 128 bytes a row input (1: one row a thread; 0: the heuristic, which packs the fewest rows whose bytes are a multiple of 16, half as many for an odd row of a kernel that writes its rows, and packs a kernel that only reduces its rows only where one row is several accesses; a tuner knob)",
        default: "0",
    },
    PassOptionInfo {
        key: "warp-transpose",
        help: "packed rows are loaded and stored by each warp together, in consecutive pieces of up to 16 bytes handed to the lanes that own them through shared memory (each warp access one run of 128-512 bytes, not a piece a group apart on every lane), and a short odd row whose group of packed rows is over 48 bytes takes a thread too: true, false, or auto (the heuristic: where a thread's group is at least 4 aligned pieces, such as 4 rows of N = 7 in bf16, which then takes a thread per row; a tuner knob)",
        default: "auto",
    },
    PassOptionInfo {
        key: "flat-partials",
        help: "a pointwise nest with partials whose accesses are all at the point's flat position (a bias gradient's dx beside db) runs as a CTA of N x c threads over consecutive 16-byte vectors of its rows, each thread's columns fixed, its partials combined in shared memory, instead of the row form: true, false, or auto (the heuristic: where rows are not whole vectors or under 1024 bytes, but not unaligned rows of at most 64 bytes, which the row form gives a thread each; N <= 1024; a tuner knob)",
        default: "auto",
    },
    PassOptionInfo {
        key: "vectors-in-flight",
        help: "16-byte vectors of each input a thread of the flat partials form loads at once, all their loads before their arithmetic, each with its own partials (added in a fixed order after the loop): 1, 2 or 4 (0: the heuristic, 2; a tuner knob)",
        default: "0",
    },
    PassOptionInfo {
        key: "flat-warps",
        help: "a flat partials CTA of whole warps: lcm(N, 32) x max(1, (N x max(1, 256 div N)) div lcm(N, 32)) threads (800 at N = 100 or 200) instead of N x max(1, 256 div N), so that the final reduction after it joins its grid (final=grid or final=tail) instead of a launch of its own; true, false, or auto (true where lcm(N, 32) is at most 1024 threads and their shared partials fit 48 KiB; a tuner knob)",
        default: "auto",
    },
    PassOptionInfo { key: "device", help: "device overrides, e.g. sms=108,smem=167936", default: "" },
    PassOptionInfo { key: "size-hints", help: "sizes of named dynamic dims, e.g. M=4096,N=384", default: "" },
    PassOptionInfo {
        key: "report",
        help: "print each nest's schedule, its source and why a poor mapping was taken to stderr",
        default: "false",
    },
    PassOptionInfo {
        key: "chunk-major",
        help: "register-resident row kernels emit a body chunk by chunk of a thread's columns instead of op by op (same results, shorter live ranges; a tuner knob; false still lets the heuristic take it for a heavy row it stages)",
        default: "false",
    },
    PassOptionInfo {
        key: "interleave-splits",
        help: "register-resident row kernels with column partials: split s of S takes row groups s, s+S, s+2S, ... instead of consecutive ones (neighbouring rows across CTAs at any time)",
        default: "false",
    },
    PassOptionInfo {
        key: "dynamic-splits",
        help: "register-resident row kernels: CTAs take their splits from a work counter (mgpu.work_loop) instead of every grid_dim-th one, so early CTAs take more (the same partials, bit for bit; balances where splits outnumber CTAs: resident-splits)",
        default: "false",
    },
    PassOptionInfo {
        key: "resident-splits",
        help: "with fuse-mixed-reductions{partials=resident}: this many splits per CTA that fits (smaller splits, more partial rows; 1..=64)",
        default: "1",
    },
    PassOptionInfo {
        key: "looped-vectors",
        help: "the looped form of a row kernel (no register-resident form) accesses contiguous rows v columns a step (vector loads and stores, a run-time guard, a scalar tail); false: one scalar access per column",
        default: "true",
    },
    PassOptionInfo {
        key: "batch-reductions",
        help: "register-resident row kernels reduce independent row reductions together (one barrier, one pass over the row for all of them) instead of one by one: true, false, or auto (all but the reload form of a single CTA per row without staged rows)",
        default: "auto",
    },
    PassOptionInfo {
        key: "final",
        help: "grid: a final reduction runs in the grid of the row kernel before it, behind a grid barrier (one cooperative launch); tail: in the last CTAs of that grid to finish their rows, behind a grid tail (one plain launch; the other CTAs return); launch: its own launch",
        default: "grid",
    },
    PassOptionInfo {
        key: "split-final",
        help: "grid: a split-K column reduction's final runs in its partial's grid behind a grid barrier, at the partial's CTA size (one cooperative launch); launch: its own launch (on the H100 the merged form gained 1-2 us at N = 200 and lost 30-50 us at N = 3, where the final's one column tile ran on the partial's CTA of 256 threads instead of its own 1024)",
        default: "launch",
    },
    PassOptionInfo {
        key: "final-lanes",
        help: "lanes of a final reduction's row segment, each holding a vector of columns: 1, 2, 4, 8, 16 or 32 (0: heuristic, a latency model)",
        default: "0",
    },
    PassOptionInfo {
        key: "early-accumulates",
        help: "register-resident row kernels take the column partials that need no row reduction's result before the first row reduction (fewer registers, the same results; a tuner knob; false still lets the heuristic take it for an f32 row held under a tight register cap)",
        default: "false",
    },
    PassOptionInfo {
        key: "remat-converts",
        help: "kernels widen a loaded bf16 to f32 again after each barrier or warp reduction instead of holding the f32 across it (the packed words stay in registers: fewer registers, the same results; a tuner knob; false still lets the heuristic take it for a heavy row it stages)",
        default: "false",
    },
    PassOptionInfo {
        key: "scalars-ahead",
        help: "register-resident row kernels load each per-row scalar input (rstd[i]) this many rows ahead and carry it, so that a row's arithmetic does not wait on its load: 0 (loaded in the row), 1..8 (every row loop of the form but packed rows), or auto (1 where the next row is in flight, else 0; a tuner knob)",
        default: "auto",
    },
    PassOptionInfo {
        key: "contract-fma",
        help: "kernels let ptxas contract an f32 multiply and add into one fma (one rounding instead of two: within the numerics contract, not bit-identical to the simulator; a tuner knob)",
        default: "false",
    },
    PassOptionInfo {
        key: "max-registers",
        help: "a cap on every kernel's registers a thread (PTX .maxnreg, 16..255), beside the cap its launch bounds imply; ptxas takes the lower and spills past it. 0: none",
        default: "0",
    },
    PassOptionInfo {
        key: "reciprocal-divisors",
        help: "where a thread divides its vector of columns by one value (e[i, j] / s[i] in a column partial), multiply by one reciprocal of it (f32/f64; the numerics of invariant-divisor-to-reciprocal, within about 1.5 ulp); false divides each element",
        default: "true",
    },
    PassOptionInfo {
        key: "min-ctas",
        help: "CTAs per SM a register-resident row kernel is compiled for (ptxas .minnctapersm, which bounds its registers): 0 as planned by the schedule (every CTA the register estimate leaves resident; spill relief lowers it where the assembler spills under it), 'margin' as planned with a quarter margin on the estimate, 'none' for no bound, or 1..32",
        default: "0",
    },
    PassOptionInfo {
        key: "atomics",
        help: "a nest the templates would run on one thread may map with atomic accumulates (loop-map{atomics=true}; float sums then vary in the last bits between runs)",
        default: "false",
    },
];

/// The registry entry of `lower-loop-to-gpu`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "lower-loop-to-gpu",
        description: "map top-level mloop nests onto mgpu kernels and launches",
        options: OPTIONS,
        create: |o| Ok(Box::new(LowerLoopToGpu { options: LoopToGpuOptions::from_pass_options(o)? })),
    }
}

const GPU_FUSED: &str =
    "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions{partials=resident},\
     canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)";
const GPU_UNFUSED: &str = "builtin.module(lower-tensor-to-loop,canonicalize,cse,loop-coalesce{ops=reductions},\
     canonicalize,cse,invariant-divisor-to-reciprocal,lower-loop-to-gpu)";

/// Registers the named pipelines `gpu` (tensor to loop, mixed-order fusion, cleanup, GPU) and
/// `gpu-unfused` (the same without fusion; its reductions over k-D boxes collapsed to one
/// dimension by `loop-coalesce{ops=reductions}`, the form the fusion gives the rows it fuses).
/// Call after the passes are registered: `gpu` includes `fuse-mixed-reductions` only when that
/// pass is registered. The texts carry no
/// sizes: size hints reach every pass of them that has a `size-hints` option through
/// `morf_ir::pass::apply_size_hints` (`morf-opt --pipeline=gpu --size-hints M=..,N=..`,
/// a module's `morf.size_hints` attribute, or the engine's hints).
pub fn register_pipelines(reg: &mut PassRegistry) {
    let fused = reg.get("fuse-mixed-reductions").is_some();
    reg.register_pipeline(NamedPipeline {
        name: "gpu",
        description: "mtensor to mgpu kernels, with mixed-order reduction fusion",
        text: if fused { GPU_FUSED } else { GPU_UNFUSED },
    });
    reg.register_pipeline(NamedPipeline {
        name: "gpu-unfused",
        description: "mtensor to mgpu kernels, one kernel per plain loop nest",
        text: GPU_UNFUSED,
    });
}

/// The `lower-loop-to-gpu` pass.
#[derive(Debug, Default)]
pub struct LowerLoopToGpu {
    /// Its options.
    pub options: LoopToGpuOptions,
}

impl Pass for LowerLoopToGpu {
    fn name(&self) -> &'static str {
        "lower-loop-to-gpu"
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        if !ctx.isa::<ModuleOp>(root) {
            return Err(op_error(ctx, root, "pass 'lower-loop-to-gpu' runs on a 'builtin.module'"));
        }
        let Some(mblock) = ctx.regions(root).first().and_then(|r| ctx.entry_block(*r)) else { return Ok(()) };
        let funcs: Vec<OpId> = ctx.block_ops(mblock).filter(|&o| ctx.isa::<FuncOp>(o)).collect();
        for f in funcs {
            lower_function(ctx, mblock, f, &self.options)?;
        }
        let kernels: Vec<OpId> = ctx.block_ops(mblock).filter(|&o| ctx.isa::<mgpu::FuncOp>(o)).collect();
        for k in kernels {
            // Index arithmetic the kernel builder emitted for a row body and then addressed
            // another way (a collapsed `x[r div M, r rem M, j]`): ptxas keeps a dead 64-bit
            // division (it still calls its routine), so the kernel drops it here.
            crate::transforms::dce::eliminate_dead_code(ctx, k);
            // Every kernel with the pass option; a kernel whose schedule asks for it
            // (`FastShape::remat_converts`, marked while it was built) otherwise.
            let asked = ctx.remove_attr(k, REMAT_CONVERTS_MARK);
            if self.options.remat_converts || asked {
                super::remat_converts::remat_converts(ctx, k);
            }
            if self.options.contract_fma {
                let unit = ctx.unit_attr();
                ctx.set_attr(k, "contract_fma", unit);
            }
            if self.options.max_registers > 0 {
                let n = ctx.i64_attr(self.options.max_registers as i64);
                ctx.set_attr(k, "max_registers", n);
            }
        }
        // Legality: host functions keep only host ops.
        legal_target().check_legal(ctx, root)
    }
}

/// The transient kernel attribute that marks a kernel whose schedule redoes its widenings
/// after the barrier ([`FastShape::remat_converts`]); the pass removes it once it has.
const REMAT_CONVERTS_MARK: &str = "morf.remat_converts";

/// What `lower-loop-to-gpu` leaves: `builtin`, `func` and `mgpu` ops, and the `mloop` ops of
/// the host (`dim`, `alloc`, `fill`, `dealloc`, scalars) and of kernel bodies (scalars,
/// `for`, `yield`); no memory access or parallel loop of `mloop`, and `mloop.for` only in a
/// kernel.
fn legal_target() -> ConversionTarget {
    let mut t = ConversionTarget::new();
    t.add_legal_dialect("builtin")
        .add_legal_dialect("func")
        .add_legal_dialect("mgpu")
        .add_legal_dialect("mloop")
        .add_illegal_op::<mloop::LoadOp>()
        .add_illegal_op::<mloop::StoreOp>()
        .add_illegal_op::<mloop::AccumulateOp>()
        .add_illegal_op::<mloop::ParallelOp>()
        .add_illegal_op::<mloop::ReduceOp>()
        .add_dynamically_legal_op::<mloop::ForOp>(|ctx, op| mgpu::enclosing_kernel(ctx, op).is_some());
    t
}

// ----- the pieces of a function -----

/// One top-level unit of work: a nest op plus (for a rank-0 reduce) its epilogue ops.
struct Unit {
    op: OpId,
    epilogue: Vec<OpId>,
}

fn lower_function(ctx: &mut Context, mblock: BlockId, func: OpId, opts: &LoopToGpuOptions) -> PassResult {
    let Some(body) = ctx.regions(func).first().and_then(|r| ctx.entry_block(*r)) else { return Ok(()) };
    let fname = symbol_name(ctx, func).unwrap_or("f").to_string();
    let names = dim_names(ctx, func);
    fills_to_nests(ctx, body);
    partials_to_rows(ctx, body, &names, opts);
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let mut units = Vec::new();
    let mut taken = HashSet::new();
    for (k, &op) in ops.iter().enumerate() {
        if taken.contains(&op) {
            continue;
        }
        if matches!(
            LoopOp::of(ctx, op),
            LoopOp::Parallel
                | LoopOp::For(_)
                | LoopOp::Reduce(_)
                | LoopOp::Load(_)
                | LoopOp::Store(_)
                | LoopOp::Accumulate(_)
        ) {
            // A nest, a rank-0 reduction, or scalar code outside any nest (rank-0 pointwise):
            // the ops after it that consume its results run in its kernel.
            let epilogue = scalar_epilogue(ctx, op, &ops[k + 1..]);
            taken.extend(epilogue.iter().copied());
            units.push(Unit { op, epilogue });
        }
    }
    let spills = spill_buffers(ctx, body, &units)?;
    let fills = identity_fills(ctx, body);
    let mut dropped_fills = Vec::new();
    let mut lowered = Vec::new();
    // The launch and CTA size of the row-fused kernel just lowered (`final=grid`).
    let mut prev_row_fused: Option<(OpId, u32, Option<u64>)> = None;
    for (n, unit) in units.iter().enumerate() {
        let kname = format!("{fname}_k{n}");
        let prev = prev_row_fused.take();
        let mut merge_note = None;
        if unit.epilogue.is_empty() && mapped::has_mapping(ctx, unit.op) {
            // A nest with a `mapping` attribute: the mechanical lowering (mapped.rs).
            mapped::lower_mapped(ctx, mblock, unit.op, &kname, &names, opts, &spills, "the IR")?;
            lowered.push(unit.op);
            continue;
        }
        // `final=grid` (or `tail`): a final reduction right after a row-fused kernel takes its
        // CTA size, so that the two can be one kernel.
        let in_grid = match prev {
            Some((_, threads, _))
                if opts.final_form != FinalForm::Launch && kernel_kind(ctx, unit.op).as_deref() == Some("final") =>
            {
                Some(opts.with_threads(threads))
            }
            _ => None,
        };
        let unit_opts = in_grid.as_ref().unwrap_or(opts);
        let mut kb = KernelBuilder::new(ctx, mblock, unit.op, &kname, &names, unit_opts, &spills);
        if let (Some(_), Some((_, threads, ctas))) = (&in_grid, prev) {
            kb.grid_hint = match (opts.overrides.grid, ctas) {
                (g, _) if g > 0 => Some(g),
                (_, Some(c)) if c > 0 => Some(c * opts.device.sms.max(1) as u64),
                // No plan (`min-ctas=none`: ptxas picks): the final's own grid bound.
                _ => None,
            };
            // Behind a grid barrier the final runs under the row kernel's register cap: under
            // MERGED_FINAL_REGS it keeps half the loads in flight.
            if let Some(c) = ctas.filter(|c| *c > 0) {
                let cap = register_cap(&opts.device, c, threads as u64);
                if cap < MERGED_FINAL_REGS {
                    kb.strided_unroll = STRIDED_UNROLL / 2;
                    kb.unroll_note = Some(format!(
                        "the final reduction keeps {} loads in flight a lane, not {STRIDED_UNROLL}: the kernel it joins caps a thread at {cap} registers",
                        STRIDED_UNROLL / 2
                    ));
                }
            }
        }
        let (mapping, final_schedule, why) = kb.chosen_mapping(unit.op)?;
        if mapping == Mapping::Sequential
            && kb.ir_schedule.is_none()
            && unit.epilogue.is_empty()
            && opts.dry_run.is_none()
            && kb.ctx.isa::<mloop::ParallelOp>(unit.op)
        {
            // One thread is the templates' last resort: a nest that loop-map's strategy can
            // map (it proves each written element has one writer; on failure the IR is
            // unchanged) goes to the mapped lowering instead.
            let kernel = kb.kernel;
            drop(kb);
            let strategy = crate::transforms::loop_map::LoopMap { atomics: opts.atomics, ..Default::default() };
            if strategy.map_nest(ctx, unit.op).is_ok() {
                ctx.erase_op(kernel);
                let why: Vec<String> = why.iter().map(|w| w.to_string()).collect();
                let from = format!(
                    "lower-loop-to-gpu's fallback to loop-map's strategy; the templates would run it on one thread: {}",
                    why.join("; ")
                );
                mapped::lower_mapped(ctx, mblock, unit.op, &kname, &names, opts, &spills, &from)?;
                lowered.push(unit.op);
                continue;
            }
            ctx.erase_op(kernel);
            kb = KernelBuilder::new(ctx, mblock, unit.op, &kname, &names, opts, &spills);
            kb.chosen_mapping(unit.op)?;
        }
        // (kernel, schedule, whether it came from the attribute) per launch, for the report.
        let mut launches = Vec::new();
        if mapping == Mapping::SplitPartial {
            // Split-K column reduction: a partial launch and a final over its workspace; with
            // `split-final=grid` the final runs in the partial's grid, behind a grid barrier,
            // at its CTA size (one cooperative launch).
            let ws = kb.split_partial(unit.op)?;
            launches.push(kb.launch_record(&kname));
            let threads = kb.schedule.as_ref().map_or(0, |s| s.threads);
            let first = kb.finish()?;
            let fin = format!("{kname}_final");
            let in_grid = (opts.split_final_grid && threads > 0).then(|| opts.with_threads(threads));
            let mut kf =
                KernelBuilder::new(ctx, mblock, unit.op, &fin, &names, in_grid.as_ref().unwrap_or(opts), &spills);
            kf.ir_schedule = final_schedule;
            kf.final_reduction(unit.op, Some(ws))?;
            kf.dealloc = Some(ws.w);
            launches.push(kf.launch_record(&fin));
            let second = kf.finish()?;
            if in_grid.is_some() && super::grid_merge::merge_into_previous(ctx, first, second, &lowered, None, None)? {
                merge_note = Some(format!("@{fin} runs in the grid of @{kname}, after a grid barrier (final=grid)"));
            }
        } else {
            kb.fresh = fills.keys().copied().collect();
            kb.lower_unit(unit, mapping)?;
            dropped_fills.extend(kb.fresh_used.iter().filter_map(|w| fills.get(w).copied()));
            launches.push(kb.launch_record(&kname));
            let threads = kb.schedule.as_ref().map_or(0, |s| s.threads);
            let ctas = kb.cooperative_ctas;
            let joins = mapping == Mapping::RowFused || kb.flat_joins_final;
            let launch = kb.finish()?;
            let first_kernel = prev.and_then(|(first, _, _)| mgpu::LaunchOp(first).kernel(ctx).map(str::to_string));
            let merged = match prev {
                Some((first, _, ctas)) if in_grid.is_some() && mapping == Mapping::FinalReduction => {
                    // `final=tail`: as many blocks go on as the device has SMs (the final's
                    // grid-stride loop covers its tiles with any number).
                    let tail = (opts.final_form == FinalForm::Tail).then_some(opts.device.sms.max(1) as u64);
                    let ctas = ctas.map(|c| (c, opts.min_ctas.plans()));
                    super::grid_merge::merge_into_previous(ctx, first, launch, &lowered, ctas, tail)?
                }
                _ => false,
            };
            if merged {
                // The occupancy that sizes the splits is the merged kernel's, at its launch's
                // (larger) shared bytes.
                if let Some(k) = &first_kernel {
                    rebind_resident_shared(ctx, body, k);
                }
                merge_note = Some(match opts.final_form {
                    FinalForm::Tail => format!(
                        "@{kname} runs in the last CTAs of the launch before it to finish, after a grid tail (final=tail)"
                    ),
                    _ => format!("@{kname} runs in the grid of the launch before it, after a grid barrier (final=grid)"),
                });
            }
            prev_row_fused = (joins && !merged).then_some((launch, threads, ctas));
        }
        if opts.report && opts.dry_run.is_none() {
            let mut text = schedule_report(ctx, unit.op, &launches, &why);
            if let Some(n) = merge_note {
                text.push_str(&format!("{}: note: {n}\n", ctx.loc_prefix(ctx.op_loc(unit.op))));
            }
            morf_ir::io::eprint_lossy(&text);
        }
        lowered.push(unit.op);
        lowered.extend(unit.epilogue.iter().copied());
    }
    for f in dropped_fills {
        ctx.erase_op(f);
    }
    erase_lowered(ctx, body, &lowered)
}

/// The schedule report of one top-level nest (`report`): a line per launch with the nest's
/// location, the schedule and its source, then, when the mapping is a poor one
/// ([`Mapping::is_poor`]) for a nest that reduces, a `note: fallback:` line per reason.
fn schedule_report(ctx: &Context, nest: OpId, launches: &[(String, Schedule, bool)], why: &[Fallback]) -> String {
    let loc = ctx.loc_prefix(ctx.op_loc(nest));
    let mut out = String::new();
    // The schedule the fusion model priced the kernel with (`morf.kernel`'s `priced`, written
    // with the fusion report), said where the first launch runs another.
    let priced = kernel_entry(ctx, nest, "priced").and_then(|v| ctx.attr_str(v)).map(str::to_string);
    for (i, (kernel, s, from_ir)) in launches.iter().enumerate() {
        let source = if *from_ir { "the nest's morf.schedule attribute" } else { "the heuristic" };
        let summary = s.summary();
        out.push_str(&format!("{loc}: schedule: @{kernel}: {summary} (from {source})\n"));
        for n in &s.notes.0 {
            out.push_str(&format!("{loc}: note: @{kernel}: {n}\n"));
        }
        if let Some(p) = priced.as_ref().filter(|p| i == 0 && **p != summary) {
            out.push_str(&format!(
                "{loc}: note: @{kernel}: the fusion model priced this kernel with another schedule, {p}: its cost in the fusion report is that schedule's\n"
            ));
        }
    }
    let reduces =
        ctx.walk_collect(nest).iter().any(|&o| ctx.isa::<mloop::ReduceOp>(o) || ctx.isa::<mloop::AccumulateOp>(o))
            || (ctx.isa::<mloop::ForOp>(nest) && !ctx.results(nest).is_empty());
    let poor = launches.first().is_some_and(|(_, s, _)| s.mapping.is_poor());
    if poor && reduces {
        for r in why {
            out.push_str(&format!("{loc}: note: fallback: {r}\n"));
        }
    }
    out
}

/// Host fills of `body` that only give a workspace the identity of its reduction before the
/// one nest that accumulates into it: workspace -> the fill. Such a fill can go when that
/// nest's kernel writes every element of the workspace exactly once
/// ([`KernelBuilder::flush_shared`] stores its combined partial instead of adding it).
/// Conditions: the workspace is allocated in `body`, filled once with a constant, written by
/// exactly one top-level nest after the fill, only through `mloop.accumulate` of kinds
/// whose identity is the fill value; every other use is a `dim`, a `dealloc` or a nest
/// after the writer that reads it.
fn identity_fills(ctx: &Context, body: BlockId) -> HashMap<Value, OpId> {
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let pos: HashMap<OpId, usize> = ops.iter().enumerate().map(|(k, o)| (*o, k)).collect();
    let top = |mut o: OpId| -> Option<OpId> {
        loop {
            if ctx.op_parent_block(o) == Some(body) {
                return Some(o);
            }
            o = ctx.parent_op(o)?;
        }
    };
    let mut out = HashMap::new();
    for &f in &ops {
        let Some(fill) = ctx.dyn_cast::<mloop::FillOp>(f) else { continue };
        let (w, v) = (fill.buffer(ctx), fill.value(ctx));
        let Some(value) = crate::transforms::loop_utils::const_float(ctx, v) else { continue };
        if !ctx.defining_op(w).is_some_and(|a| ctx.isa::<mloop::AllocOp>(a) && ctx.op_parent_block(a) == Some(body)) {
            continue;
        }
        let mut writer: Option<OpId> = None;
        let mut readers = Vec::new();
        let mut ok = true;
        for u in ctx.uses(w) {
            let user = u.op;
            if user == f {
                continue;
            }
            let Some(t) = top(user) else {
                ok = false;
                break;
            };
            if t == user && (ctx.isa::<mloop::DimOp>(user) || ctx.isa::<mloop::DeallocOp>(user)) {
                continue;
            }
            if t == user {
                // A top-level load, store, fill or accumulate of the workspace.
                ok = false;
                break;
            }
            let acc = ctx.dyn_cast::<mloop::AccumulateOp>(user).filter(|a| a.buffer(ctx) == w);
            match acc {
                Some(a) => {
                    let id_ok = kind_name(ctx, user).is_some_and(|k| identity(&k) == value);
                    if !id_ok || writer.is_some_and(|x| x != t) || a.value(ctx) == w {
                        ok = false;
                        break;
                    }
                    writer = Some(t);
                }
                None if ctx.isa::<mloop::LoadOp>(user) => readers.push(t),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        let Some(wr) = writer.filter(|_| ok) else { continue };
        if readers.contains(&wr) || pos[&wr] < pos[&f] || readers.iter().any(|r| pos[r] < pos[&wr]) {
            continue;
        }
        out.insert(w, f);
    }
    out
}

/// Rewrites each top-level `mloop.fill` whose value a kernel computes (it depends on a
/// top-level load, reduce or for) into stores that run on the GPU: a rank-0 fill becomes an
/// `mloop.store`, a fill of rank >= 1 an `mloop.parallel` over the buffer storing the value.
/// The host cannot read a value that lives on the device; the nests then get it through a
/// spill buffer like any other kernel-computed value.
fn fills_to_nests(ctx: &mut Context, body: BlockId) {
    let mut on_device: HashSet<Value> = HashSet::new();
    for o in ctx.block_ops(body).collect::<Vec<_>>() {
        if matches!(LoopOp::of(ctx, o), LoopOp::Load(_) | LoopOp::Reduce(_) | LoopOp::For(_))
            || (is_scalar(ctx, o) && ctx.operands(o).iter().any(|v| on_device.contains(v)))
        {
            on_device.extend(ctx.results(o).iter().copied());
        }
        let Some(fill) = ctx.dyn_cast::<mloop::FillOp>(o) else { continue };
        let (v, buf) = (fill.value(ctx), fill.buffer(ctx));
        if !on_device.contains(&v) {
            continue;
        }
        let ib = Ib { before: o };
        let loc = ctx.op_loc(o);
        let rank = buffer_shape(ctx, buf).len();
        if rank == 0 {
            insert_before(ctx, o, mloop::StoreOp::state(loc, v, buf, &[]));
        } else {
            let it = ctx.index_type();
            let ubs: Vec<Value> = (0..rank).map(|k| host_dim(ctx, o, buf, k)).collect();
            let (c0, c1) = (ib.index(ctx, 0), ib.index(ctx, 1));
            let mut operands = vec![c0; rank];
            operands.extend_from_slice(&ubs);
            operands.extend(std::iter::repeat_n(c1, rank));
            let region = ctx.create_region();
            let blk = ctx.create_block(region, &vec![it; rank]);
            let ivs = ctx.block_args(blk).to_vec();
            let store = ctx.create_op(mloop::StoreOp::state(loc, v, buf, &ivs));
            ctx.append_op(blk, store);
            let y = ctx.create_op(mloop::YieldOp::state(loc, &[]));
            ctx.append_op(blk, y);
            insert_before(ctx, o, mloop::ParallelOp::state(loc, &operands).region(region));
        }
        ctx.erase_op(o);
    }
}

/// The top-level ops after `op` that consume its results (transitively) and can run at the
/// end of its kernel: scalar ops, loads, stores and accumulates. The scan stops at the next op
/// that touches memory or holds a nest, because moving a later consumer into `op`'s kernel
/// would move it across that op; later consumers read the value from a spill buffer
/// ([`spill_buffers`]) instead.
fn scalar_epilogue(ctx: &Context, op: OpId, rest: &[OpId]) -> Vec<OpId> {
    let mut live: HashSet<Value> = ctx.results(op).iter().copied().collect();
    let mut epilogue = Vec::new();
    if live.is_empty() {
        return epilogue;
    }
    for &o in rest {
        let kind = LoopOp::of(ctx, o);
        let movable = ctx.regions(o).is_empty()
            && matches!(kind, LoopOp::Scalar | LoopOp::Load(_) | LoopOp::Store(_) | LoopOp::Accumulate(_));
        if movable && ctx.operands(o).iter().any(|v| live.contains(v)) {
            live.extend(ctx.results(o).iter().copied());
            epilogue.push(o);
            continue;
        }
        let touches_memory = !ctx.regions(o).is_empty()
            || !(matches!(kind, LoopOp::Scalar | LoopOp::Dim(_)) || ctx.isa::<mloop::AllocOp>(o));
        if touches_memory {
            break;
        }
    }
    epilogue
}

/// For each value a kernel computes (the results of a unit's op and of its epilogue) that
/// code outside that kernel uses (a later kernel), a rank-0 host buffer: the producing
/// kernel stores the value into it and every later kernel loads it in its prologue. The
/// buffers are allocated before the producer and freed before the function returns.
fn spill_buffers(ctx: &mut Context, body: BlockId, units: &[Unit]) -> R<HashMap<Value, Value>> {
    let mut spills = HashMap::new();
    for unit in units {
        let own: HashSet<OpId> = unit.epilogue.iter().copied().collect();
        let mut defs = vec![unit.op];
        defs.extend(unit.epilogue.iter().copied());
        for d in defs {
            for v in ctx.results(d).to_vec() {
                let escapes = ctx.uses(v).iter().any(|u| !own.contains(&u.op) && !ctx.is_ancestor(unit.op, u.op));
                if !escapes {
                    continue;
                }
                let ty = ctx.value_type(v);
                if !ctx.is_float(ty) && ty != ctx.i1_type() {
                    let t = ctx.type_to_string(ty);
                    return Err(op_error(
                        ctx,
                        d,
                        format!(
                            "computes a value of type '{t}' in a kernel that later code needs, which is not supported \
                             (only float and i1 values can be passed between kernels)"
                        ),
                    ));
                }
                let bt = buffer_type(ctx, &[], ty);
                let loc = ctx.op_loc(unit.op);
                let alloc = insert_before(ctx, unit.op, mloop::AllocOp::state(loc, &[], bt));
                let buf = ctx.result(alloc, 0);
                let ret = ctx.block_ops(body).last().expect("a function body ends in a return");
                let loc = ctx.op_loc(ret);
                insert_before(ctx, ret, mloop::DeallocOp::state(loc, buf));
                spills.insert(v, buf);
            }
        }
    }
    Ok(spills)
}

/// Erases the lowered nests and epilogues, and the host scalar ops that only fed values
/// computed in kernels (they were recomputed in the kernels that needed them). A value
/// computed in a kernel that the host itself still needs (returned, a fill value) is an
/// error at that use.
fn erase_lowered(ctx: &mut Context, body: BlockId, lowered: &[OpId]) -> PassResult {
    let lowered: HashSet<OpId> = lowered.iter().copied().collect();
    let mut from_kernel: HashSet<Value> = HashSet::new();
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let mut feeds = HashSet::new();
    for &o in &ops {
        if lowered.contains(&o) || ctx.operands(o).iter().any(|v| from_kernel.contains(v)) {
            from_kernel.extend(ctx.results(o).iter().copied());
            feeds.insert(o);
        }
    }
    for &o in ops.iter().rev() {
        if !feeds.contains(&o) {
            continue;
        }
        let dead = ctx.results(o).iter().all(|v| ctx.uses(*v).is_empty());
        if lowered.contains(&o) || (dead && is_scalar(ctx, o)) {
            if let Some(u) = ctx.results(o).iter().find_map(|v| ctx.uses(*v).first().copied()) {
                return Err(op_error(
                    ctx,
                    u.op,
                    "uses on the host a value that a kernel computes, which is not supported",
                ));
            }
            ctx.erase_op(o);
        }
    }
    Ok(())
}

/// Names of dynamic dims from `morf.dims` argument attributes: (arg, dim) -> name.
fn dim_names(ctx: &Context, func: OpId) -> HashMap<(Value, usize), String> {
    let mut out = HashMap::new();
    let Some(body) = ctx.regions(func).first().and_then(|r| ctx.entry_block(*r)) else { return out };
    let args = ctx.block_args(body).to_vec();
    let Some(arg_attrs) = ctx.attr(func, "arg_attrs").and_then(|a| ctx.attr_array(a)).map(|a| a.to_vec()) else {
        return out;
    };
    for (a, attrs) in args.iter().zip(arg_attrs) {
        if let morf_ir::AttrData::Dict(entries) = ctx.attr_data(attrs) {
            for (k, v) in entries {
                if ctx.str(*k) == "morf.dims" {
                    for (d, n) in ctx.attr_array(*v).unwrap_or(&[]).iter().enumerate() {
                        if let Some(s) = ctx.attr_str(*n) {
                            out.insert((*a, d), s.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether `d` (a loop-IR index value) is dim `k` of buffer `buf`: `mloop.dim %buf, k`, the
/// size operand of `buf`'s `mloop.alloc` for that dim, a constant equal to its static size, or
/// `mloop.dim` of another argument's dim of the same `morf.dims` name (`names`: one name has
/// one size, which binding the arguments checks).
fn is_dim_of(ctx: &Context, names: &HashMap<(Value, usize), String>, buf: Value, k: usize, d: Value) -> bool {
    let shape = buffer_shape(ctx, buf);
    let Some(&dim) = shape.get(k) else { return false };
    if let (Dim::Static(n), Some(c)) = (dim, const_int(ctx, d)) {
        return c >= 0 && c as u64 == n;
    }
    if let Some(op) = ctx.defining_op(d) {
        if let Some(dop) = ctx.dyn_cast::<mloop::DimOp>(op) {
            if dop.source(ctx) == buf && dop.index(ctx) == Some(k as i64) {
                return true;
            }
            let other = dop.index(ctx).and_then(|i| names.get(&(dop.source(ctx), i as usize)));
            if other.is_some() && other == names.get(&(buf, k)) {
                return true;
            }
        }
    }
    // An alloc's operands are its dynamic sizes, in dim order.
    let Some(alloc) = ctx.defining_op(buf).filter(|&o| ctx.isa::<mloop::AllocOp>(o)) else { return false };
    if dim != Dim::Dynamic {
        return false;
    }
    let pos = shape[..k].iter().filter(|x| **x == Dim::Dynamic).count();
    ctx.operands(alloc).get(pos) == Some(&d)
}

/// The value `v` whose row-major position over dims `0..idx.len()` of `buf` the loop-IR
/// indices `idx` are, where they are its delinearization: `[v div D1, v rem D1]` (D1 dim 1 of
/// `buf`), recursively for more dims (`[(v div D2) div D1, (v div D2) rem D1, v rem D2]`); a
/// single index is itself. Since `(q div d) * d + q rem d = q` for `q >= 0, d > 0`, an access
/// through such indices is an access at `v` of the collapsed dims, with no division at run time
/// (the rows of a k-D tensor reduced over its last dim, `x[r div M, r rem M, j]`, are rows `r`
/// of a 2-D view, so they are loaded ahead and staged like 2-D rows).
fn delinearized(ctx: &Context, names: &HashMap<(Value, usize), String>, buf: Value, idx: &[Value]) -> Option<Value> {
    let (&last, prefix) = idx.split_last()?;
    if prefix.is_empty() {
        return Some(last);
    }
    let k = prefix.len();
    let rem = ctx.defining_op(last).filter(|&o| ctx.isa::<mloop::RemOp>(o))?;
    let &[a, d] = ctx.operands(rem) else { return None };
    if !is_dim_of(ctx, names, buf, k, d) {
        return None;
    }
    let q = delinearized(ctx, names, buf, prefix)?;
    let div = ctx.defining_op(q).filter(|&o| is_binary(ctx, o, BinaryFn::Div))?;
    let &[a2, d2] = ctx.operands(div) else { return None };
    (a2 == a && (d2 == d || is_dim_of(ctx, names, buf, k, d2))).then_some(a)
}

fn buffer_shape(ctx: &Context, v: Value) -> Vec<Dim> {
    ctx.shape_of(ctx.value_type(v)).unwrap_or(&[]).to_vec()
}

/// Whether `op` is a scalar `mloop` op (`constant`, `rem` or one with the elementwise
/// interface on scalars: the unary and binary functions, `cmp`, `select`, `convert`): it
/// reads no memory and holds no region.
fn is_scalar(ctx: &Context, op: OpId) -> bool {
    ctx.isa::<mloop::ConstantOp>(op)
        || ctx.isa::<mloop::RemOp>(op)
        || (elementwise(ctx, op).is_some()
            && ctx.regions(op).is_empty()
            && ctx.results(op).iter().all(|&r| ctx.tensor_parts(ctx.value_type(r)).is_none()))
}

/// The `mloop` op kinds the lowering dispatches on, with their typed handles.
#[derive(Copy, Clone, Debug)]
enum LoopOp {
    Load(mloop::LoadOp),
    Store(mloop::StoreOp),
    Accumulate(mloop::AccumulateOp),
    Reduce(mloop::ReduceOp),
    Parallel,
    For(mloop::ForOp),
    Yield,
    Dim(mloop::DimOp),
    /// See [`is_scalar`].
    Scalar,
    Other,
}

impl LoopOp {
    fn of(ctx: &Context, op: OpId) -> LoopOp {
        if let Some(o) = ctx.dyn_cast::<mloop::LoadOp>(op) {
            LoopOp::Load(o)
        } else if let Some(o) = ctx.dyn_cast::<mloop::StoreOp>(op) {
            LoopOp::Store(o)
        } else if let Some(o) = ctx.dyn_cast::<mloop::AccumulateOp>(op) {
            LoopOp::Accumulate(o)
        } else if let Some(o) = ctx.dyn_cast::<mloop::ReduceOp>(op) {
            LoopOp::Reduce(o)
        } else if ctx.isa::<mloop::ParallelOp>(op) {
            LoopOp::Parallel
        } else if let Some(o) = ctx.dyn_cast::<mloop::ForOp>(op) {
            LoopOp::For(o)
        } else if ctx.isa::<mloop::YieldOp>(op) {
            LoopOp::Yield
        } else if let Some(o) = ctx.dyn_cast::<mloop::DimOp>(op) {
            LoopOp::Dim(o)
        } else if is_scalar(ctx, op) {
            LoopOp::Scalar
        } else {
            LoopOp::Other
        }
    }
}

/// The state of a copy of `op` (same kind, result types and attributes) with `operands`.
fn copy_state(ctx: &Context, op: OpId, loc: Loc, operands: &[Value]) -> OperationState {
    let results: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    let mut st = OperationState::new(ctx.op_name(op), loc).operands(operands).results(&results);
    for &(key, a) in ctx.attrs(op) {
        st = st.attr(ctx.str(key), a);
    }
    st
}

/// The combiner `kind` of a `reduce` or an `accumulate`.
fn kind_name(ctx: &Context, op: OpId) -> Option<String> {
    let kind = match LoopOp::of(ctx, op) {
        LoopOp::Reduce(r) => r.kind(ctx),
        LoopOp::Accumulate(a) => a.kind(ctx),
        _ => None,
    };
    kind.map(str::to_string)
}

/// Whether `op` computes the binary function `f` (`mloop.min`, ...).
fn is_binary(ctx: &Context, op: OpId, f: BinaryFn) -> bool {
    elementwise(ctx, op) == Some(Elementwise::Binary(f))
}

/// The bound `c` of a clamp `min(x, c)` or `min(c, x)` of an index `x` that `of` accepts (a
/// column index, or a row's): a broadcast's index, the identity wherever `x <= c`. `None`
/// where `op` is no such clamp. The vector and register-resident forms check `c` at run time.
fn clamp_bound(ctx: &Context, op: OpId, of: &dyn Fn(Value) -> bool) -> Option<Value> {
    match *ctx.operands(op) {
        [a, c] if is_binary(ctx, op, BinaryFn::Min) && of(a) => Some(c),
        [c, a] if is_binary(ctx, op, BinaryFn::Min) && of(a) => Some(c),
        _ => None,
    }
}

/// Whether `op` computes a float by a correctly rounded division or square root: a
/// subroutine call in ptxas, across which what is live must fit the registers a call
/// preserves (the vector forms take narrower vectors around one).
fn is_call_op(ctx: &Context, op: OpId) -> bool {
    ctx.results(op).first().is_some_and(|r| ctx.is_float(ctx.value_type(*r)))
        && matches!(
            elementwise(ctx, op),
            Some(Elementwise::Binary(BinaryFn::Div) | Elementwise::Unary(UnaryFn::Sqrt | UnaryFn::Rsqrt))
        )
}

/// Creates the op of `st` before `before`; returns it.
fn insert_before(ctx: &mut Context, before: OpId, st: OperationState) -> OpId {
    let op = ctx.create_op(st);
    ctx.insert_op_before(before, op);
    op
}

/// `mloop.dim %buf, k` before `before`; returns its result.
fn host_dim(ctx: &mut Context, before: OpId, buf: Value, k: usize) -> Value {
    let it = ctx.index_type();
    let ia = ctx.int_attr(k as i64, it);
    let loc = ctx.op_loc(before);
    let d = insert_before(ctx, before, mloop::DimOp::state(loc, buf, it, ia));
    ctx.result(d, 0)
}

/// The binary function that combines values of reduction kind `kind` (`sum`: `add`).
fn combiner(kind: &str) -> Option<BinaryFn> {
    mloop::Kind::from_name(kind).map(mloop::Kind::function)
}

macro_rules! define_binary_state {
    ($(($v:ident, $s:literal, $op:ident, $sum:literal, $comm:tt, $f:expr)),* $(,)?) => {
        /// The state of the `mloop` op computing `f(a, b)` of type `ty`.
        fn binary_state(f: BinaryFn, loc: Loc, a: Value, b: Value, ty: Type) -> OperationState {
            match f {
                $(BinaryFn::$v => mloop::$op::state(loc, a, b, ty),)*
            }
        }
    };
}
morf_ir::for_each_binary_fn!(define_binary_state);

/// Terms of a strided reduction loop ([`KernelBuilder::emit_partials`]) loaded together before
/// they are combined in order: a final reduction's warp walks its splits with one load in
/// flight otherwise. A split-K partial's thread walks its block of rows in groups of as many
/// ([`KernelBuilder::vec_partials`]; the fusion model prices its loads in flight so).
pub(crate) const STRIDED_UNROLL: i64 = 4;

/// Registers under which a final reduction merged behind a grid barrier into a row kernel
/// ([`super::grid_merge`]) halves its loads in flight ([`KernelBuilder::strided_unroll`]):
/// at N = 2 the row kernels of rmsnorm_bwd, logsoftmax_bwd_colsum and
/// two_norms_shared_weight, planned for five CTAs of 256 (48 registers), spilled 8 bytes in
/// their final part with four loads a lane, none with two.
const MERGED_FINAL_REGS: u64 = 64;

/// Terms an iteration of a strided loop that loads `reduces` partials a term (the vector
/// forms, [`KernelBuilder::vec_partials`]): `unroll` ([`STRIDED_UNROLL`], or
/// [`KernelBuilder::strided_unroll`]) loads in flight a lane in all,
/// so LayerNorm's dw and db load two rows each. With four rows of both, ptxas (CUDA 13.5)
/// spilled 8 bytes at 48 registers in LayerNorm's merged kernel without size hints.
fn strided_terms(unroll: i64, reduces: usize) -> i64 {
    (unroll / reduces.max(1) as i64).max(1)
}

/// The `index` arithmetic the kernels compute (folded on constants by
/// [`KernelBuilder::ibin`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Ix {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Min,
    Max,
}

impl Ix {
    /// The state of the `mloop` op computing `a op b` of type `ty`.
    fn state(self, loc: Loc, a: Value, b: Value, ty: Type) -> OperationState {
        let f = match self {
            Ix::Rem => return mloop::RemOp::state(loc, a, b, ty),
            Ix::Add => BinaryFn::Add,
            Ix::Sub => BinaryFn::Sub,
            Ix::Mul => BinaryFn::Mul,
            Ix::Div => BinaryFn::Div,
            Ix::Min => BinaryFn::Min,
            Ix::Max => BinaryFn::Max,
        };
        binary_state(f, loc, a, b, ty)
    }
}

fn identity(kind: &str) -> f64 {
    match kind {
        "prod" => 1.0,
        "max" => f64::NEG_INFINITY,
        "min" => f64::INFINITY,
        _ => 0.0,
    }
}

type R<T> = Result<T, Diagnostic>;

/// The body of a loop being built: (builder, iv, iter args) -> yielded values.
type LoopBody<'f, 'a> = dyn FnMut(&mut KernelBuilder<'a>, Value, &[Value]) -> R<Vec<Value>> + 'f;

/// The body of [`KernelBuilder::grouped_for`]: a group of positions from `pos` (the third
/// argument's accumulators in, the new ones out), the last argument the group's count.
type GroupBody<'f, 'a> = dyn FnMut(&mut KernelBuilder<'a>, Value, &[Value], i64) -> R<Vec<Value>> + 'f;

/// What [`KernelBuilder::vec_partials`] does with the `p`-th reduce's partials (one per column).
type PartialsOut<'f, 'a> = dyn FnMut(&mut KernelBuilder<'a>, usize, Vec<Value>) -> R<()> + 'f;

/// What a row-fused kernel redirects `accumulate`s to.
struct SharedPartials {
    /// The shared partial array (`[partials][rows_per_cta][N]` f32).
    smem: Value,
    /// Workspace buffer (nest value) -> its partial index.
    index: HashMap<Value, usize>,
    /// Rows per CTA.
    slots: Value,
    /// This warp's slot.
    slot: Value,
    /// Columns.
    n: Value,
    /// The inner iv -> its position in the row.
    col: Option<(Value, Value)>,
}

/// Builds one kernel and its launch.
struct KernelBuilder<'a> {
    ctx: &'a mut Context,
    loc: Loc,
    /// The nest being lowered (host anchor: the launch goes before it).
    nest: OpId,
    kernel: OpId,
    entry: BlockId,
    /// The last op of the kernel prologue (constants, parameters' derived values).
    prologue_end: Option<OpId>,
    /// Where new ops are appended.
    cur: BlockId,
    /// Nest / host value -> kernel value.
    map: HashMap<Value, Value>,
    /// Host values passed, in parameter order.
    args: Vec<Value>,
    /// (buffer, dim) -> kernel index value.
    dims: HashMap<(Value, usize), Value>,
    consts: HashMap<(u64, Type), Value>,
    /// Buffers the nest writes (their loads are not `nc`).
    written: HashSet<Value>,
    names: &'a HashMap<(Value, usize), String>,
    opts: &'a LoopToGpuOptions,
    schedule: Option<Schedule>,
    /// The schedule the nest's `morf.schedule` attribute gives, if any (used instead of the
    /// heuristic's for the mapping it names).
    ir_schedule: Option<Schedule>,
    /// Host values of the launch: blocks, shared bytes.
    launch: Option<(Value, Value)>,
    /// Kernel: stores at row level only by the row's first thread (`t == 0`).
    row_guard: Option<Value>,
    shared_partials: Option<SharedPartials>,
    /// A block reduction's shared slots shared by every reduction of the kernel, per element
    /// type, values reduced at once and whether they come in two halves
    /// ([`Self::block_reduce_many`]).
    block_smem: HashMap<(Type, usize, bool), Value>,
    /// A cluster per row: the slots, per type and values reduced at once, where each CTA's
    /// block reduction lands in every CTA of the cluster ([`Self::cluster_reduce_many`]).
    cluster_smem: HashMap<(Type, usize), Value>,
    /// Inside the fast row loop of a CTA (or cluster) per row: which of the two halves of the
    /// slots the next block (and cluster) reduction uses (an index, 0 or 1, carried by the
    /// loop), so that each reduction takes one barrier (see `KernelBuilder::block_reduce_many`).
    slot_parity: Option<Value>,
    /// The fast row loop of this kernel takes its splits from a work counter
    /// (`dynamic-splits`); for the schedule report.
    dynamic_splits: bool,
    /// The fast row loop of this kernel takes its splits' rows interleaved
    /// (`interleave-splits`); for the schedule report.
    interleaved: bool,
    /// The most row reductions the fast form reduced together (`batch-reductions`); for the
    /// schedule report.
    batched: usize,
    /// Set while a CTA-per-row body with two or more reductions is emitted: each block
    /// reduction gets its own shared slots and no trailing barrier ([`Self::block_reduce`]).
    own_block_slots: bool,
    ids: HashMap<&'static str, Value>,
    /// The fast row-fused emitter's state, while it runs.
    fast: Option<FastState>,
    /// A vector step of a row loop in the looped form, while its columns are emitted
    /// ([`looped_vectors`]).
    looped: Option<looped_vectors::LoopedStep>,
    /// Kernel-computed values passed between kernels: value -> its rank-0 host buffer.
    spills: &'a HashMap<Value, Value>,
    /// A partial-pointwise kernel's register partials while its body is emitted: workspace
    /// -> partial index, and the current value of each partial.
    partial_accs: Option<(HashMap<Value, usize>, Vec<Value>)>,
    /// Row reductions of `emit_row` sum each thread's terms in blocks (RowReduction; the
    /// row-fused kernels keep their one loop: their rows are short enough on the supported
    /// shapes, and their code is tuned).
    blocked_rows: bool,
    /// `finish` deallocates this host buffer after the launch.
    dealloc: Option<Value>,
    /// Workspaces whose only initialization is an identity fill before this nest
    /// ([`identity_fills`]): a kernel that writes each of their elements once may store
    /// instead of adding, and then records them in `fresh_used` (their fills are dropped).
    fresh: HashSet<Value>,
    /// See `fresh`.
    fresh_used: HashSet<Value>,
    /// A row-fused kernel's CTAs per SM should it become cooperative (`final=grid`), for
    /// `min_ctas_per_sm` (see [`super::schedule::planned_ctas_per_sm`]).
    cooperative_ctas: Option<u64>,
    /// A flat partials kernel of whole warps (`flat_partials.rs`): a final reduction right
    /// after it may join its grid behind a grid barrier (`final=grid`), as after a row kernel.
    flat_joins_final: bool,
    /// The launch takes at most the CTAs the device holds at once (`mgpu.resident_blocks` of
    /// the kernel at its launch's CTA size and shared bytes): a kernel whose CTAs each take an
    /// equal share of its work, where a second, partial wave would cost as much as the first.
    grid_resident: bool,
    /// The reload form loads its hoisted vectors coherently ([`Self::reload_coherent_vectors`]).
    coherent_vectors: bool,
    /// The row kernel takes its early accumulates whatever the option says
    /// ([`Self::tight_registers`]).
    early_relief: bool,
    /// The report's note for `early_relief`, pushed once the early accumulates take an op.
    early_note: Option<String>,
    /// Loads in flight a lane of a strided reduction loop: [`STRIDED_UNROLL`], half that for
    /// a final reduction merged under a tight register cap ([`MERGED_FINAL_REGS`]).
    strided_unroll: i64,
    /// Why `strided_unroll` is lower (the report's note).
    unroll_note: Option<String>,
    /// A final reduction merged into a row-fused kernel's grid (`final=grid`): that grid's
    /// CTAs where its schedule plans them, for the tile width ([`final_vec_lanes`]).
    grid_hint: Option<u64>,
    /// The `mloop.resident_programs` ops that size this kernel's splits (`partials=resident`):
    /// `finish` binds them to the kernel's occupancy ([`bind_resident_programs`]).
    resident: Vec<OpId>,
    /// The nest is a plain row reduction lowered as a row kernel ([`Mapping::RowFused`]
    /// without partials) for its register-resident form ([`Self::row_reduction_fast`]).
    promoted_row: bool,
    /// Why a plain row reduction keeps the looped RowReduction form (the report's note).
    row_note: Option<String>,
    /// Body ops whose result the kernel already holds in `map` (`emit_op` skips them): a
    /// split sized at run time maps `row div S` to the split index, so that the kernel has
    /// no 64-bit division (a `div.u64` is a subroutine call in SASS, and with a call in a
    /// kernel ptxas compiles its shuffles as collectives: docs/target-ptx.md).
    prebound: HashSet<OpId>,
}

/// Terms of a thread's sequential float reduction combined into one fresh partial
/// ([`KernelBuilder::blocked_reduce`]).
const REDUCE_BLOCK: i64 = 256;

/// Rows a partial-pointwise thread sums into one fresh register partial before adding it to
/// its running partial: bounds every f32 chain by this many terms plus `S / PARTIAL_BLOCK`.
const PARTIAL_BLOCK: i64 = 256;
/// Rows a partial-pointwise thread runs per step, interleaved (loads in flight per thread).
pub(crate) const PARTIAL_UNROLL: i64 = 4;

/// What [`KernelBuilder::partial_plan`] found.
struct PartialPlan {
    /// The leading `k` ivs are the reduced (split) ones.
    k: usize,
    /// The workspaces, in first-accumulate order, with their reduction kinds.
    ws: Vec<(Value, String)>,
}

/// What [`KernelBuilder::row_fused_shape`] found.
struct RowFusedShape {
    parts: LoopParts,
    /// The inner parallel (the row's pointwise work), if any.
    inner: Option<LoopParts>,
    /// The workspaces accumulated, in first-accumulate order.
    workspaces: Vec<Value>,
    /// The fast path's plan, with its row inputs.
    plan: Option<FastPlan>,
    /// The heuristic's view of the nest.
    shape: NestShape,
}

/// The workspace of a split-K column reduction (host values).
#[derive(Clone, Copy, Debug)]
struct SplitWs {
    /// `W[reduces x blocks, N]`.
    w: Value,
    /// Row blocks.
    blocks: Value,
    /// The block count, known or hinted.
    blocks_hint: Option<u64>,
}

/// Which flat positions of each reduce a thread (or warp) combines.
enum PosRange {
    /// `[lo, min(total, lo + len))`, step 1.
    Block { lo: Value, len: Value },
    /// `start, start + step, ... < total`.
    Strided { start: Value, step: Value },
}

impl<'a> KernelBuilder<'a> {
    fn new(
        ctx: &'a mut Context,
        mblock: BlockId,
        nest: OpId,
        name: &str,
        names: &'a HashMap<(Value, usize), String>,
        opts: &'a LoopToGpuOptions,
        spills: &'a HashMap<Value, Value>,
    ) -> Self {
        let loc = ctx.op_loc(nest);
        let region = ctx.create_region();
        let entry = ctx.create_block(region, &[]);
        let sym = ctx.str_attr(name);
        let ft = ctx.function_type(&[], &[]);
        let fta = ctx.type_attr(ft);
        let unit = ctx.unit_attr();
        let st = mgpu::FuncOp::state(loc, sym, fta, Some(unit), None, None, None, None, None, None, None, None)
            .region(region);
        let kernel = ctx.create_op(st);
        ctx.append_op(mblock, kernel);
        let written: HashSet<Value> = written_buffers(ctx, nest).into_iter().collect();
        KernelBuilder {
            ctx,
            loc,
            nest,
            kernel,
            entry,
            prologue_end: None,
            cur: entry,
            map: HashMap::new(),
            args: Vec::new(),
            dims: HashMap::new(),
            consts: HashMap::new(),
            written,
            names,
            opts,
            schedule: None,
            ir_schedule: None,
            launch: None,
            row_guard: None,
            shared_partials: None,
            block_smem: HashMap::new(),
            cluster_smem: HashMap::new(),
            slot_parity: None,
            batched: 0,
            interleaved: false,
            dynamic_splits: false,
            own_block_slots: false,
            ids: HashMap::new(),
            fast: None,
            looped: None,
            spills,
            partial_accs: None,
            blocked_rows: false,
            dealloc: None,
            fresh: HashSet::new(),
            fresh_used: HashSet::new(),
            cooperative_ctas: None,
            flat_joins_final: false,
            grid_resident: false,
            coherent_vectors: false,
            early_relief: false,
            early_note: None,
            strided_unroll: STRIDED_UNROLL,
            unroll_note: None,
            grid_hint: None,
            resident: Vec::new(),
            promoted_row: false,
            row_note: None,
            prebound: HashSet::new(),
        }
    }

    // ----- building blocks -----

    fn it(&mut self) -> Type {
        self.ctx.index_type()
    }

    /// Appends an op to the current block; returns it.
    fn push(&mut self, st: OperationState) -> OpId {
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.cur, op);
        op
    }

    /// Appends an op with one result to the current block; returns the result.
    fn push1(&mut self, st: OperationState) -> Value {
        let op = self.push(st);
        self.ctx.result(op, 0)
    }

    /// The `nc` (read-only) attribute of a load of nest buffer `buf`: set unless the nest
    /// writes `buf`.
    fn nc(&mut self, buf: Value) -> Option<Attr> {
        (!self.written.contains(&buf)).then(|| self.ctx.unit_attr())
    }

    /// Inserts an op into the kernel prologue (entry block, before the body).
    fn prologue(&mut self, st: OperationState) -> OpId {
        let op = self.ctx.create_op(st);
        match self.prologue_end {
            Some(p) => self.ctx.insert_op_after(p, op),
            None => match self.ctx.block_ops(self.entry).next() {
                Some(first) => self.ctx.insert_op_before(first, op),
                None => self.ctx.append_op(self.entry, op),
            },
        }
        self.prologue_end = Some(op);
        op
    }

    /// The kernel's value of the id op `T` (`mgpu.thread_id`, ...), made once in the prologue.
    /// A read of special register `T` here, not the prologue's ([`Self::id`], which lives
    /// through the whole kernel): for a use after a loop that must not keep it live.
    fn read_id<T: Op>(&mut self) -> Value {
        let it = self.it();
        self.push1(OperationState::new(T::name(), self.loc).results(&[it]))
    }

    fn id<T: Op>(&mut self) -> Value {
        if let Some(&v) = self.ids.get(T::name()) {
            return v;
        }
        let it = self.it();
        let op = self.prologue(OperationState::new(T::name(), self.loc).results(&[it]));
        let v = self.ctx.result(op, 0);
        self.ids.insert(T::name(), v);
        v
    }

    fn iconst(&mut self, n: i64) -> Value {
        let it = self.it();
        if let Some(&v) = self.consts.get(&(n as u64, it)) {
            return v;
        }
        let a = self.ctx.int_attr(n, it);
        let op = self.prologue(mloop::ConstantOp::state(self.loc, it, a));
        let v = self.ctx.result(op, 0);
        self.consts.insert((n as u64, it), v);
        v
    }

    /// Whether every condition of `conds` holds (`1` where empty): `mloop.select`s of index
    /// 1 / 0 in order, compared with 1.
    fn all_of(&mut self, conds: &[Value]) -> Value {
        let it = self.it();
        let (one, zero) = (self.iconst(1), self.iconst(0));
        let mut ok = one;
        for &c in conds {
            ok = self.push1(mloop::SelectOp::state(self.loc, c, ok, zero, it));
        }
        self.icmp("eq", ok, one)
    }

    fn fconst(&mut self, x: f64, ty: Type) -> Value {
        if let Some(&v) = self.consts.get(&(x.to_bits(), ty)) {
            return v;
        }
        let a = self.ctx.float_attr(x, ty);
        let op = self.prologue(mloop::ConstantOp::state(self.loc, ty, a));
        let v = self.ctx.result(op, 0);
        self.consts.insert((x.to_bits(), ty), v);
        v
    }

    /// `ceil(a / b)` of non-negative indices, `(a + b - 1) div b`.
    fn ceil_div(&mut self, a: Value, b: Value) -> Value {
        let one = self.iconst(1);
        let bm1 = self.ibin(Ix::Sub, b, one);
        let n = self.ibin(Ix::Add, a, bm1);
        self.ibin(Ix::Div, n, b)
    }

    fn ibin(&mut self, f: Ix, a: Value, b: Value) -> Value {
        let (ca, cb) = (const_int(self.ctx, a), const_int(self.ctx, b));
        if let (Some(x), Some(y)) = (ca, cb) {
            let r = match f {
                Ix::Add => x.checked_add(y),
                Ix::Sub => x.checked_sub(y),
                Ix::Mul => x.checked_mul(y),
                Ix::Div if y > 0 => Some(x.div_euclid(y)),
                Ix::Rem if y > 0 => Some(x.rem_euclid(y)),
                Ix::Min => Some(x.min(y)),
                Ix::Max => Some(x.max(y)),
                _ => None,
            };
            if let Some(r) = r {
                return self.iconst(r);
            }
        }
        match (f, ca, cb) {
            (Ix::Add, Some(0), _) | (Ix::Mul, Some(1), _) => return b,
            (Ix::Add | Ix::Sub, _, Some(0)) | (Ix::Mul | Ix::Div, _, Some(1)) => return a,
            (Ix::Mul, Some(0), _) | (Ix::Mul, _, Some(0)) => return self.iconst(0),
            _ => {}
        }
        let it = self.it();
        self.push1(f.state(self.loc, a, b, it))
    }

    fn icmp(&mut self, pred: &str, a: Value, b: Value) -> Value {
        let i1 = self.ctx.i1_type();
        let p = self.ctx.str_attr(pred);
        self.push1(mloop::CmpOp::state(self.loc, a, b, i1, p))
    }

    /// `mloop.for %iv = lb to ub step st iter_args(inits)`; `body` gets (iv, iters) and
    /// returns the yielded values.
    fn for_loop(
        &mut self,
        lb: Value,
        ub: Value,
        step: Value,
        inits: &[Value],
        body: &mut LoopBody<'_, 'a>,
    ) -> R<Vec<Value>> {
        let it = self.it();
        let tys: Vec<Type> = inits.iter().map(|v| self.ctx.value_type(*v)).collect();
        let region = self.ctx.create_region();
        let mut argt = vec![it];
        argt.extend(&tys);
        let blk = self.ctx.create_block(region, &argt);
        let bargs = self.ctx.block_args(blk).to_vec();
        let saved = self.cur;
        self.cur = blk;
        let ys = body(self, bargs[0], &bargs[1..])?;
        self.push(mloop::YieldOp::state(self.loc, &ys));
        self.cur = saved;
        let st = mloop::ForOp::state(self.loc, lb, ub, step, inits, &tys).region(region);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.cur, op);
        Ok(self.ctx.results(op).to_vec())
    }

    /// An `mgpu.work_loop` over `0 .. ub`: `body(kb, iteration, &[])` (its returned values are
    /// dropped: the loop carries nothing).
    fn work_loop(&mut self, ub: Value, body: &mut LoopBody<'_, 'a>) -> R<()> {
        let it = self.it();
        let region = self.ctx.create_region();
        let blk = self.ctx.create_block(region, &[it]);
        let iv = self.ctx.block_args(blk)[0];
        let saved = self.cur;
        self.cur = blk;
        body(self, iv, &[])?;
        self.push(mgpu::YieldOp::state(self.loc, &[]));
        self.cur = saved;
        let st = mgpu::WorkLoopOp::state(self.loc, ub).region(region);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.cur, op);
        Ok(())
    }

    /// A loop over the positions `lb, lb + st, ...` below `ub` (none where `ub <= lb`) in groups: whole
    /// groups of `unroll` positions an iteration (`group(kb, pos, acc, unroll)`: positions
    /// `pos, pos + st, ...`), then the rest one an iteration (`group(kb, pos, acc, 1)`), `inits`
    /// threaded through both loops; `between` runs between them (to restore builder state the
    /// first loop's body changed). The positions are visited in order, so a group that loads
    /// its terms together and combines them in order gives the sum of a plain loop, bit for
    /// bit. The split-K partial's block of rows and the scalar final's strided splits
    /// ([`KernelBuilder::emit_partials`], [`KernelBuilder::vec_partials`]).
    #[allow(clippy::too_many_arguments)]
    fn grouped_for(
        &mut self,
        lb: Value,
        ub: Value,
        st: Value,
        unroll: i64,
        inits: &[Value],
        group: &mut GroupBody<'_, 'a>,
        between: &mut dyn FnMut(&mut Self),
    ) -> R<Vec<Value>> {
        let ub = self.ibin(Ix::Max, ub, lb);
        let mut acc = inits.to_vec();
        let mut rest = lb;
        if unroll > 1 {
            let u = self.iconst(unroll);
            let span = self.ibin(Ix::Mul, st, u);
            let len = self.ibin(Ix::Sub, ub, lb);
            let groups = self.ibin(Ix::Div, len, span);
            let main = self.ibin(Ix::Mul, groups, span);
            rest = self.ibin(Ix::Add, lb, main);
            acc = self.for_loop(lb, rest, span, inits, &mut |kb, pos, a| group(kb, pos, a, unroll))?;
            between(self);
        }
        self.for_loop(rest, ub, st, &acc, &mut |kb, pos, a| group(kb, pos, a, 1))
    }

    /// `mgpu.if %cond { then }` without results (else region empty).
    fn if_then(&mut self, cond: Value, then: &mut dyn FnMut(&mut Self) -> R<()>) -> R<()> {
        let region = self.ctx.create_region();
        let blk = self.ctx.create_block(region, &[]);
        let saved = self.cur;
        self.cur = blk;
        then(self)?;
        self.push(mgpu::YieldOp::state(self.loc, &[]));
        self.cur = saved;
        let els = self.ctx.create_region();
        let st = mgpu::IfOp::state(self.loc, cond, &[]).region(region).region(els);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(self.cur, op);
        Ok(())
    }

    fn combine(&mut self, kind: &str, a: Value, b: Value) -> R<Value> {
        let f = combiner(kind).ok_or_else(|| {
            Diagnostic::error(self.loc, format!("unknown reduction kind '{kind}' in lower-loop-to-gpu"))
        })?;
        let ty = self.ctx.value_type(a);
        Ok(self.push1(binary_state(f, self.loc, a, b, ty)))
    }

    /// `ptr[off] = ptr[off] (+) val` for reduction `kind` (a load, the combine, a store); where
    /// `fresh` (this store is the element's only write: its identity fill was dropped),
    /// `ptr[off] = val`.
    fn combine_into(&mut self, kind: &str, ptr: Value, off: Value, val: Value, fresh: bool) -> R<()> {
        let new = if fresh {
            val
        } else {
            let ty = self.ctx.value_type(val);
            let old = self.push1(mgpu::LoadOp::state(self.loc, ptr, off, ty, None, None));
            self.combine(kind, old, val)?
        };
        self.push(mgpu::StoreOp::state(self.loc, new, ptr, off));
        Ok(())
    }

    // ----- values from outside the nest -----

    /// The kernel value of `v` (a nest value already emitted, or a value from the host).
    fn get(&mut self, v: Value) -> R<Value> {
        if let Some(&k) = self.map.get(&v) {
            return Ok(k);
        }
        if defined_outside(self.ctx, v, self.nest) {
            return self.external(v);
        }
        Err(Diagnostic::error(self.loc, "lower-loop-to-gpu: a value is used before it is defined"))
    }

    fn param(&mut self, host: Value, ty: Type) -> Value {
        let p = self.ctx.add_block_arg(self.entry, ty, None, self.loc);
        self.args.push(host);
        p
    }

    fn external(&mut self, v: Value) -> R<Value> {
        let ty = self.ctx.value_type(v);
        let k = if let Some(&buf) = self.spills.get(&v) {
            // Computed by an earlier kernel: load it from its spill buffer.
            let p = self.get(buf)?;
            let zero = self.iconst(0);
            let op = self.prologue(mgpu::LoadOp::state(self.loc, p, zero, ty, None, None));
            self.ctx.result(op, 0)
        } else if is_buffer(self.ctx, ty) {
            let elem = self.ctx.element_type(ty);
            let pt = ptr_type(self.ctx, elem, false);
            self.param(v, pt)
        } else if let Some(n) = const_int(self.ctx, v).filter(|_| matches!(self.ctx.type_data(ty), TypeData::Index)) {
            self.iconst(n)
        } else if matches!(self.ctx.type_data(ty), TypeData::Index) {
            self.param(v, ty)
        } else {
            // A scalar computed on the host: recompute it in the prologue.
            let Some(d) = self.ctx.defining_op(v) else {
                // An argument of the host function: a kernel parameter (PTX takes floats by
                // value; other scalar types have no parameter form).
                if self.ctx.is_float(ty) {
                    let p = self.param(v, ty);
                    self.map.insert(v, p);
                    return Ok(p);
                }
                let t = self.ctx.type_to_string(ty);
                return Err(op_error(
                    self.ctx,
                    self.nest,
                    format!("needs a '{t}' argument of the function, which a kernel cannot take as a parameter"),
                ));
            };
            if !is_scalar(self.ctx, d) {
                return Err(op_error(self.ctx, d, "computes a scalar on the host that a kernel needs"));
            }
            let mut operands = Vec::new();
            for o in self.ctx.operands(d).to_vec() {
                operands.push(self.get(o)?);
            }
            let st = copy_state(self.ctx, d, self.loc, &operands);
            let op = self.prologue(st);
            self.ctx.result(op, 0)
        };
        self.map.insert(v, k);
        Ok(k)
    }

    /// Dim `k` of nest/host buffer `buf`, in the kernel.
    fn dim(&mut self, buf: Value, k: usize) -> Value {
        if let Some(&v) = self.dims.get(&(buf, k)) {
            return v;
        }
        let v = match buffer_shape(self.ctx, buf).get(k) {
            Some(Dim::Static(n)) => self.iconst(*n as i64),
            _ => {
                let it = self.it();
                let h = host_dim(self.ctx, self.nest, buf, k);
                self.param(h, it)
            }
        };
        self.dims.insert((buf, k), v);
        v
    }

    /// Row-major element offset of `buf[idx]` (idx are kernel values).
    fn offset(&mut self, buf: Value, idx: &[Value]) -> Value {
        let mut off = match idx.first() {
            Some(v) => *v,
            None => return self.iconst(0),
        };
        for (k, &i) in idx.iter().enumerate().skip(1) {
            let d = self.dim(buf, k);
            let m = self.ibin(Ix::Mul, off, d);
            off = self.ibin(Ix::Add, m, i);
        }
        off
    }

    /// The element offset of `buf` at the loop-IR indices `idx`, as [`Self::offset`], except
    /// that the longest leading run of indices that delinearizes one value ([`delinearized`])
    /// is that value over the collapsed dims: `x[r div M, r rem M, j]` is at `r * N + j`.
    fn access_offset(&mut self, buf: Value, idx: &[Value]) -> R<Value> {
        let run =
            (2..=idx.len()).rev().find_map(|p| delinearized(self.ctx, self.names, buf, &idx[..p]).map(|v| (p, v)));
        let Some((p, v)) = run else {
            let idx = self.get_all(idx)?;
            return Ok(self.offset(buf, &idx));
        };
        let mut off = self.get(v)?;
        for (k, &i) in idx.iter().enumerate().skip(p) {
            let d = self.dim(buf, k);
            let m = self.ibin(Ix::Mul, off, d);
            let i = self.get(i)?;
            off = self.ibin(Ix::Add, m, i);
        }
        Ok(off)
    }

    /// The size (a static value, or a hint) of a host index value, for the heuristic.
    fn size_of(&self, v: Value) -> Option<u64> {
        known_size(self.ctx, self.names, self.opts, v)
    }

    // ----- emitting nest ops -----

    fn emit_block(&mut self, b: BlockId) -> R<Vec<Value>> {
        let ops: Vec<OpId> = self.ctx.block_ops(b).collect();
        let mut yielded = Vec::new();
        for op in ops {
            if self.ctx.isa::<mloop::YieldOp>(op) {
                for v in self.ctx.operands(op).to_vec() {
                    yielded.push(self.get(v)?);
                }
            } else {
                self.emit_op(op)?;
            }
        }
        Ok(yielded)
    }

    /// Emits `op` with `row_guard` set to `first` (so its stores and accumulates happen on
    /// the row's first thread only), restoring no guard afterwards.
    fn emit_op_row_guarded(&mut self, op: OpId, first: Value) -> R<()> {
        self.row_guard = Some(first);
        let r = self.emit_op(op);
        self.row_guard = None;
        r
    }

    fn emit_op(&mut self, op: OpId) -> R<()> {
        if self.prebound.contains(&op) || self.looped_access(op)? {
            return Ok(());
        }
        let operands = self.ctx.operands(op).to_vec();
        match LoopOp::of(self.ctx, op) {
            LoopOp::Load(l) => {
                let buf = l.buffer(self.ctx);
                let idx = l.indices(self.ctx).to_vec();
                let ptr = self.get(buf)?;
                let off = self.access_offset(buf, &idx)?;
                let ty = self.ctx.value_type(l.value(self.ctx));
                let nc = self.nc(buf);
                let v = self.push1(mgpu::LoadOp::state(self.loc, ptr, off, ty, nc, None));
                self.map.insert(l.value(self.ctx), v);
            }
            LoopOp::Store(s) => {
                let (val, buf) = (s.value(self.ctx), s.buffer(self.ctx));
                let val = self.get(val)?;
                let idx = s.indices(self.ctx).to_vec();
                if self.hold_packed_scalar(buf, &idx, val)? {
                    return Ok(());
                }
                let ptr = self.get(buf)?;
                let off = self.access_offset(buf, &idx)?;
                match self.row_guard {
                    Some(g) => self.if_then(g, &mut |kb| {
                        kb.push(mgpu::StoreOp::state(kb.loc, val, ptr, off));
                        Ok(())
                    })?,
                    None => {
                        self.push(mgpu::StoreOp::state(self.loc, val, ptr, off));
                    }
                }
            }
            LoopOp::Accumulate(acc) => {
                let kind = acc.kind(self.ctx).unwrap_or_default().to_string();
                let (buf, indices) = (acc.buffer(self.ctx), acc.indices(self.ctx).to_vec());
                let val = self.get(acc.value(self.ctx))?;
                if let Some(p) = self.partial_accs.as_ref().and_then(|(ix, _)| ix.get(&buf).copied()) {
                    // A partial-pointwise kernel: into this thread's register partial.
                    let acc = self.partial_accs.as_ref().expect("checked").1[p];
                    let new = self.combine(&kind, acc, val)?;
                    self.partial_accs.as_mut().expect("checked").1[p] = new;
                    return Ok(());
                }
                if let Some(sp) = &self.shared_partials {
                    if let (Some(&p), Some((iv, pos))) = (sp.index.get(&buf), sp.col) {
                        if indices.last() == Some(&iv) {
                            let (smem, slots, slot, n) = (sp.smem, sp.slots, sp.slot, sp.n);
                            let pc = self.iconst(p as i64);
                            let a = self.ibin(Ix::Mul, pc, slots);
                            let a = self.ibin(Ix::Add, a, slot);
                            let a = self.ibin(Ix::Mul, a, n);
                            let off = self.ibin(Ix::Add, a, pos);
                            return self.combine_into(&kind, smem, off, val, false);
                        }
                    }
                }
                let ptr = self.get(buf)?;
                let off = self.access_offset(buf, &indices)?;
                let ty = self.ctx.value_type(val);
                let guard = self.row_guard;
                // `loop-map{atomics=true}` marked it: several threads update the element.
                let atomic = match self.ctx.attr(op, crate::transforms::loop_map::ATOMIC_ATTR) {
                    None => None,
                    Some(_) => match crate::transforms::loop_map::atomic_rmw_kind(self.ctx, &kind, ty) {
                        Some(rmw) => Some(self.ctx.str_attr(rmw)),
                        None => {
                            let t = self.ctx.type_to_string(ty);
                            return Err(op_error(
                                self.ctx,
                                op,
                                format!("an atomic accumulate of kind '{kind}' into '{t}' has no GPU lowering (sum, max or min of f32 or f64)"),
                            ));
                        }
                    },
                };
                let mut body = |kb: &mut Self| -> R<()> {
                    if let Some(k) = atomic {
                        kb.push(mgpu::AtomicRmwOp::state(kb.loc, val, ptr, off, ty, k));
                        return Ok(());
                    }
                    kb.combine_into(&kind, ptr, off, val, false)
                };
                match guard {
                    Some(g) => self.if_then(g, &mut body)?,
                    None => body(self)?,
                }
            }
            LoopOp::Reduce(red) => {
                let parts = loop_parts(self.ctx, op, true).map_err(|e| op_error(self.ctx, op, e))?;
                let kind = red.kind(self.ctx).unwrap_or_default().to_string();
                let init = self.get(parts.init.expect("reduce"))?;
                let r = self.seq_reduce(&parts, &kind, init)?;
                self.map.insert(red.result(self.ctx), r);
            }
            LoopOp::Parallel => {
                let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
                self.seq_parallel(&parts, 0)?;
            }
            LoopOp::For(f) => {
                let (lb, ub, st) = (f.lower_bound(self.ctx), f.upper_bound(self.ctx), f.step(self.ctx));
                let (lb, ub, st) = (self.get(lb)?, self.get(ub)?, self.get(st)?);
                let inits = self.get_all(&operands[3..])?;
                let body = self.ctx.entry_block(f.body(self.ctx)).expect("for body");
                let bargs = self.ctx.block_args(body).to_vec();
                let rs = self.for_loop(lb, ub, st, &inits, &mut |kb, iv, iters| {
                    kb.map.insert(bargs[0], iv);
                    for (a, b) in bargs[1..].iter().zip(iters) {
                        kb.map.insert(*a, *b);
                    }
                    kb.emit_block(body)
                })?;
                for (a, b) in self.ctx.results(op).to_vec().into_iter().zip(rs) {
                    self.map.insert(a, b);
                }
            }
            LoopOp::Dim(d) => {
                let k = d.index(self.ctx).unwrap_or(0) as usize;
                let buf = d.source(self.ctx);
                if !defined_outside(self.ctx, buf, self.nest) {
                    return Err(op_error(self.ctx, op, "takes the dim of a buffer made inside a loop nest"));
                }
                let d = self.dim(buf, k);
                self.map.insert(self.ctx.result(op, 0), d);
            }
            LoopOp::Scalar => {
                let ops = self.get_all(&operands)?;
                let st = copy_state(self.ctx, op, self.loc, &ops);
                let v = self.push1(st);
                self.map.insert(self.ctx.result(op, 0), v);
            }
            LoopOp::Yield | LoopOp::Other => {
                let name = self.ctx.op_name(op);
                return Err(Diagnostic::error(self.ctx.op_loc(op), format!("failed to legalize operation '{name}'")));
            }
        }
        Ok(())
    }

    fn get_all(&mut self, vs: &[Value]) -> R<Vec<Value>> {
        vs.iter().map(|v| self.get(*v)).collect()
    }

    /// A sequential `reduce` over all its dims (nested `mloop.for`s carrying the accumulator).
    /// Float reductions run over the flattened domain in blocks ([`Self::blocked_reduce`]),
    /// so a thread's f32 chain stays short however long the reduction is; others in order.
    fn seq_reduce(&mut self, parts: &LoopParts, kind: &str, init: Value) -> R<Value> {
        let ty = self.ctx.value_type(init);
        if !self.ctx.is_float(ty) || combiner(kind).is_none() {
            return self.seq_reduce_dim(parts, 0, kind, init);
        }
        let (ext, total) = self.extents(parts)?;
        let (zero, one) = (self.iconst(0), self.iconst(1));
        let body = parts.body;
        let r = self.blocked_reduce(kind, ty, zero, total, one, &mut |kb, e| {
            kb.bind_flat(parts, &ext, e)?;
            Ok(kb.emit_block(body)?[0])
        })?;
        self.combine(kind, init, r)
    }

    /// `body(lb) (+) body(lb + step) (+) ...` over the positions `< ub`, in that order, in
    /// blocks of [`REDUCE_BLOCK`] terms each combined into a fresh partial that is then
    /// combined into the running total: an f32 sum of n terms has chains of at most
    /// `REDUCE_BLOCK + n / REDUCE_BLOCK` adds (a single chain's error grows with n).
    fn blocked_reduce(
        &mut self,
        kind: &str,
        ty: Type,
        lb: Value,
        ub: Value,
        step: Value,
        body: &mut dyn FnMut(&mut Self, Value) -> R<Value>,
    ) -> R<Value> {
        let id = self.fconst(identity(kind), ty);
        let bs = self.iconst(REDUCE_BLOCK);
        let span = self.ibin(Ix::Mul, step, bs);
        let r = self.for_loop(lb, ub, span, &[id], &mut |kb, c, acc| {
            let end = kb.ibin(Ix::Add, c, span);
            let end = kb.ibin(Ix::Min, end, ub);
            let part = kb.for_loop(c, end, step, &[id], &mut |kb, e, p| {
                let y = body(kb, e)?;
                Ok(vec![kb.combine(kind, p[0], y)?])
            })?[0];
            Ok(vec![kb.combine(kind, acc[0], part)?])
        })?;
        Ok(r[0])
    }

    fn seq_reduce_dim(&mut self, parts: &LoopParts, d: usize, kind: &str, acc: Value) -> R<Value> {
        if d == parts.ivs.len() {
            let ys = self.emit_block(parts.body)?;
            return self.combine(kind, acc, ys[0]);
        }
        let (lb, ub, st) = (self.get(parts.lbs[d])?, self.get(parts.ubs[d])?, self.get(parts.steps[d])?);
        let iv = parts.ivs[d];
        let rs = self.for_loop(lb, ub, st, &[acc], &mut |kb, i, it| {
            kb.map.insert(iv, i);
            Ok(vec![kb.seq_reduce_dim(parts, d + 1, kind, it[0])?])
        })?;
        Ok(rs[0])
    }

    fn seq_parallel(&mut self, parts: &LoopParts, d: usize) -> R<()> {
        if d == parts.ivs.len() {
            self.emit_block(parts.body)?;
            return Ok(());
        }
        let (lb, ub, st) = (self.get(parts.lbs[d])?, self.get(parts.ubs[d])?, self.get(parts.steps[d])?);
        let iv = parts.ivs[d];
        self.for_loop(lb, ub, st, &[], &mut |kb, i, _| {
            kb.map.insert(iv, i);
            kb.seq_parallel(parts, d + 1)?;
            Ok(vec![])
        })?;
        Ok(())
    }

    /// Kernel extents of a box, and their product.
    fn extents(&mut self, parts: &LoopParts) -> R<(Vec<Value>, Value)> {
        let mut ext = Vec::new();
        let mut total = self.iconst(1);
        for d in 0..parts.ivs.len() {
            let (lb, ub, st) = (self.get(parts.lbs[d])?, self.get(parts.ubs[d])?, self.get(parts.steps[d])?);
            let diff = self.ibin(Ix::Sub, ub, lb);
            let zero = self.iconst(0);
            let diff = self.ibin(Ix::Max, diff, zero);
            let one = self.iconst(1);
            let sm1 = self.ibin(Ix::Sub, st, one);
            let num = self.ibin(Ix::Add, diff, sm1);
            let e = self.ibin(Ix::Div, num, st);
            total = self.ibin(Ix::Mul, total, e);
            ext.push(e);
        }
        Ok((ext, total))
    }

    /// Maps a flat position (innermost fastest) to the ivs of `parts`.
    fn bind_flat(&mut self, parts: &LoopParts, ext: &[Value], flat: Value) -> R<()> {
        self.bind_flat_dims(parts, ext, 0, ext.len(), flat)
    }

    /// Maps a flat position over dims `lo..hi` (innermost fastest) to those ivs of `parts`.
    fn bind_flat_dims(&mut self, parts: &LoopParts, ext: &[Value], lo: usize, hi: usize, flat: Value) -> R<()> {
        let mut rest = flat;
        for d in (lo..hi).rev() {
            let pos = if d == lo { rest } else { self.ibin(Ix::Rem, rest, ext[d]) };
            if d > lo {
                rest = self.ibin(Ix::Div, rest, ext[d]);
            }
            let (lb, st) = (self.get(parts.lbs[d])?, self.get(parts.steps[d])?);
            let m = self.ibin(Ix::Mul, pos, st);
            let iv = self.ibin(Ix::Add, lb, m);
            self.map.insert(parts.ivs[d], iv);
        }
        Ok(())
    }

    /// Host-side extent product of a box (for grid sizes).
    fn host_total(&mut self, parts: &LoopParts) -> Value {
        let ib = Ib { before: self.nest };
        let mut total = ib.index(self.ctx, 1);
        for d in 0..parts.ivs.len() {
            let e = ib.extent(self.ctx, parts.lbs[d], parts.ubs[d], parts.steps[d]);
            total = ib.mul(self.ctx, total, e);
        }
        total
    }

    /// `max(1, min(ceildiv(work, per_cta), max_grid))` on the host.
    fn host_grid(&mut self, work: Value, per_cta: u64, max_grid: u64) -> Value {
        let ib = Ib { before: self.nest };
        let per = ib.index(self.ctx, per_cta as i64);
        let g = ib.ceildiv(self.ctx, work, per);
        let cap = ib.index(self.ctx, max_grid.max(1) as i64);
        let g = ib.min(self.ctx, g, cap);
        let one = ib.index(self.ctx, 1);
        let it = self.ctx.index_type();
        let op = insert_before(self.ctx, self.nest, mloop::MaxOp::state(self.loc, g, one, it));
        self.ctx.result(op, 0)
    }

    fn host_index(&mut self, n: i64) -> Value {
        Ib { before: self.nest }.index(self.ctx, n)
    }

    // ----- mappings -----

    fn lower_unit(&mut self, unit: &Unit, mapping: Mapping) -> R<()> {
        let op = unit.op;
        match mapping {
            Mapping::ThreadPerPoint => self.thread_per_point(op),
            Mapping::PartialPointwise => self.partial_pointwise(op),
            Mapping::RowReduction => self.row_reduction(op),
            Mapping::BlockReduction => self.block_reduction(op, &unit.epilogue),
            Mapping::RowFused => self.row_fused(op),
            Mapping::FinalReduction => self.final_reduction(op, None),
            Mapping::SplitPartial => unreachable!("split-K reductions are lowered by lower_function"),
            Mapping::Sequential => self.sequential(op, &unit.epilogue),
        }
    }

    /// The mapping of a unit: the one its `morf.schedule` attribute names (checked: well
    /// formed, and applicable to the nest, see [`mapping_applies`]; the schedule is then used
    /// instead of the heuristic's) or else [`Self::classify`]'s. Returns the final launch's
    /// schedule of a split-K column reduction from the attribute too.
    ///
    /// Also returns why the mapping is a poorer one than the nest could have had
    /// ([`Fallback`]s, from [`Self::classify_why`], and the attribute's override).
    fn chosen_mapping(&mut self, op: OpId) -> R<(Mapping, Option<Schedule>, Vec<Fallback>)> {
        let (structural, mut why) = self.classify_why(op);
        // A plain row reduction takes the row kernel's register-resident form where it has one.
        let mut natural = structural;
        if structural == Mapping::RowReduction {
            match self.row_reduction_fast(op) {
                Ok(()) => natural = Mapping::RowFused,
                Err(e) => self.row_note = Some(e),
            }
        }
        let Some(a) = self.ctx.attr(op, SCHEDULE_ATTR).filter(|_| self.opts.dry_run.is_none()) else {
            self.promoted_row = natural != structural;
            return Ok((natural, None, why));
        };
        let (s, fin) = Schedule::from_attr(self.ctx, a).map_err(|e| op_error(self.ctx, op, e))?;
        // A row reduction's schedule applies whether or not the heuristic would promote it.
        let row_kernel = structural == Mapping::RowReduction
            && (s.mapping == Mapping::RowReduction
                || (s.mapping == Mapping::RowFused && self.row_fused_check(op).is_ok()));
        if !mapping_applies(s.mapping, natural) && !mapping_applies(s.mapping, structural) && !row_kernel {
            return Err(op_error(
                self.ctx,
                op,
                format!(
                    "'morf.schedule' mapping \"{}\" does not apply to this nest (lower-loop-to-gpu maps it as \"{}\")",
                    s.mapping.name(),
                    natural.name()
                ),
            ));
        }
        let mapping = s.mapping;
        if mapping != natural {
            why.push(Fallback::AttributeOverride(natural));
        }
        self.promoted_row = mapping == Mapping::RowFused && structural == Mapping::RowReduction;
        self.ir_schedule = Some(s);
        Ok((mapping, fin, why))
    }

    /// The report's record of this builder's launch: kernel name, schedule, and whether the
    /// schedule came from the nest's `morf.schedule` attribute.
    fn launch_record(&self, kernel: &str) -> (String, Schedule, bool) {
        let mut s = self.schedule.clone().expect("a mapping sets the schedule");
        let from_ir = self.ir_schedule.as_ref().is_some_and(|i| i.mapping == s.mapping);
        if self.opts.interleave_splits && s.mapping == Mapping::RowFused {
            // Asked for, the option says whether it applied (it is silent elsewhere only
            // for kernels that have no rows to split: final reductions, pointwise).
            s.notes.0.push(if self.interleaved {
                "the fast form's splits take their rows interleaved across CTAs (interleave-splits)".into()
            } else {
                "interleave-splits not taken: it needs the register-resident (fast) row form".into()
            });
        }
        if self.opts.dynamic_splits && s.mapping == Mapping::RowFused {
            s.notes.0.push(if self.dynamic_splits {
                "the fast form's CTAs take their splits from a work counter (dynamic-splits)".into()
            } else {
                "dynamic-splits not taken: it needs the register-resident (fast) row form without a cluster per row"
                    .into()
            });
        }
        if self.batched >= 2 {
            let how = if s.threads_per_row > 32 {
                "one barrier for them a row"
            } else {
                "their warp reductions side by side"
            };
            s.notes.0.push(format!(
                "{} independent row reductions reduced together, {how} (batch-reductions)",
                self.batched
            ));
        }
        (kernel.to_string(), s, from_ir)
    }

    fn kernel_kind(&self, op: OpId) -> Option<String> {
        kernel_kind(self.ctx, op)
    }

    fn kernel_split(&self, op: OpId) -> Option<i64> {
        kernel_split(self.ctx, op)
    }

    /// The mapping the lowering gives a nest by its structure, and why better mappings were
    /// rejected on the way ([`Fallback`]; the schedule report shows them when the mapping is
    /// a poor one for a nest that reduces).
    fn classify_why(&self, op: OpId) -> (Mapping, Vec<Fallback>) {
        let ctx = &*self.ctx;
        let has_acc = ctx.walk_collect(op).iter().any(|&o| ctx.isa::<mloop::AccumulateOp>(o));
        let mut why = Vec::new();
        let mapping = match LoopOp::of(ctx, op) {
            LoopOp::Reduce(_) => {
                let kind = kind_name(ctx, op).unwrap_or_default();
                let float = loop_parts(ctx, op, true)
                    .ok()
                    .and_then(|p| p.init)
                    .is_some_and(|i| ctx.is_float(ctx.value_type(i)));
                if !has_acc && float && matches!(kind.as_str(), "sum" | "max" | "min") && self.flat_body(op) {
                    Mapping::BlockReduction
                } else {
                    why.push(if has_acc { Fallback::AccumulateNotProvable } else { Fallback::Rank0ReduceShape });
                    Mapping::Sequential
                }
            }
            LoopOp::Parallel => 'p: {
                if self.kernel_kind(op).as_deref() == Some("row-fused") {
                    match self.row_fused_check(op) {
                        Ok(()) => break 'p Mapping::RowFused,
                        Err(r) => why.push(r),
                    }
                }
                if has_acc {
                    if self.partial_plan(op).is_some() {
                        break 'p Mapping::PartialPointwise;
                    }
                    why.push(Fallback::AccumulateNotProvable);
                    break 'p Mapping::Sequential;
                }
                let row = self.row_reduction_check(op);
                if row.is_ok() {
                    Mapping::RowReduction
                } else if row == Err(Fallback::NestedRegion) && self.row_fused_check(op).is_ok() {
                    // A row kernel (reduces, then the row's pointwise part) without the
                    // fusion pass's attribute: the row-fused form without partials.
                    Mapping::RowFused
                } else if self.column_reduction_ok(op) {
                    if self.kernel_kind(op).as_deref() == Some("final") {
                        Mapping::FinalReduction
                    } else if self.split_ok(op) {
                        Mapping::SplitPartial
                    } else {
                        why.push(Fallback::ColumnNotSplittable);
                        Mapping::ThreadPerPoint
                    }
                } else {
                    why.extend(row.err());
                    Mapping::ThreadPerPoint
                }
            }
            LoopOp::For(_) => {
                why.push(Fallback::TopLevelFor);
                Mapping::Sequential
            }
            _ => Mapping::Sequential,
        };
        (mapping, why)
    }

    /// Whether a loop's body holds no region ops.
    fn flat_body(&self, op: OpId) -> bool {
        let Some(b) = self.ctx.regions(op).first().and_then(|r| self.ctx.entry_block(*r)) else { return false };
        self.ctx.block_ops(b).all(|o| self.ctx.regions(o).is_empty())
    }

    /// A parallel whose body holds reduces (flat, float, sum/max/min) and no other region op,
    /// whose loads in the reduces index their last dim by a reduce iv, never by a parallel iv.
    fn row_reduction_check(&self, op: OpId) -> Result<(), Fallback> {
        let ctx = &*self.ctx;
        let Ok(parts) = loop_parts(ctx, op, false) else { return Err(Fallback::RowsNotInnermost) };
        let mut reduces = 0;
        let mut row_loads = 0;
        for o in ctx.block_ops(parts.body) {
            if ctx.regions(o).is_empty() {
                continue;
            }
            if !ctx.isa::<mloop::ReduceOp>(o) || !self.flat_body(o) {
                return Err(Fallback::NestedRegion);
            }
            let kind = kind_name(ctx, o).unwrap_or_default();
            let Ok(rp) = loop_parts(ctx, o, true) else { return Err(Fallback::ReduceKind) };
            if !matches!(kind.as_str(), "sum" | "max" | "min") || !ctx.is_float(ctx.value_type(rp.init.unwrap())) {
                return Err(Fallback::ReduceKind);
            }
            reduces += 1;
            for l in ctx.block_ops(rp.body) {
                if !ctx.isa::<mloop::LoadOp>(l) || ctx.operands(l).len() < 2 {
                    continue;
                }
                let last = *ctx.operands(l).last().unwrap();
                if parts.ivs.contains(&last) {
                    return Err(Fallback::RowsNotInnermost);
                }
                if rp.ivs.contains(&last) {
                    row_loads += 1;
                }
            }
        }
        if reduces > 0 && row_loads > 0 {
            Ok(())
        } else {
            Err(Fallback::RowsNotInnermost)
        }
    }

    /// Whether a plain row reduction (classified [`Mapping::RowReduction`]) takes the
    /// register-resident form of a row kernel ([`Mapping::RowFused`] without partials: each
    /// row loaded once with vector loads of up to 16 bytes a lane, the `[j]` vectors hoisted,
    /// the partials in registers, a run-time guard that falls back to the looped form); else
    /// why not. It needs the row kernel's shape (a 1-D parallel), a row the fast path can take
    /// ([`Self::fast_plan`]), N known at compile time (a static dim or a size hint) and a
    /// schedule of the heuristic with the fast form.
    fn row_reduction_fast(&self, op: OpId) -> Result<(), String> {
        if self.opts.overrides.no_fast {
            return Err("the option fast=0".into());
        }
        self.row_fused_check(op).map_err(|f| match f {
            Fallback::RowFusedDomain => "the nest is not a 1-D parallel from 0 step 1".to_string(),
            f => f.to_string(),
        })?;
        let rf = self.row_fused_shape(op).map_err(|d| d.message)?;
        if rf.plan.is_none() {
            return Err("the row's accesses do not fit the register-resident form (the column index only as the \
                        last index of loads of buffers the nest does not write, reduces over [0, N) step 1)"
                .into());
        }
        let Some(n) = rf.shape.cols.filter(|n| *n > 0) else {
            return Err("N is not known at compile time (a static dim or size-hints gives the vector form)".into());
        };
        let s = choose_schedule(Mapping::RowFused, &rf.shape, &self.opts.device, &self.opts.overrides);
        if s.fast.is_none() {
            let why = s.notes.0.first().map(|w| format!(": {w}")).unwrap_or_default();
            return Err(format!("a row of {n} columns does not fit the register-resident form{why}"));
        }
        Ok(())
    }

    /// The row-fused shape: 1-D parallel from 0 step 1, direct reduces (flat), at most one
    /// inner 1-D parallel (flat), `accumulate`s only in it, into `W[i div S, j]`.
    fn row_fused_check(&self, op: OpId) -> Result<(), Fallback> {
        let ctx = &*self.ctx;
        let Ok(parts) = loop_parts(ctx, op, false) else { return Err(Fallback::RowFusedDomain) };
        // Without a split the nest must not accumulate (nothing to partial): a row kernel.
        let split = self.kernel_split(op).filter(|s| *s > 0);
        let balanced = split.is_none() && kernel_balanced(ctx, op);
        if split.is_none() && !balanced && ctx.walk_collect(op).iter().any(|&o| ctx.isa::<mloop::AccumulateOp>(o)) {
            return Err(Fallback::RowFusedNoSplit);
        }
        // With a split sized at run time, every accumulate divides by the first one's divisor,
        // a host value.
        let divisor = if balanced { self.split_divisor(op).filter(|&r| defined_outside(ctx, r, op)) } else { None };
        if parts.ivs.len() != 1 || const_int(ctx, parts.lbs[0]) != Some(0) || const_int(ctx, parts.steps[0]) != Some(1)
        {
            return Err(Fallback::RowFusedDomain);
        }
        let i = parts.ivs[0];
        let mut inner = 0;
        for o in ctx.block_ops(parts.body) {
            match LoopOp::of(ctx, o) {
                LoopOp::Accumulate(_) => return Err(Fallback::RowFusedAccumulate),
                LoopOp::Reduce(_) => {
                    let kind = kind_name(ctx, o).unwrap_or_default();
                    let float = loop_parts(ctx, o, true)
                        .ok()
                        .and_then(|p| p.init)
                        .is_some_and(|v| ctx.is_float(ctx.value_type(v)));
                    if !self.flat_body(o) || !float || !matches!(kind.as_str(), "sum" | "max" | "min") {
                        return Err(Fallback::RowFusedBody);
                    }
                }
                LoopOp::Parallel => {
                    inner += 1;
                    let Ok(ip) = loop_parts(ctx, o, false) else { return Err(Fallback::RowFusedBody) };
                    if ip.ivs.len() != 1 || !self.flat_body(o) || !defined_outside(ctx, ip.ubs[0], op) {
                        return Err(Fallback::RowFusedBody);
                    }
                    for a in ctx.block_ops(ip.body) {
                        if !ctx.isa::<mloop::AccumulateOp>(a) {
                            continue;
                        }
                        let ops = ctx.operands(a);
                        if ops.len() != 4 || ops[3] != ip.ivs[0] {
                            return Err(Fallback::RowFusedAccumulate);
                        }
                        // First index: i div S with the kernel's split.
                        let Some(d) = ctx.defining_op(ops[2]).and_then(|d| ctx.dyn_cast::<mloop::DivOp>(d)) else {
                            return Err(Fallback::RowFusedAccumulate);
                        };
                        if d.lhs(ctx) != i {
                            return Err(Fallback::RowFusedAccumulate);
                        }
                        if balanced {
                            if divisor != Some(d.rhs(ctx)) {
                                return Err(Fallback::RowFusedAccumulate);
                            }
                        } else if const_int(ctx, d.rhs(ctx)) != split {
                            return Err(Fallback::RowFusedAccumulate);
                        }
                    }
                }
                _ if !ctx.regions(o).is_empty() => return Err(Fallback::RowFusedBody),
                _ => {}
            }
        }
        if inner <= 1 {
            Ok(())
        } else {
            Err(Fallback::RowFusedBody)
        }
    }

    /// Estimated instructions per point of a row whose body is `body`: `work_of_op` of every
    /// op in the loops inside it (the ops directly in `body` run once per row).
    fn work_per_point(&self, body: BlockId) -> u32 {
        self.ctx.block_ops(body).map(|o| crate::fusion::work_inside(self.ctx, o)).fold(0, u32::saturating_add)
    }

    fn nest_shape(&self, rows: Option<u64>, cols: Option<u64>) -> NestShape {
        let (loads, stores) = self.nest_accesses();
        let mut elem_bytes = 1;
        for &buf in loads.iter().chain(&stores) {
            let t = self.ctx.element_type(self.ctx.value_type(buf));
            let b = match self.ctx.float_kind(t).map(|k| k.name()) {
                Some("f64") => 8,
                Some("f32") => 4,
                Some(_) => 2,
                None => 1,
            };
            elem_bytes = elem_bytes.max(b);
        }
        let stream = self.stream_buffers(&loads, &stores, true);
        let loads_of = |b: Value| loads.iter().filter(|&&l| l == b).count();
        NestShape {
            rows,
            cols,
            elem_bytes,
            streams_inputs: !stream.is_empty(),
            reduces_only: self.reduces_only(&loads, &stores),
            rereads_inputs: stream.iter().any(|&b| loads_of(b) > 1),
            ..NestShape::default()
        }
    }

    /// The rank of buffer `b` (0 for a scalar or an unranked value).
    fn buffer_rank(&self, b: Value) -> usize {
        self.ctx.shape_of(self.ctx.value_type(b)).map_or(0, |d| d.len())
    }

    /// Whether the nest with these loads and stores only reduces its rows: it loads tensors
    /// and stores into none of the largest rank it loads ([`NestShape::reduces_only`]).
    fn reduces_only(&self, loads: &[Value], stores: &[Value]) -> bool {
        let full = loads.iter().map(|&b| self.buffer_rank(b)).max().unwrap_or(0);
        full > 0 && !stores.iter().any(|&b| self.buffer_rank(b) >= full)
    }

    /// The buffers whose loads a streaming schedule marks ([`Schedule::stream_loads`]): the
    /// read-only buffers of the largest rank the nest loads; lower-rank inputs (a weight
    /// vector every row reads) stay cached. `heuristic`: the heuristic's choice, which takes
    /// them only where the nest stores into no buffer of that rank (what it writes is
    /// reductions, and partials it accumulates) and leaves out those another nest loads;
    /// otherwise (asked by the option or the schedule attribute) all of them.
    fn stream_buffers(&self, loads: &[Value], stores: &[Value], heuristic: bool) -> Vec<Value> {
        let rank = |b: Value| self.buffer_rank(b);
        let full = loads.iter().map(|b| rank(*b)).max().unwrap_or(0);
        if full == 0 || (heuristic && !self.reduces_only(loads, stores)) {
            return Vec::new();
        }
        // Tensors another top-level nest of the function also loads stay cached: a later
        // kernel may find them in L2 where they fit (streamed, their lines go first).
        let mut elsewhere = HashSet::new();
        if let Some(block) = self.ctx.op_parent_block(self.nest).filter(|_| heuristic) {
            for top in self.ctx.block_ops(block).filter(|&o| o != self.nest) {
                for o in self.ctx.walk_collect(top) {
                    if let LoopOp::Load(l) = LoopOp::of(self.ctx, o) {
                        elsewhere.insert(l.buffer(self.ctx));
                    }
                }
            }
        }
        let mut out: Vec<Value> = loads
            .iter()
            .copied()
            .filter(|b| rank(*b) == full && !self.written.contains(b) && !elsewhere.contains(b))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The buffers of the nest's `mloop.load`s and of its `mloop.store`s, one entry per op.
    fn nest_accesses(&self) -> (Vec<Value>, Vec<Value>) {
        let (mut loads, mut stores) = (Vec::new(), Vec::new());
        for o in self.ctx.walk_collect(self.nest) {
            match LoopOp::of(self.ctx, o) {
                LoopOp::Load(l) => loads.push(l.buffer(self.ctx)),
                LoopOp::Store(st) => stores.push(st.buffer(self.ctx)),
                _ => {}
            }
        }
        (loads, stores)
    }

    /// Marks the kernel's non-coherent global loads and asynchronous copies (staged rows) of
    /// [`Self::stream_buffers`] `stream`, where the schedule streams its loads.
    fn mark_stream_loads(&mut self) {
        if !self.schedule.as_ref().is_some_and(|s| s.stream_loads) {
            return;
        }
        let heuristic = self.ir_schedule.is_none() && self.opts.overrides.stream_loads.is_none();
        // Packed rows stream by default although the kernel writes its rows (dx): each row
        // input is read once ([`choose_schedule`]'s note says so).
        let packed = self.schedule.as_ref().and_then(|s| s.fast).is_some_and(|f| f.packed_rows > 1);
        let (loads, stores) = self.nest_accesses();
        let ptrs: HashSet<Value> = self
            .stream_buffers(&loads, if packed { &[] } else { &stores }, heuristic)
            .into_iter()
            .filter_map(|b| self.map.get(&b).copied())
            .collect();
        let unit = self.ctx.unit_attr();
        for op in self.ctx.walk_collect(self.kernel) {
            if let Some(c) = mgpu::CopyAsyncOp::dyn_cast(self.ctx, op) {
                // A staged row's copy reads its lines once too (marked where asked:
                // `stream-copies`).
                if self.opts.stream_copies && ptrs.contains(&c.src(self.ctx)) {
                    self.ctx.set_attr(op, "stream", unit);
                }
                continue;
            }
            let ptr = match mgpu::LoadOp::dyn_cast(self.ctx, op) {
                Some(l) => Some(l.ptr(self.ctx)),
                None => mgpu::LoadVecOp::dyn_cast(self.ctx, op).map(|l| l.ptr(self.ctx)),
            };
            if ptr.is_some_and(|p| ptrs.contains(&p)) && self.ctx.attr(op, "nc").is_some() {
                self.ctx.set_attr(op, "stream", unit);
            }
        }
    }

    fn set_schedule(&mut self, mapping: Mapping, shape: &NestShape) -> Schedule {
        self.set_schedule_with(mapping, shape, &mut |_, _| {})
    }

    /// [`Self::set_schedule`], with `adjust(schedule, from the IR)` run on the schedule before
    /// it is recorded (the lowering's own choices: a vector form's width and notes).
    fn set_schedule_with(
        &mut self,
        mapping: Mapping,
        shape: &NestShape,
        adjust: &mut dyn FnMut(&mut Schedule, bool),
    ) -> Schedule {
        let (mut s, from_ir) = match self.ir_schedule.clone().filter(|s| s.mapping == mapping) {
            Some(s) => (s, true),
            None => (choose_schedule(mapping, shape, &self.opts.device, &self.opts.overrides), false),
        };
        adjust(&mut s, from_ir);
        if let Some(log) = &self.opts.dry_run {
            log.borrow_mut().push((self.nest, s.clone()));
        }
        let threads = self.ctx.i64_attr(s.threads as i64);
        self.ctx.set_attr(self.kernel, "max_threads", threads);
        let text = self.ctx.str_attr(&s.to_string());
        self.ctx.set_attr(self.kernel, "morf.schedule", text);
        self.schedule = Some(s.clone());
        s
    }

    /// The CTA's thread count: the schedule's `threads` as a constant (this pass launches every
    /// kernel it builds with exactly that many, so index arithmetic on it folds), or
    /// `mgpu.block_dim` before a schedule is chosen.
    fn block_dim(&mut self) -> Value {
        match self.schedule.as_ref().map(|s| s.threads) {
            Some(t) => self.iconst(t as i64),
            None => self.id::<mgpu::BlockDimOp>(),
        }
    }

    fn global_thread(&mut self) -> (Value, Value) {
        let tid = self.id::<mgpu::ThreadIdOp>();
        let bid = self.id::<mgpu::BlockIdOp>();
        let bdim = self.block_dim();
        let gdim = self.id::<mgpu::GridDimOp>();
        let g = self.ibin(Ix::Mul, bid, bdim);
        let g = self.ibin(Ix::Add, g, tid);
        let stride = self.ibin(Ix::Mul, gdim, bdim);
        (g, stride)
    }

    /// The shape of a pointwise nest with partial accumulations (the fusion pass's
    /// `{kind = "pointwise", split = S}` nests): a flat body, every dim from 0 step 1, and
    /// every `accumulate` of the form `W[flat(ivs[..k]) div S, ivs[k], ..., ivs[n-1]]` with
    /// the same `k >= 1`, `flat` the row-major flattening over the nest's bounds, and `W` a
    /// buffer the nest only accumulates into, with one kind per buffer. Returns `k` and the
    /// workspaces with their kinds.
    fn partial_plan(&self, op: OpId) -> Option<PartialPlan> {
        let ctx = &*self.ctx;
        let split = self.kernel_split(op).filter(|s| *s > 0)?;
        let parts = loop_parts(ctx, op, false).ok()?;
        let n = parts.ivs.len();
        if !self.flat_body(op)
            || !parts.lbs.iter().all(|v| const_int(ctx, *v) == Some(0))
            || !parts.steps.iter().all(|v| const_int(ctx, *v) == Some(1))
        {
            return None;
        }
        let mut k = None;
        let mut ws: Vec<(Value, String)> = Vec::new();
        for o in ctx.block_ops(parts.body) {
            if !ctx.isa::<mloop::AccumulateOp>(o) {
                continue;
            }
            let ops = ctx.operands(o);
            let d = ctx.dyn_cast::<mloop::DivOp>(ctx.defining_op(*ops.get(2)?)?)?;
            if const_int(ctx, d.rhs(ctx)) != Some(split) {
                return None;
            }
            let kk = flat_prefix_len(ctx, d.lhs(ctx), &parts.ivs, &parts.ubs, &mut Vec::new())?;
            if *k.get_or_insert(kk) != kk || ops.len() != 3 + n - kk || ops[3..] != parts.ivs[kk..] {
                return None;
            }
            let kind = kind_name(ctx, o)?;
            combiner(&kind)?;
            match ws.iter().find(|(w, _)| *w == ops[1]) {
                Some((_, kd)) if *kd != kind => return None,
                Some(_) => {}
                None => ws.push((ops[1], kind)),
            }
        }
        // The workspaces are only accumulated into.
        for o in ctx.block_ops(parts.body) {
            let buf = match LoopOp::of(ctx, o) {
                LoopOp::Load(l) => l.buffer(ctx),
                LoopOp::Store(s) => s.buffer(ctx),
                _ => continue,
            };
            if ws.iter().any(|(w, _)| *w == buf) {
                return None;
            }
        }
        Some(PartialPlan { k: k?, ws })
    }

    /// [`Mapping::PartialPointwise`]: a thread per (split `s`, kept point `c`), `c`
    /// fastest. The thread runs the body over the split's rows `[s*S, min(R, s*S + S))` in
    /// order, in blocks of [`PARTIAL_BLOCK`] rows each summed into a fresh register partial
    /// (the f32 error stays bounded for any `S`), and adds its partials to `W[s, c]`, which
    /// no other thread writes.
    fn partial_pointwise(&mut self, op: OpId) -> R<()> {
        if let Some(fp) = flat_partials::flat_partials_plan(self.ctx, self.names, self.opts, op) {
            return self.flat_partials(op, fp);
        }
        let plan = self.partial_plan(op).expect("classified");
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let split = self.kernel_split(op).expect("checked");
        let (k, n) = (plan.k, parts.ivs.len());
        let rows_hint: Option<u64> = parts.ubs[..k].iter().map(|u| self.size_of(*u)).product();
        let cols_hint: Option<u64> = parts.ubs[k..].iter().map(|u| self.size_of(*u)).product();
        let shape = self.nest_shape(rows_hint, cols_hint);
        let s = self.set_schedule(Mapping::PartialPointwise, &shape);
        let covered = if plan.k == 1 { self.fresh_partials(&parts, &plan.ws, split) } else { HashSet::new() };
        self.partial_pointwise_loop(&parts, &plan, split, &covered)?;
        // Host: the grid from ceildiv(rows, S) x cols.
        let ib = Ib { before: self.nest };
        let mut rows_h = ib.index(self.ctx, 1);
        let mut cols_h = ib.index(self.ctx, 1);
        for d in 0..n {
            let e = ib.extent(self.ctx, parts.lbs[d], parts.ubs[d], parts.steps[d]);
            if d < k {
                rows_h = ib.mul(self.ctx, rows_h, e);
            } else {
                cols_h = ib.mul(self.ctx, cols_h, e);
            }
        }
        let sh = ib.index(self.ctx, split);
        let nsplit_h = ib.ceildiv(self.ctx, rows_h, sh);
        let work_h = ib.mul(self.ctx, nsplit_h, cols_h);
        let blocks = self.host_grid(work_h, s.threads as u64, s.max_grid);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    /// Emits `body` once with its `accumulate`s into the thread's register partials `cur`
    /// (`index`: workspace -> partial) instead of memory; returns the updated partials.
    fn emit_block_into_partials(
        &mut self,
        body: BlockId,
        index: &HashMap<Value, usize>,
        cur: &[Value],
    ) -> R<Vec<Value>> {
        self.partial_accs = Some((index.clone(), cur.to_vec()));
        let res = self.emit_block(body);
        let (_, out) = self.partial_accs.take().expect("set above");
        res?;
        Ok(out)
    }

    /// The workspaces of a 2-D partial pointwise nest (`(i, j)` from 0 step 1, partials
    /// `W[i div S, j]`) whose only initialization is an identity fill (`fresh`) and whose shape
    /// is exactly `[ceil(M / S), N]`: a kernel that writes each of their elements once stores
    /// instead of adding, and their fills are dropped (recorded in `fresh_used`).
    fn fresh_partials(&mut self, parts: &LoopParts, ws: &[(Value, String)], split: i64) -> HashSet<Value> {
        let ctx = &*self.ctx;
        let unit = |k: usize| const_int(ctx, parts.lbs[k]) == Some(0) && const_int(ctx, parts.steps[k]) == Some(1);
        if parts.ivs.len() != 2 || split < 1 || !unit(0) || !unit(1) {
            return HashSet::new();
        }
        let ws: Vec<Value> = ws.iter().map(|(w, _)| *w).collect();
        self.take_fresh(&ws, parts.ubs[0], SplitBy::Rows(split), parts.ubs[1])
    }

    /// The workspaces of `ws` whose only initialization is an identity fill (`fresh`) and whose
    /// shape is exactly `[ceil(rows / split), cols]` ([`Self::ws_covers`]), recorded in
    /// `fresh_used` (their fills are dropped): the caller's kernel stores each of their
    /// elements once instead of adding into it.
    fn take_fresh(&mut self, ws: &[Value], rows: Value, split: SplitBy, cols: Value) -> HashSet<Value> {
        let covered: HashSet<Value> =
            ws.iter().copied().filter(|w| self.fresh.contains(w) && self.ws_covers(*w, rows, split, cols)).collect();
        self.fresh_used.extend(covered.iter().copied());
        covered
    }

    /// The grid-stride loop of [`Self::partial_pointwise`]'s scalar form: a thread per (split,
    /// kept point), every thread of the launch, over the split's rows; it adds its partials to
    /// `W[s, c]` (or stores them, for a workspace in `covered`: each element is one thread's).
    fn partial_pointwise_loop(
        &mut self,
        parts: &LoopParts,
        plan: &PartialPlan,
        split: i64,
        covered: &HashSet<Value>,
    ) -> R<()> {
        let (k, n) = (plan.k, parts.ivs.len());
        let (ext, _) = self.extents(parts)?;
        let one = self.iconst(1);
        let mut rows = one;
        for &e in &ext[..k] {
            rows = self.ibin(Ix::Mul, rows, e);
        }
        let mut cols = one;
        for &e in &ext[k..] {
            cols = self.ibin(Ix::Mul, cols, e);
        }
        let sc = self.iconst(split);
        let sm1 = self.iconst(split - 1);
        let nsplit = self.ibin(Ix::Add, rows, sm1);
        let nsplit = self.ibin(Ix::Div, nsplit, sc);
        let work = self.ibin(Ix::Mul, nsplit, cols);
        let block = self.iconst(PARTIAL_BLOCK);
        let index: HashMap<Value, usize> = plan.ws.iter().enumerate().map(|(p, (w, _))| (*w, p)).collect();
        let kinds: Vec<String> = plan.ws.iter().map(|(_, kd)| kd.clone()).collect();
        let mut ids = Vec::new();
        for (w, kd) in &plan.ws {
            let ty = self.ctx.element_type(self.ctx.value_type(*w));
            ids.push(self.fconst(identity(kd), ty));
        }
        let body = parts.body;
        let (g, stride) = self.global_thread();
        self.for_loop(g, work, stride, &[], &mut |kb, e, _| {
            let sidx = kb.ibin(Ix::Div, e, cols);
            let c = kb.ibin(Ix::Rem, e, cols);
            kb.bind_flat_dims(parts, &ext, k, n, c)?;
            let r0 = kb.ibin(Ix::Mul, sidx, sc);
            let r1 = kb.ibin(Ix::Add, r0, sc);
            let r1 = kb.ibin(Ix::Min, r1, rows);
            let accs = kb.for_loop(r0, r1, block, &ids, &mut |kb, b0, accs| {
                let b1 = kb.ibin(Ix::Add, b0, block);
                let b1 = kb.ibin(Ix::Min, b1, r1);
                let one = kb.iconst(1);
                // PARTIAL_UNROLL rows per step, their ops interleaved (each op for every
                // row, then the next op), so the loads of all of them are in flight at once;
                // the accumulates keep row order. The rest of the block one row at a time.
                let u = kb.iconst(PARTIAL_UNROLL);
                let len = kb.ibin(Ix::Sub, b1, b0);
                let full = kb.ibin(Ix::Div, len, u);
                let full = kb.ibin(Ix::Mul, full, u);
                let mid = kb.ibin(Ix::Add, b0, full);
                let part = kb.for_loop(b0, mid, u, &ids, &mut |kb, r, cur| {
                    // Values from outside the body first, so every row's map shares them
                    // (one kernel parameter per buffer, not one per row).
                    let ops: Vec<OpId> = kb.ctx.block_ops(body).collect();
                    let inside: HashSet<Value> = ops
                        .iter()
                        .flat_map(|&o| kb.ctx.results(o).to_vec())
                        .chain(parts.ivs[..k].iter().copied())
                        .collect();
                    for &o in &ops {
                        for v in kb.ctx.operands(o).to_vec() {
                            if !inside.contains(&v) {
                                kb.get(v)?;
                            }
                        }
                    }
                    let base = kb.map.clone();
                    let mut maps = Vec::new();
                    for q in 0..PARTIAL_UNROLL {
                        let qc = kb.iconst(q);
                        let rq = kb.ibin(Ix::Add, r, qc);
                        kb.map = base.clone();
                        kb.bind_flat_dims(parts, &ext, 0, k, rq)?;
                        maps.push(std::mem::take(&mut kb.map));
                    }
                    kb.partial_accs = Some((index.clone(), cur.to_vec()));
                    let mut res = Ok(());
                    for op in kb.ctx.block_ops(body).collect::<Vec<_>>() {
                        if kb.ctx.isa::<mloop::YieldOp>(op) || res.is_err() {
                            continue;
                        }
                        for m in maps.iter_mut() {
                            std::mem::swap(&mut kb.map, m);
                            res = kb.emit_op(op);
                            std::mem::swap(&mut kb.map, m);
                            if res.is_err() {
                                break;
                            }
                        }
                    }
                    kb.map = base;
                    let (_, out) = kb.partial_accs.take().expect("set above");
                    res?;
                    Ok(out)
                })?;
                let part = kb.for_loop(mid, b1, one, &part, &mut |kb, r, cur| {
                    kb.bind_flat_dims(parts, &ext, 0, k, r)?;
                    kb.emit_block_into_partials(body, &index, cur)
                })?;
                let mut next = Vec::new();
                for (p, kd) in kinds.iter().enumerate() {
                    next.push(kb.combine(kd, accs[p], part[p])?);
                }
                Ok(next)
            })?;
            for (p, (w, kd)) in plan.ws.iter().enumerate() {
                let mut idx = vec![sidx];
                for iv in &parts.ivs[k..] {
                    idx.push(kb.map[iv]);
                }
                let wp = kb.get(*w)?;
                let off = kb.offset(*w, &idx);
                kb.combine_into(kd, wp, off, accs[p], covered.contains(w))?;
            }
            Ok(vec![])
        })?;
        Ok(())
    }

    fn thread_per_point(&mut self, op: OpId) -> R<()> {
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let rows = parts.ubs.first().and_then(|u| self.size_of(*u));
        let total_hint: Option<u64> = parts.ubs.iter().map(|u| self.size_of(*u)).product();
        let shape = self.nest_shape(rows, total_hint);
        let plan = self.vec_plan(op, false);
        let s = self.set_schedule_with(Mapping::ThreadPerPoint, &shape, &mut |s, ir| vector_choice(&plan, s, ir));
        if let (Ok(plan), v @ 2..) = (&plan, s.vector as usize) {
            if plan.flat {
                self.thread_per_point_flat(&parts, v)?;
            } else {
                self.thread_per_point_vec(&parts, plan, v)?;
            }
            let work = self.host_total(&parts);
            let blocks = self.host_grid(work, s.threads as u64 * v as u64, s.max_grid);
            let zero = self.host_index(0);
            self.launch = Some((blocks, zero));
            return Ok(());
        }
        let (ext, total) = self.extents(&parts)?;
        let n = parts.ivs.len();
        if n >= 2 {
            // (outer point, column) kept by additions: no division by the row length a step.
            let mut outer = self.iconst(1);
            for &e in &ext[..n - 1] {
                outer = self.ibin(Ix::Mul, outer, e);
            }
            self.strided_divmod(outer, ext[n - 1], &mut |kb, q, r| {
                kb.bind_flat_dims(&parts, &ext, 0, n - 1, q)?;
                kb.bind_flat_dims(&parts, &ext, n - 1, n, r)?;
                kb.emit_block(parts.body).map(|_| ())
            })?;
        } else {
            let (g, stride) = self.global_thread();
            self.for_loop(g, total, stride, &[], &mut |kb, e, _| {
                kb.bind_flat(&parts, &ext, e)?;
                kb.emit_block(parts.body)?;
                Ok(vec![])
            })?;
        }
        let work = self.host_total(&parts);
        let blocks = self.host_grid(work, s.threads as u64, s.max_grid);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    /// Thread index within its row, and the row's thread count, for `threads_per_row`.
    fn row_threads(&mut self, s: &Schedule) -> (Value, Value) {
        if s.threads_per_row == 32 {
            let lane = self.id::<mgpu::LaneIdOp>();
            (lane, self.iconst(32))
        } else if s.threads_per_row < 32 {
            // A group of lanes per row: the lane's place in its group.
            let lane = self.id::<mgpu::LaneIdOp>();
            let n = self.iconst(s.threads_per_row as i64);
            (self.ibin(Ix::Rem, lane, n), n)
        } else if s.cluster > 1 {
            // A cluster per row: the thread's place in the cluster's threads.
            let tid = self.id::<mgpu::ThreadIdOp>();
            let bdim = self.block_dim();
            let rank = self.cluster_rank(s.cluster);
            let r = self.ibin(Ix::Mul, rank, bdim);
            let c = self.iconst(s.cluster as i64);
            (self.ibin(Ix::Add, r, tid), self.ibin(Ix::Mul, bdim, c))
        } else {
            let tid = self.id::<mgpu::ThreadIdOp>();
            let bdim = self.block_dim();
            (tid, bdim)
        }
    }

    /// The CTA's rank in its cluster of `c` CTAs (one-dimensional clusters: `block_id % c`).
    fn cluster_rank(&mut self, c: u32) -> Value {
        let b = self.id::<mgpu::BlockIdOp>();
        let c = self.iconst(c as i64);
        self.ibin(Ix::Rem, b, c)
    }

    /// CTAs per row of the schedule being lowered (1: no cluster).
    fn cluster(&self) -> u32 {
        self.schedule.as_ref().map_or(1, |s| s.cluster.max(1))
    }

    /// Emits the body of a row (ops of `body` in order; `reduce`s strided over the row's
    /// threads and combined; stores guarded to the row's first thread; an inner parallel
    /// strided over the row's threads).
    fn emit_row(&mut self, body: BlockId, t: Value, tpr: Value, warp: bool) -> R<()> {
        self.with_block_sites(body, warp, |kb| kb.emit_row_ops(body, t, tpr, warp))
    }

    fn emit_row_ops(&mut self, body: BlockId, t: Value, tpr: Value, warp: bool) -> R<()> {
        let ops: Vec<OpId> = self.ctx.block_ops(body).collect();
        let zero = self.iconst(0);
        let first = self.icmp("eq", t, zero);
        for o in ops {
            match LoopOp::of(self.ctx, o) {
                LoopOp::Yield => {}
                LoopOp::Reduce(_) => {
                    let parts = loop_parts(self.ctx, o, true).map_err(|e| op_error(self.ctx, o, e))?;
                    let kind = kind_name(self.ctx, o).unwrap_or_default();
                    let init = self.get(parts.init.expect("reduce"))?;
                    let ty = self.ctx.value_type(init);
                    let id = self.fconst(identity(&kind), ty);
                    let (ext, total) = self.extents(&parts)?;
                    let looped = self.looped_plan_noted(&parts, o);
                    let part = if let Some(plan) = looped {
                        self.looped_reduce(&parts, &plan, &kind, ty, t, tpr, ext[0], self.blocked_rows)?
                    } else if self.blocked_rows {
                        self.blocked_reduce(&kind, ty, t, total, tpr, &mut |kb, e| {
                            kb.bind_flat(&parts, &ext, e)?;
                            let saved = kb.row_guard.take();
                            let ys = kb.emit_block(parts.body);
                            kb.row_guard = saved;
                            Ok(ys?[0])
                        })?
                    } else {
                        self.for_loop(t, total, tpr, &[id], &mut |kb, e, acc| {
                            kb.bind_flat(&parts, &ext, e)?;
                            let saved = kb.row_guard.take();
                            let ys = kb.emit_block(parts.body);
                            kb.row_guard = saved;
                            let ys = ys?;
                            Ok(vec![kb.combine(&kind, acc[0], ys[0])?])
                        })?[0]
                    };
                    let red = if warp { self.row_warp_reduce(&kind, part) } else { self.block_reduce(&kind, part)? };
                    let r = self.combine(&kind, init, red)?;
                    self.map.insert(self.ctx.result(o, 0), r);
                }
                LoopOp::Parallel => {
                    let parts = loop_parts(self.ctx, o, false).map_err(|e| op_error(self.ctx, o, e))?;
                    let (ext, total) = self.extents(&parts)?;
                    if let Some(plan) = self.looped_plan_noted(&parts, o) {
                        self.looped_parallel(&parts, &plan, t, tpr, ext[0])?;
                        continue;
                    }
                    self.for_loop(t, total, tpr, &[], &mut |kb, e, _| {
                        kb.bind_flat(&parts, &ext, e)?;
                        if let Some(sp) = kb.shared_partials.as_mut() {
                            sp.col = Some((parts.ivs[0], e));
                        }
                        let saved = kb.row_guard.take();
                        let r = kb.emit_block(parts.body);
                        kb.row_guard = saved;
                        r?;
                        Ok(vec![])
                    })?;
                }
                _ => self.emit_op_row_guarded(o, first)?,
            }
        }
        Ok(())
    }

    fn warp_reduce(&mut self, kind: &str, v: Value) -> Value {
        let ty = self.ctx.value_type(v);
        let k = self.ctx.str_attr(kind);
        self.push1(mgpu::WarpReduceOp::state(self.loc, v, ty, k))
    }

    /// A row's reduction where the row is held within a warp: over the whole warp, or over
    /// each group of the schedule's `threads_per_row` lanes (`{width}`) where a warp holds
    /// several rows.
    fn row_warp_reduce(&mut self, kind: &str, v: Value) -> Value {
        let r = self.warp_reduce(kind, v);
        let lanes = self.schedule.as_ref().map_or(32, |s| s.threads_per_row);
        if lanes < 32 {
            let w = self.ctx.i64_attr(lanes as i64);
            let op = self.ctx.defining_op(r).expect("a result");
            self.ctx.set_attr(op, "width", w);
        }
        r
    }

    /// Block reduction: warps reduce, lane 0 of each writes shared memory, a barrier, every
    /// thread combines the warps' values in warp order (deterministic).
    fn block_reduce(&mut self, kind: &str, v: Value) -> R<Value> {
        Ok(self.block_reduce_many(&[kind.to_string()], &[v])?[0])
    }

    /// Block reductions of several values of one type at once (`kinds[k]` of `vals[k]`):
    /// each value's warp reduction, lane 0 of each warp stores them all, one barrier, and
    /// every thread combines each value's warp totals in warp order (deterministic; each
    /// value's result is what [`Self::block_reduce`] of it alone gives).
    ///
    /// Slots: inside the fast row loop of a CTA per row (`slot_parity`), consecutive
    /// reductions use the two halves of the slots in turn, and a reduction is one barrier: a
    /// thread stores into a half only after the barrier of the reduction in between, which
    /// every thread reaches after reading that half. Elsewhere a second barrier after the
    /// reads keeps the next reduction from overwriting the slots while a slow warp still
    /// reads them; in a row body with two or more reductions ([`Self::with_block_sites`])
    /// each reduction has slots of its own instead, and needs no second barrier: before a
    /// reduction writes its slots again (in the next row), every thread has passed the
    /// barrier of another reduction, which it reaches only after its reads.
    fn block_reduce_many(&mut self, kinds: &[String], vals: &[Value]) -> R<Vec<Value>> {
        let ty = self.ctx.value_type(vals[0]);
        let n = vals.len();
        let parity = self.slot_parity;
        let own = self.own_block_slots && parity.is_none();
        let key = (ty, n, parity.is_some());
        let smem = match self.block_smem.get(&key).filter(|_| !own) {
            Some(&s) => s,
            None => {
                let pt = ptr_type(self.ctx, ty, true);
                let halves = if parity.is_some() { 2 } else { 1 };
                let size = self.ctx.i64_attr(32 * n as i64 * halves);
                let op = self.prologue(mgpu::SharedAllocOp::state(self.loc, pt, size));
                let s = self.ctx.result(op, 0);
                // Slots of its own are this reduction's alone; shared ones serve every
                // reduction of the type and width.
                if !own {
                    self.block_smem.insert(key, s);
                }
                s
            }
        };
        let ws: Vec<Value> = vals.iter().zip(kinds).map(|(&v, k)| self.warp_reduce(k, v)).collect();
        let lane = self.id::<mgpu::LaneIdOp>();
        let warp = self.id::<mgpu::WarpIdOp>();
        let zero = self.iconst(0);
        let c32 = self.iconst(32);
        // Value k's 32 slots start at `(half * n + k) * 32`.
        let base = match parity {
            Some(p) => {
                let nn = self.iconst(32 * n as i64);
                Some(self.ibin(Ix::Mul, p, nn))
            }
            None => None,
        };
        let slot_of = |kb: &mut Self, k: usize, at: Value| -> Value {
            let mut i = at;
            if k > 0 {
                let off = kb.iconst(32 * k as i64);
                i = kb.ibin(Ix::Add, i, off);
            }
            match base {
                Some(b) => kb.ibin(Ix::Add, b, i),
                None => i,
            }
        };
        let is0 = self.icmp("eq", lane, zero);
        self.if_then(is0, &mut |kb| {
            for (k, &w) in ws.iter().enumerate() {
                let at = slot_of(kb, k, warp);
                kb.push(mgpu::StoreOp::state(kb.loc, w, smem, at));
            }
            Ok(())
        })?;
        self.push(mgpu::BarrierOp::state(self.loc));
        let bdim = self.block_dim();
        let c31 = self.iconst(31);
        let nw = self.ibin(Ix::Add, bdim, c31);
        let nw = self.ibin(Ix::Div, nw, c32);
        let one = self.iconst(1);
        let ids: Vec<Value> = kinds.iter().map(|k| self.fconst(identity(k), ty)).collect();
        let kinds = kinds.to_vec();
        let tots = self.for_loop(zero, nw, one, &ids, &mut |kb, w, acc| {
            let mut out = Vec::new();
            for (k, kind) in kinds.iter().enumerate() {
                let at = slot_of(kb, k, w);
                let x = kb.push1(mgpu::LoadOp::state(kb.loc, smem, at, ty, None, None));
                out.push(kb.combine(kind, acc[k], x)?);
            }
            Ok(out)
        })?;
        if !own && parity.is_none() {
            self.push(mgpu::BarrierOp::state(self.loc));
        }
        let tots = match self.cluster() {
            1 => tots,
            c => self.cluster_reduce_many(&kinds, &tots, c)?,
        };
        if let Some(p) = parity {
            let one = self.iconst(1);
            self.slot_parity = Some(self.ibin(Ix::Sub, one, p));
        }
        Ok(tots)
    }

    /// Combines the CTA totals `tots` (one per value, `kinds[k]` of `tots[k]`) of a row held
    /// by a cluster of `c` CTAs: threads `0..c` of each CTA store its totals into slot `rank`
    /// of CTA `tid` (distributed shared memory), and after the cluster barrier every thread
    /// combines each value's slots in rank order (deterministic, and the same in every CTA).
    ///
    /// Outside a fast row loop, the barrier's phases alternate arrivals and waits per
    /// thread: the kernel arrives once in its prologue; each reduction waits (every CTA has
    /// read the slots of the one before), stores, arrives (releasing the stores), waits
    /// (acquiring the others'), reads, and arrives without waiting; `finish` waits once
    /// before the kernel returns, so no CTA leaves while another may still write its shared
    /// memory. Inside one (`slot_parity`, which the caller flips), consecutive reductions use
    /// the two halves of the slots in turn, and a reduction is one barrier: store, arrive,
    /// wait, read. A CTA stores into a half only after the barrier of the reduction in
    /// between, which every CTA arrives at after reading that half, so no read is
    /// overwritten.
    fn cluster_reduce_many(&mut self, kinds: &[String], tots: &[Value], c: u32) -> R<Vec<Value>> {
        let ty = self.ctx.value_type(tots[0]);
        let n = tots.len();
        let slots = match self.cluster_smem.get(&(ty, n)) {
            Some(&s) => s,
            None => {
                let pt = ptr_type(self.ctx, ty, true);
                let size = self.ctx.i64_attr(2 * c as i64 * n as i64);
                let op = self.prologue(mgpu::SharedAllocOp::state(self.loc, pt, size));
                let s = self.ctx.result(op, 0);
                self.cluster_smem.insert((ty, n), s);
                s
            }
        };
        let rank = self.cluster_rank(c);
        let tid = self.id::<mgpu::ThreadIdOp>();
        let parity = self.slot_parity;
        // Rank r's value k sits at `(half * c + r) * n + k` (`None`: the only half, 0).
        let base = match parity {
            Some(p) => {
                let cn = self.iconst(c as i64 * n as i64);
                Some(self.ibin(Ix::Mul, p, cn))
            }
            None => {
                self.push(mgpu::ClusterWaitOp::state(self.loc));
                None
            }
        };
        let slot_of = |kb: &mut Self, r: Value, k: usize| -> Value {
            let mut i = r;
            if n > 1 {
                let nn = kb.iconst(n as i64);
                i = kb.ibin(Ix::Mul, i, nn);
            }
            if k > 0 {
                let kc = kb.iconst(k as i64);
                i = kb.ibin(Ix::Add, i, kc);
            }
            match base {
                Some(b) => kb.ibin(Ix::Add, b, i),
                None => i,
            }
        };
        let cc = self.iconst(c as i64);
        let writer = self.icmp("lt", tid, cc);
        self.if_then(writer, &mut |kb| {
            for (k, &tot) in tots.iter().enumerate() {
                let at = slot_of(kb, rank, k);
                kb.push(mgpu::ClusterStoreOp::state(kb.loc, tot, slots, at, tid));
            }
            Ok(())
        })?;
        self.push(mgpu::ClusterArriveOp::state(self.loc, None));
        self.push(mgpu::ClusterWaitOp::state(self.loc));
        let mut out = Vec::new();
        for (k, kind) in kinds.iter().enumerate() {
            let mut acc = None;
            for r in 0..c {
                let ri = self.iconst(r as i64);
                let at = slot_of(self, ri, k);
                let x = self.push1(mgpu::LoadOp::state(self.loc, slots, at, ty, None, None));
                acc = Some(match acc {
                    None => x,
                    Some(a) => self.combine(kind, a, x)?,
                });
            }
            out.push(acc.expect("a cluster of two or more CTAs"));
        }
        if parity.is_none() {
            let relaxed = self.ctx.unit_attr();
            self.push(mgpu::ClusterArriveOp::state(self.loc, Some(relaxed)));
        }
        Ok(out)
    }

    /// Runs `emit` (the emission of one row of `body`) with a block reduction's own slots
    /// per reduction where the row is a CTA's (`warp` false) and holds two or more of them.
    fn with_block_sites(&mut self, body: BlockId, warp: bool, emit: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        let sites = self.body_reduces(body).len();
        let saved = self.own_block_slots;
        self.own_block_slots = !warp && sites >= 2;
        let r = emit(self);
        self.own_block_slots = saved;
        r
    }

    fn row_reduction(&mut self, op: OpId) -> R<()> {
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        let rows: Option<u64> = parts.ubs.iter().map(|u| self.size_of(*u)).product();
        let mut cols = None;
        for o in self.ctx.block_ops(parts.body).collect::<Vec<_>>() {
            if self.ctx.isa::<mloop::ReduceOp>(o) {
                if let Ok(rp) = loop_parts(self.ctx, o, true) {
                    cols = rp.ubs.iter().map(|u| self.size_of(*u)).product();
                }
            }
        }
        let shape = self.nest_shape(rows, cols);
        let note = self.row_note.take();
        let s = self.set_schedule_with(Mapping::RowReduction, &shape, &mut |s, _| {
            if let Some(n) = &note {
                s.notes.0.push(format!("no register-resident row form (the row is loaded in a loop): {n}"));
            }
        });
        self.blocked_rows = true;
        let (ext, total) = self.extents(&parts)?;
        let (t, tpr) = self.row_threads(&s);
        let warp = s.threads_per_row == 32;
        let (start, stride) = if warp {
            let (g, stride) = self.global_thread();
            let c32 = self.iconst(32);
            (self.ibin(Ix::Div, g, c32), self.ibin(Ix::Div, stride, c32))
        } else {
            (self.id::<mgpu::BlockIdOp>(), self.id::<mgpu::GridDimOp>())
        };
        self.for_loop(start, total, stride, &[], &mut |kb, row, _| {
            kb.bind_flat(&parts, &ext, row)?;
            kb.emit_row(parts.body, t, tpr, warp)?;
            Ok(vec![])
        })?;
        let work = self.host_total(&parts);
        let blocks = self.host_grid(work, s.rows_per_cta as u64, s.max_grid);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    fn block_reduction(&mut self, op: OpId, epilogue: &[OpId]) -> R<()> {
        let parts = loop_parts(self.ctx, op, true).map_err(|e| op_error(self.ctx, op, e))?;
        let cols: Option<u64> = parts.ubs.iter().map(|u| self.size_of(*u)).product();
        let shape = self.nest_shape(Some(1), cols);
        let s = self.set_schedule(Mapping::BlockReduction, &shape);
        let kind = kind_name(self.ctx, op).unwrap_or_default();
        let init = self.get(parts.init.expect("reduce"))?;
        let ty = self.ctx.value_type(init);
        let (ext, total) = self.extents(&parts)?;
        let tid = self.id::<mgpu::ThreadIdOp>();
        let bdim = self.block_dim();
        let part = self.blocked_reduce(&kind, ty, tid, total, bdim, &mut |kb, e| {
            kb.bind_flat(&parts, &ext, e)?;
            Ok(kb.emit_block(parts.body)?[0])
        })?;
        let red = self.block_reduce(&kind, part)?;
        let r = self.combine(&kind, init, red)?;
        self.map.insert(self.ctx.result(op, 0), r);
        let zero = self.iconst(0);
        let first = self.icmp("eq", tid, zero);
        let epilogue = epilogue.to_vec();
        self.if_then(first, &mut |kb| {
            for &o in &epilogue {
                kb.emit_op(o)?;
            }
            kb.store_spills(op, &epilogue)
        })?;
        let _ = s;
        let blocks = self.host_index(1);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    /// Stores the values of `op` and its epilogue that later kernels need into their spill
    /// buffers (on the one thread that runs the epilogue).
    fn store_spills(&mut self, op: OpId, epilogue: &[OpId]) -> R<()> {
        let mut defs = vec![op];
        defs.extend_from_slice(epilogue);
        for d in defs {
            for v in self.ctx.results(d).to_vec() {
                if let Some(&buf) = self.spills.get(&v) {
                    let x = self.get(v)?;
                    let p = self.get(buf)?;
                    let zero = self.iconst(0);
                    self.push(mgpu::StoreOp::state(self.loc, x, p, zero));
                }
            }
        }
        Ok(())
    }

    fn sequential(&mut self, op: OpId, epilogue: &[OpId]) -> R<()> {
        let shape = self.nest_shape(None, None);
        self.set_schedule(Mapping::Sequential, &shape);
        let tid = self.id::<mgpu::ThreadIdOp>();
        let bid = self.id::<mgpu::BlockIdOp>();
        let t = self.ibin(Ix::Add, tid, bid);
        let zero = self.iconst(0);
        let first = self.icmp("eq", t, zero);
        let mut all = vec![op];
        all.extend_from_slice(epilogue);
        self.if_then(first, &mut |kb| {
            for &o in &all {
                kb.emit_op(o)?;
            }
            kb.store_spills(op, epilogue)
        })?;
        let blocks = self.host_index(1);
        let zero = self.host_index(0);
        self.launch = Some((blocks, zero));
        Ok(())
    }

    /// What the row-fused lowering needs of nest `op` before it chooses a schedule: its
    /// parts, the inner parallel (the row's pointwise work), the workspaces it accumulates
    /// into, the fast path's plan ([`Self::fast_plan`]), and the heuristic's view of it.
    fn row_fused_shape(&self, op: OpId) -> R<RowFusedShape> {
        let parts = loop_parts(self.ctx, op, false).map_err(|e| op_error(self.ctx, op, e))?;
        // The inner parallel (the row's pointwise work) and the workspaces.
        let mut inner = None;
        let mut cols = None;
        let mut workspaces: Vec<Value> = Vec::new();
        let mut all_f32 = true;
        for o in self.ctx.block_ops(parts.body).collect::<Vec<_>>() {
            match LoopOp::of(self.ctx, o) {
                LoopOp::Parallel => {
                    let ip = loop_parts(self.ctx, o, false).map_err(|e| op_error(self.ctx, o, e))?;
                    cols = self.size_of(ip.ubs[0]);
                    for a in self.ctx.block_ops(ip.body).collect::<Vec<_>>() {
                        if let Some(acc) = self.ctx.dyn_cast::<mloop::AccumulateOp>(a) {
                            let w = acc.buffer(self.ctx);
                            let et = self.ctx.element_type(self.ctx.value_type(w));
                            all_f32 &= self.ctx.float_kind(et).map(|k| k.name()) == Some("f32");
                            if !workspaces.contains(&w) {
                                workspaces.push(w);
                            }
                        }
                    }
                    let simple =
                        const_int(self.ctx, ip.lbs[0]) == Some(0) && const_int(self.ctx, ip.steps[0]) == Some(1);
                    all_f32 &= simple;
                    inner = Some(ip);
                }
                LoopOp::Reduce(_) if cols.is_none() => {
                    if let Ok(rp) = loop_parts(self.ctx, o, true) {
                        cols = rp.ubs.iter().map(|u| self.size_of(*u)).product();
                    }
                }
                _ => {}
            }
        }
        let mut plan = self.fast_plan(op);
        if let Some(p) = plan.as_mut() {
            p.inputs = self.fast_row_inputs(op, p);
        }
        let mut shape = self.nest_shape(self.size_of(parts.ubs[0]), cols);
        shape.row_reductions = self.body_reduces(parts.body).len() as u32;
        shape.partials = workspaces.len() as u32;
        shape.shared_ok = all_f32 && inner.is_some();
        shape.fast_bytes = plan.as_ref().map_or(0, |p| p.bytes);
        if let Some(p) = &plan {
            shape.row_inputs = p.inputs.len() as u32;
            shape.hoisted = p.hoist.len() as u32;
        }
        shape.work_per_point = self.work_per_point(parts.body);
        Ok(RowFusedShape { parts, inner, workspaces, plan, shape })
    }

    /// The report's note where a forced `min-ctas` caps a register-resident row kernel's
    /// threads under the registers its row is estimated to hold ([`fast_regs`]): ptxas then
    /// spills, and the kernel runs far slower (the nineteenth session on the H200: RMSNorm
    /// backward at 16384 x 8192 with two CTAs a SM, 112 bytes spilled, 312 us against 221;
    /// LayerNorm at 32768 x 4096 with three, 461 against 224). With a 16-bit row and
    /// `remat-converts` off, it says what holding the loads packed would need.
    fn min_ctas_note(&self, shape: &NestShape, s: &Schedule, ctas: u64) -> Option<String> {
        s.fast?;
        let t = s.threads.max(1) as u64;
        let cap = register_cap(&self.opts.device, ctas, t);
        let per_thread = s.thread_cols();
        let full = fast_regs(shape, per_thread, s);
        // `remat-converts` holds a 16-bit row's loads as packed words: half the registers.
        let packed = if shape.fast_bytes == 2 { per_thread * shape.row_inputs as u64 / 2 } else { 0 };
        let remat = self.opts.remat_converts || s.fast.is_some_and(|f| f.remat_converts);
        let est = if remat { full.saturating_sub(packed) } else { full };
        if est <= cap {
            return None;
        }
        let hint = if !remat && packed > 0 && full - packed <= cap {
            format!("; remat-converts=true would hold its loads packed (about {} registers)", full - packed)
        } else {
            String::new()
        };
        Some(format!(
            "min-ctas={ctas}: {ctas} CTA(s) of {t} threads a SM cap a thread at {cap} registers, under the ~{est} its row is estimated to hold: ptxas may spill{hint}"
        ))
    }

    /// Whether the reload form of `s` loads its hoisted `[j]` vectors coherently (`ld.global`)
    /// instead of through the read-only path. The reload form loads them once a pass instead
    /// of holding them (that is what its register plan counts), but ptxas hoists read-only
    /// loads of a row-invariant address out of the row loop and holds a copy per pass across
    /// it: rmsnorm_bwd_f32 at 4096 x 16384 (512 threads) spilled 68 bytes at the cap of 128,
    /// layernorm_bwd_f32 100, layernorm_bwd at 100000 x 32768 8; with coherent loads, which
    /// the row's stores may alias, ptxas keeps them in the loop (120, 128 and 128 registers,
    /// no spill). Not with staged rows: the loop's copies and waits keep ptxas from hoisting
    /// them already (layernorm_bwd at 4096 x 16384, three rows staged: the weight loaded in
    /// the loop, 128 registers, no spill). Only with several CTAs a SM: timed on the H200
    /// (twenty-seventh session), rmsnorm_bwd_f32 at 4096 x 16384 (three CTAs a SM) went from
    /// 222.1 to 211.8 us, but layernorm_bwd_f32 (one CTA of 512 a SM) from 236.7 to 278.9
    /// and layernorm_bwd's cluster at 8192 x 32768 (one a SM) from 700.4 to 708.8: with one
    /// CTA a SM nothing hides the loads' latency in the loop, and the spill (to L1) costs
    /// less. Says so in the report.
    fn reload_coherent_vectors(&mut self, shape: &NestShape, s: &Schedule) -> bool {
        let one_cta_a_sm = s.max_grid <= self.opts.device.sms as u64;
        if !s.fast.is_some_and(|f| f.reload) || shape.hoisted == 0 || s.staged_rows > 1 || one_cta_a_sm {
            return false;
        }
        if let Some(sched) = self.schedule.as_mut() {
            sched.notes.0.push(
                "the reload form loads its row-invariant vectors coherently (ld.global), so that ptxas keeps them in the row loop rather than holding a copy per pass across it".into(),
            );
        }
        true
    }

    /// The register cap ptxas gets for the kernel of schedule `s`: its planned CTAs per SM
    /// (`min_ctas_per_sm`, at least the cooperative form's), one CTA for a CTA over 256
    /// threads without a bound; `None` where nothing bounds it.
    fn kernel_register_cap(&self, s: &Schedule) -> Option<(u64, u64)> {
        let t = s.threads.max(1) as u64;
        let ctas = match (mgpu::FuncOp(self.kernel).min_ctas_per_sm(self.ctx), self.cooperative_ctas.filter(|c| *c > 0))
        {
            // `min-ctas=none`: no bound.
            (Some(0), _) => return None,
            (Some(p), c) => (p as u64).max(c.unwrap_or(1)),
            (None, Some(c)) => c,
            (None, None) if t > 256 => 1,
            (None, None) => return None,
        };
        Some((ctas, register_cap(&self.opts.device, ctas, t)))
    }

    /// Whether a register-resident row kernel holding its row (not the reload form) should
    /// relieve its registers with early accumulates ([`Self::early_accumulates`]: the same
    /// results, shorter live ranges): where the cap of its planned CTAs sits within a quarter
    /// of its estimate, the most the estimate runs under ptxas' count (rmsnorm_bwd_f32 at
    /// 32768 x 768, two CTAs of 256: 126 estimated, 40 bytes spilled under the cap of 128;
    /// with early accumulates 126 registers, no spill). Only f32 rows: a bf16 row is held
    /// packed, two columns a register, which the estimate does not count (RMSNorm at
    /// 576000 x 384 sits at 126 of 128 too and does not spill). The report says so where the
    /// body has an accumulate that needs no row reduction's result.
    fn tight_registers(&mut self, shape: &NestShape, s: &Schedule) -> bool {
        if self.opts.early_accumulates || s.fast.is_none_or(|f| f.reload) || shape.fast_bytes < 4 {
            return false;
        }
        let Some((ctas, cap)) = self.kernel_register_cap(s) else { return false };
        let est = fast_regs(shape, s.thread_cols(), s);
        if cap >= 255 || cap >= est + est / 4 {
            return false;
        }
        self.early_note = Some(format!(
                "early accumulates: the cap of {cap} registers ({ctas} CTA(s) of {} a SM) sits within a quarter of the ~{est} estimated, so the column partials that need no row reduction are taken before the first",
                s.threads
            ));
        true
    }

    fn row_fused(&mut self, op: OpId) -> R<()> {
        let RowFusedShape { parts, inner, workspaces, plan, shape } = self.row_fused_shape(op)?;
        // Rows per split; a row kernel without partials takes one row per warp slot.
        let split = self.kernel_split(op).filter(|s| *s > 0).map(|s| s as u64);
        let promoted = self.promoted_row;
        if promoted {
            // A plain row reduction in the row kernel's form: its looped form (a run-time N
            // other than the hint) sums each lane's terms in blocks, as RowReduction does.
            self.blocked_rows = true;
        }
        let ctx = &*self.ctx;
        let pointwise =
            ctx.walk_collect(op).iter().all(|&o| !ctx.isa::<mloop::ReduceOp>(o) && !ctx.isa::<mloop::AccumulateOp>(o));
        let s = self.set_schedule_with(Mapping::RowFused, &shape, &mut |s, _| {
            if promoted {
                s.notes.0.insert(0, "a plain row reduction, lowered as a row kernel (no partials)".into());
            } else if pointwise {
                s.notes.0.insert(
                    0,
                    "a pointwise nest over short rows that its thread-per-point vectors would not fill, lowered as a row kernel".into(),
                );
            }
        });
        let margin = self.opts.min_ctas == MinCtas::Margin;
        let planned = |c| planned_ctas_per_sm_with(&self.opts.device, &shape, &s, c, margin);
        if let Some(ctas) = self.opts.min_ctas.apply(planned(false)) {
            // ptxas is told the CTAs per SM the schedule planned, so that it neither caps the
            // registers lower and spills nor takes more and loses a CTA.
            set_min_ctas(self.ctx, self.kernel, ctas, self.opts.min_ctas.plans());
            if let (MinCtas::Fixed(_), Some(note)) = (self.opts.min_ctas, self.min_ctas_note(&shape, &s, ctas)) {
                if let Some(sched) = self.schedule.as_mut() {
                    sched.notes.0.push(note);
                }
            }
        }
        if s.fast.is_some_and(|f| f.remat_converts) {
            let unit = self.ctx.unit_attr();
            self.ctx.set_attr(self.kernel, REMAT_CONVERTS_MARK, unit);
        }
        // The bound it takes if a final reduction joins it behind a grid barrier.
        self.cooperative_ctas = self.opts.min_ctas.apply(planned(true));
        self.coherent_vectors = self.reload_coherent_vectors(&shape, &s);
        self.early_relief = self.tight_registers(&shape, &s);
        // A split sized at run time (`partials = K`): the host value the accumulates divide by.
        let split = match (split, self.split_divisor(op)) {
            (None, Some(v)) if kernel_balanced(self.ctx, op) => SplitBy::Value(v),
            (split, _) => SplitBy::Rows(split.unwrap_or(s.rows_per_cta as u64) as i64),
        };
        if let SplitBy::Value(v) = split {
            self.resident = resident_programs_of(self.ctx, v);
        }
        let bench = self.ctx.unit_attr();
        self.ctx.set_attr(self.kernel, "morf.bench", bench);
        if s.cluster > 1 {
            // A cluster per row: launched in clusters, and every thread arrives once before
            // the first row reduction's wait ([`Self::cluster_reduce`]).
            let c = self.ctx.i64_attr(s.cluster as i64);
            self.ctx.set_attr(self.kernel, "cluster", c);
            let relaxed = self.ctx.unit_attr();
            self.prologue(mgpu::ClusterArriveOp::state(self.loc, Some(relaxed)));
        }

        let m = self.get(parts.ubs[0])?;
        let one = self.iconst(1);
        let zero = self.iconst(0);
        let (sc, nsplit) = match split {
            SplitBy::Rows(n) => {
                let (sc, sm1) = (self.iconst(n), self.iconst(n - 1));
                let nsplit = self.ibin(Ix::Add, m, sm1);
                (sc, self.ibin(Ix::Div, nsplit, sc))
            }
            SplitBy::Value(v) => {
                // The host divides (ceil(M / S) splits) and passes the count: no 64-bit
                // division in the kernel (see `prebound`).
                let nsplit_h = Ib { before: self.nest }.ceildiv(self.ctx, parts.ubs[0], v);
                (self.get(v)?, self.get(nsplit_h)?)
            }
        };
        let (t, tpr) = self.row_threads(&s);
        // A row within a warp: a warp per row, or a group of lanes per row (several rows a warp).
        let warp = s.threads_per_row <= 32;
        let slots = self.iconst(s.rows_per_cta as i64);
        let slot = if s.threads_per_row == 32 {
            self.id::<mgpu::WarpIdOp>()
        } else if warp {
            let tid = self.id::<mgpu::ThreadIdOp>();
            let n = self.iconst(s.threads_per_row as i64);
            self.ibin(Ix::Div, tid, n)
        } else {
            zero
        };
        let tid = self.id::<mgpu::ThreadIdOp>();
        let bdim = self.block_dim();
        let shared = s.partials == PartialStore::Shared;
        let mut n_kernel = zero;
        if shared {
            let ip = inner.as_ref().expect("shared partials need an inner parallel");
            let f32t = self.ctx.f32_type();
            let pt = ptr_type(self.ctx, f32t, true);
            let smem = {
                let op = self.prologue(mgpu::DynamicSharedOp::state(self.loc, pt));
                self.ctx.result(op, 0)
            };
            n_kernel = self.get(ip.ubs[0])?;
            let index = workspaces.iter().enumerate().map(|(k, w)| (*w, k)).collect();
            self.shared_partials = Some(SharedPartials { smem, index, slots, slot, n: n_kernel, col: None });
        }
        let (mut bid, mut gdim) = (self.id::<mgpu::BlockIdOp>(), self.id::<mgpu::GridDimOp>());
        if s.cluster > 1 {
            // Splits go to clusters: the cluster's index and count.
            let c = self.iconst(s.cluster as i64);
            bid = self.ibin(Ix::Div, bid, c);
            gdim = self.ibin(Ix::Div, gdim, c);
        }
        let kinds: Vec<String> = workspaces
            .iter()
            .map(|w| {
                // The kind of the first accumulate into w.
                let ctx = &*self.ctx;
                ctx.walk_collect(op)
                    .into_iter()
                    .find(|&a| ctx.dyn_cast::<mloop::AccumulateOp>(a).is_some_and(|acc| acc.buffer(ctx) == *w))
                    .and_then(|a| kind_name(ctx, a))
                    .unwrap_or_default()
            })
            .collect();
        let iv = parts.ivs[0];
        let body = parts.body;
        let nw = workspaces.clone();
        // Shared partials store each (split, column) once: a workspace that only an identity
        // fill initializes, and whose shape is exactly [ceil(M / S), N], needs no fill.
        // Only kernels with the register-resident path (N known): ptxas answered the store
        // in the looped form alone (reduce3d without size hints) with a 32-register target
        // and a spill.
        // A CTA per row's register partials (flushed once a split, each column by the one
        // thread that owns it) likewise store W[s, :] once: no fill, no read of it.
        let cta_global = !shared && inner.is_some() && s.threads_per_row > 32 && s.rows_per_cta == 1 && s.cluster <= 1;
        let mut covered = HashSet::new();
        if (shared || cta_global) && plan.is_some() && s.fast.is_some() {
            let ip = inner.as_ref().expect("inner");
            covered = self.take_fresh(&workspaces, parts.ubs[0], split, ip.ubs[0]);
        }
        let geo = SplitGeometry { covered, m, sc, nsplit, slot, slots, bid, gdim, tid, bdim, n_kernel, one, zero };
        // The looped form is the kernel's only form (no register-resident form in front of it):
        // its rows may take vector steps ([`Self::looped_plan_noted`]).
        let looped_only = s.fast.is_none() && !self.opts.no_looped_vectors;
        let mut slow = |kb: &mut Self| -> R<()> {
            kb.for_loop(bid, nsplit, gdim, &[], &mut |kb, sidx, _| {
                let f32t = kb.ctx.f32_type();
                if let Some(sp) = kb.shared_partials.as_ref() {
                    // Zero this warp's partial rows.
                    let (smem, slot) = (sp.smem, sp.slot);
                    for (p, kind) in kinds.iter().enumerate() {
                        let id = kb.fconst(identity(kind), f32t);
                        let pc = kb.iconst(p as i64);
                        let base = kb.ibin(Ix::Mul, pc, slots);
                        let base = kb.ibin(Ix::Add, base, slot);
                        let base = kb.ibin(Ix::Mul, base, n_kernel);
                        kb.fill_strided(id, smem, base, t, n_kernel, tpr)?;
                    }
                    if looped_only {
                        // The looped form's vector steps accumulate a lane's `v` consecutive
                        // columns, and its scalar tail starts past them: not the columns the
                        // lane filled. A barrier orders the fill before them (compute-sanitizer's
                        // racecheck found the hazard at N = 1000, twenty-seventh session).
                        kb.push(mgpu::BarrierOp::state(kb.loc));
                    }
                }
                if cta_global && !geo.covered.is_empty() {
                    // The slow form accumulates into W[s, :] in place: the identity first, in
                    // the covered workspaces whose fill the fast form made unneeded.
                    let ip = inner.as_ref().expect("inner");
                    let ncols = kb.get(ip.ubs[0])?;
                    for (p, kind) in kinds.iter().enumerate() {
                        if !geo.covered.contains(&nw[p]) {
                            continue;
                        }
                        let et = kb.ctx.element_type(kb.ctx.value_type(nw[p]));
                        let id = kb.fconst(identity(kind), et);
                        let wp = kb.get(nw[p])?;
                        let base = kb.ibin(Ix::Mul, sidx, ncols);
                        kb.fill_strided(id, wp, base, tid, ncols, bdim)?;
                    }
                    kb.push(mgpu::BarrierOp::state(kb.loc));
                }
                let row0 = kb.ibin(Ix::Mul, sidx, sc);
                let rend = kb.ibin(Ix::Add, row0, sc);
                let rend = kb.ibin(Ix::Min, rend, m);
                let start = kb.ibin(Ix::Add, row0, slot);
                kb.for_loop(start, rend, slots, &[], &mut |kb, i, _| {
                    kb.map.insert(iv, i);
                    // `i div S` of the body's accumulates is this split's index.
                    let divs = match split {
                        SplitBy::Value(v) => row_split_divs(kb.ctx, op, iv, v),
                        SplitBy::Rows(_) => Vec::new(),
                    };
                    for &d in &divs {
                        kb.map.insert(kb.ctx.result(d, 0), sidx);
                        kb.prebound.insert(d);
                    }
                    let r = kb.emit_row(body, t, tpr, warp);
                    for d in divs {
                        kb.prebound.remove(&d);
                    }
                    r?;
                    Ok(vec![])
                })?;
                if kb.shared_partials.is_some() {
                    kb.flush_shared(sidx, &nw, &kinds, &geo)?;
                }
                Ok(vec![])
            })?;
            Ok(())
        };
        // The staged rows' shared memory: the fast form's layout, sized for the launch, after
        // the shared partials or the shared accumulators (the fast form's N, rounded up to 16
        // bytes) where there are any.
        let partial_bytes = match s.fast {
            Some(f) if shared => (workspaces.len() as u64 * s.rows_per_cta as u64 * 4 * f.cols).next_multiple_of(16),
            _ => s.shared_accs_bytes(&shape),
        };
        let (staged, mut staged_bytes) = match (&plan, s.fast) {
            (Some(p), Some(_)) => self.staging_layout(p, &s, partial_bytes),
            _ => (Vec::new(), 0),
        };
        // Warp-transposed packed rows: the warps' spans after the partials (and any ring,
        // which packed rows exclude), counted with the ring for the launch.
        let transpose_bytes = if plan.is_some() { s.transpose_shared_bytes(&shape) } else { 0 };
        let transpose = (transpose_bytes > 0).then(|| {
            let at = partial_bytes.next_multiple_of(16) + staged_bytes;
            (at, transpose_bytes / (s.threads as u64 / 32).max(1))
        });
        if transpose_bytes > 0 {
            staged_bytes += transpose_bytes + partial_bytes.next_multiple_of(16) - partial_bytes;
        }
        match (plan, s.fast) {
            (Some(plan), Some(fs)) => {
                let cond = self.fast_guard(&plan, fs.cols)?;
                let kinds2 = kinds.clone();
                let ws = workspaces.clone();
                let sched = s.clone();
                self.if_then_else(
                    cond,
                    &mut |kb| kb.row_fused_fast(op, &plan, &sched, &ws, &kinds2, &geo, t, &staged, transpose),
                    &mut slow,
                )?;
            }
            _ => slow(self)?,
        }
        // Host: grid and shared bytes.
        let ib = Ib { before: self.nest };
        let mh = parts.ubs[0];
        let sh = match split {
            SplitBy::Rows(n) => ib.index(self.ctx, n),
            SplitBy::Value(v) => v,
        };
        let nsplit_h = ib.ceildiv(self.ctx, mh, sh);
        let blocks = if s.cluster > 1 {
            // Whole clusters, a split each.
            let clusters = self.host_grid(nsplit_h, 1, (s.max_grid / s.cluster as u64).max(1));
            let c = ib.index(self.ctx, s.cluster as i64);
            ib.mul(self.ctx, clusters, c)
        } else {
            self.host_grid(nsplit_h, 1, s.max_grid)
        };
        let bytes = if shared {
            let ip = inner.as_ref().expect("inner");
            let per = ib.index(self.ctx, (workspaces.len() as u64 * s.rows_per_cta as u64 * 4) as i64);
            let partials = ib.mul(self.ctx, per, ip.ubs[0]);
            if staged_bytes > 0 {
                // The ring starts at the fast form's partials rounded up to 16 bytes: at most
                // 12 bytes past the partials of the run-time N when it is the fast form's.
                let ring = ib.index(self.ctx, staged_bytes as i64 + 16);
                ib.add(self.ctx, partials, ring)
            } else {
                partials
            }
        } else {
            // Shared accumulators, if any (the fast form's N; unused by the slow path), then
            // the ring.
            ib.index(self.ctx, (partial_bytes + staged_bytes) as i64)
        };
        self.launch = Some((blocks, bytes));
        Ok(())
    }

    /// The value the first index of the first accumulate in `op` divides the row by (`W[i div
    /// S, j]`), if any.
    fn split_divisor(&self, op: OpId) -> Option<Value> {
        let ctx = &*self.ctx;
        let a = ctx.walk_collect(op).into_iter().find(|&o| ctx.isa::<mloop::AccumulateOp>(o))?;
        let idx = *ctx.operands(a).get(2)?;
        let d = ctx.dyn_cast::<mloop::DivOp>(ctx.defining_op(idx)?)?;
        Some(d.rhs(ctx))
    }

    /// Whether the 2-D workspace `w` is exactly `[ceil(rows / split), cols]` (host values):
    /// a static size, or the `(rows + split - 1) div split` the fusion pass allocates (a fixed
    /// split, or the value of one sized at run time), and the same size value (or the same
    /// `dim` of the same buffer) for the columns.
    fn ws_covers(&self, w: Value, rows: Value, split: SplitBy, cols: Value) -> bool {
        let ctx = &*self.ctx;
        let dim_of = |v: Value| {
            let d = ctx.dyn_cast::<mloop::DimOp>(ctx.defining_op(v)?)?;
            Some((d.source(ctx), d.index(ctx)?))
        };
        let same = |a: Value, b: Value| same_index(ctx, a, b) || dim_of(a).is_some_and(|x| dim_of(b) == Some(x));
        let Some(alloc) = ctx.defining_op(w).filter(|a| ctx.isa::<mloop::AllocOp>(*a)) else { return false };
        let shape = buffer_shape(ctx, w);
        if shape.len() != 2 || matches!(split, SplitBy::Rows(n) if n < 1) {
            return false;
        }
        // `v` is the divisor (`split`), or `v` is one less than it.
        let is_split = |v: Value| match split {
            SplitBy::Rows(n) => const_int(ctx, v) == Some(n),
            SplitBy::Value(s) => v == s,
        };
        let is_split_m1 = |v: Value| match split {
            SplitBy::Rows(n) => const_int(ctx, v) == Some(n - 1),
            SplitBy::Value(s) => ctx.defining_op(v).is_some_and(|d| {
                is_binary(ctx, d, BinaryFn::Sub)
                    && ctx.operand(d, 0) == s
                    && const_int(ctx, ctx.operand(d, 1)) == Some(1)
            }),
        };
        let mut dyns = ctx.operands(alloc).iter().copied();
        let rows_ok = match shape[0] {
            Dim::Static(n) => match split {
                SplitBy::Rows(split) => {
                    const_int(ctx, rows).is_some_and(|m| m >= 0 && (m + split - 1) / split == n as i64)
                }
                SplitBy::Value(_) => false,
            },
            Dim::Dynamic => dyns.next().is_some_and(|v| {
                let Some(div) = ctx.defining_op(v).filter(|d| is_binary(ctx, *d, BinaryFn::Div)) else { return false };
                let (num, den) = (ctx.operand(div, 0), ctx.operand(div, 1));
                let Some(add) = ctx.defining_op(num).filter(|d| is_binary(ctx, *d, BinaryFn::Add)) else {
                    return false;
                };
                let (a, b) = (ctx.operand(add, 0), ctx.operand(add, 1));
                is_split(den) && ((same(a, rows) && is_split_m1(b)) || (same(b, rows) && is_split_m1(a)))
            }),
        };
        let cols_ok = match shape[1] {
            Dim::Static(n) => const_int(ctx, cols) == Some(n as i64),
            Dim::Dynamic => dyns.next().is_some_and(|v| same(v, cols)),
        };
        rows_ok && cols_ok
    }

    /// End of a split with shared partials: barrier, then every thread combines columns
    /// `tid, tid + block_dim, ...` over the CTA's warps in warp order and adds them to
    /// `W[s, j]`; barrier. Where the CTA has many row slots and at least twice as many
    /// threads as columns ([`flush_lanes`]: a thread per short row), a group of `L` lanes
    /// combines each column instead: lane `l` the slots `l, l + L, ...` in order, then a
    /// butterfly over the group, and the group's first lane stores (the same order on every
    /// run: deterministic, as the serial form).
    fn flush_shared(&mut self, sidx: Value, ws: &[Value], kinds: &[String], g: &SplitGeometry) -> R<()> {
        let smem = self.shared_partials.as_ref().expect("shared partials").smem;
        let f32t = self.ctx.f32_type();
        let (slots, n_kernel, zero, one) = (g.slots, g.n_kernel, g.zero, g.one);
        self.push(mgpu::BarrierOp::state(self.loc));
        // A workspace this kernel alone fills (each split's row once): a store suffices.
        let fresh: Vec<bool> = ws.iter().map(|w| g.covered.contains(w)).collect();
        let lanes = match self.schedule.as_ref() {
            Some(s) if kinds.iter().all(|k| mgpu::ReduceKind::from_name(k).is_some()) => {
                flush_lanes(s.threads, s.rows_per_cta, s.fast.map(|f| f.cols))
            }
            _ => 1,
        };
        // Serial: thread `tid` takes columns `tid, tid + block_dim, ...` and every slot. With
        // lanes: group `tid div L` takes columns `group, group + block_dim / L, ...`, lane
        // `tid rem L` the slots `lane, lane + L, ...`, and the group's first lane stores.
        let (col0, col_step, slot0, slot_step, first) = if lanes > 1 {
            let l = self.iconst(lanes as i64);
            let group = self.ibin(Ix::Div, g.tid, l);
            let lane = self.ibin(Ix::Rem, g.tid, l);
            let groups = self.ibin(Ix::Div, g.bdim, l);
            let first = self.icmp("eq", lane, zero);
            (group, groups, lane, l, Some(first))
        } else {
            (g.tid, g.bdim, zero, one, None)
        };
        for (p, w) in ws.iter().enumerate() {
            let kind = kinds[p].clone();
            let wp = self.get(*w)?;
            self.for_loop(col0, n_kernel, col_step, &[], &mut |kb, j, _| {
                let id = kb.fconst(identity(&kind), f32t);
                let pc = kb.iconst(p as i64);
                let base = kb.ibin(Ix::Mul, pc, slots);
                let part = kb.for_loop(slot0, slots, slot_step, &[id], &mut |kb, k, acc| {
                    let a = kb.ibin(Ix::Add, base, k);
                    let a = kb.ibin(Ix::Mul, a, n_kernel);
                    let off = kb.ibin(Ix::Add, a, j);
                    let x = kb.push1(mgpu::LoadOp::state(kb.loc, smem, off, f32t, None, None));
                    Ok(vec![kb.combine(&kind, acc[0], x)?])
                })?[0];
                let store = |kb: &mut Self, tot: Value| -> R<()> {
                    let off = kb.offset(*w, &[sidx, j]);
                    kb.combine_into(&kind, wp, off, tot, fresh[p])
                };
                match first {
                    Some(first) => {
                        // The group's butterfly (`mgpu.warp_reduce {width = L}`).
                        let tot = kb.warp_reduce(&kind, part);
                        let op = kb.ctx.defining_op(tot).expect("a result");
                        let width = kb.ctx.i64_attr(lanes as i64);
                        kb.ctx.set_attr(op, "width", width);
                        kb.if_then(first, &mut |kb| store(kb, tot))?;
                    }
                    None => store(kb, part)?,
                }
                Ok(vec![])
            })?;
        }
        self.push(mgpu::BarrierOp::state(self.loc));
        Ok(())
    }

    /// Ends the kernel (`mgpu.return`, function type) and puts its launch before the nest
    /// (the nests are erased once the whole function is lowered, [`erase_lowered`]).
    /// Ends the kernel and inserts its launch (and the workspace's dealloc) on the host
    /// before the nest; returns the launch.
    fn finish(mut self) -> R<OpId> {
        self.mark_stream_loads();
        self.cur = self.entry;
        if self.cluster() > 1 {
            // The phase of the last reduction's arrival: no CTA leaves while another may
            // still store into its shared memory ([`Self::cluster_reduce`]).
            self.push(mgpu::ClusterWaitOp::state(self.loc));
        }
        self.push(mgpu::ReturnOp::state(self.loc));
        let tys: Vec<Type> = self.ctx.block_args(self.entry).iter().map(|v| self.ctx.value_type(*v)).collect();
        let ft = self.ctx.function_type(&tys, &[]);
        let fta = self.ctx.type_attr(ft);
        self.ctx.set_attr(self.kernel, "function_type", fta);
        let s = self.schedule.clone().expect("a mapping sets the schedule");
        let (mut blocks, shared) = self.launch.expect("a mapping sets the launch");
        let threads = self.host_index(s.threads as i64);
        let name = symbol_name(self.ctx, self.kernel).unwrap_or_default().to_string();
        // A persistent grid of clusters that are all resident at once: the device answers how
        // many fit (a cluster's CTAs share one GPC), and the grid takes at most those (a cluster
        // left for a second wave would double the kernel's time). A kernel of equal shares
        // (`grid_resident`) likewise takes at most the CTAs resident, in units of one CTA.
        let unit = if s.cluster > 1 { Some(s.cluster as i64) } else { self.grid_resident.then_some(1) };
        if let Some(unit) = unit {
            let it = self.ctx.index_type();
            let sym = self.ctx.symbol_ref_attr(&name);
            let rb =
                insert_before(self.ctx, self.nest, mgpu::ResidentBlocksOp::state(self.loc, threads, shared, it, sym));
            let rb = self.ctx.result(rb, 0);
            let ib = Ib { before: self.nest };
            let c = ib.index(self.ctx, unit);
            let one = ib.index(self.ctx, 1);
            let fit = ib.div(self.ctx, rb, c);
            let fit = ib.max(self.ctx, fit, one);
            let asked = ib.div(self.ctx, blocks, c);
            let units = ib.min(self.ctx, asked, fit);
            blocks = ib.mul(self.ctx, units, c);
        }
        let sym = self.ctx.symbol_ref_attr(&name);
        let st = mgpu::LaunchOp::state(self.loc, blocks, threads, shared, &self.args, sym);
        let launch = insert_before(self.ctx, self.nest, st);
        bind_resident_programs(self.ctx, &self.resident, &name, threads, shared, self.opts.resident_splits);
        if let Some(w) = self.dealloc {
            insert_before(self.ctx, self.nest, mloop::DeallocOp::state(self.loc, w));
        }
        Ok(launch)
    }
}
