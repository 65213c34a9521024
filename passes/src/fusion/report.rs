//! The `--fusion-report` text and the Graphviz dump.
//!
//! The report is for people: per group of nests it says which reductions share which inputs
//! along which axes, the plans considered with their bytes, launches and estimated time (and
//! their share of the byte floor), the plan chosen, why each pair of reductions was *not* put in
//! one kernel (in the spirit of Inductor's "why no fuse" log), and, for dynamic sizes, on which
//! range of the size each plan wins. Dependences between nests are asked of the petgraph flow
//! graph of [`super::deps`].

use std::fmt::Write;
use std::time::Duration;

use egg::EGraph;
use petgraph::algo::has_path_connecting;

use super::analysis::{Ctx, PlanAnalysis};
use super::cost::{self, CostBreakdown};
use super::deps::{self, FlowGraph};
use super::lang::PlanLang;
use super::{Axis, Device, Extents, GroupResult, Kernel, NestInfo, NestKind, Plan, RowStyle, SearchConfig};

fn axes(a: &[Axis]) -> String {
    let v: Vec<String> = a.iter().map(|a| format!("d{}", a.0)).collect();
    format!("[{}]", v.join(","))
}

fn us(s: f64) -> String {
    if s.is_finite() {
        format!("{:.1} us", s * 1e6)
    } else {
        "infeasible".to_string()
    }
}

fn mb(b: u64) -> String {
    match b {
        0..1_000 => format!("{b} B"),
        1_000..1_000_000 => format!("{:.1} KB", b as f64 / 1e3),
        _ => format!("{:.3} MB", b as f64 / 1e6),
    }
}

/// Renders the report of a search.
pub fn render(
    nests: &[NestInfo],
    extents: &Extents,
    device: &Device,
    cfg: &SearchConfig,
    groups: &[GroupResult],
    elapsed: Duration,
) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "fuse-mixed-reductions report");
    let _ = writeln!(w, "device: {device}");
    let sizes: Vec<String> = (0..extents.sizes.len())
        .map(|i| match extents.sizes[i] {
            Some(s) => format!("d{i}={s}"),
            None => format!("d{i}=? (hint {})", extents.size(Axis(i))),
        })
        .collect();
    let _ = writeln!(w, "extents: {}", sizes.join(" "));
    let nodes: usize = groups.iter().map(|g| g.egraph_nodes).sum();
    let classes: usize = groups.iter().map(|g| g.egraph_classes).sum();
    let _ = writeln!(
        w,
        "{} nests in {} groups; e-graphs: {nodes} nodes, {classes} classes; search {:.2} ms",
        nests.len(),
        groups.len(),
        elapsed.as_secs_f64() * 1e3
    );
    for (gi, g) in groups.iter().enumerate() {
        let members: Vec<NestInfo> = g.nests.iter().map(|&i| nests[i].clone()).collect();
        let ctx = Ctx::new(members, nests, extents.clone(), device.clone(), cfg.clone());
        group(w, gi, g, &ctx, nests, cfg);
    }
    out
}

fn group(w: &mut String, gi: usize, g: &GroupResult, ctx: &Ctx, all: &[NestInfo], cfg: &SearchConfig) {
    let ids: Vec<String> = g.nests.iter().map(|n| format!("nest{n}")).collect();
    let _ = writeln!(w, "\n== group {gi}: {} ==", ids.join(", "));
    for n in &ctx.nests {
        let what = match &n.kind {
            NestKind::Pointwise { domain } => format!("pointwise over {}", axes(domain)),
            NestKind::Reduction { kept, reduced, combiner, .. } => {
                let order = if ctx.is_row_reduction(n.id) {
                    "row (inner) reduction"
                } else if ctx.is_outer_reduction(n.id) {
                    "column (outer) reduction"
                } else {
                    "reduction"
                };
                format!("{order}: {combiner} over {} kept {}", axes(reduced), axes(kept))
            }
        };
        let _ = writeln!(w, "  {}  -- {what}", n.name);
    }
    let reds: Vec<&NestInfo> = ctx.nests.iter().filter(|n| matches!(n.kind, NestKind::Reduction { .. })).collect();
    let _ = writeln!(w, "shared inputs of reductions:");
    let mut any = false;
    for (i, a) in reds.iter().enumerate() {
        for b in &reds[i + 1..] {
            let shared: Vec<String> = a
                .reads
                .iter()
                .filter(|ra| b.reads.iter().any(|rb| rb.buffer == ra.buffer))
                .map(|ra| format!("b{}{}", ra.buffer, axes(&ra.axes)))
                .collect();
            if !shared.is_empty() {
                any = true;
                let _ = writeln!(
                    w,
                    "  nest{} (reduces {}) & nest{} (reduces {}): {}",
                    a.id,
                    reduced_of(a),
                    b.id,
                    reduced_of(b),
                    shared.join(", ")
                );
            }
        }
    }
    if !any {
        let _ = writeln!(w, "  (none)");
    }
    let floor = cost::floor_bytes(ctx);
    let _ = writeln!(
        w,
        "byte floor: {} = {} at {:.2} TB/s",
        mb(floor),
        us(floor as f64 / ctx.device.copy_bandwidth_bytes_per_s),
        ctx.device.copy_bandwidth_bytes_per_s / 1e12
    );
    let _ = writeln!(
        w,
        "e-graph: {} nodes, {} classes, {} iterations, stopped: {}",
        g.egraph_nodes, g.egraph_classes, g.iterations, g.stop_reason
    );
    let _ = writeln!(w, "plans considered (best of each shape, cheapest first):");
    for (i, (p, c)) in g.candidates.iter().enumerate() {
        let mark = if *p == g.chosen { " <- chosen" } else { "" };
        let _ = writeln!(
            w,
            "  #{} {} | {} launches | {} | {:.1}% of floor{mark}",
            i + 1,
            us(c.total_s),
            c.launches,
            mb(c.total_bytes),
            c.floor_fraction() * 100.0
        );
        let _ = writeln!(w, "     {p}");
        for k in &c.kernels {
            let _ = writeln!(
                w,
                "       - {}: read {}, write {}, workspace {}{}, {} CTAs, {}{}",
                k.label,
                mb(k.bytes_read),
                mb(k.bytes_written),
                mb(k.workspace_bytes),
                if k.l2_reread_bytes > 0 { format!(", L2 re-read {}", mb(k.l2_reread_bytes)) } else { String::new() },
                k.ctas,
                us(k.time_s),
                if k.note.is_empty() { String::new() } else { format!("; {}", k.note) }
            );
        }
    }
    let chosen_cost = cost::plan_cost(&g.chosen, ctx);
    let _ = writeln!(w, "chosen: {} ({})", g.chosen, us(chosen_cost.total_s));
    for k in chosen_cost.kernels.iter().filter(|k| !k.schedule.is_empty()) {
        let _ = writeln!(w, "  priced schedule of {}: {}", k.label, k.schedule);
    }
    for k in &g.chosen.kernels {
        if let Kernel::Fused { members, style: Some(RowStyle::Looped) } = k {
            let persistent = Kernel::Fused { members: members.clone(), style: Some(RowStyle::Persistent) };
            let pc = cost::kernel_cost(&persistent, ctx);
            let why = if pc.feasible { format!("persistent would cost {}", us(pc.time_s)) } else { pc.note };
            let _ = writeln!(w, "  looped row: {why}");
        }
    }
    let _ = writeln!(w, "why not fused:");
    let costed: Vec<(Plan, CostBreakdown)> = g.all_plans.iter().map(|p| (p.clone(), cost::plan_cost(p, ctx))).collect();
    let flow = deps::flow_graph(all);
    let mut any = false;
    for (i, a) in reds.iter().enumerate() {
        for b in &reds[i + 1..] {
            any = true;
            let _ = writeln!(w, "  nest{} & nest{}: {}", a.id, b.id, why(a, b, g, ctx, &flow, &costed, &chosen_cost));
        }
    }
    if !any {
        let _ = writeln!(w, "  (fewer than two reductions)");
    }
    if cfg.sweep_dynamic {
        for axis in ctx.extents.dynamic_axes() {
            sweep(w, axis, g, ctx, all);
        }
    }
}

fn reduced_of(n: &NestInfo) -> String {
    match &n.kind {
        NestKind::Reduction { reduced, .. } => axes(reduced),
        NestKind::Pointwise { .. } => "[]".into(),
    }
}

/// Whether nest `to` needs nest `from`'s result through written-then-read buffers (a path of
/// one edge or more; `from != to`).
fn reaches(flow: &FlowGraph<'_>, from: usize, to: usize) -> bool {
    match (flow.node(from), flow.node(to)) {
        (Some(a), Some(b)) => a != b && has_path_connecting(&flow.graph, a, b, None),
        _ => false,
    }
}

fn together(plan: &Plan, a: usize, b: usize) -> Option<&Kernel> {
    plan.kernels.iter().find(|k| {
        let n = k.nests();
        n.contains(&a) && n.contains(&b)
    })
}

/// Why reductions `a` and `b` of group `g` are (not) in one kernel. `flow`: the flow
/// dependences of the whole function's nests.
fn why(
    a: &NestInfo,
    b: &NestInfo,
    g: &GroupResult,
    ctx: &Ctx,
    flow: &FlowGraph<'_>,
    costed: &[(Plan, CostBreakdown)],
    chosen: &CostBreakdown,
) -> String {
    if let Some(k) = together(&g.chosen, a.id, b.id) {
        return format!("fused in {k}");
    }
    let shared: Vec<usize> =
        a.reads.iter().filter(|ra| b.reads.iter().any(|rb| rb.buffer == ra.buffer)).map(|r| r.buffer).collect();
    if shared.is_empty() {
        return "not fused: no shared input (fusing saves no traffic)".into();
    }
    for n in [a, b] {
        if let NestKind::Reduction { combiner, .. } = &n.kind {
            if !combiner.splittable() && !ctx.is_row_reduction(n.id) {
                return format!(
                    "not fused: combiner '{combiner}' of nest{} is not sum/prod/max/min, so it cannot be split into partials",
                    n.id
                );
            }
        }
    }
    // A column result consumed by a nest that also reads the tensor the column reduction reduces.
    for (col, other) in [(a, b), (b, a)] {
        if !ctx.is_outer_reduction(col.id) {
            continue;
        }
        for wr in &col.writes {
            let consumers = flow.nests.iter().filter(|m| m.reads.iter().any(|r| r.buffer == wr.buffer));
            for m in consumers.filter(|m| m.id == other.id || reaches(flow, m.id, other.id)) {
                if let Some(r) =
                    m.reads.iter().find(|r| col.reads.iter().any(|c| c.buffer == r.buffer && r.axes.len() > 1))
                {
                    return format!(
                        "not fused: the column result of nest{} is consumed by nest{}, which reads the unreduced tensor b{}: its partials must all finish before nest{} (and so nest{}) can run",
                        col.id, m.id, r.buffer, m.id, other.id
                    );
                }
            }
        }
    }
    let fusing = costed.iter().filter(|(p, _)| together(p, a.id, b.id).is_some()).min_by(|x, y| cost::plan_order(x, y));
    // A dependence rules fusion out unless some plan fuses the pair anyway (a row reduction
    // chained to the one whose result it reads, in one row kernel).
    for (x, y) in [(a, b), (b, a)] {
        if let Some(path) = deps::flow_path(flow, x.id, y.id).filter(|_| fusing.is_none()) {
            let via: Vec<String> = path.iter().map(|n| format!("nest{n}")).collect();
            return format!(
                "not fused: dependence {} (nest{} needs nest{}'s complete result)",
                via.join(" -> "),
                y.id,
                x.id
            );
        }
    }
    match fusing {
        None => "not fused: no rule puts them in one kernel (different domains, or not adjacent after hoisting)".into(),
        Some((p, c)) if !c.total_s.is_finite() => {
            let note = c.kernels.iter().find(|k| !k.feasible).map(|k| k.note.clone()).unwrap_or_default();
            format!("not fused: every fusing plan is infeasible ({note}); best: {p}")
        }
        Some((p, c)) => {
            let k = together(p, a.id, b.id).expect("filtered above");
            let mut s = String::new();
            if let Kernel::Fused { members, style: Some(RowStyle::Looped) } = k {
                let persistent = Kernel::Fused { members: members.clone(), style: Some(RowStyle::Persistent) };
                let pc = cost::kernel_cost(&persistent, ctx);
                if !pc.feasible {
                    s = format!("{}; and looped is slower: ", pc.note);
                }
            }
            format!(
                "not fused: {s}too small to pay: the best plan fusing them costs {} ({} launches, {}) vs {} chosen ({} launches, {}); launch/workspace overhead beats the bytes saved, or the gain is under the {:.0}% + {:.2} us threshold",
                us(c.total_s),
                c.launches,
                mb(c.total_bytes),
                us(chosen.total_s),
                chosen.launches,
                mb(chosen.total_bytes),
                ctx.cfg.min_gain_rel * 100.0,
                ctx.cfg.min_gain_s * 1e6
            )
        }
    }
}

/// The plan chosen at size `v` of `axis`, among the group's extracted plans.
fn winner_at(axis: Axis, v: u64, g: &GroupResult, ctx: &Ctx, all: &[NestInfo]) -> (Plan, f64) {
    let mut ext = ctx.extents.clone();
    ext.sizes[axis.0] = Some(v);
    let c = Ctx::new(ctx.nests.clone(), all, ext, ctx.device.clone(), ctx.cfg.clone());
    let mut costed: Vec<(Plan, CostBreakdown)> =
        g.all_plans.iter().map(|p| (p.clone(), cost::plan_cost(p, &c))).collect();
    costed.sort_by(cost::plan_order);
    let p = super::choose(&costed, &ctx.cfg);
    let t = costed.iter().find(|(q, _)| *q == p).map_or(f64::INFINITY, |(_, c)| c.total_s);
    (p, t)
}

fn sweep(w: &mut String, axis: Axis, g: &GroupResult, ctx: &Ctx, all: &[NestInfo]) {
    let _ = writeln!(
        w,
        "dynamic d{}: plans re-costed for d{} = 1 .. 2^24 (splits as chosen at the hint {}):",
        axis.0,
        axis.0,
        ctx.extents.size(axis)
    );
    let points: Vec<u64> = (0..=24).map(|e| 1u64 << e).collect();
    let winners: Vec<(Plan, f64)> = points.iter().map(|&v| winner_at(axis, v, g, ctx, all)).collect();
    // Ranges of equal winners, each boundary refined by bisection between sample points.
    let mut ranges: Vec<(u64, u64, Plan)> = Vec::new();
    let mut lo = 1u64;
    for i in 0..points.len() {
        let last = i + 1 == points.len();
        if last || winners[i + 1].0 != winners[i].0 {
            let hi = if last {
                points[i]
            } else {
                let (mut l, mut h) = (points[i], points[i + 1]);
                while h - l > 1 {
                    let m = l + (h - l) / 2;
                    if winner_at(axis, m, g, ctx, all).0 == winners[i].0 {
                        l = m;
                    } else {
                        h = m;
                    }
                }
                l
            };
            ranges.push((lo, hi, winners[i].0.clone()));
            lo = hi + 1;
        }
    }
    for (lo, hi, p) in &ranges {
        let (_, tl) = winner_at(axis, *lo, g, ctx, all);
        let (_, th) = winner_at(axis, *hi, g, ctx, all);
        let _ = writeln!(w, "  d{} in [{lo}, {hi}]: {p}  ({} .. {})", axis.0, us(tl), us(th));
    }
    for pair in ranges.windows(2) {
        let _ = writeln!(w, "  crossover at d{} = {}: {} -> {}", axis.0, pair[1].0, pair[0].2, pair[1].2);
    }
    if ranges.len() == 1 {
        let _ = writeln!(w, "  no crossover: one plan wins on the whole range");
    }
}

/// Appends the e-graph of group `gi` as Graphviz clusters, spending at most `budget` e-nodes.
pub fn dot_group(out: &mut String, gi: usize, egraph: &EGraph<PlanLang, PlanAnalysis>, budget: &mut usize) {
    let mut classes: Vec<_> = egraph.classes().collect();
    classes.sort_by_key(|c| c.id);
    let mut edges = String::new();
    for class in classes {
        if *budget == 0 {
            let _ = writeln!(out, "  // group {gi}: truncated at max_dot_nodes");
            break;
        }
        let _ = writeln!(out, "  subgraph cluster_g{gi}_{} {{ style=dotted;", class.id);
        for (ni, node) in class.nodes.iter().enumerate() {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            let _ = writeln!(out, "    g{gi}_{}_{ni} [label=\"{node}\"];", class.id);
            for child in egg::Language::children(node) {
                let child = egraph.find(*child);
                let _ = writeln!(edges, "  g{gi}_{}_{ni} -> g{gi}_{child}_0 [lhead=cluster_g{gi}_{child}];", class.id);
            }
        }
        let _ = writeln!(out, "  }}");
    }
    out.push_str(&edges);
}

/// The report lines of the finals of different groups merged into one launch.
pub fn merged_finals(merged: &[(Kernel, Vec<Kernel>)], ctx: &Ctx) -> String {
    let mut w = String::new();
    for (kernel, parts) in merged {
        let separate: f64 = parts.iter().map(|k| cost::kernel_cost(k, ctx).time_s).sum();
        let _ = writeln!(
            w,
            "finals of {} independent groups merged into one launch ({} vs {} as {} launches): {kernel}",
            parts.len(),
            us(cost::kernel_cost(kernel, ctx).time_s),
            us(separate),
            parts.len()
        );
    }
    w
}
