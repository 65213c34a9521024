//! The cost model and the DAG extractor.
//!
//! The problem is memory-bound, so a kernel costs its DRAM traffic over the bandwidth it can
//! draw, plus a fixed launch overhead:
//!
//! ```text
//! time = launch_overhead
//!      + (bytes_read + bytes_written + workspace_bytes + dram_reread) / (bandwidth * eff)
//!      + l2_reread / (l2_bandwidth * eff)
//! eff  = min(1, ctas * sm_share / sms) // a grid smaller than the machine draws less bandwidth
//!      * ctas / (ceil(ctas / slots) * slots)   // wave quantization when ctas > slots
//! slots = sms * (1 for a kernel holding a partial, whose programs loop over S rows; else 8)
//! ```
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
//! * `ctas`: a kernel holding a partial runs `ceil(rows/S)` programs; a row kernel
//!   `min(rows, numel/2048)`; a final `ceil(cols/32)`; anything else `numel/2048`.

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
                // Readers outside this kernel, or none at all (an output), need it in memory.
                let readers = ctx.readers.get(b);
                let escapes = readers.is_none_or(|r| r.is_empty() || r.iter().any(|n| !in_kernel.contains(n)));
                if escapes {
                    c.bytes_written += bytes;
                }
            }
        }
    }

    // Parallelism.
    let numel_of = |n: usize| match &ctx.nest(n).kind {
        NestKind::Pointwise { domain } => (ctx.extents.numel(domain), ctx.extents.numel(domain)),
        NestKind::Reduction { kept, reduced, .. } => {
            (ctx.extents.numel(kept) * ctx.extents.numel(reduced), ctx.extents.numel(kept))
        }
    };
    let partial = parts.iter().find_map(|p| match p {
        Kernel::Partial { nest, split } => Some((*nest, *split)),
        _ => None,
    });
    let row = parts.iter().find_map(|p| match p {
        Kernel::Nest(n) if ctx.is_row_reduction(*n) => Some(*n),
        _ => None,
    });
    c.ctas = if let Some((n, s)) = partial {
        match &ctx.nest(n).kind {
            NestKind::Reduction { reduced, .. } => ctx.extents.numel(reduced).div_ceil(s.max(1)),
            NestKind::Pointwise { .. } => 1,
        }
    } else if let Some(r) = row {
        let (numel, rows) = numel_of(r);
        rows.min(numel.div_ceil(2048))
    } else if let Some(Kernel::Final { nest, .. }) = parts.first() {
        numel_of(*nest).1.div_ceil(32)
    } else {
        parts
            .iter()
            .map(|p| match p {
                Kernel::Nest(n) | Kernel::Partial { nest: n, .. } | Kernel::Final { nest: n, .. } => numel_of(*n).0,
                Kernel::Fused { .. } => 0,
            })
            .max()
            .unwrap_or(1)
            .div_ceil(2048)
    }
    .max(1);

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
                let rows = numel_of(r).1.max(1);
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
    // A partial's programs each loop over S rows, one resident per SM, so a grid of 141 on 132
    // SMs runs two waves; short programs (8 resident per SM) hide the tail.
    let resident = if partial.is_some() { 1 } else { 8 };
    let slots = dev.sms.max(1) as u64 * resident;
    let waves = if c.ctas > slots { c.ctas as f64 / (c.ctas.div_ceil(slots) * slots) as f64 } else { 1.0 };
    let eff = (c.ctas as f64 * dev.sm_bandwidth_share / dev.sms.max(1) as f64).min(1.0) * waves;
    c.time_s = if c.feasible {
        dev.launch_overhead_s
            + (c.bytes_read + c.bytes_written + c.workspace_bytes) as f64 / (dev.copy_bandwidth_bytes_per_s * eff)
            + c.l2_reread_bytes as f64 / (dev.l2_bandwidth_bytes_per_s * eff)
    } else {
        f64::INFINITY
    };
    c
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

/// The cost of a plan: the sum over its distinct kernels (a kernel listed twice runs once).
pub fn plan_cost(plan: &Plan, ctx: &Ctx) -> CostBreakdown {
    let mut seen = BTreeSet::new();
    let kernels: Vec<KernelCost> =
        plan.kernels.iter().filter(|k| seen.insert((*k).clone())).map(|k| kernel_cost(k, ctx)).collect();
    let floor = floor_bytes(ctx);
    CostBreakdown {
        total_s: kernels.iter().map(|k| k.time_s).sum(),
        total_bytes: kernels.iter().map(|k| k.bytes_read + k.bytes_written + k.workspace_bytes).sum(),
        launches: kernels.iter().map(|k| k.launches).sum(),
        floor_bytes: floor,
        floor_s: floor as f64 / ctx.device.copy_bandwidth_bytes_per_s,
        kernels,
    }
}

/// Total order of costed plans: time, then fewer partials, fewer looped rows, fewer kernels,
/// then the printed plan (so ties never depend on hashing).
pub fn plan_order(a: &(Plan, CostBreakdown), b: &(Plan, CostBreakdown)) -> Ordering {
    a.1.total_s
        .total_cmp(&b.1.total_s)
        .then(a.0.partials().cmp(&b.0.partials()))
        .then(a.0.looped().cmp(&b.0.looped()))
        .then(a.0.kernels.len().cmp(&b.0.kernels.len()))
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
