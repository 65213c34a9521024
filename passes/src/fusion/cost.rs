//! The cost model and the DAG extractor.
//!
//! The problem is memory-bound, but a kernel rarely draws the copy bandwidth: how much it
//! draws depends on the schedule `lower-loop-to-gpu` will give it. So the model first asks
//! the lowering's own heuristic ([`choose_schedule`](crate::conversion::schedule::choose_schedule))
//! for each kernel's schedule (threads, rows per CTA, the register-resident fast path,
//! the persistent grid) and prices the launches that schedule emits:
//!
//! ```text
//! time  = launches * launch_overhead + fills * (2.5 us + workspace / bw)
//!       + max(waves(units, cap), work / (sms * 128 lanes * 1.98 GHz * 0.65 * issue))
//!       + l2_reread / (l2_bandwidth * eff_l2)
//! work  = sum over the kernel's nests of points * instructions per point (NestInfo::work;
//!         a partial beside a pointwise part sums that part's values: not counted again)
//! issue = min(1, resident warps per SM / (16 | 32 for a CTA per row))^0.3
//! fills = the partials' workspaces, none where the kernel stores each element once (shared
//!         partials of the register-resident form: lower-loop-to-gpu drops the fill)
//! waves = full waves of sms * cap units, then the tail at ceil(tail / sms) CTAs per SM;
//!         a wave of r CTAs per SM takes max(bandwidth, latency):
//!   bandwidth = r * bytes_per_unit / (bw / sms * eff(r * inflight_per_cta))
//!   eff(x)    = x / (x + 4 KiB)                  // bytes in flight per SM (Little's law)
//!   latency   = rows_per_unit * row_s * min(1, 0.4 + 0.1 r)
//! cap   = CTAs per SM: min(2048 / threads, 65536 / (regs * threads)),
//!         regs = 40 + columns per thread * (row inputs + hoisted vectors + partials)
//! row_s = 0.8 us + chain * (1.1 us block reduction | 0.3 us warp) + 0.15 us per other reduction
//!         (rows staged through shared memory, k of them: 0.8 us / k + 0.36 us per reduction)
//! (the H200's `Device::model`: the round trip, the warp chain, the in-flight knee and the
//! split flush fitted by tools/morf-tune/scripts/calibrate_model.py)
//! final reduction: workspace / (bw * ctas / (ctas + 136)), ctas = ceil(cols / tile), tile 32, 16 or 8;
//!         no launch of its own but a grid barrier (1.5 us): `lower-loop-to-gpu` runs it in the
//!         grid of the row kernel before it (`final=grid`, its default)
//! ```
//!
//! A row kernel walks rows one at a time per CTA (or warp), so it is latency-bound unless its
//! rows are long: the `latency` term. Where the schedule stages a CTA's next rows through
//! shared memory (`Schedule::staged_rows`, the CTA-per-row kernels), their loads are in flight
//! while it reduces a row, which then waits for a share of one round trip and its own block
//! reductions: without that term the model priced one row kernel holding two reductions and
//! two partials (row_col_stats at N >= 2048) above two row kernels that each read the data.
//! A thread-per-point kernel's thread walks its points
//! (with partials: its split's rows) the same way (`row_s` = 2.2 us per step). An unfused
//! column reduction of more than 32 rows is two launches (split-K partial, then a final; one
//! cooperative launch under `lower-loop-to-gpu{split-final=grid}`, which the model does not price),
//! its blocks of rows raised to one wave as the host raises them.
//! The constants were fitted on an H200 sweep of forced split sizes
//! (`tools/morf-bench/scripts/calibrate.sh`, compared by `predict.py`; docs/perf.md "Cost
//! model calibration"): the fused row kernels of the examples within +-25%.
//!
//! * `bytes_read`: each distinct buffer the kernel reads from memory, once (a buffer produced
//!   by an earlier part of the same kernel is not read).
//! * `bytes_written`: each buffer written that something outside the kernel reads, or that no
//!   nest reads (an output). A temporary whose readers all sit in the kernel stays on chip.
//! * `workspace_bytes`: f32 partial rows, `ceil(rows/S) * cols * 4`, written by a partial and
//!   read by its final.
//! * Row kernels: `persistent` is infeasible (cost infinite) when `cols * values_per_col / T +
//!   32` registers per thread exceed 255, or that times `T` exceeds the SM's registers, for every
//!   `T` in 128..=1024 (`values_per_col`: the row inputs held, plus one f32 accumulator per
//!   partial). `looped` re-reads its row inputs: free when the row fits in shared memory,
//!   from L2 when `sms * row_bytes <= l2/2`, else from DRAM.
//! * `ctas`: the CTAs of the launch (the persistent grid for row kernels; the partial launch
//!   of a split-K column reduction).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use egg::{EGraph, Id};

use super::analysis::{Buf, Ctx, Data, PlanAnalysis};
use super::lang::PlanLang;
use super::{Kernel, NestKind, Plan, RowStyle};

/// The cost of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCost {
    /// The kernel, printed.
    pub label: String,
    /// DRAM bytes read from program buffers (DRAM re-reads of a looped row included).
    pub bytes_read: u64,
    /// DRAM bytes written to program buffers.
    pub bytes_written: u64,
    /// Workspace bytes written (partial) or read (final).
    pub workspace_bytes: u64,
    /// Bytes re-read from L2 by a looped row kernel.
    pub l2_reread_bytes: u64,
    /// Programs (CTAs) in the grid.
    pub ctas: u64,
    /// Launches (1).
    pub launches: u32,
    /// Estimated time, seconds (infinite when infeasible).
    pub time_s: f64,
    /// Whether it can run at all.
    pub feasible: bool,
    /// Why it is infeasible, or how a row is held; empty otherwise.
    pub note: String,
    /// The schedule of `lower-loop-to-gpu`'s heuristic the model priced the kernel with
    /// ([`Schedule::summary`](crate::conversion::schedule::Schedule::summary)); empty where
    /// it priced none (finals, a thread per point). The fusion pass writes it
    /// into the kernel's `morf.kernel` attribute (`priced`), and the lowering's schedule
    /// report says where the schedule it runs differs.
    pub schedule: String,
    /// The CTAs of the kernel the device holds at once under the priced schedule (its CTAs
    /// per SM times the SMs); 0 for a final reduction. A split sized at run time by the
    /// occupancy (`partials=resident`) takes `rows / resident` rows per partial.
    pub resident: u64,
}

/// The cost of a plan, per kernel and in total.
#[derive(Clone, Debug, PartialEq)]
pub struct CostBreakdown {
    /// Per kernel, in plan order.
    pub kernels: Vec<KernelCost>,
    /// Estimated time, seconds.
    pub total_s: f64,
    /// DRAM bytes: reads + writes + workspace.
    pub total_bytes: u64,
    /// Kernel launches.
    pub launches: u32,
    /// The least bytes any plan must move: each external input read once, each output written once.
    pub floor_bytes: u64,
    /// `floor_bytes / bandwidth`.
    pub floor_s: f64,
    /// The estimated time with every partial at the plan's own split (equal to `total_s`
    /// unless [`run_time_splits`] moves one): what orders plans that run alike.
    pub fixed_split_s: f64,
}

impl CostBreakdown {
    /// The byte floor's share of the estimated time (1.0 is the floor).
    pub fn floor_fraction(&self) -> f64 {
        if self.total_s.is_finite() && self.total_s > 0.0 {
            self.floor_s / self.total_s
        } else {
            0.0
        }
    }
}

const REG_OVERHEAD: u64 = 32;

/// Whether buffer `b`, written by the kernel of nests `in_kernel`, goes to memory: readers
/// outside the kernel, or none at all (an output).
fn escapes(ctx: &Ctx, b: usize, in_kernel: &BTreeSet<usize>) -> bool {
    ctx.cfg.outputs.contains(&b)
        || ctx.readers.get(&b).is_none_or(|r| r.is_empty() || r.iter().any(|n| !in_kernel.contains(n)))
}

/// The cost of one kernel.
pub fn kernel_cost(kernel: &Kernel, ctx: &Ctx) -> KernelCost {
    let dev = &ctx.device;
    let parts = kernel.parts();
    let in_kernel: BTreeSet<usize> = kernel.nests();
    let mut produced = BTreeSet::new();
    let mut reads: BTreeMap<Buf, (u64, Vec<super::Axis>)> = BTreeMap::new();
    let mut writes: BTreeMap<Buf, u64> = BTreeMap::new();
    for p in parts {
        let (r, w) = ctx.part_io(p);
        for io in r {
            if !produced.contains(&io.buf) {
                let e = reads.entry(io.buf).or_insert((0, io.axes.clone()));
                if io.bytes > e.0 {
                    *e = (io.bytes, io.axes);
                }
            }
        }
        for io in w {
            produced.insert(io.buf);
            let e = writes.entry(io.buf).or_insert(0);
            *e = (*e).max(io.bytes);
        }
    }
    let mut c = KernelCost {
        label: kernel.to_string(),
        bytes_read: 0,
        bytes_written: 0,
        workspace_bytes: 0,
        l2_reread_bytes: 0,
        ctas: 1,
        launches: 1,
        time_s: 0.0,
        feasible: true,
        note: String::new(),
        schedule: String::new(),
        resident: 0,
    };
    for (buf, (bytes, _)) in &reads {
        match buf {
            Buf::Mem(_) => c.bytes_read += bytes,
            Buf::Ws(_) => c.workspace_bytes += bytes,
        }
    }
    for (buf, bytes) in &writes {
        match buf {
            Buf::Ws(_) => c.workspace_bytes += bytes,
            Buf::Mem(b) => {
                if escapes(ctx, *b, &in_kernel) {
                    c.bytes_written += bytes;
                }
            }
        }
    }

    let partial = parts.iter().find_map(|p| match p {
        Kernel::Partial { nest, split } => Some((*nest, *split)),
        _ => None,
    });
    let row = parts.iter().find_map(|p| match p {
        Kernel::Nest(n) if ctx.is_row_reduction(*n) => Some(*n),
        _ => None,
    });

    // Row style.
    let mut dram_reread = 0u64;
    if let (Kernel::Fused { style: Some(style), .. }, Some(r)) = (kernel, row) {
        let NestKind::Reduction { reduced, .. } = &ctx.nest(r).kind else { unreachable!("a row reduction") };
        let cols = ctx.extents.numel(reduced);
        // Row inputs: read buffers indexed by the reduced (column) axes, once per column each.
        let row_bufs: Vec<(u64, usize)> = reads
            .iter()
            .filter(|(b, (_, axes))| matches!(b, Buf::Mem(_)) && reduced.iter().all(|a| axes.contains(a)))
            .map(|(_, (bytes, axes))| (*bytes, axes.len()))
            .collect();
        let partials = parts.iter().filter(|p| matches!(p, Kernel::Partial { .. })).count() as u64;
        match style {
            RowStyle::Persistent => {
                let per_col = row_bufs.len() as u64 + partials;
                let need = |t: u64| (cols * per_col).div_ceil(t) + REG_OVERHEAD;
                let fits = [128u64, 256, 512, 1024].into_iter().find(|&t| {
                    need(t) <= dev.max_registers_per_thread as u64 && need(t) * t <= dev.registers_per_sm as u64
                });
                match fits {
                    Some(t) => c.note = format!("row in registers: {} regs/thread at {t} threads", need(t)),
                    None => {
                        c.feasible = false;
                        c.note = format!(
                            "persistent row infeasible: {cols} cols x {per_col} values needs {} regs/thread at 1024 threads (limit {} and {} per SM)",
                            need(1024),
                            dev.max_registers_per_thread,
                            dev.registers_per_sm
                        );
                    }
                }
            }
            RowStyle::Looped => {
                // Bytes of one row of every row input (inputs with more axes than the row's
                // columns are [rows, cols] tensors; the others are re-read from cache anyway).
                let full: Vec<u64> = row_bufs.iter().filter(|(_, n)| *n > reduced.len()).map(|(b, _)| *b).collect();
                let total: u64 = full.iter().sum();
                let rows = nest_points(ctx, r).1.max(1);
                let row_bytes = total / rows;
                if row_bytes <= dev.shared_mem_per_sm {
                    c.note = format!("row staged in shared memory ({row_bytes} B)");
                } else if row_bytes * dev.sms as u64 <= dev.l2_bytes / 2 {
                    c.l2_reread_bytes = total;
                    c.note = format!("row re-read from L2 ({row_bytes} B/row)");
                } else {
                    dram_reread = total;
                    c.note = format!("row re-read from DRAM ({row_bytes} B/row exceeds smem and L2 budget)");
                }
            }
        }
    }
    c.bytes_read += dram_reread;
    let bytes = (c.bytes_read + c.bytes_written + c.workspace_bytes) as f64;
    let bw = dev.copy_bandwidth_bytes_per_s;
    // The launches the lowering emits for this kernel and how much bandwidth they draw
    // (module docs, "Occupancy").
    let shape = launch_shape(kernel, ctx, &reads, partial, row);
    let (dram_s, launches) = match &shape {
        // In the row kernel's grid, behind a grid barrier (`lower-loop-to-gpu{final=grid}`).
        LaunchShape::Final { ctas } => (GRID_BARRIER_S + bytes / (bw * final_efficiency(*ctas)), 0),
        LaunchShape::Waves(w) => (waves_time(dev, w, bytes), 1),
        LaunchShape::SplitK { partial, ctas, ws_bytes } => {
            // Split-K: the partial launch over the data, then a final launch over its
            // workspace (`lower-loop-to-gpu{split-final=launch}`, the default).
            c.workspace_bytes += 2 * ws_bytes;
            let ws = *ws_bytes as f64;
            (waves_time(dev, partial, bytes + ws) + ws / (bw * final_efficiency(*ctas)), 2)
        }
    };
    // Arithmetic: the work of each part's points at the issue rate of the warps the launch
    // keeps on an SM; a kernel takes the longer of its memory and its arithmetic time (they
    // overlap). A partial next to a
    // pointwise part of the same kernel sums values that part computes (the lowering emits
    // equal expressions once per row), so only the pointwise part counts.
    let work = kernel_work(parts, ctx);
    let issue = match &shape {
        LaunchShape::Waves(w) | LaunchShape::SplitK { partial: w, .. } => issue_efficiency(dev, w),
        LaunchShape::Final { .. } => 1.0,
    };
    let compute_s = work / (dev.sms.max(1) as f64 * LANE_OPS_PER_SM_S * issue);
    let dram_s = dram_s.max(compute_s);
    // Each partial's workspace is zeroed on the host first (`mloop.fill`: one memset on the
    // stream, [`FILL_OVERHEAD_S`], writing the workspace once).
    let no_fills = matches!(&shape, LaunchShape::Waves(w) if w.no_fills);
    let fills = if no_fills { 0 } else { parts.iter().filter(|p| matches!(p, Kernel::Partial { .. })).count() as u32 };
    let fill_s = if fills > 0 { fills as f64 * FILL_OVERHEAD_S + c.workspace_bytes as f64 / bw } else { 0.0 };
    let dram_s = dram_s + fill_s;
    if let LaunchShape::Waves(w) = &shape {
        if w.regs > 0 && c.note.starts_with("row in registers") {
            // The schedule's estimate, not the feasibility bound above.
            c.note = format!("row in registers: ~{} regs/thread, {} CTAs per SM", w.regs, w.cap_per_sm);
            if w.staged_rows > 0 {
                c.note.push_str(&format!(", {} rows staged", w.staged_rows));
            }
        }
    }
    if let LaunchShape::Waves(w) | LaunchShape::SplitK { partial: w, .. } = &shape {
        c.schedule = w.schedule.clone();
        c.resident = w.cap_per_sm.max(1) * dev.sms.max(1) as u64;
    }
    c.launches = launches;
    c.ctas = match &shape {
        LaunchShape::Waves(w) => w.units.min(w.grid_cap),
        LaunchShape::Final { ctas } => *ctas,
        LaunchShape::SplitK { partial, .. } => partial.units,
    }
    .max(1);
    // A split that leaves the launch under three quarters of a wave is said (the split sets
    // the CTAs of a kernel with partials; docs/perf.md, thirty-seventh session: row_col_stats
    // at 5120 x 5120 ran 160 of the 264 CTAs that fit).
    if let LaunchShape::Waves(w) = &shape {
        let fit = dev.sms.max(1) as u64 * w.cap_per_sm.max(1);
        if c.ctas * 4 < fit * 3 && parts.iter().any(|p| matches!(p, Kernel::Partial { .. })) {
            let sep = if c.note.is_empty() { "" } else { ", " };
            let share = c.ctas as f64 / fit as f64;
            c.note.push_str(&format!("{sep}{share:.2} of a wave ({} of the {fit} CTAs that fit)", c.ctas));
        }
    }
    let eff_l2 = (c.ctas as f64 * dev.sm_bandwidth_share / dev.sms.max(1) as f64).min(1.0);
    c.time_s = if c.feasible {
        dev.launch_overhead_s * launches as f64
            + dram_s
            + c.l2_reread_bytes as f64 / (dev.l2_bandwidth_bytes_per_s * eff_l2)
    } else {
        f64::INFINITY
    };
    c
}

// Bytes in flight per SM at which a launch draws half of its SM's share of the copy
// bandwidth: `eff(x) = x / (x + half_bw_inflight)` (Little's law with a soft knee;
// `Device::model`, 4 KiB on the H200 since the calibration of docs/perf.md, tenth session).
/// Instructions per second one SM retires across its lanes in the arithmetic of a fused
/// kernel: 128 lanes at 1.98 GHz, at the 65% fitted on the H200 (tanh_bwd_bias at
/// 65536 x 1024 with the accurate tanh: 62 instructions per point, 191 us).
const LANE_OPS_PER_SM_S: f64 = 128.0 * 1.98e9 * 0.65;
/// Resident warps per SM from which a kernel's arithmetic runs at [`LANE_OPS_PER_SM_S`]
/// ([`issue_efficiency`]): 16 for independent warps (a warp per row or per point: the
/// calibration of that rate), 32 where a CTA works on one row at a time and all its warps
/// wait at the barriers of every block reduction. Below it the rate falls as
/// `(warps / FULL_ISSUE_WARPS)^ISSUE_EXPONENT`, fitted on the H200 with softmax_fwd_colsum's
/// CTA-per-row kernel (three reductions, an `exp` per point) at 32768 x 4096 and 65536 x 2048:
/// 8 resident warps per SM (S=256: 386 and 361 us), 16 (S=128: 262 and 247 us) and about 31
/// (S=64: 236 and 229 us), rates 0.62 and 0.91 of the last.
const FULL_ISSUE_WARPS: f64 = 16.0;
const FULL_ISSUE_WARPS_CTA_ROWS: f64 = 32.0;
const ISSUE_EXPONENT: f64 = 0.3;
/// CTAs at which a final reduction (32 columns per CTA) draws half the copy bandwidth, fitted
/// on the same sweep (32 CTAs: 0.8 TB/s; 256 CTAs: 2.6 TB/s).
const FINAL_HALF_CTAS: f64 = 136.0;
/// Row kernels are latency-bound: a CTA (or warp) works on one row at a time, and a row
/// costs at least one memory round trip plus its reductions, in seconds, measured on the
/// H200 sweep (docs/perf.md, "Cost model calibration"): the round trip with the row's loads
/// and stores (`Device::model.row_trip_s`, 0.8 us), each reduction in a chain of dependent
/// ones (`CHAIN_S` for a block reduction of a CTA per row, `model.warp_chain_s`, 0.3 us,
/// for a warp shuffle tree), and each
/// further independent one of a warp per row (`INDEPENDENT_S`: its shuffles interleave with
/// the others', as one more tree; refitted from 0.5 us in the sixth session on row_col_stats at
/// 65536 x 1024, 45.6 us measured for the row kernel where 0.5 priced 64.7).
const CHAIN_S: f64 = 1.1e-6;
const INDEPENDENT_S: f64 = 0.15e-6;
/// A block reduction of a row kernel whose rows are staged through shared memory
/// (`Schedule::staged_rows`), seconds: the next rows' copies are in flight, so the CTA waits
/// only on the reduction's shuffles and barriers. Fitted on the H200 (row_col_stats as one
/// row kernel: two block reductions, two partials, 5-8 rows staged) at 16384 x 8192 (S=128:
/// 119 us, 0.93 us per row on one CTA per SM), 32768 x 4096 (S=64: 123 us) and 65536 x 2048
/// (S=128: 113 us); `CHAIN_S` priced these rows at 3.4 us (446 us at 16384 x 8192).
const STAGED_REDUCTION_S: f64 = 0.36e-6;
/// A thread-per-point kernel's thread walks its points (or, with partials, the rows of its
/// split) one after another: each step waits for its loads, then stores, as a row does
/// (measured: the bias gradients of tanh and GELU at 65536 x 1024, any split).
const POINT_TRIP_S: f64 = 2.2e-6;
/// A final reduction run in the grid of the row kernel before it: the grid barrier and the
/// wait for the row kernel's last CTA, seconds (H200, 2026-12-02: the merged launch saved
/// 0.6-2.5 us of the 2.5 us launch and 1 us gap of a separate final, docs/perf.md).
const GRID_BARRIER_S: f64 = 1.5e-6;
// The flush of one shared partial at the end of a split (a warp per row: the warps' partial
// rows combined in shared memory, then added to the workspace row) is `Device::model.flush_s`
// (1.0 us on the H200: measured on the backward norms with a warp per row at 65536 x 1024,
// refitted by the calibration).
/// Rows of a partial-pointwise step the model credits as in flight together (the lowering
/// runs `PARTIAL_UNROLL` of them; 1 until that form is measured).
const PARTIAL_UNROLL_CREDIT: u64 = 1;
/// The fixed cost of a workspace fill (`cuMemsetD32Async` on the stream), seconds: about a
/// small launch's, but not the device's `launch_overhead_s` (which tests inflate to make
/// every fusion pay).
const FILL_OVERHEAD_S: f64 = 2.5e-6;

/// How one launch of a kernel fills the machine: the wave model of [`waves_time`].
#[derive(Clone, Debug, PartialEq)]
struct Waves {
    /// Work units (a split of rows, a row slot, a CTA's share of a grid-stride loop).
    units: u64,
    /// The persistent grid's cap (the CTAs launched), for the report.
    grid_cap: u64,
    /// CTAs resident per SM at most (threads, registers, shared memory).
    cap_per_sm: u64,
    /// Bytes one CTA has in flight while it loads.
    inflight_per_cta: f64,
    /// Rows a unit walks one after another (row kernels; 0 for other kernels).
    rows_per_unit: f64,
    /// Latency of one row at full load, seconds (row kernels).
    row_s: f64,
    /// Rows a CTA works on at once (a warp per row: its warps; 1 otherwise).
    rows_in_flight_per_cta: u64,
    /// Time a unit spends after its rows with no loads in flight (the flush of shared
    /// partials at the end of a split), seconds.
    unit_tail_s: f64,
    /// Whether the kernel stores each element of its workspaces once (shared partials of
    /// the register-resident form), so that the lowering drops their fills.
    no_fills: bool,
    /// Whether a unit's rows are CTA-wide with block reductions behind barriers (a CTA per row
    /// with at least one row reduction): their latency does not shrink on a lightly loaded
    /// SM, and the issue rate needs two CTAs' warps.
    cta_rows: bool,
    /// Warps per CTA.
    warps_per_cta: u64,
    /// Estimated registers per thread (row kernels; 0 otherwise), for the report.
    regs: u64,
    /// Rows each CTA keeps in flight through shared memory (row kernels; 0 for none), for
    /// the report.
    staged_rows: u32,
    /// The heuristic's schedule priced (`Schedule::summary`; empty where none).
    schedule: String,
}

/// The launches the lowering emits for a kernel.
#[derive(Clone, Debug, PartialEq)]
enum LaunchShape {
    /// One launch, units spread over SMs in waves.
    Waves(Waves),
    /// A final reduction of `ctas` CTAs (tiles of 32, 16 or 8 columns).
    Final { ctas: u64 },
    /// A split-K column reduction: the partial launch, then a final of `ctas` CTAs over a
    /// workspace of `ws_bytes`.
    SplitK { partial: Waves, ctas: u64, ws_bytes: u64 },
}

/// CTAs of the final reduction over `cols` columns: one per tile of the lowering's scalar
/// form (`final_tile_cols`: 32, 16 or 8 columns). The vector form (`final_vec_lanes`) is
/// priced the same: the fit below predates it and was not refitted.
fn final_ctas(cols: u64, dev: &super::device::Device) -> u64 {
    let w = crate::conversion::schedule::final_tile_cols(Some(cols), dev.sms.max(1) as u64);
    cols.div_ceil(w as u64)
}

/// Share of the copy bandwidth a final reduction of `ctas` CTAs draws.
fn final_efficiency(ctas: u64) -> f64 {
    let c = ctas.max(1) as f64;
    c / (c + FINAL_HALF_CTAS)
}

/// Share of an SM's issue rate ([`LANE_OPS_PER_SM_S`]) that launch `w` draws: the warps it
/// keeps resident per SM (its CTAs spread over the SMs, at most `cap_per_sm` each) hide the
/// latency of dependent instructions only from [`FULL_ISSUE_WARPS`] on (CTA-wide rows:
/// [`FULL_ISSUE_WARPS_CTA_ROWS`]); below, `(warps / full)^ISSUE_EXPONENT`. Without it, a
/// kernel whose arithmetic bounds it was priced alike at any split, and the smallest final
/// reduction picked the largest split: one or two CTAs per SM.
fn issue_efficiency(dev: &super::device::Device, w: &Waves) -> f64 {
    let per_sm = w.units.max(1).div_ceil(dev.sms.max(1) as u64).min(w.cap_per_sm.max(1));
    let warps = (per_sm * w.warps_per_cta.max(1)) as f64;
    // A CTA per row: two CTAs' worth of warps, one computing while the other waits at its
    // barriers (16 to 32).
    let full = if w.cta_rows {
        (2.0 * w.warps_per_cta as f64).clamp(FULL_ISSUE_WARPS, FULL_ISSUE_WARPS_CTA_ROWS)
    } else {
        FULL_ISSUE_WARPS
    };
    (warps / full).min(1.0).powf(ISSUE_EXPONENT)
}

/// Time to move `bytes` with launch `w`: the units run in waves of `sms x cap` CTAs; a wave
/// of `r` resident CTAs per SM has `r x inflight` bytes in flight per SM and draws
/// `eff = x / (x + half_bw_inflight)` of the SM's share of the bandwidth; the last,
/// partial wave runs with `ceil(tail / sms)` per SM (a wave tail is slow, not free).
fn waves_time(dev: &super::device::Device, w: &Waves, bytes: f64) -> f64 {
    let sms = dev.sms.max(1) as u64;
    let units = w.units.max(1);
    let cap = w.cap_per_sm.max(1);
    let per_unit = bytes / units as f64;
    let bw_sm = dev.copy_bandwidth_bytes_per_s / sms as f64;
    let wave = |r: u64| {
        let x = r as f64 * w.inflight_per_cta;
        let (h, k) = (dev.model.half_bw_inflight, dev.model.inflight_knee);
        let eff = if k == 1.0 { x / (x + h) } else { x / (x.powf(k) + h.powf(k)).powf(1.0 / k) };
        let bandwidth = r as f64 * per_unit / (bw_sm * eff);
        // Rows in sequence; a lightly loaded SM answers faster (60% at 2 rows in flight
        // per SM: two CTAs of one row each).
        let m = &dev.model;
        let load = if w.cta_rows {
            1.0
        } else {
            (m.load_base + m.load_step * (r * w.rows_in_flight_per_cta.max(1)) as f64).min(1.0)
        };
        let latency = w.rows_per_unit * w.row_s * load;
        bandwidth.max(latency) + w.unit_tail_s
    };
    let slots = sms * cap;
    let (full, tail) = (units / slots, units % slots);
    let mut t = full as f64 * wave(cap);
    if tail > 0 {
        t += wave(tail.div_ceil(sms));
    }
    t
}

/// The launch of a pointwise kernel with partials that the lowering runs in the flat
/// partials form by default (`schedule::flat_partials_by_default`; docs/conversion-loop-to-gpu.md,
/// "Flat partials"), priced as it runs rather than as the row form: CTAs of `N x c` threads
/// (`schedule::flat_threads`), each thread `FLAT_VECTORS_IN_FLIGHT` 16-byte vectors of every
/// row input in flight, as many CTAs a SM as `flat_registers` leave resident, a grid of at
/// most those (one wave: each CTA takes an equal share of the rows) and of the
/// `ceil(rows / S)` splits, no row reduction to wait on. Priced as the row form (a warp per row
/// over short rows), a split of a quarter of a wave looked as fast as a full one, and the
/// plan took it (gelu_bwd_bias at 262144 x 100: 256 CTAs of 200 threads, 660 resident;
/// docs/perf.md, thirty-sixth session).
#[allow(clippy::too_many_arguments)]
fn flat_partials_waves(
    ctx: &Ctx,
    parts: &[Kernel],
    partial: Option<(usize, u64)>,
    row: Option<usize>,
    shape: &crate::conversion::schedule::NestShape,
    bytes: u64,
    row_inputs: u64,
    reductions: usize,
) -> Option<Waves> {
    use crate::conversion::schedule::{
        choose_schedule, flat_cta_threads, flat_partials_by_default, flat_planned_ctas, flat_registers, Mapping,
        Overrides, FLAT_VECTORS_IN_FLIGHT,
    };
    let (_, split) = partial?;
    let (rows, cols) = (shape.rows.unwrap_or(1).max(1), shape.cols.unwrap_or(1).max(1));
    let v = (16 / bytes.max(1)).clamp(1, 8);
    let pointwise = row.is_none() && reductions == 0;
    if !pointwise || v < 2 || !split.is_multiple_of(v) || !flat_partials_by_default(cols, bytes) {
        return None;
    }
    let dev = &ctx.device;
    let partials = parts.iter().filter(|p| matches!(p, Kernel::Partial { .. })).count();
    let t = flat_cta_threads(cols, v, partials.max(1) as u64, None);
    let cap = flat_planned_ctas(dev, t, FLAT_VECTORS_IN_FLIGHT as usize).max(1);
    let units = rows.div_ceil(split.max(1)).min(cap * dev.sms.max(1) as u64).max(1);
    // The schedule the lowering gives it: the thread-per-point heuristic's, with the flat CTA
    // and vector.
    let mut s = choose_schedule(Mapping::PartialPointwise, shape, dev, &Overrides::default());
    s.threads = t as u32;
    s.vector = v as u32;
    Some(Waves {
        units,
        grid_cap: units,
        cap_per_sm: cap,
        // A step's loads wait on the step's arithmetic before the next step's are issued:
        // about one vector of each row input a thread in flight on average, not all of them
        // (ncu, thirty-fifth session: its warps stalled on the load 56% of their cycles).
        inflight_per_cta: (t * 16 * row_inputs.max(1)) as f64,
        rows_per_unit: 0.0,
        row_s: 0.0,
        rows_in_flight_per_cta: 1,
        // Once a CTA: its partials combined through shared memory into its workspace row.
        unit_tail_s: partials as f64 * dev.model.flush_s,
        no_fills: false,
        cta_rows: false,
        warps_per_cta: t.div_ceil(32),
        regs: flat_registers(FLAT_VECTORS_IN_FLIGHT as usize),
        staged_rows: 0,
        schedule: s.summary(),
    })
}

/// The points of nest `n`'s iteration space and of its result (its kept axes; a pointwise
/// nest's result is its domain).
fn nest_points(ctx: &Ctx, n: usize) -> (u64, u64) {
    match &ctx.nest(n).kind {
        NestKind::Pointwise { domain } => (ctx.extents.numel(domain), ctx.extents.numel(domain)),
        NestKind::Reduction { kept, reduced, .. } => {
            (ctx.extents.numel(kept) * ctx.extents.numel(reduced), ctx.extents.numel(kept))
        }
    }
}

/// The longest chain of row reductions in `kernel` where each reads the result of the one
/// before (LayerNorm forward: the mean, then the variance around it: 2); at least 1.
fn row_chain_depth(kernel: &Kernel, ctx: &Ctx) -> usize {
    let rows: Vec<usize> = kernel
        .parts()
        .iter()
        .filter_map(|p| match p {
            Kernel::Nest(n) if ctx.is_row_reduction(*n) => Some(*n),
            _ => None,
        })
        .collect();
    let mut depth: BTreeMap<usize, usize> = BTreeMap::new();
    // Parts are in program order: producers come first.
    for &n in &rows {
        let reads: BTreeSet<usize> = ctx.nest(n).reads.iter().map(|a| a.buffer).collect();
        let d = rows
            .iter()
            .filter(|&&m| m != n && ctx.nest(m).writes.iter().any(|a| reads.contains(&a.buffer)))
            .filter_map(|m| depth.get(m))
            .max()
            .copied()
            .unwrap_or(0);
        depth.insert(n, d + 1);
    }
    depth.values().copied().max().unwrap_or(1)
}

/// Estimated lane instructions of a kernel's parts (`NestInfo::work` per point). A partial
/// next to a pointwise part of the same kernel sums values that part computes (the lowering
/// emits equal expressions once per row), so only the pointwise part counts; within a kernel
/// an expression two parts compute alike (by `NestInfo::exprs`: the same ops of the same
/// buffers, a softmax's `exp(x - max)` in its sum and its output) runs once per point.
fn kernel_work(parts: &[Kernel], ctx: &Ctx) -> f64 {
    let has_pointwise =
        parts.iter().any(|p| matches!(p, Kernel::Nest(n) if matches!(ctx.nest(*n).kind, NestKind::Pointwise { .. })));
    let mut seen = std::collections::HashSet::new();
    parts
        .iter()
        .filter_map(|p| match p {
            Kernel::Nest(n) => Some(*n),
            Kernel::Partial { nest: n, .. } if !has_pointwise => Some(*n),
            _ => None,
        })
        .map(|n| {
            let nest = ctx.nest(n);
            let repeated: u32 = nest.exprs.iter().filter(|(h, _)| !seen.insert(*h)).map(|(_, c)| c).sum();
            nest_points(ctx, n).0 as f64 * nest.work.saturating_sub(repeated).max(1) as f64
        })
        .sum()
}

/// The launch shape of `kernel` as `lower-loop-to-gpu` will emit it (its schedule from
/// [`choose_schedule`], the heuristic the lowering runs), for the cost model.
fn launch_shape(
    kernel: &Kernel,
    ctx: &Ctx,
    reads: &BTreeMap<Buf, (u64, Vec<super::Axis>)>,
    partial: Option<(usize, u64)>,
    row: Option<usize>,
) -> LaunchShape {
    use crate::conversion::schedule::{
        choose_schedule, fast_regs, resident_ctas, Mapping, NestShape, Overrides, PartialStore, REG_BASE,
    };
    let dev = &ctx.device;
    let o = Overrides::default();
    // Bytes per point of every buffer read from memory, and the widest element.
    let mut point_bytes = 0u64;
    let mut widest = 1u64;
    for (b, (bytes, axes)) in reads {
        if let Buf::Mem(_) = b {
            let e = bytes / ctx.extents.numel(axes).max(1);
            point_bytes += e;
            widest = widest.max(e);
        }
    }
    let parts = kernel.parts();
    // A row kernel: its row reduction's rows and columns; or a 2-D pointwise kernel with a
    // partial, which the lowering runs in the row form (no reductions; rows over several
    // reduced dims collapsed into one), as it does a partial alone over at least
    // ROW_FORM_MIN_COLS columns.
    let row_geometry = match (row, partial) {
        (Some(r), _) => match &ctx.nest(r).kind {
            NestKind::Reduction { kept, reduced, .. } => Some((kept.clone(), reduced.clone())),
            NestKind::Pointwise { .. } => None,
        },
        (None, Some((n, _))) if !parts.iter().any(|p| matches!(p, Kernel::Final { .. })) => match &ctx.nest(n).kind {
            NestKind::Reduction { kept, reduced, .. }
                if kept.len() == 1
                    && !reduced.is_empty()
                    && (parts.iter().any(|p| matches!(p, Kernel::Nest(_)))
                        || ctx.extents.numel(kept) >= crate::conversion::loop_to_gpu::ROW_FORM_MIN_COLS) =>
            {
                Some((reduced.clone(), kept.clone()))
            }
            _ => None,
        },
        _ => None,
    };
    if let Some((kept, reduced)) = &row_geometry {
        let (rows, cols) = (ctx.extents.numel(kept).max(1), ctx.extents.numel(reduced).max(1));
        let partials = parts.iter().filter(|p| matches!(p, Kernel::Partial { .. })).count() as u64;
        let reductions = parts.iter().filter(|p| matches!(p, Kernel::Nest(n) if ctx.is_row_reduction(*n))).count();
        // Row inputs ([rows, cols] tensors) and hoisted [cols] vectors.
        let mut row_bytes = 0u64;
        let mut hoisted = 0u64;
        let mut row_inputs = 0u64;
        // The widest element the row form accesses by column (row inputs, hoisted vectors,
        // row outputs), as the lowering sizes its vectors (`FastPlan::bytes`): not a per-row
        // scalar such as an f32 `rstd[i]` beside bf16 rows.
        let mut col_widest = 0u64;
        // Whether a nest outside the kernel reads one of its row inputs too (the lowering
        // then leaves them cached: `LowerNest::stream_buffers`).
        let in_kernel = kernel.nests();
        let mut row_read_elsewhere = false;
        for (b, (bytes, axes)) in reads {
            let Buf::Mem(m) = b else { continue };
            if !reduced.iter().all(|a| axes.contains(a)) {
                continue;
            }
            col_widest = col_widest.max(bytes / ctx.extents.numel(axes).max(1));
            if axes.len() > reduced.len() {
                row_bytes += bytes / (rows * cols);
                row_inputs += 1;
                row_read_elsewhere |= ctx.readers.get(m).is_some_and(|r| r.iter().any(|n| !in_kernel.contains(n)));
            } else {
                hoisted += 1;
            }
        }
        // Row outputs: [rows, cols] tensors a nest of the kernel writes, known by their axes
        // (by bytes, a per-row f32 result of rows of N <= 4 bf16 looked like one).
        let row_out = parts
            .iter()
            .filter_map(|p| match p {
                Kernel::Nest(n) => Some(*n),
                _ => None,
            })
            .flat_map(|n| ctx.nest(n).writes.iter())
            .filter(|a| a.axes.len() > reduced.len() && reduced.iter().all(|x| a.axes.contains(x)))
            .map(|a| a.elem_bytes as u64)
            .max();
        if let Some(b) = row_out {
            col_widest = col_widest.max(b);
        }
        let col_widest = if col_widest > 0 { col_widest } else { widest };
        // A kernel that writes no [rows, cols] tensor only reduces its rows (the lowering
        // sizes a short row's lanes by them), and streams their loads unless a nest outside
        // it reads them too.
        let reduces_only = row_inputs > 0 && row_out.is_none();
        let streams = reduces_only && !row_read_elsewhere;
        // The widest element the kernel loads or stores, as the lowering counts it
        // (`LowerNest::nest_shape`: its written reductions too, not the partials it
        // accumulates).
        let mut elem_bytes = widest;
        for p in parts {
            if let Kernel::Nest(n) = p {
                // What it stores: a buffer read outside the kernel, or an output (a row's
                // reduction that only the kernel reads stays in registers).
                for a in ctx.nest(*n).writes.iter().filter(|a| escapes(ctx, a.buffer, &in_kernel)) {
                    elem_bytes = elem_bytes.max(a.elem_bytes as u64);
                }
            }
        }
        // The shape the lowering gives a flat partials kernel (`KernelBuilder::flat_partials`).
        let flat_shape = NestShape {
            rows: Some(rows),
            cols: Some(cols),
            elem_bytes: elem_bytes as u32,
            streams_inputs: streams,
            reduces_only,
            ..NestShape::default()
        };
        if let Some(w) = flat_partials_waves(ctx, parts, partial, row, &flat_shape, col_widest, row_inputs, reductions)
        {
            return LaunchShape::Waves(w);
        }
        let fused_row = matches!(kernel, Kernel::Fused { style: Some(_), .. }) || row.is_none();
        let mapping = if fused_row { Mapping::RowFused } else { Mapping::RowReduction };
        let shape = NestShape {
            rows: Some(rows),
            cols: Some(cols),
            elem_bytes: elem_bytes as u32,
            partials: partials as u32,
            shared_ok: true,
            fast_bytes: if fused_row { col_widest as u32 } else { 0 },
            row_inputs: row_inputs as u32,
            hoisted: hoisted as u32,
            row_reductions: reductions as u32,
            work_per_point: (kernel_work(parts, ctx) / (rows * cols) as f64).round() as u32,
            streams_inputs: streams,
            reduces_only,
            rereads_inputs: false,
        };
        let s = choose_schedule(mapping, &shape, dev, &o);
        let (t, tpr, rpc) = (s.threads as u64, s.threads_per_row.max(1) as u64, s.rows_per_cta.max(1) as u64);
        let units = match partial {
            Some((_, split)) => rows.div_ceil(split.max(1)),
            None => rows.div_ceil(rpc),
        };
        // Packed rows (a thread per short row): each step loads `packed` rows of a thread
        // (in aligned pieces of up to 16 bytes of each row input), so a split takes that many
        // times fewer steps with that many times the bytes in flight.
        let packed = s.fast.map_or(1, |f| f.packed_rows.max(1)) as u64;
        let (regs, inflight) = match s.fast {
            // Register-resident rows: each thread holds its columns of every row input,
            // hoisted vector and partial, and loads its whole share of a row at once.
            // The reload form holds its partials and one pass's loads (`fast_regs`).
            Some(_) => {
                let r = s.rows_in_flight_per_warp.max(1);
                (fast_regs(&shape, cols.div_ceil(tpr), &s), (rpc * packed * cols * row_bytes * r as u64) as f64)
            }
            // Looped rows: each thread loads one element of every row input per step, about
            // two steps in flight (measured: the unfused row reductions of the norms at
            // 65536 x 1024, 77-138 us).
            None => (REG_BASE + 16, (t * 2 * row_bytes.max(1)) as f64),
        };
        // Per row: the round trip, the chain of dependent reductions, the others.
        let depth = row_chain_depth(kernel, ctx).min(reductions) as f64;
        let chain = if tpr > 32 { CHAIN_S } else { dev.model.warp_chain_s };
        // A CTA per row: every block reduction waits on its barriers, dependent or not.
        let other = if tpr > 32 { CHAIN_S } else { INDEPENDENT_S };
        let row_s = if s.staged_rows >= 2 {
            // Rows staged through shared memory (the schedule's ring): the copies of the next
            // rows are in flight while the CTA reduces this one, so a row waits for a share
            // of one round trip and for its own block reductions only.
            dev.model.row_trip_s / s.staged_rows as f64 + reductions as f64 * STAGED_REDUCTION_S
        } else {
            dev.model.row_trip_s + depth * chain + (reductions as f64 - depth).max(0.0) * other
        };
        let rows_per_unit = match partial {
            Some((_, split)) => split.min(rows) as f64 / (rpc * packed) as f64,
            None => 1.0,
        };
        let cap = resident_ctas(dev, t, regs).min(s.max_grid.div_ceil(dev.sms.max(1) as u64).max(1));
        // Shared partials: at the end of each split the warps' partial rows are combined in
        // shared memory and added to the workspace, behind barriers.
        let unit_tail_s = if s.partials == PartialStore::Shared { partials as f64 * dev.model.flush_s } else { 0.0 };
        return LaunchShape::Waves(Waves {
            units,
            grid_cap: s.max_grid,
            cap_per_sm: cap,
            inflight_per_cta: inflight,
            rows_per_unit,
            row_s,
            rows_in_flight_per_cta: rpc,
            unit_tail_s,
            no_fills: s.partials == PartialStore::Shared && s.fast.is_some(),
            cta_rows: tpr > 32 && reductions > 0,
            warps_per_cta: t.div_ceil(32),
            regs,
            staged_rows: s.staged_rows,
            schedule: s.summary(),
        });
    }
    if let Some(Kernel::Final { nest, .. }) = parts.first() {
        let cols = match &ctx.nest(*nest).kind {
            NestKind::Reduction { kept, .. } => ctx.extents.numel(kept),
            NestKind::Pointwise { domain } => ctx.extents.numel(domain),
        };
        return LaunchShape::Final { ctas: final_ctas(cols, dev) };
    }
    // Pointwise work, with or without partials: a thread per point (or per split and
    // kept point), one element of each input per thread in flight.
    let numel = parts
        .iter()
        .map(|p| match p {
            Kernel::Nest(n) | Kernel::Partial { nest: n, .. } | Kernel::Final { nest: n, .. } => nest_points(ctx, *n).0,
            Kernel::Fused { .. } => 0,
        })
        .max()
        .unwrap_or(1)
        .max(1);
    let column = match parts {
        [Kernel::Nest(n)] => match &ctx.nest(*n).kind {
            NestKind::Reduction { kept, reduced, .. } => Some((ctx.extents.numel(reduced), ctx.extents.numel(kept))),
            _ => None,
        },
        _ => None,
    };
    let shape = NestShape { elem_bytes: widest as u32, ..NestShape::default() };
    let s = choose_schedule(Mapping::ThreadPerPoint, &shape, dev, &o);
    let t = s.threads as u64;
    let cap = resident_ctas(dev, t, 32);
    let inflight = (t * point_bytes.max(1)) as f64;
    match (column, partial) {
        // A column reduction of more than 32 rows is split-K (short ones run a thread per
        // column, one launch: the lowering's `ColumnNotSplittable`).
        (Some((rows, cols)), None) if rows > 32 => {
            // Split-K: blocks of split_rows rows, a thread per (block, column).
            let shape = NestShape { rows: Some(rows), cols: Some(cols), ..shape };
            let sp = choose_schedule(Mapping::SplitPartial, &shape, dev, &o);
            // The heuristic's rows a block are the least: the host raises them until the
            // blocks fit one wave of the threads the device holds (`split_partial` in the
            // lowering, from the kernel's own resident CTAs; here the light kernel's `cap`).
            let fit = (cap * dev.sms.max(1) as u64 * t / cols.max(1)).max(1);
            let blocks = rows.div_ceil(sp.split_rows.max(1).max(rows.div_ceil(fit)));
            let ctas = blocks * cols.div_ceil(t);
            // A thread loads STRIDED_UNROLL rows of its block at once.
            let unroll = crate::conversion::loop_to_gpu::STRIDED_UNROLL as f64;
            let w = Waves {
                units: ctas,
                grid_cap: ctas,
                cap_per_sm: cap,
                inflight_per_cta: inflight * unroll,
                rows_per_unit: 0.0,
                row_s: 0.0,
                rows_in_flight_per_cta: 1,
                unit_tail_s: 0.0,
                no_fills: false,
                cta_rows: false,
                warps_per_cta: t.div_ceil(32),
                regs: 0,
                staged_rows: 0,
                schedule: String::new(),
            };
            LaunchShape::SplitK { partial: w, ctas: final_ctas(cols, dev), ws_bytes: blocks * cols * 4 }
        }
        (_, Some((n, split))) => {
            let (rows, kept) = match &ctx.nest(n).kind {
                NestKind::Reduction { kept, reduced, .. } => (ctx.extents.numel(reduced), ctx.extents.numel(kept)),
                NestKind::Pointwise { domain } => (ctx.extents.numel(domain), 1),
            };
            // A thread per (split, kept point) walks the split's rows, PARTIAL_UNROLL at a
            // time (their loads in flight together). Credited at 1 until measured on the
            // device (the calibration sweep timed the one-row form).
            let unroll = PARTIAL_UNROLL_CREDIT;
            let split = split.clamp(1, rows.max(1));
            LaunchShape::Waves(Waves {
                units: (rows.div_ceil(split) * kept).div_ceil(t).max(1),
                grid_cap: s.max_grid,
                cap_per_sm: cap,
                inflight_per_cta: inflight * split.min(unroll) as f64,
                rows_per_unit: split.div_ceil(unroll) as f64,
                row_s: POINT_TRIP_S,
                rows_in_flight_per_cta: 1,
                unit_tail_s: 0.0,
                no_fills: false,
                cta_rows: false,
                warps_per_cta: t.div_ceil(32),
                regs: 0,
                staged_rows: 0,
                schedule: String::new(),
            })
        }
        _ => LaunchShape::Waves(Waves {
            // A thread per point, grid-stride: a CTA's threads take one point each per step.
            units: numel.div_ceil(t).max(1),
            grid_cap: s.max_grid,
            cap_per_sm: cap,
            inflight_per_cta: inflight,
            rows_per_unit: 1.0,
            row_s: POINT_TRIP_S,
            rows_in_flight_per_cta: 1,
            unit_tail_s: 0.0,
            no_fills: false,
            cta_rows: false,
            warps_per_cta: t.div_ceil(32),
            regs: 0,
            staged_rows: 0,
            schedule: String::new(),
        }),
    }
}

/// The byte floor of the nests in `ctx`: external inputs read once, outputs written once.
pub fn floor_bytes(ctx: &Ctx) -> u64 {
    let written: BTreeSet<usize> = ctx.nests.iter().flat_map(|n| n.writes.iter().map(|a| a.buffer)).collect();
    let mut inputs: BTreeMap<usize, u64> = BTreeMap::new();
    let mut outputs: BTreeMap<usize, u64> = BTreeMap::new();
    for n in &ctx.nests {
        for a in &n.reads {
            if !written.contains(&a.buffer) {
                let e = inputs.entry(a.buffer).or_insert(0);
                *e = (*e).max(ctx.access_bytes(&a.axes, a.elem_bytes));
            }
        }
        for a in &n.writes {
            if ctx.readers.get(&a.buffer).is_none_or(|r| r.is_empty()) {
                let e = outputs.entry(a.buffer).or_insert(0);
                *e = (*e).max(ctx.access_bytes(&a.axes, a.elem_bytes));
            }
        }
    }
    inputs.values().sum::<u64>() + outputs.values().sum::<u64>()
}

/// Each of `plans` with its [`plan_cost`] under `ctx`, in order.
pub fn priced(plans: impl IntoIterator<Item = Plan>, ctx: &Ctx) -> Vec<(Plan, CostBreakdown)> {
    plans
        .into_iter()
        .map(|p| {
            let c = plan_cost(&p, ctx);
            (p, c)
        })
        .collect()
}

/// The split each partial of a row-fused kernel of `plan` runs at, by nest, where it differs
/// from the plan's: under [`SearchConfig::run_time_split`](super::SearchConfig::run_time_split)
/// the fusion pass sizes those splits at run time (`FuseMixedReductions::partials`):
/// - `partials = K`: `ceil(rows / K)` rows a partial;
/// - `partials = resident*R`: `max(S, ceil(rows / (R x resident)))`, `resident` the row
///   kernel's CTAs the device holds at once ([`KernelCost::resident`] of its priced schedule),
///   except where the plan's split has at most `R x assumed` partials at this size (one wave:
///   the pass keeps its constant split,
///   [`SplitSize::keeps_constant_split`](crate::transforms::loop_partial_accumulate::SplitSize::keeps_constant_split)).
///
/// Priced at the plan's split instead, a short split looked like several waves of partials and
/// flushes where the row kernel runs one balanced split a CTA (LayerNorm backward at 65536 x
/// 200: priced at 1024 partials, ran 396; docs/perf.md, thirty-eighth session).
pub fn run_time_splits(plan: &Plan, ctx: &Ctx) -> BTreeMap<usize, u64> {
    splits_at_run_time(plan, ctx, &|k| kernel_cost(k, ctx).resident)
}

/// [`run_time_splits`] with each row kernel's resident CTAs from `resident` (the kernel's
/// cost, which [`plan_cost`] has already computed).
fn splits_at_run_time(plan: &Plan, ctx: &Ctx, resident: &dyn Fn(&Kernel) -> u64) -> BTreeMap<usize, u64> {
    use crate::transforms::loop_partial_accumulate::SplitSize;
    let mut out = BTreeMap::new();
    let Some(mode) = ctx.cfg.run_time_split else { return out };
    for k in plan.kernels.iter().filter(|k| matches!(k, Kernel::Fused { style: Some(_), .. })) {
        let mut r = None;
        for p in k.parts() {
            let Kernel::Partial { nest, split } = *p else { continue };
            let NestKind::Reduction { reduced, .. } = &ctx.nest(nest).kind else { continue };
            let rows = ctx.extents.numel(reduced).max(1);
            let split = split.max(1);
            let at = match mode {
                _ if mode.keeps_constant_split(rows, split) => split,
                SplitSize::Partials(k) => rows.div_ceil(k.max(1)),
                SplitSize::Resident { multiple, .. } => {
                    let r = *r.get_or_insert_with(|| resident(k).max(1));
                    split.max(rows.div_ceil(multiple.max(1) * r))
                }
                _ => split,
            };
            if at != split {
                out.insert(nest, at);
            }
        }
    }
    out
}

/// The cost of a plan: the sum over its distinct kernels (a kernel listed twice runs once),
/// each partial of a row-fused kernel and its final at the split it runs at
/// ([`run_time_splits`]; the kernel's note says so, its label keeps the plan's split).
pub fn plan_cost(plan: &Plan, ctx: &Ctx) -> CostBreakdown {
    let mut seen = BTreeSet::new();
    let distinct: Vec<&Kernel> = plan.kernels.iter().filter(|k| seen.insert((*k).clone())).collect();
    // Each kernel at the plan's own splits; those whose partials run at another split are
    // priced again at it.
    let fixed: Vec<KernelCost> = distinct.iter().map(|k| kernel_cost(k, ctx)).collect();
    let runs = splits_at_run_time(plan, ctx, &|k| {
        distinct.iter().position(|d| *d == k).map_or_else(|| kernel_cost(k, ctx).resident, |i| fixed[i].resident)
    });
    let fixed_split_s: f64 = fixed.iter().map(|c| c.time_s).sum();
    let kernels: Vec<KernelCost> = distinct
        .iter()
        .zip(fixed)
        .map(|(k, fixed)| {
            let nests = k.nests();
            if !nests.iter().any(|n| runs.contains_key(n)) {
                return fixed;
            }
            let mut c = kernel_cost(&k.with_splits(&|n, s| runs.get(&n).copied().unwrap_or(s)), ctx);
            c.label = k.to_string();
            let at: Vec<String> =
                runs.iter().filter(|(n, _)| nests.contains(n)).map(|(n, s)| format!("nest{n} S={s}")).collect();
            let sep = if c.note.is_empty() { "" } else { ", " };
            c.note.push_str(&format!("{sep}priced at the run-time split ({})", at.join(", ")));
            c
        })
        .collect();
    let floor = floor_bytes(ctx);
    let total_s = kernels.iter().map(|k| k.time_s).sum();
    CostBreakdown {
        total_s,
        fixed_split_s,
        total_bytes: kernels.iter().map(|k| k.bytes_read + k.bytes_written + k.workspace_bytes).sum(),
        launches: kernels.iter().map(|k| k.launches).sum(),
        floor_bytes: floor,
        floor_s: floor as f64 / ctx.device.copy_bandwidth_bytes_per_s,
        kernels,
    }
}

/// Total order of costed plans: time, then fewer partials, fewer looped rows, fewer kernels,
/// the time priced at the plan's own splits, then the printed plan (so ties never depend on
/// hashing).
///
/// Plans that differ only in the splits of row-fused partials price alike wherever the
/// run-time split is the longer ([`run_time_splits`]); among them the plan the model would
/// take at its fixed splits ([`CostBreakdown::fixed_split_s`]) wins, so the run-time pricing
/// moves a plan only where it changes what runs (the longest of them instead moved tuned
/// plans whose occupancy at run time exceeds the model's count: RMSNorm backward f32 at
/// 576000 x 384, S = 256 -> 1024).
pub fn plan_order(a: &(Plan, CostBreakdown), b: &(Plan, CostBreakdown)) -> Ordering {
    a.1.total_s
        .total_cmp(&b.1.total_s)
        .then(a.0.partials().cmp(&b.0.partials()))
        .then(a.0.looped().cmp(&b.0.looped()))
        .then(a.0.kernels.len().cmp(&b.0.kernels.len()))
        .then_with(|| a.1.fixed_split_s.total_cmp(&b.1.fixed_split_s))
        .then_with(|| a.0.to_string().cmp(&b.0.to_string()))
}

type Options = Rc<Vec<(f64, Vec<Id>)>>;

/// Extracts the `k` cheapest plans of a class, each costed as a DAG (a kernel class used twice
/// in one plan counts once).
///
/// egg's `Extractor` picks one node per class by a tree cost; here the cost of a `seq`
/// alternative depends on the whole suffix it heads, and the report wants several plans, so each
/// plan class keeps its `k` cheapest suffixes, bottom-up (plan classes form a DAG: every `seq`
/// tail computes strictly fewer nests than its head).
pub struct DagExtractor<'a> {
    egraph: &'a EGraph<PlanLang, PlanAnalysis>,
    k: usize,
    memo: HashMap<Id, Options>,
    kernel_costs: HashMap<Id, f64>,
}

impl<'a> DagExtractor<'a> {
    /// An extractor keeping `k` plans per class.
    pub fn new(egraph: &'a EGraph<PlanLang, PlanAnalysis>, k: usize) -> Self {
        DagExtractor { egraph, k: k.max(1), memo: HashMap::new(), kernel_costs: HashMap::new() }
    }

    /// The cheapest plans of `root`, cheapest first, deduplicated.
    pub fn plans(&mut self, root: Id) -> Vec<Plan> {
        let options = self.options(root);
        let mut out: Vec<Plan> = Vec::new();
        for (_, ks) in options.iter() {
            let plan = Plan { kernels: ks.iter().map(|&k| self.kernel(k).clone()).collect() };
            if !out.contains(&plan) {
                out.push(plan);
            }
        }
        out
    }

    fn kernel(&self, id: Id) -> &Kernel {
        match &self.egraph[id].data {
            Data::Kernel(k) => &k.kernel,
            d => panic!("expected a kernel class, found {d:?}"),
        }
    }

    fn kernel_cost(&mut self, id: Id) -> f64 {
        if let Some(&c) = self.kernel_costs.get(&id) {
            return c;
        }
        let c = kernel_cost(self.kernel(id), &self.egraph.analysis.ctx).time_s;
        self.kernel_costs.insert(id, c);
        c
    }

    fn options(&mut self, id: Id) -> Options {
        let id = self.egraph.find(id);
        if let Some(o) = self.memo.get(&id) {
            return o.clone();
        }
        // Guard against a cycle (none is expected): a class under evaluation offers nothing.
        self.memo.insert(id, Rc::new(vec![]));
        let mut out: Vec<(f64, Vec<Id>)> = Vec::new();
        for node in self.egraph[id].nodes.clone() {
            match node {
                PlanLang::End => out.push((0.0, vec![])),
                PlanLang::Seq([k, rest]) => {
                    let k = self.egraph.find(k);
                    let kc = self.kernel_cost(k);
                    for (c, ks) in self.options(rest).iter() {
                        let add = if ks.contains(&k) { 0.0 } else { kc };
                        let mut v = Vec::with_capacity(ks.len() + 1);
                        v.push(k);
                        v.extend_from_slice(ks);
                        out.push((c + add, v));
                    }
                }
                _ => {}
            }
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        out.dedup_by(|a, b| a.1 == b.1);
        out.truncate(self.k);
        let out = Rc::new(out);
        self.memo.insert(id, out.clone());
        out
    }
}
