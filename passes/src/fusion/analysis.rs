//! The e-class analysis of the plan language, and the search context it carries.
//!
//! Invariant: a kernel class holds exactly one e-node (rewrites only add `seq` alternatives), so
//! its [`Data::Kernel`] is the exact kernel it denotes: its parts, its [`Shape`] and the buffers
//! it reads and writes. A plan class (`seq`/`end`) carries the set of nests it computes, which
//! every equal plan must agree on: `merge` asserts it, since a disagreement is a rule bug.

use std::collections::{BTreeMap, BTreeSet};

use egg::{Analysis, DidMerge, EGraph, Id};

use super::lang::PlanLang;
use super::{Axis, Device, Extents, Kernel, NestInfo, NestKind, RowStyle, SearchConfig};

/// Splits shorter than this many rows are also tried at exactly one wave of two programs per
/// SM ([`Ctx::split_candidates`]).
const EXACT_WAVE_SPLIT_BELOW: u64 = 64;

/// A buffer as the cost model sees it: program memory, or the workspace of a partial.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Buf {
    /// A buffer of the function.
    Mem(usize),
    /// The f32 workspace `[ceil(rows/S), cols]` of the partial of this nest.
    Ws(usize),
}

/// One access of a kernel part: buffer, index axes, bytes touched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Io {
    /// The buffer.
    pub buf: Buf,
    /// The axes indexing it (empty for a workspace).
    pub axes: Vec<Axis>,
    /// The dimensions of the kernel's iteration space indexing it ([`Idx::dims`]).
    pub dims: Vec<usize>,
    /// Bytes touched by one pass over it.
    pub bytes: u64,
}

/// How a kernel indexes a buffer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Idx {
    /// The axes (size classes) indexing it.
    pub axes: Vec<Axis>,
    /// Per entry of `axes`, the dimension of the kernel's iteration space that indexes it
    /// (pointwise: its domain; reduction: kept then reduced; final: kept). A partial's dims are
    /// renumbered to its `[reduced..., kept...]` loop order, so that members of one kernel
    /// agree on what each dimension is. Two accesses touch the same element in one iteration
    /// only when their dims are equal; equal axes are not enough (`t[i]`, `t[j]` in a square).
    pub dims: Vec<usize>,
}

/// What a kernel looks like to the fusion rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Elementwise over `domain`; `split` when it holds a partial (rows per program).
    Pointwise {
        /// Iteration space.
        domain: Vec<Axis>,
        /// Rows per program of the partials it holds.
        split: Option<u64>,
    },
    /// One or more reductions of one order, with their pointwise epilogues.
    Reduction {
        /// Result axes.
        kept: Vec<Axis>,
        /// Combined axes.
        reduced: Vec<Axis>,
    },
    /// Final reductions of workspaces, with epilogues, over `domain` (the kept axes).
    Final {
        /// Result axes.
        domain: Vec<Axis>,
    },
    /// A row kernel (`rowfused`): one program per point of `kept` runs its row reductions over
    /// `reduced` and then its per-row work. Only a row reduction whose result it reads at the
    /// row can join it (in front, `prepend-row-reduction`); nothing fuses after it.
    Row {
        /// The row axes (the kept axes of its row reductions).
        kept: Vec<Axis>,
        /// The axes its row reductions combine (the columns of the row).
        reduced: Vec<Axis>,
        /// How it holds its row.
        style: RowStyle,
    },
    /// A combination no rule produces; kept so a bad rule shows up in the report instead of a panic.
    Invalid,
}

/// The analysis data of a kernel class.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelData {
    /// The kernel.
    pub kernel: Kernel,
    /// Its shape.
    pub shape: Shape,
    /// Everything its parts read (including what other parts produce), with every index.
    pub reads: BTreeMap<Buf, BTreeSet<Idx>>,
    /// Everything its parts write, with every index.
    pub writes: BTreeMap<Buf, BTreeSet<Idx>>,
}

/// Per-class data.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// A number leaf (nest id or split size).
    Num(u64),
    /// A row style leaf.
    Style(RowStyle),
    /// A kernel class.
    Kernel(Box<KernelData>),
    /// A plan class: the nests it computes.
    Plan(BTreeSet<usize>),
}

/// What the rules and the cost model need to know about the function.
#[derive(Clone, Debug)]
pub struct Ctx {
    /// The nests of the group being searched.
    pub nests: Vec<NestInfo>,
    /// Position of each nest id in `nests`.
    pub index: BTreeMap<usize, usize>,
    /// Program position of each nest id, which orders the members of a fused kernel: its
    /// position in `nests` unless set with [`Ctx::with_program_order`].
    pub program_pos: BTreeMap<usize, usize>,
    /// For each buffer, the nests of the whole function that read it.
    pub readers: BTreeMap<usize, BTreeSet<usize>>,
    /// For each buffer, the nests of the whole function that write it.
    pub writers: BTreeMap<usize, BTreeSet<usize>>,
    /// Extents.
    pub extents: Extents,
    /// The device.
    pub device: Device,
    /// The configuration.
    pub cfg: SearchConfig,
}

impl Ctx {
    /// A context for `nests` (a group) inside the function `all`.
    pub fn new(nests: Vec<NestInfo>, all: &[NestInfo], extents: Extents, device: Device, cfg: SearchConfig) -> Ctx {
        let nests: Vec<NestInfo> = nests.into_iter().map(NestInfo::with_dims).collect();
        let index: BTreeMap<usize, usize> = nests.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        let program_pos = index.clone();
        let mut readers: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        let mut writers: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for n in all {
            for a in &n.reads {
                readers.entry(a.buffer).or_default().insert(n.id);
            }
            for a in &n.writes {
                writers.entry(a.buffer).or_default().insert(n.id);
            }
        }
        Ctx { nests, index, program_pos, readers, writers, extents, device, cfg }
    }

    /// `self` with the program position of each nest id (see [`Ctx::program_pos`]).
    pub fn with_program_order(mut self, program_pos: BTreeMap<usize, usize>) -> Ctx {
        self.program_pos = program_pos;
        self
    }

    /// `members` of one kernel in program order of their nests. The rules only fuse parts
    /// whose dependences run forward in program order (a partial is hoisted only past
    /// independent work), so this is a valid order, and kernels that differ only in how they
    /// were assembled become equal.
    pub fn program_order(&self, mut members: Vec<Kernel>) -> Vec<Kernel> {
        members.sort_by_key(|m| m.nests().first().map(|n| self.program_pos.get(n).copied()));
        members
    }

    /// The nest with this id.
    pub fn nest(&self, id: usize) -> &NestInfo {
        &self.nests[self.index[&id]]
    }

    /// Bytes of one pass over an access.
    pub fn access_bytes(&self, axes: &[Axis], elem_bytes: u32) -> u64 {
        self.extents.numel(axes) * elem_bytes as u64
    }

    /// Bytes of the workspace of `partial(S, nest)`: `ceil(rows/S) x cols` f32.
    pub fn workspace_bytes(&self, nest: usize, split: u64) -> u64 {
        match &self.nest(nest).kind {
            NestKind::Reduction { kept, reduced, .. } => {
                self.extents.numel(reduced).div_ceil(split.max(1)) * self.extents.numel(kept) * 4
            }
            NestKind::Pointwise { .. } => 0,
        }
    }

    /// Whether nest `id` is a reduction whose reduced axes are the *outer* axes of an input it
    /// shares with another nest, with a splittable combiner: the nests `column-reduction-to-partial`
    /// may rewrite.
    pub fn is_outer_reduction(&self, id: usize) -> bool {
        let Some(&i) = self.index.get(&id) else { return false };
        let n = &self.nests[i];
        let NestKind::Reduction { kept, reduced, combiner, .. } = &n.kind else { return false };
        if !combiner.splittable() || kept.is_empty() || reduced.is_empty() {
            return false;
        }
        let outer: Vec<Axis> = reduced.iter().chain(kept).copied().collect();
        // By position, not only by size: in a square `x[i, j]` the reduced loop must index the
        // leading dimension, or the partial's row-order loops would not be those of its
        // producer or row kernel.
        let outer_dims: Vec<usize> = (kept.len()..kept.len() + reduced.len()).chain(0..kept.len()).collect();
        n.reads.iter().any(|a| {
            // Shared with another reader, or produced by another nest (a pointwise producer
            // in row order: the partial can then consume it in the producer's kernel).
            let other =
                |m: &BTreeMap<usize, BTreeSet<usize>>| m.get(&a.buffer).is_some_and(|r| r.iter().any(|&o| o != id));
            a.axes == outer && a.dims == outer_dims && (other(&self.readers) || other(&self.writers))
        })
    }

    /// Whether reduction `id` reduces the inner axes of its data (`[kept..., reduced...]`).
    pub fn is_row_reduction(&self, id: usize) -> bool {
        let n = self.nest(id);
        let NestKind::Reduction { kept, reduced, .. } = &n.kind else { return false };
        let inner: Vec<Axis> = kept.iter().chain(reduced).copied().collect();
        n.reads.iter().any(|a| a.axes == inner && a.dims == identity(inner.len()))
    }

    /// Split sizes to try for the partial of nest `id`: the configured ones plus, when
    /// enabled, ones derived from the row count and the SM count; never more programs than
    /// `max_splits`.
    pub fn split_candidates(&self, id: usize) -> Vec<u64> {
        let NestKind::Reduction { reduced, .. } = &self.nest(id).kind else { return vec![] };
        let rows = self.extents.numel(reduced).max(1);
        let sms = self.device.sms.max(1) as u64;
        let mut s: BTreeSet<u64> = self.cfg.splits.iter().copied().filter(|&s| s > 0).collect();
        if self.cfg.derived_splits {
            let last_pow2 = |v: u64| if v == 0 { 1 } else { 1u64 << (63 - v.leading_zeros()) };
            // Inductor's heuristic: clamp(last_pow2(M / (SMs*8)), 16, 128).
            s.insert(last_pow2(rows / (sms * 8)).clamp(16, 128));
            // Two and one programs per SM.
            let two_per_sm = rows.div_ceil(2 * sms).max(1);
            s.insert(last_pow2(two_per_sm).max(1));
            s.insert(last_pow2(rows.div_ceil(sms)).max(1));
            // Exactly one wave of two programs per SM (the row kernels' usual occupancy) where
            // programs take few rows: a power of two can miss the wave by nearly half, and
            // with few rows a program's fixed costs (its ring's fill, its partials' flush)
            // weigh most (row_col_stats at 5120 x 5120: S = 32 ran 160 CTAs where 264 fit,
            // S = 16 two rounds; S = 20 fills one and ran 18% faster; gelu_bwd_bias there
            // 28%). Not for longer splits: at 65536 x 200 the exact S = 249 let the search
            // take a standalone split-K partial for LayerNorm's db that its model prices at
            // a quarter of its time (docs/perf.md, thirty-seventh session).
            if two_per_sm < EXACT_WAVE_SPLIT_BELOW {
                s.insert(two_per_sm);
            }
        }
        s.into_iter().filter(|&s| rows.div_ceil(s) <= self.cfg.max_splits && s <= rows.next_power_of_two()).collect()
    }

    /// The accesses of one unfused part of a kernel, with dims in the part's own loop order.
    pub fn part_io(&self, part: &Kernel) -> (Vec<Io>, Vec<Io>) {
        let io = |accs: &[super::Access], dim: &dyn Fn(usize) -> usize| {
            accs.iter()
                .map(|a| Io {
                    buf: Buf::Mem(a.buffer),
                    axes: a.axes.clone(),
                    dims: a.dims.iter().map(|&d| dim(d)).collect(),
                    bytes: self.access_bytes(&a.axes, a.elem_bytes),
                })
                .collect::<Vec<_>>()
        };
        let same = |d: usize| d;
        match *part {
            Kernel::Nest(n) => {
                let n = self.nest(n);
                (io(&n.reads, &same), io(&n.writes, &same))
            }
            Kernel::Partial { nest, split } => {
                let ws =
                    Io { buf: Buf::Ws(nest), axes: vec![], dims: vec![], bytes: self.workspace_bytes(nest, split) };
                // The partial loops over [reduced..., kept...]: kept dim d moves behind the
                // reduced ones, reduced dim k + d moves to the front.
                let (k, r) = match &self.nest(nest).kind {
                    NestKind::Reduction { kept, reduced, .. } => (kept.len(), reduced.len()),
                    NestKind::Pointwise { .. } => (0, 0),
                };
                let to_row_order = move |d: usize| match d {
                    usize::MAX => usize::MAX,
                    d if d < k => d + r,
                    d => d - k,
                };
                (io(&self.nest(nest).reads, &to_row_order), vec![ws])
            }
            Kernel::Final { nest, split } => {
                let ws =
                    Io { buf: Buf::Ws(nest), axes: vec![], dims: vec![], bytes: self.workspace_bytes(nest, split) };
                (vec![ws], io(&self.nest(nest).writes, &same))
            }
            Kernel::Fused { .. } => unreachable!("parts are never fused kernels"),
        }
    }

    /// The shape of one unfused part.
    fn part_shape(&self, part: &Kernel) -> Shape {
        match *part {
            Kernel::Nest(n) => match &self.nest(n).kind {
                NestKind::Pointwise { domain } => Shape::Pointwise { domain: domain.clone(), split: None },
                NestKind::Reduction { kept, reduced, .. } => {
                    Shape::Reduction { kept: kept.clone(), reduced: reduced.clone() }
                }
            },
            Kernel::Partial { nest, split } => match &self.nest(nest).kind {
                NestKind::Reduction { kept, reduced, .. } => {
                    Shape::Pointwise { domain: reduced.iter().chain(kept).copied().collect(), split: Some(split) }
                }
                NestKind::Pointwise { .. } => Shape::Invalid,
            },
            Kernel::Final { nest, .. } => match &self.nest(nest).kind {
                NestKind::Reduction { kept, .. } => Shape::Final { domain: kept.clone() },
                NestKind::Pointwise { .. } => Shape::Invalid,
            },
            Kernel::Fused { .. } => Shape::Invalid,
        }
    }

    /// The analysis data of a kernel.
    pub fn kernel_data(&self, kernel: Kernel) -> KernelData {
        let mut reads = BTreeMap::new();
        let mut writes = BTreeMap::new();
        for p in kernel.parts() {
            let (r, w) = self.part_io(p);
            for io in r {
                reads.entry(io.buf).or_insert_with(BTreeSet::new).insert(Idx { axes: io.axes, dims: io.dims });
            }
            for io in w {
                writes.entry(io.buf).or_insert_with(BTreeSet::new).insert(Idx { axes: io.axes, dims: io.dims });
            }
        }
        let shape = match &kernel {
            Kernel::Fused { members, style: Some(style) } => members
                .iter()
                .find_map(|m| match m {
                    Kernel::Nest(n) => match &self.nest(*n).kind {
                        NestKind::Reduction { kept, reduced, .. } => {
                            Some(Shape::Row { kept: kept.clone(), reduced: reduced.clone(), style: *style })
                        }
                        NestKind::Pointwise { .. } => None,
                    },
                    _ => None,
                })
                .unwrap_or(Shape::Invalid),
            Kernel::Fused { members, style: None } => {
                members.iter().map(|m| self.part_shape(m)).reduce(join_shapes).unwrap_or(Shape::Invalid)
            }
            k => self.part_shape(k),
        };
        KernelData { kernel, shape, reads, writes }
    }
}

/// `[0, 1, ..., n - 1]`: the index of a buffer read or written at the current iteration of the
/// first `n` dimensions of a kernel.
pub fn identity(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// The shape of a kernel doing `a`'s work and then `b`'s.
fn join_shapes(a: Shape, b: Shape) -> Shape {
    use Shape::*;
    match (a, b) {
        (Pointwise { domain: d1, split: s1 }, Pointwise { domain: d2, split: s2 })
            if d1 == d2 && (s1.is_none() || s2.is_none() || s1 == s2) =>
        {
            Pointwise { domain: d1, split: s1.or(s2) }
        }
        (Reduction { kept: k1, reduced: r1 }, Reduction { kept: k2, reduced: r2 }) if k1 == k2 && r1 == r2 => {
            Reduction { kept: k1, reduced: r1 }
        }
        (Reduction { kept, reduced }, Pointwise { domain, split: None }) if domain == kept => {
            Reduction { kept, reduced }
        }
        (Final { domain: d1 }, Final { domain: d2 }) if d1 == d2 => Final { domain: d1 },
        (Final { domain: d1 }, Pointwise { domain: d2, split: None }) if d1 == d2 => Final { domain: d1 },
        _ => Invalid,
    }
}

/// The analysis: [`Data`] per class, with the [`Ctx`] the rules consult.
#[derive(Clone, Debug)]
pub struct PlanAnalysis {
    /// The search context.
    pub ctx: Ctx,
}

impl PlanAnalysis {
    /// An analysis over `ctx`.
    pub fn new(ctx: Ctx) -> PlanAnalysis {
        PlanAnalysis { ctx }
    }
}

/// The kernel data of class `id`, if it is a kernel class.
pub fn kernel_of(egraph: &EGraph<PlanLang, PlanAnalysis>, id: Id) -> Option<&KernelData> {
    match &egraph[id].data {
        Data::Kernel(k) => Some(k),
        _ => None,
    }
}

fn num(egraph: &EGraph<PlanLang, PlanAnalysis>, id: Id) -> u64 {
    match egraph[id].data {
        Data::Num(n) => n,
        ref d => panic!("expected a number leaf, found {d:?}"),
    }
}

fn kernel(egraph: &EGraph<PlanLang, PlanAnalysis>, id: Id) -> Kernel {
    kernel_of(egraph, id).map(|k| k.kernel.clone()).expect("expected a kernel class")
}

impl Analysis<PlanLang> for PlanAnalysis {
    type Data = Data;

    fn make(egraph: &mut EGraph<PlanLang, Self>, enode: &PlanLang, _id: Id) -> Data {
        let ctx = &egraph.analysis.ctx;
        let k = |kernel: Kernel| Data::Kernel(Box::new(ctx.kernel_data(kernel)));
        match enode {
            PlanLang::Num(n) => Data::Num(*n),
            PlanLang::Persistent => Data::Style(RowStyle::Persistent),
            PlanLang::Looped => Data::Style(RowStyle::Looped),
            PlanLang::End => Data::Plan(BTreeSet::new()),
            PlanLang::Seq([a, rest]) => {
                let mut covered = match &egraph[*rest].data {
                    Data::Plan(c) => c.clone(),
                    d => panic!("'seq' tail must be a plan, found {d:?}"),
                };
                covered.extend(kernel(egraph, *a).nests());
                Data::Plan(covered)
            }
            PlanLang::Nest(n) => k(Kernel::Nest(num(egraph, *n) as usize)),
            PlanLang::Partial([s, n]) => k(Kernel::Partial { nest: num(egraph, *n) as usize, split: num(egraph, *s) }),
            PlanLang::Final([s, n]) => k(Kernel::Final { nest: num(egraph, *n) as usize, split: num(egraph, *s) }),
            PlanLang::Fuse([a, b]) => {
                let mut members = kernel(egraph, *a).parts().to_vec();
                members.extend_from_slice(kernel(egraph, *b).parts());
                k(Kernel::Fused { members: ctx.program_order(members), style: None })
            }
            PlanLang::RowFused([s, r, p]) => {
                let style = match egraph[*s].data {
                    Data::Style(s) => s,
                    ref d => panic!("expected a row style, found {d:?}"),
                };
                let mut members = kernel(egraph, *r).parts().to_vec();
                members.extend_from_slice(kernel(egraph, *p).parts());
                k(Kernel::Fused { members: ctx.program_order(members), style: Some(style) })
            }
        }
    }

    fn merge(&mut self, to: &mut Data, from: Data) -> DidMerge {
        match (&*to, &from) {
            (Data::Plan(a), Data::Plan(b)) => {
                assert_eq!(a, b, "merged plans compute different nests: a fusion rule is unsound");
            }
            (a, b) => assert_eq!(a, b, "merged e-classes disagree: a fusion rule is unsound"),
        }
        DidMerge(false, false)
    }
}
