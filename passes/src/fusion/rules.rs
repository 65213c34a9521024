//! The rewrites of the fusion search, as data: one entry per rule, grouped by theme.
//!
//! Every rule rewrites a *plan* (`seq`) class into an equal plan, so the unfused plan stays in
//! the root class and always remains a candidate. Rules are directional (they fuse, convert or
//! hoist; none undoes another), which keeps the e-graph small. Conditions are named predicates
//! over the analysis data of the matched kernel classes.

use std::collections::BTreeSet;

use egg::{rewrite as rw, Applier, EGraph, Id, Pattern, PatternAst, Rewrite, SearchMatches, Subst, Symbol, Var};

use super::analysis::{identity, kernel_of, Buf, Data, Idx, KernelData, PlanAnalysis, Shape};
use super::lang::PlanLang;
use super::{Axis, Kernel, NestKind, RowStyle};

type EG = EGraph<PlanLang, PlanAnalysis>;

/// The fusion rules.
pub fn rules() -> Vec<Rewrite<PlanLang, PlanAnalysis>> {
    vec![
        // --- Conversion ---
        // A column reduction R[j] = (+)_i X[i, j] equals a pointwise nest over [i, j] (row order)
        // that folds each block of S rows into W[i/S, j], followed by R[j] = (+)_s W[s, j].
        // Holds for any S because the combiner is associative and commutative (sum, prod, max,
        // min); only reductions over the outer axes of an input shared with another nest qualify,
        // since the partial pays off only by fusing with that nest. One alternative per split.
        rw!("column-reduction-to-partial"; "(seq (nest ?j) ?rest)" =>
            { SplitIntoPartials { j: var("?j"), rest: var("?rest") } }
            if is_outer_reduction("?j")),
        // The rules over two adjacent kernels `(seq ?a (seq ?b ?rest))`, one search for all of
        // them (`Adjacent`): they are applied in this order, arm by arm over all matches, exactly
        // as separate rules would be, but the e-graph is searched for the pattern once instead of
        // five times (the search was most of the compile time).
        Rewrite::new(
            "adjacent-kernels",
            "(seq ?a (seq ?b ?rest))".parse::<Pattern<PlanLang>>().expect("a pattern"),
            Adjacent {
                arms: vec![
                    // --- Reordering ---
                    // hoist-partial: a; partial = partial; a when neither reads or writes what the
                    // other writes. Only partials move, and only earlier, so that they meet the
                    // row nests they fuse with.
                    (can_hoist_partial("?a", "?b"), pat("(seq ?b (seq ?a ?rest))")),
                    // --- Fusion ---
                    // fuse-pointwise: a; b = fuse(a, b) for pointwise kernels over one domain
                    // that share an input or where b reads a's output at the same index: each
                    // point of b then needs only the same point of a, so one program can do both
                    // and read the shared input once.
                    (pointwise_fusable("?a", "?b"), pat("(seq (fuse ?a ?b) ?rest)")),
                    // fuse-sibling-reductions: a; b = fuse(a, b) for independent reductions of
                    // the same order (same kept and reduced axes) that share an input: one
                    // multi-output reduction reads it once.
                    (reductions_fusable("?a", "?b"), pat("(seq (fuse ?a ?b) ?rest)")),
                    // fuse-row-reduction-persistent / -looped: r; p = rowfused(r, p) when r
                    // reduces the inner axes of [rows, cols] data and p is pointwise over
                    // [rows, cols], reading r's result per row or sharing r's inputs: once a
                    // program owns a row it can finish r on it and then run p on the same row.
                    // Persistent keeps the row in registers; looped streams it twice. The cost
                    // model decides which.
                    (row_fusable("?a", "?b"), pat("(seq (rowfused persistent ?a ?b) ?rest)")),
                    (row_fusable("?a", "?b"), pat("(seq (rowfused looped ?a ?b) ?rest)")),
                    // prepend-row-reduction-persistent / -looped: r1; k = rowfused(r1, k) when
                    // r1 is a row reduction and k is a row reduction, or a row kernel of the
                    // same style, over the same rows that reads r1's result at its row (layernorm's
                    // variance of x - mean, softmax's sum of exp(x - max)): the program that owns
                    // a row finishes r1 on it, then k's reductions and per-row work. Rows are
                    // built back to front (k first), so a chain of any length ends in one kernel.
                    (row_chainable("?a", "?b", RowStyle::Persistent), pat("(seq (rowfused persistent ?a ?b) ?rest)")),
                    (row_chainable("?a", "?b", RowStyle::Looped), pat("(seq (rowfused looped ?a ?b) ?rest)")),
                    // producer-into-row-persistent / -looped: p; k = rowfused(p, k) when p is
                    // pointwise over k's [rows, cols] and a row reduction of k (alone or in a row
                    // kernel of that style) reads p's output at its own point (a producer that is
                    // also returned, so the lowering gave it a buffer): the row reduction
                    // recomputes p's value at each point, and p runs (and stores) in the row's
                    // inner loop, where k's pointwise work and partials take its value.
                    (
                        producer_into_row("?a", "?b", RowStyle::Persistent),
                        pat("(seq (rowfused persistent ?a ?b) ?rest)"),
                    ),
                    (producer_into_row("?a", "?b", RowStyle::Looped), pat("(seq (rowfused looped ?a ?b) ?rest)")),
                ],
            },
        )
        .expect("a rewrite"),
        // --- Epilogues ---
        // final; e = fuse(final, e) when e is pointwise over the final's result axes and reads the
        // result at the same index (mean division, downcast): the final already holds each value.
        rw!("epilogue-into-final"; "(seq (final ?s ?j) (seq ?e ?rest))" => "(seq (fuse (final ?s ?j) ?e) ?rest)"
            if is_epilogue("(final ?s ?j)", "?e")),
        // The same for an unsplit reduction and its epilogue.
        rw!("epilogue-into-reduction"; "(seq (nest ?j) (seq ?e ?rest))" => "(seq (fuse (nest ?j) ?e) ?rest)"
            if is_epilogue("(nest ?j)", "?e")),
        // final_a; final_b = fuse(final_a, final_b) for independent finals over the same axes
        // (dw and db): one launch instead of two.
        rw!("fuse-sibling-finals"; "(seq ?a (seq ?b ?rest))" => "(seq (fuse ?a ?b) ?rest)"
            if finals_fusable("?a", "?b")),
    ]
}

fn var(s: &str) -> Var {
    s.parse().expect("a pattern variable")
}

fn pat(s: &str) -> Pattern<PlanLang> {
    s.parse().expect("a pattern")
}

/// Several conditional rewrites of one left-hand side, searched once: each arm is applied to
/// every match in turn (arm by arm, in order), where its condition holds, which is what egg
/// does with one rule per arm listed in that order.
struct Adjacent {
    arms: Vec<(Cond, Pattern<PlanLang>)>,
}

impl Applier<PlanLang, PlanAnalysis> for Adjacent {
    fn apply_matches(&self, eg: &mut EG, matches: &[SearchMatches<PlanLang>], rule_name: Symbol) -> Vec<Id> {
        let mut added = vec![];
        for (cond, rhs) in &self.arms {
            for mat in matches {
                for subst in &mat.substs {
                    if cond(eg, mat.eclass, subst) {
                        added.extend(rhs.apply_one(eg, mat.eclass, subst, None, rule_name));
                    }
                }
            }
        }
        added
    }

    fn apply_one(
        &self,
        eg: &mut EG,
        eclass: Id,
        subst: &Subst,
        ast: Option<&PatternAst<PlanLang>>,
        name: Symbol,
    ) -> Vec<Id> {
        let mut added = vec![];
        for (cond, rhs) in &self.arms {
            if cond(eg, eclass, subst) {
                added.extend(rhs.apply_one(eg, eclass, subst, ast, name));
            }
        }
        added
    }

    fn vars(&self) -> Vec<Var> {
        ["?a", "?b", "?rest"].into_iter().map(var).collect()
    }
}

/// Adds `(seq (partial S j) (seq (final S j) rest))` for every split candidate `S` of nest `j`.
#[derive(Debug)]
struct SplitIntoPartials {
    j: Var,
    rest: Var,
}

impl Applier<PlanLang, PlanAnalysis> for SplitIntoPartials {
    fn apply_one(
        &self,
        eg: &mut EG,
        eclass: Id,
        subst: &Subst,
        _: Option<&PatternAst<PlanLang>>,
        _: Symbol,
    ) -> Vec<Id> {
        let (j, rest) = (subst[self.j], subst[self.rest]);
        let Data::Num(nest) = eg[j].data else { return vec![] };
        let mut changed = vec![];
        for split in eg.analysis.ctx.split_candidates(nest as usize) {
            let s = eg.add(PlanLang::Num(split));
            let p = eg.add(PlanLang::Partial([s, j]));
            let f = eg.add(PlanLang::Final([s, j]));
            let tail = eg.add(PlanLang::Seq([f, rest]));
            let plan = eg.add(PlanLang::Seq([p, tail]));
            if eg.union(eclass, plan) {
                changed.push(plan);
            }
        }
        changed
    }
}

/// A condition over the kernels bound to some pattern variables.
type Cond = Box<dyn Fn(&mut EG, Id, &Subst) -> bool + Send + Sync>;

/// A kernel argument of a condition, parsed once: a variable `?a`, or `(final ?s ?j)` /
/// `(nest ?j)`, whose kernel class is looked up (conditions run for every match, so the pattern
/// text is not re-parsed there).
#[derive(Clone, Copy, Debug)]
enum KernelArg {
    Var(Var),
    Final(Var, Var),
    Nest(Var),
}

impl KernelArg {
    fn parse(arg: &str) -> KernelArg {
        if let Some(inner) = arg.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
            let words: Vec<&str> = inner.split_whitespace().collect();
            return match words.as_slice() {
                ["final", s, j] => KernelArg::Final(var(s), var(j)),
                ["nest", j] => KernelArg::Nest(var(j)),
                _ => panic!("unknown kernel argument '{arg}'"),
            };
        }
        KernelArg::Var(var(arg))
    }

    /// Binds the argument in `subst` to its kernel data.
    fn get<'e>(self, eg: &'e EG, subst: &Subst) -> Option<&'e KernelData> {
        let node = match self {
            KernelArg::Var(v) => return kernel_of(eg, subst[v]),
            KernelArg::Final(s, j) => PlanLang::Final([*subst.get(s)?, *subst.get(j)?]),
            KernelArg::Nest(j) => PlanLang::Nest(*subst.get(j)?),
        };
        let class = eg.lookup(node)?;
        kernel_of(eg, class)
    }
}

fn pair(a: &str, b: &str, f: fn(&KernelData, &KernelData) -> bool) -> Cond {
    let (a, b) = (KernelArg::parse(a), KernelArg::parse(b));
    Box::new(move |eg, _, subst| match (a.get(eg, subst), b.get(eg, subst)) {
        (Some(ka), Some(kb)) => f(ka, kb),
        _ => false,
    })
}

/// Nest `?j` is a reduction over the outer axes of a shared input with a splittable combiner.
pub fn is_outer_reduction(j: &str) -> Cond {
    let j = var(j);
    Box::new(move |eg, _, subst| match eg[subst[j]].data {
        Data::Num(n) => eg.analysis.ctx.is_outer_reduction(n as usize),
        _ => false,
    })
}

/// `?p` is a partial (alone) and `?a` is not, and they are independent.
pub fn can_hoist_partial(a: &str, p: &str) -> Cond {
    pair(a, p, |a, p| {
        matches!(p.kernel, super::Kernel::Partial { .. })
            && !matches!(a.kernel, super::Kernel::Partial { .. })
            && independent(a, p)
    })
}

/// Both pointwise over one domain with compatible splits, sharing an input or with `b` reading
/// `a`'s output at the same index, and no other dependence.
pub fn pointwise_fusable(a: &str, b: &str) -> Cond {
    pair(a, b, |a, b| {
        let (Shape::Pointwise { domain: da, split: sa }, Shape::Pointwise { domain: db, split: sb }) =
            (&a.shape, &b.shape)
        else {
            return false;
        };
        da == db
            && (sa.is_none() || sb.is_none() || sa == sb)
            && (shares_input(a, b) || !flow(a, b).is_empty())
            && flows_at_fused_index(a, b, da.len())
            && flow(b, a).is_empty()
            && no_output_conflict(a, b)
    })
}

/// Independent reductions of the same order sharing an input.
pub fn reductions_fusable(a: &str, b: &str) -> Cond {
    pair(a, b, |a, b| {
        matches!((&a.shape, &b.shape), (Shape::Reduction { kept: k1, reduced: r1 }, Shape::Reduction { kept: k2, reduced: r2 })
            if k1 == k2 && r1 == r2)
            && shares_input(a, b)
            && independent(a, b)
    })
}

/// Whether kernel `k` reads `[kept..., reduced...]` data at its own row and columns: a row
/// reduction by position (its kept loops index the leading dims of its data).
fn reads_row(k: &KernelData, kept: &[Axis], reduced: &[Axis]) -> bool {
    let row: Vec<Axis> = kept.iter().chain(reduced).copied().collect();
    k.reads.values().flatten().any(|x| x.axes == row && x.dims == identity(row.len()))
}

/// `r` reduces the inner axes of `[kept, reduced]` data and `p` is pointwise over
/// `[kept, reduced]`, reading `r`'s result per row or sharing its inputs.
pub fn row_fusable(r: &str, p: &str) -> Cond {
    pair(r, p, |r, p| {
        let Shape::Reduction { kept, reduced } = &r.shape else { return false };
        let Shape::Pointwise { domain, .. } = &p.shape else { return false };
        let row: Vec<_> = kept.iter().chain(reduced).copied().collect();
        // The row loop fuses `p`'s leading `kept.len()` dims with `r`'s kept dims; `p` may
        // read `r`'s results only at the row it is on.
        *domain == row
            && reads_row(r, kept, reduced)
            && (shares_input(r, p) || !flow(r, p).is_empty())
            && flows_at_fused_index(r, p, kept.len())
            && flow(p, r).is_empty()
            && no_output_conflict(r, p)
    })
}

/// `r` is a row reduction (with its epilogues) and `k`, which reads `r`'s result, is a row
/// reduction over the same rows, or a row kernel of that `style` over the same rows: one
/// program per row can run `r` and then `k` on its row. `k` may read `r`'s results only at the
/// row it is on ([`flows_at_fused_index`] over the kept dims), so no row waits for another.
pub fn row_chainable(r: &str, k: &str, style: RowStyle) -> Cond {
    let (r, k) = (KernelArg::parse(r), KernelArg::parse(k));
    Box::new(move |eg, _, subst| {
        let (Some(r), Some(k)) = (r.get(eg, subst), k.get(eg, subst)) else { return false };
        let Shape::Reduction { kept, reduced } = &r.shape else { return false };
        let same_rows = row_of(k, style).is_some_and(|(k2, r2)| k2 == kept && r2 == reduced);
        // A chain: one of `k`'s reductions reads `r`'s result. A row kernel where only the
        // pointwise part reads it (layernorm backward's two row sums) is reached by fusing the
        // sibling reductions first; accepting it here too would only add equal plans.
        let ctx = &eg.analysis.ctx;
        let chained = k.kernel.parts().iter().any(|p| {
            matches!(p, Kernel::Nest(n) if matches!(ctx.nest(*n).kind, NestKind::Reduction { .. }))
                && ctx.part_io(p).0.iter().any(|io| r.writes.contains_key(&io.buf))
        });
        same_rows
            && chained
            && reads_row(r, kept, reduced)
            && !flow(r, k).is_empty()
            && flows_at_fused_index(r, k, kept.len())
            && flow(k, r).is_empty()
            && no_output_conflict(r, k)
    })
}

/// The rows and columns of a row reduction kernel `k` (a reduction reading its data at its row
/// and columns), or of a row kernel of `style`.
fn row_of(k: &KernelData, style: RowStyle) -> Option<(&Vec<Axis>, &Vec<Axis>)> {
    match &k.shape {
        Shape::Reduction { kept, reduced } if reads_row(k, kept, reduced) => Some((kept, reduced)),
        Shape::Row { kept, reduced, style: s } if *s == style => Some((kept, reduced)),
        _ => None,
    }
}

/// The split of the partials a kernel holds, if any.
fn split_of(k: &KernelData) -> Option<u64> {
    k.kernel.parts().iter().find_map(|p| match p {
        Kernel::Partial { split, .. } => Some(*split),
        _ => None,
    })
}

/// `p` is pointwise over the `[rows, cols]` of `k`, a row reduction or a row kernel of `style`,
/// and one of `k`'s reductions reads `p`'s output. Every value `k` reads from `p` is read and
/// written at the same point of the whole `[rows, cols]` space (so the reduction can recompute
/// it there, and `k`'s inner loop can take it from `p` at the same point), `p` needs nothing
/// from `k`, and their partials (if both hold some) fold the same number of rows.
pub fn producer_into_row(p: &str, k: &str, style: RowStyle) -> Cond {
    let (p, k) = (KernelArg::parse(p), KernelArg::parse(k));
    Box::new(move |eg, _, subst| {
        if !eg.analysis.ctx.cfg.recompute_producers {
            return false;
        }
        let (Some(p), Some(k)) = (p.get(eg, subst), k.get(eg, subst)) else { return false };
        let Shape::Pointwise { domain, split } = &p.shape else { return false };
        let Some((kept, reduced)) = row_of(k, style) else { return false };
        let rank = kept.len() + reduced.len();
        let splits_agree = match (split, split_of(k)) {
            (Some(a), Some(b)) => *a == b,
            _ => true,
        };
        let ctx = &eg.analysis.ctx;
        let feeds_reduction = k.kernel.parts().iter().any(|m| {
            matches!(m, Kernel::Nest(n) if matches!(ctx.nest(*n).kind, NestKind::Reduction { .. }))
                && ctx.part_io(m).0.iter().any(|io| p.writes.contains_key(&io.buf))
        });
        domain.len() == rank
            && domain.iter().eq(kept.iter().chain(reduced))
            && splits_agree
            && feeds_reduction
            && flows_at_fused_index(p, k, rank)
            && flow(k, p).is_empty()
            && no_output_conflict(p, k)
    })
}

/// `e` is a pointwise nest over `a`'s result axes that reads `a`'s result at the same index.
pub fn is_epilogue(a: &str, e: &str) -> Cond {
    pair(a, e, |a, e| {
        let out = match &a.shape {
            Shape::Final { domain } => domain,
            Shape::Reduction { kept, .. } => kept,
            _ => return false,
        };
        let Shape::Pointwise { domain, split: None } = &e.shape else { return false };
        domain == out
            && !flow(a, e).is_empty()
            && flows_at_fused_index(a, e, out.len())
            && flow(e, a).is_empty()
            && no_output_conflict(a, e)
    })
}

/// Two independent finals over the same axes.
pub fn finals_fusable(a: &str, b: &str) -> Cond {
    pair(a, b, |a, b| {
        matches!((&a.shape, &b.shape), (Shape::Final { domain: d1 }, Shape::Final { domain: d2 }) if d1 == d2)
            && independent(a, b)
    })
}

/// The accesses where `b` reads what `a` writes: (a's write indices, b's read indices).
fn flow<'k>(a: &'k KernelData, b: &'k KernelData) -> Vec<(&'k BTreeSet<Idx>, &'k BTreeSet<Idx>)> {
    a.writes.iter().filter_map(|(buf, wa)| b.reads.get(buf).map(|rb| (wa, rb))).collect()
}

/// The legality query of every fusion that runs `b` in the same iteration as `a` over their
/// first `fused` loop dimensions (the same points of a pointwise domain, the row of a row
/// kernel, the result point of a reduction's epilogue): each buffer `a` writes and `b` reads is
/// written and read only at exactly those dimensions, in order. An element read at iteration
/// `x` is then written at iteration `x` and nowhere else, so no fused iteration needs a value
/// another one computes. Any other index (another loop's dimension, `t[j]` in a row kernel
/// over `i`; a transposed `x[j, i]`; fewer dims) is a dependence across fused iterations: the
/// fused kernel would read it before it is written. Matching by axes (sizes) alone is not
/// enough: in a square nest `t[i]` and `t[j]` have the same axes.
pub fn flows_at_fused_index(a: &KernelData, b: &KernelData, fused: usize) -> bool {
    let at = identity(fused);
    flow(a, b).iter().all(|(wa, rb)| wa.iter().chain(rb.iter()).all(|x| x.dims == at))
}

/// Both read an input (that `a` does not write) at the same index of their shared loops: the
/// fused kernel loads each element once for both. The same buffer at another index (`x[i, j]`
/// and `x[j, i]` in a square) is two different loads in one iteration and saves nothing, so it
/// does not count (it would, e.g., fuse a row and a column sum as "sibling" reductions).
fn shares_input(a: &KernelData, b: &KernelData) -> bool {
    a.reads.iter().any(|(buf, ia)| {
        matches!(buf, Buf::Mem(_))
            && !a.writes.contains_key(buf)
            && b.reads.get(buf).is_some_and(|ib| ia.iter().any(|x| ib.contains(x)))
    })
}

fn no_output_conflict(a: &KernelData, b: &KernelData) -> bool {
    a.writes.keys().all(|buf| !b.writes.contains_key(buf))
}

fn independent(a: &KernelData, b: &KernelData) -> bool {
    flow(a, b).is_empty() && flow(b, a).is_empty() && no_output_conflict(a, b)
}

#[cfg(test)]
mod tests {
    use super::super::{search, Access, Axis, Combiner, Device, Extents, Kernel, NestInfo, NestKind, SearchConfig};

    const A: Axis = Axis(0);

    fn acc(buffer: usize, dims: &[usize]) -> Access {
        Access { buffer, axes: vec![A; dims.len()], elem_bytes: 4, dims: dims.to_vec() }
    }

    /// A reduction of the square `x` (buffer 0) over one dim into `t` (buffer 1), then
    /// `y[i, j] = f(x[i, j], t[..])` (buffer 2); `red_dims`: how the reduction indexes `x`,
    /// `t_dims`: how the consumer indexes `t`. Every loop has the one axis `A`.
    fn square(red_dims: &[usize], t_dims: &[usize]) -> Vec<NestInfo> {
        let red = NestKind::Reduction { kept: vec![A], reduced: vec![A], combiner: Combiner::Sum, epilogue_ops: 0 };
        vec![
            NestInfo {
                id: 0,
                name: "t".into(),
                kind: red,
                reads: vec![acc(0, red_dims)],
                writes: vec![acc(1, &[0])],
                work: 0,
                exprs: Vec::new(),
            },
            NestInfo {
                id: 1,
                name: "y".into(),
                kind: NestKind::Pointwise { domain: vec![A, A] },
                reads: vec![acc(0, &[0, 1]), acc(1, t_dims)],
                writes: vec![acc(2, &[0, 1])],
                work: 0,
                exprs: Vec::new(),
            },
        ]
    }

    fn chosen(nests: &[NestInfo]) -> Vec<Kernel> {
        let ext = Extents { sizes: vec![Some(4096)], hints: vec![4096] };
        search(nests, &ext, &Device::h200(), &SearchConfig::default()).chosen.kernels
    }

    /// Two row reductions of the square `x` (buffer 0): `t = sum_j x[i, j]` (buffer 1), then
    /// `u = sum_j f(x[i, j], t[..])` (buffer 2), `t` read at `t_dims`; chosen where every
    /// legal fusion pays (a launch costs 1 ms).
    fn chained(t_dims: &[usize]) -> Vec<Kernel> {
        let red = || NestKind::Reduction { kept: vec![A], reduced: vec![A], combiner: Combiner::Sum, epilogue_ops: 0 };
        let nests = vec![
            NestInfo {
                id: 0,
                name: "t".into(),
                kind: red(),
                reads: vec![acc(0, &[0, 1])],
                writes: vec![acc(1, &[0])],
                work: 0,
                exprs: Vec::new(),
            },
            NestInfo {
                id: 1,
                name: "u".into(),
                kind: red(),
                reads: vec![acc(0, &[0, 1]), acc(1, t_dims)],
                writes: vec![acc(2, &[0])],
                work: 0,
                exprs: Vec::new(),
            },
        ];
        let ext = Extents { sizes: vec![Some(4096)], hints: vec![4096] };
        let dev = Device::parse("launch=1e-3").expect("a device");
        search(&nests, &ext, &dev, &SearchConfig::default()).chosen.kernels
    }

    #[test]
    fn row_reduction_reading_another_at_the_row_is_chained() {
        let k = chained(&[0]);
        assert!(matches!(k.as_slice(), [Kernel::Fused { style: Some(_), members }] if members.len() == 2), "{k:?}");
    }

    #[test]
    fn row_reduction_reading_another_at_the_column_is_not_chained() {
        // u needs t[j], which row j computes: no row kernel holds both.
        assert_eq!(chained(&[1]), vec![Kernel::Nest(0), Kernel::Nest(1)]);
    }

    #[test]
    fn consumer_reading_the_row_result_at_the_row_is_row_fused() {
        let k = chosen(&square(&[0, 1], &[0]));
        assert!(matches!(k.as_slice(), [Kernel::Fused { style: Some(_), .. }]), "{k:?}");
    }

    #[test]
    fn consumer_reading_the_result_at_another_loop_is_not_fused() {
        // Row sum read at the column index: y[i, j] needs t[j] from row j.
        assert_eq!(chosen(&square(&[0, 1], &[1])), vec![Kernel::Nest(0), Kernel::Nest(1)]);
        // Column sum (x read as x[k, j] by the kept loop j) broadcast over the rows (seed 554):
        // not a row reduction at all, and its result is read at the column index. (The cost
        // model may still split it into a partial and a final, as split-K would: two launches
        // either way.)
        let k = chosen(&square(&[1, 0], &[1]));
        assert!(k.iter().all(|k| !(k.nests().contains(&0) && k.nests().contains(&1))), "{k:?}");
        assert_eq!(k.last(), Some(&Kernel::Nest(1)), "{k:?}");
    }
}
