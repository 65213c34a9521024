//! The worked example of the fusion search (in the spirit of egg's `tests/math.rs`): RMSNorm and
//! LayerNorm backward as loop-nest summaries, the plan the search must extract for each, the
//! cases that must not fuse, and the search's compile time.
//!
//! Run `cargo test -p morf-passes --test fusion_egraph -- --nocapture` to see the reports.

use std::time::Instant;

use morf_passes::fusion::{
    search, Access, Axis, Combiner, Device, Extents, Kernel, NestInfo, NestKind, Plan, RowStyle, SearchConfig,
};

const M: Axis = Axis(0);
const N: Axis = Axis(1);

fn acc(buffer: usize, axes: &[Axis], elem_bytes: u32) -> Access {
    // dims left empty: inferred from the axes, which are distinct in these nests.
    Access { buffer, axes: axes.to_vec(), elem_bytes, dims: vec![] }
}

fn red(
    id: usize,
    name: &str,
    kept: &[Axis],
    reduced: &[Axis],
    c: Combiner,
    reads: Vec<Access>,
    writes: Vec<Access>,
) -> NestInfo {
    NestInfo {
        id,
        name: format!("nest{id}: {name}"),
        kind: NestKind::Reduction { kept: kept.to_vec(), reduced: reduced.to_vec(), combiner: c, epilogue_ops: 1 },
        reads,
        writes,
        work: 0,
        exprs: Vec::new(),
    }
}

fn pw(id: usize, name: &str, domain: &[Axis], reads: Vec<Access>, writes: Vec<Access>) -> NestInfo {
    NestInfo {
        id,
        name: format!("nest{id}: {name}"),
        kind: NestKind::Pointwise { domain: domain.to_vec() },
        reads,
        writes,
        work: 0,
        exprs: Vec::new(),
    }
}

/// RMSNorm backward, buffers numbered from `b`, nests from `n`:
/// x, dy, w, rstd, c (f32 temp), dx, dw.
fn rmsnorm_bwd_at(n: usize, b: usize, eb: u32, col: Combiner) -> Vec<NestInfo> {
    let (x, dy, w, rstd, c, dx, dw) = (b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6);
    vec![
        red(
            n,
            "reduce sum over [N] of x,dy,w,rstd",
            &[M],
            &[N],
            Combiner::Sum,
            vec![acc(x, &[M, N], eb), acc(dy, &[M, N], eb), acc(w, &[N], eb), acc(rstd, &[M], 4)],
            vec![acc(c, &[M], 4)],
        ),
        pw(
            n + 1,
            "dx = rstd*(dy*w - xhat*c)",
            &[M, N],
            vec![acc(x, &[M, N], eb), acc(dy, &[M, N], eb), acc(w, &[N], eb), acc(rstd, &[M], 4), acc(c, &[M], 4)],
            vec![acc(dx, &[M, N], eb)],
        ),
        red(
            n + 2,
            "dw = reduce over [M] of dy*xhat",
            &[N],
            &[M],
            col,
            vec![acc(x, &[M, N], eb), acc(dy, &[M, N], eb), acc(rstd, &[M], 4)],
            vec![acc(dw, &[N], eb)],
        ),
    ]
}

fn rmsnorm_bwd(eb: u32) -> Vec<NestInfo> {
    rmsnorm_bwd_at(0, 0, eb, Combiner::Sum)
}

/// LayerNorm backward: x0 dy1 w2 mean3 rstd4 c1_5 c2_6 dx7 dw8 db9.
fn layernorm_bwd(eb: u32) -> Vec<NestInfo> {
    let row = |b: usize| acc(b, &[M, N], eb);
    vec![
        red(
            0,
            "c1 = mean over [N] of xhat*dy*w",
            &[M],
            &[N],
            Combiner::Sum,
            vec![row(0), row(1), acc(2, &[N], eb), acc(3, &[M], 4), acc(4, &[M], 4)],
            vec![acc(5, &[M], 4)],
        ),
        red(
            1,
            "c2 = mean over [N] of dy*w",
            &[M],
            &[N],
            Combiner::Sum,
            vec![row(1), acc(2, &[N], eb)],
            vec![acc(6, &[M], 4)],
        ),
        pw(
            2,
            "dx = (dy*w - (xhat*c1 + c2)) * rstd",
            &[M, N],
            vec![row(0), row(1), acc(2, &[N], eb), acc(3, &[M], 4), acc(4, &[M], 4), acc(5, &[M], 4), acc(6, &[M], 4)],
            vec![row(7)],
        ),
        red(
            3,
            "dw = sum over [M] of dy*xhat",
            &[N],
            &[M],
            Combiner::Sum,
            vec![row(0), row(1), acc(3, &[M], 4), acc(4, &[M], 4)],
            vec![acc(8, &[N], eb)],
        ),
        red(4, "db = sum over [M] of dy", &[N], &[M], Combiner::Sum, vec![row(1)], vec![acc(9, &[N], eb)]),
    ]
}

fn run(nests: &[NestInfo], m: u64, n: u64) -> morf_passes::fusion::SearchResult {
    let r = search(nests, &Extents::fixed(&[m, n]), &Device::h200(), &SearchConfig::default());
    println!("{}", r.report);
    r
}

fn row_kernel(plan: &Plan) -> Option<(&[Kernel], RowStyle)> {
    plan.kernels.iter().find_map(|k| match k {
        Kernel::Fused { members, style: Some(s) } => Some((members.as_slice(), *s)),
        _ => None,
    })
}

fn partials_in(members: &[Kernel]) -> Vec<usize> {
    members.iter().filter_map(|m| if let Kernel::Partial { nest, .. } = m { Some(*nest) } else { None }).collect()
}

fn cost_of(r: &morf_passes::fusion::SearchResult) -> &morf_passes::fusion::CostBreakdown {
    &r.candidates.iter().find(|(p, _)| *p == r.chosen).expect("the chosen plan is a candidate").1
}

// --- Fusion cases: input => expected extraction ---

#[test]
fn rmsnorm_bwd_576000x384_bf16_fuses_into_one_row_kernel_and_a_final() {
    let (m, n) = (576_000u64, 384u64);
    let r = run(&rmsnorm_bwd(2), m, n);
    assert_eq!(r.chosen.kernels.len(), 2, "{}", r.chosen);
    let (members, style) = row_kernel(&r.chosen).expect("a row kernel");
    assert_eq!(style, RowStyle::Persistent);
    assert_eq!(members[0], Kernel::Nest(0));
    assert!(members.contains(&Kernel::Nest(1)));
    assert_eq!(partials_in(members), [2]);
    assert!(matches!(r.chosen.kernels[1], Kernel::Final { nest: 2, .. }));
    let c = cost_of(&r);
    let floor = 3 * m * n * 2;
    assert!(c.total_bytes >= floor && (c.total_bytes as f64) < floor as f64 * 1.03, "{} bytes", c.total_bytes);
    // The final runs in the row kernel's grid behind a grid barrier (`final=grid`): one launch.
    assert_eq!(c.launches, 1);
    // The unfused plan always remains a candidate.
    let unfused = Plan { kernels: vec![Kernel::Nest(0), Kernel::Nest(1), Kernel::Nest(2)] };
    assert!(r.candidates.iter().any(|(p, _)| *p == unfused));
    assert!(r.report.contains("nest0 & nest2: fused in rowfused.persistent"));
    assert_eq!(r.stop_reason, "saturated");
}

#[test]
fn layernorm_bwd_fuses_dw_and_db_partials_into_the_row_kernel() {
    let r = run(&layernorm_bwd(2), 576_000, 384);
    let (members, style) = row_kernel(&r.chosen).expect("a row kernel");
    assert_eq!(style, RowStyle::Persistent);
    assert!(
        members.contains(&Kernel::Nest(0)) && members.contains(&Kernel::Nest(1)) && members.contains(&Kernel::Nest(2))
    );
    let mut p = partials_in(members);
    p.sort();
    assert_eq!(p, [3, 4]);
    // The two finals share one launch.
    assert_eq!(r.chosen.kernels.len(), 2, "{}", r.chosen);
    // The occupancy/latency model predicts what the row kernel achieves (measured on the
    // H200: 53.8% of the floor at this shape, docs/perf.md), not the byte floor.
    let c = cost_of(&r);
    assert!(c.floor_fraction() > 0.4, "{}", c.floor_fraction());
}

#[test]
fn rmsnorm_bwd_benchmark_shapes_fuse_persistently_up_to_8192() {
    for (m, n) in [(65_536u64, 1024u64), (32_768, 4096), (16_384, 8192)] {
        let r = run(&rmsnorm_bwd(2), m, n);
        let (members, style) = row_kernel(&r.chosen).unwrap_or_else(|| panic!("{m}x{n}: {}", r.chosen));
        assert_eq!(style, RowStyle::Persistent, "{m}x{n}");
        assert_eq!(partials_in(members), [2], "{m}x{n}");
        let r = run(&layernorm_bwd(2), m, n);
        let (members, style) = row_kernel(&r.chosen).unwrap_or_else(|| panic!("{m}x{n}: {}", r.chosen));
        assert_eq!(style, RowStyle::Persistent, "{m}x{n}");
        assert_eq!(partials_in(members).len(), 2, "{m}x{n}");
    }
}

#[test]
fn rmsnorm_bwd_n65536_cannot_hold_the_row_and_says_why() {
    let r = run(&rmsnorm_bwd(2), 1024, 65_536);
    assert!(!r.chosen.kernels.iter().any(|k| matches!(k, Kernel::Fused { style: Some(RowStyle::Persistent), .. })));
    assert!(r.report.contains("persistent row infeasible"), "{}", r.report);
}

#[test]
fn max_and_min_outer_reductions_fuse() {
    for c in [Combiner::Max, Combiner::Min, Combiner::Prod] {
        let r = run(&rmsnorm_bwd_at(0, 0, 2, c.clone()), 65_536, 1024);
        let (members, _) = row_kernel(&r.chosen).expect("a row kernel");
        assert_eq!(partials_in(members), [2], "{c}");
    }
}

// --- Cases that must not fuse ---

#[test]
fn no_shared_input_does_not_fuse() {
    // nest0 reduces x along N, nest1 reduces z along M, nest2 combines both results.
    let nests = vec![
        red(0, "r = sum over [N] of x", &[M], &[N], Combiner::Sum, vec![acc(0, &[M, N], 2)], vec![acc(1, &[M], 4)]),
        red(1, "s = sum over [M] of z", &[N], &[M], Combiner::Sum, vec![acc(2, &[M, N], 2)], vec![acc(3, &[N], 4)]),
        pw(2, "y = r + s", &[M, N], vec![acc(1, &[M], 4), acc(3, &[N], 4)], vec![acc(4, &[M, N], 2)]),
    ];
    let r = run(&nests, 65_536, 1024);
    assert_eq!(r.chosen.partials(), 0, "{}", r.chosen);
    assert!(r.report.contains("nest0 & nest1: not fused: no shared input"), "{}", r.report);
}

#[test]
fn column_result_consumed_by_a_pointwise_reading_the_unreduced_tensor_does_not_fuse() {
    // s = sum over M of x; y = x * s; r = sum over N of x * y.
    let nests = vec![
        red(0, "s = sum over [M] of x", &[N], &[M], Combiner::Sum, vec![acc(0, &[M, N], 2)], vec![acc(1, &[N], 4)]),
        pw(1, "y = x * s", &[M, N], vec![acc(0, &[M, N], 2), acc(1, &[N], 4)], vec![acc(2, &[M, N], 2)]),
        red(
            2,
            "r = sum over [N] of x * y",
            &[M],
            &[N],
            Combiner::Sum,
            vec![acc(0, &[M, N], 2), acc(2, &[M, N], 2)],
            vec![acc(3, &[M], 4)],
        ),
    ];
    let r = run(&nests, 65_536, 1024);
    assert!(r.chosen.kernels.iter().all(|k| !(k.nests().contains(&0) && k.nests().contains(&2))), "{}", r.chosen);
    assert!(
        r.report.contains("nest0 & nest2: not fused: the column result of nest0 is consumed by nest1"),
        "{}",
        r.report
    );
}

#[test]
fn tiny_rmsnorm_4x8_costs_no_more_launches_fused() {
    // At 4 x 8 the fused plan is one launch (the row kernel with its partial, then the final
    // in its grid behind a grid barrier), fewer than the unfused one (the row kernel with dx,
    // the column sum): the row kernel stores each split's partial once, so no fill is priced,
    // and the fused plan moves fewer bytes.
    let r = run(&rmsnorm_bwd(2), 4, 8);
    assert_eq!(r.chosen.kernels.len(), 2, "{}", r.chosen);
    let launches = r.candidates.iter().find(|(p, _)| *p == r.chosen).map(|(_, c)| c.launches);
    assert_eq!(launches, Some(1), "{}", r.report);
}

#[test]
fn non_splittable_combiner_does_not_fuse() {
    let r = run(&rmsnorm_bwd_at(0, 0, 2, Combiner::Other("argmax".into())), 65_536, 1024);
    assert_eq!(r.chosen.partials(), 0, "{}", r.chosen);
    assert!(r.report.contains("combiner 'argmax' of nest2 is not sum/prod/max/min"), "{}", r.report);
}

// --- Dynamic sizes ---

#[test]
fn dynamic_m_reports_the_crossover() {
    let ext = Extents { sizes: vec![None, Some(1024)], hints: vec![65_536, 1024] };
    let r = search(&rmsnorm_bwd(2), &ext, &Device::h200(), &SearchConfig::default());
    println!("{}", r.report);
    assert_eq!(partials_in(row_kernel(&r.chosen).expect("a row kernel").0), [2]);
    assert!(r.report.contains("crossover at d0 = "), "{}", r.report);
    // Up to 32 rows the column sum is one launch without a workspace: some range of small M
    // takes no partial (at 1-2 rows the fused plan with one split ties with it: no fill).
    let small = r.report.lines().filter(|l| l.trim_start().starts_with("d0 in [")).find(|l| {
        let hi = l.split(", ").nth(1).and_then(|t| t.split(']').next()).and_then(|t| t.parse::<u64>().ok());
        hi.is_some_and(|h| h <= 64) && !l.contains("partial")
    });
    assert!(small.is_some(), "small M must have a range without partials:\n{}", r.report);
}

// --- Device and configuration ---

#[test]
fn device_overrides_parse() {
    let d = Device::parse("sms=108,bandwidth=2.0e12,launch=3e-6").unwrap();
    assert_eq!(d.sms, 108);
    assert_eq!(d.copy_bandwidth_bytes_per_s, 2.0e12);
    assert_eq!(d.launch_overhead_s, 3e-6);
    assert_eq!(d.shared_mem_per_cta, 227 * 1024, "a CTA's shared memory on sm_90");
    assert_eq!(Device::parse("smem-cta=101376").unwrap().shared_mem_per_cta, 101376);
    assert!(Device::parse("warp=32").is_err());
}

#[test]
fn limits_are_respected_and_reported() {
    let cfg = SearchConfig::default().with_iter_limit(1);
    let r = search(&layernorm_bwd(2), &Extents::fixed(&[65_536, 1024]), &Device::h200(), &cfg);
    assert_eq!(r.stop_reason, "iteration limit (1)");
    assert!(r.report.contains("stopped: iteration limit (1)"));
    assert!(r.dot.starts_with("digraph fusion {"));
}

// --- Compile time ---

#[test]
fn sixty_four_independent_rmsnorm_groups_search_fast() {
    let mut nests = Vec::new();
    for g in 0..64 {
        nests.extend(rmsnorm_bwd_at(3 * g, 7 * g, 2, Combiner::Sum));
    }
    let start = Instant::now();
    let r = search(&nests, &Extents::fixed(&[65_536, 1024]), &Device::h200(), &SearchConfig::default());
    let t = start.elapsed();
    println!(
        "64 groups: {:.1} ms, {} e-nodes, {} e-classes, {} iterations, {}",
        t.as_secs_f64() * 1e3,
        r.egraph_nodes,
        r.egraph_classes,
        r.iterations,
        r.stop_reason
    );
    assert_eq!(r.groups.len(), 64);
    // 64 row kernels and one final: the groups' finals are independent and over the same
    // columns, so they are merged into one launch (`merge_independent_finals`).
    assert_eq!(r.chosen.kernels.len(), 65);
    let last = r.chosen.kernels.last().expect("a plan");
    assert!(last.parts().iter().all(|p| matches!(p, Kernel::Final { .. })), "{last}");
    assert_eq!(last.parts().len(), 64);
    if !cfg!(debug_assertions) {
        assert!(t.as_secs_f64() < 1.0, "took {t:?}");
    }
}

#[test]
fn benchmark_table() {
    println!("| norm | M x N, dtype | chosen | est. | floor | % floor | unfused est. | launches | e-graph |");
    for (norm, build) in [("RMSNorm", rmsnorm_bwd as fn(u32) -> Vec<NestInfo>), ("LayerNorm", layernorm_bwd)] {
        for (m, n, eb) in
            [(576_000u64, 384u64, 2u32), (576_000, 384, 4), (65_536, 1024, 2), (32_768, 4096, 2), (16_384, 8192, 2)]
        {
            let r = search(&build(eb), &Extents::fixed(&[m, n]), &Device::h200(), &SearchConfig::default());
            let c = cost_of(&r);
            let unfused =
                r.candidates.iter().find(|(p, _)| p.kernels.iter().all(|k| matches!(k, Kernel::Nest(_)))).unwrap();
            println!(
                "| {norm} | {m} x {n}, {} | {} | {:.1} us | {:.1} us | {:.1}% | {:.1} us | {} | {} nodes / {} classes |",
                if eb == 2 { "bf16" } else { "fp32" },
                r.chosen,
                c.total_s * 1e6,
                c.floor_s * 1e6,
                c.floor_fraction() * 100.0,
                unfused.1.total_s * 1e6,
                c.launches,
                r.egraph_nodes,
                r.egraph_classes
            );
            assert!(row_kernel(&r.chosen).is_some());
        }
    }
}

/// The engine's plan does not depend on the order of the nest summaries: LayerNorm backward
/// with its nests listed in every legal order (the column reductions dw, db first, the row
/// reductions swapped, ...) and renumbered in that order gives the same kernels, up to the
/// renumbering (issue 10: a column sum before the row sum found no fusion).
#[test]
fn layernorm_bwd_plan_is_the_same_in_every_legal_order() {
    let nests = layernorm_bwd(2);
    let n = nests.len();
    // Orders of 0..n in which every nest comes after the nests it reads from.
    let reads_from =
        |b: usize, a: usize| nests[a].writes.iter().any(|w| nests[b].reads.iter().any(|r| r.buffer == w.buffer));
    let mut orders: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..n {
        orders = orders
            .into_iter()
            .flat_map(|o| {
                (0..n)
                    .filter(|i| !o.contains(i) && (0..n).all(|a| !reads_from(*i, a) || o.contains(&a)))
                    .map(|i| {
                        let mut o2 = o.clone();
                        o2.push(i);
                        o2
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    assert!(orders.len() >= 6, "{orders:?}");
    // The chosen kernels as sets of (part kind, original nest), sorted.
    let normal = |plan: &Plan, original: &dyn Fn(usize) -> usize| {
        let mut ks: Vec<String> = plan
            .kernels
            .iter()
            .map(|k| {
                let mut parts: Vec<String> = k
                    .parts()
                    .iter()
                    .map(|p| match p {
                        Kernel::Nest(i) => format!("nest{}", original(*i)),
                        Kernel::Partial { nest, split } => format!("partial{}/{split}", original(*nest)),
                        Kernel::Final { nest, split } => format!("final{}/{split}", original(*nest)),
                        Kernel::Fused { .. } => unreachable!(),
                    })
                    .collect();
                parts.sort();
                let style = match k {
                    Kernel::Fused { style, .. } => format!("{style:?}"),
                    _ => String::new(),
                };
                format!("{style}[{}]", parts.join(" "))
            })
            .collect();
        ks.sort();
        ks
    };
    let ext = Extents::fixed(&[576_000, 384]);
    let cfg = SearchConfig::default().with_report(false).with_dot(false);
    let want = normal(&search(&nests, &ext, &Device::h200(), &cfg).chosen, &|i| i);
    assert!(want.iter().any(|k| k.starts_with("Some(Persistent)")), "{want:?}");
    for order in &orders {
        // Nest `k` of the permuted program is nest `order[k]` of the original.
        let permuted: Vec<NestInfo> =
            order.iter().enumerate().map(|(k, &i)| NestInfo { id: k, ..nests[i].clone() }).collect();
        let r = search(&permuted, &ext, &Device::h200(), &cfg);
        assert!(r.report.is_empty() && r.dot.is_empty(), "rendered although not asked for");
        assert_eq!(normal(&r.chosen, &|k| order[k]), want, "order {order:?}: {}", r.chosen);
    }
}

/// The split of a plan's partials and finals, when they share one.
fn split_of(plan: &Plan) -> Option<u64> {
    let splits: std::collections::BTreeSet<u64> = plan
        .kernels
        .iter()
        .flat_map(|k| k.parts())
        .filter_map(|k| match k {
            Kernel::Partial { split, .. } | Kernel::Final { split, .. } => Some(*split),
            _ => None,
        })
        .collect();
    (splits.len() == 1).then(|| *splits.first().unwrap())
}

/// One program for a range of sizes (`SearchConfig::hint_spans`, a shape bucket): LayerNorm
/// backward hinted at M = 2^19 takes 2048-row splits (one round of 256 CTAs at the hint), but
/// with M spanning [2^19, 2^20) the plan that holds up over the range: 256-row splits, the
/// plan with every split (`Plan::with_split`) priced at each size.
#[test]
fn hint_spans_choose_a_split_that_holds_up_over_the_bucket() {
    let nests = layernorm_bwd(2);
    let extents = Extents { sizes: vec![None, Some(384)], hints: vec![524_288, 384] };
    let at_hint = search(&nests, &extents, &Device::h200(), &SearchConfig::default());
    assert_eq!(split_of(&at_hint.chosen), Some(2048), "{}", at_hint.chosen);
    assert!(at_hint.groups.iter().all(|g| g.span_note.is_none()));
    let cfg = SearchConfig { hint_spans: vec![(M, 2, "M".into())], ..SearchConfig::default() };
    let spanned = search(&nests, &extents, &Device::h200(), &cfg);
    assert_eq!(split_of(&spanned.chosen), Some(256), "{}", spanned.chosen);
    let note = spanned.groups[0].span_note.as_deref().expect("a note");
    assert!(note.contains("would take") && note.contains("S=2048"), "{note}");
    // The same plan at another split computes the same thing in other partial programs.
    assert_eq!(spanned.chosen.with_split(2048), at_hint.chosen);
}
