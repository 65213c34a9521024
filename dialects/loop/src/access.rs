//! Access maps: the indices of an `mloop.load`, `mloop.store` or `mloop.accumulate` as
//! polynomials over the values they are computed from, so that questions about an access are
//! queries instead of pattern matches on its index arithmetic.
//!
//! An index built from `mloop.constant`, `add`, `sub` and `mul` on `index` values is a
//! polynomial with integer coefficients over its *leaves*: block arguments (induction
//! variables, function arguments) and results of any other op (`mloop.dim`, a load, ...).
//! `x[i * N + j]` is `1*[i,N] + 1*[j]`. Any other index op (`div`, `rem`, `min`, `max`, ...)
//! makes the index [`Index::Opaque`]: only the leaves it depends on are kept, so dependence
//! stays exact and strides become unknown. Queries:
//!
//! - [`AccessMap::depends_on`]: whether any index uses a value (an iv: whether the access
//!   changes along that loop; a per-row value of a column loop does not);
//! - [`AccessMap::stride`]: the constant coefficient of an iv in one index, where it appears
//!   only linearly;
//! - [`AccessMap::is_contiguous_in`]: consecutive iterations of an iv touch consecutive
//!   elements (its stride in the last index is 1, no other index depends on it): the
//!   coalescing question.
//!
//! ```
//! use morf_loop::access::AccessMap;
//! use morf_loop::ops::{LoadOp, ParallelOp};
//!
//! let mut ctx = morf_ir::Context::new();
//! morf_loop::register(&mut ctx);
//! let src = "func.func @f(%x: !mloop.buffer<?x?xf32>, %r: !mloop.buffer<?xf32>) {
//!   %c0 = mloop.constant 0 : index
//!   %c1 = mloop.constant 1 : index
//!   %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
//!   %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
//!   mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
//!     %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
//!     %s = mloop.load %r[%i] : !mloop.buffer<?xf32>
//!     mloop.yield
//!   }
//!   return
//! }";
//! let m = morf_ir::parse_source(&mut ctx, "f.mlir", src, 0).unwrap();
//! let ops = ctx.walk_collect(m);
//! let p: ParallelOp = ops.iter().find_map(|&o| ctx.dyn_cast(o)).unwrap();
//! let body = ctx.entry_block(ctx.regions(p.id())[0]).unwrap();
//! let ivs = ctx.block_args(body).to_vec();
//! let loads: Vec<LoadOp> = ops.iter().filter_map(|&o| ctx.dyn_cast(o)).collect();
//! let x = AccessMap::of(&ctx, loads[0].id()).unwrap();
//! let r = AccessMap::of(&ctx, loads[1].id()).unwrap();
//! assert!(x.is_contiguous_in(ivs[1]) && !x.is_contiguous_in(ivs[0]));
//! assert!(!r.depends_on(ivs[1]));
//! ```

use std::collections::{BTreeMap, BTreeSet};

use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise};
use morf_ir::{Context, OpId, Value};

use crate::ops::{AccumulateOp, ConstantOp, LoadOp, StoreOp};

/// Terms a polynomial index may hold before it is treated as opaque (the products of long
/// sums grow quickly; real indices have a handful).
const MAX_TERMS: usize = 32;

/// One index of an access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Index {
    /// A polynomial: each monomial (its leaves, sorted, repeated for powers; empty for the
    /// constant term) with its integer coefficient, none zero.
    Poly(BTreeMap<Vec<Value>, i64>),
    /// Computed through an op outside `constant`/`add`/`sub`/`mul`: the leaves it depends on.
    Opaque(BTreeSet<Value>),
}

impl Index {
    /// The leaves this index depends on.
    pub fn leaves(&self) -> BTreeSet<Value> {
        match self {
            Index::Poly(p) => p.keys().flatten().copied().collect(),
            Index::Opaque(l) => l.clone(),
        }
    }

    /// The constant coefficient of `v` where `v` appears only in the linear monomial `[v]`.
    pub fn stride(&self, v: Value) -> Option<i64> {
        match self {
            Index::Poly(p) => {
                let nonlinear = p.keys().any(|m| m.len() > 1 && m.contains(&v));
                (!nonlinear).then(|| p.get(&vec![v]).copied().unwrap_or(0))
            }
            Index::Opaque(l) => (!l.contains(&v)).then_some(0),
        }
    }
}

/// The buffer and indices of one memory access ([module docs](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessMap {
    /// The buffer accessed.
    pub buffer: Value,
    /// One entry per dimension of the buffer, outermost first.
    pub indices: Vec<Index>,
}

impl AccessMap {
    /// The access map of `op`, an `mloop.load`, `mloop.store` or `mloop.accumulate`; `None` for
    /// any other op.
    pub fn of(ctx: &Context, op: OpId) -> Option<AccessMap> {
        let (buffer, idx) = if let Some(l) = ctx.dyn_cast::<LoadOp>(op) {
            (l.buffer(ctx), l.indices(ctx).to_vec())
        } else if let Some(s) = ctx.dyn_cast::<StoreOp>(op) {
            (s.buffer(ctx), s.indices(ctx).to_vec())
        } else if let Some(a) = ctx.dyn_cast::<AccumulateOp>(op) {
            (a.buffer(ctx), a.indices(ctx).to_vec())
        } else {
            return None;
        };
        let mut memo = BTreeMap::new();
        Some(AccessMap { buffer, indices: idx.into_iter().map(|v| index_of(ctx, v, &mut memo)).collect() })
    }

    /// Whether any index depends on `v`.
    pub fn depends_on(&self, v: Value) -> bool {
        self.indices.iter().any(|i| i.leaves().contains(&v))
    }

    /// The constant stride of `v` in index `dim` ([`Index::stride`]); `None` past the last
    /// index or where `v` enters it non-linearly or through an opaque op.
    pub fn stride(&self, dim: usize, v: Value) -> Option<i64> {
        self.indices.get(dim)?.stride(v)
    }

    /// Whether consecutive values of `v` access consecutive elements: stride 1 in the last
    /// index and no other index depending on `v`.
    pub fn is_contiguous_in(&self, v: Value) -> bool {
        let Some((last, outer)) = self.indices.split_last() else { return false };
        last.stride(v) == Some(1) && outer.iter().all(|i| !i.leaves().contains(&v))
    }
}

/// The index `v` as a polynomial over its leaves, or opaque.
fn index_of(ctx: &Context, v: Value, memo: &mut BTreeMap<Value, Index>) -> Index {
    if let Some(i) = memo.get(&v) {
        return i.clone();
    }
    let leaf = || Index::Poly(BTreeMap::from([(vec![v], 1)]));
    let r = match ctx.defining_op(v) {
        None => leaf(),
        Some(d) => {
            if ctx.isa::<ConstantOp>(d) {
                match ctx.attr(d, "value").and_then(|a| ctx.attr_int(a)) {
                    Some(k) if k != 0 => Index::Poly(BTreeMap::from([(Vec::new(), k)])),
                    Some(_) => Index::Poly(BTreeMap::new()),
                    None => leaf(),
                }
            } else {
                match elementwise(ctx, d) {
                    Some(Elementwise::Binary(f)) if ctx.results(d).len() == 1 => {
                        let ops = ctx.operands(d);
                        let (a, b) = (index_of(ctx, ops[0], memo), index_of(ctx, ops[1], memo));
                        combine(f, a, b)
                    }
                    Some(_) => {
                        Index::Opaque(ctx.operands(d).iter().flat_map(|&o| index_of(ctx, o, memo).leaves()).collect())
                    }
                    None => leaf(),
                }
            }
        }
    };
    memo.insert(v, r.clone());
    r
}

fn combine(f: BinaryFn, a: Index, b: Index) -> Index {
    let opaque = |a: &Index, b: &Index| Index::Opaque(a.leaves().union(&b.leaves()).copied().collect());
    let (Index::Poly(p), Index::Poly(q)) = (&a, &b) else { return opaque(&a, &b) };
    let mut out: BTreeMap<Vec<Value>, i64> = BTreeMap::new();
    let mut add = |m: Vec<Value>, c: i64| -> bool {
        let e = out.entry(m).or_insert(0);
        match e.checked_add(c) {
            Some(s) => {
                *e = s;
                true
            }
            None => false,
        }
    };
    let ok = match f {
        BinaryFn::Add => p.iter().chain(q).all(|(m, &c)| add(m.clone(), c)),
        BinaryFn::Sub => {
            p.iter().all(|(m, &c)| add(m.clone(), c))
                && q.iter().all(|(m, &c)| c.checked_neg().is_some_and(|n| add(m.clone(), n)))
        }
        BinaryFn::Mul => p.iter().all(|(m, &c)| {
            q.iter().all(|(n, &d)| {
                let mut k = m.clone();
                k.extend(n);
                k.sort();
                c.checked_mul(d).is_some_and(|cd| add(k, cd))
            })
        }),
        _ => false,
    };
    out.retain(|_, c| *c != 0);
    if !ok || out.len() > MAX_TERMS {
        return opaque(&a, &b);
    }
    Index::Poly(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{LoadOp, ParallelOp, ReduceOp};

    fn parse(src: &str) -> (Context, OpId) {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        let m = morf_ir::parse_source(&mut ctx, "t.mlir", src, 0).unwrap();
        morf_ir::verify(&ctx, m).unwrap();
        (ctx, m)
    }

    #[test]
    fn flattened_strided_and_clamped_indices() {
        let (ctx, m) = parse(
            "func.func @f(%x: !mloop.buffer<?xf32>, %w: !mloop.buffer<?xf32>, %m: index, %n: index) {
              %c0 = mloop.constant 0 : index
              %c1 = mloop.constant 1 : index
              %c2 = mloop.constant 2 : index
              %last = mloop.sub %n, %c1 : index
              mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
                %row = mloop.mul %i, %n : index
                %f = mloop.add %row, %j : index
                %a = mloop.load %x[%f] : !mloop.buffer<?xf32>
                %j2 = mloop.mul %j, %c2 : index
                %t = mloop.add %j2, %c1 : index
                %b = mloop.load %x[%t] : !mloop.buffer<?xf32>
                %jj = mloop.min %j, %last : index
                %c = mloop.load %w[%jj] : !mloop.buffer<?xf32>
                %ij = mloop.mul %i, %j : index
                %d = mloop.load %x[%ij] : !mloop.buffer<?xf32>
                mloop.yield
              }
              return
            }",
        );
        let ops = ctx.walk_collect(m);
        let p: ParallelOp = ops.iter().find_map(|&o| ctx.dyn_cast(o)).unwrap();
        let ivs = ctx.block_args(ctx.entry_block(ctx.regions(p.id())[0]).unwrap()).to_vec();
        let (i, j) = (ivs[0], ivs[1]);
        let maps: Vec<AccessMap> =
            ops.iter().filter(|&&o| ctx.isa::<LoadOp>(o)).map(|&o| AccessMap::of(&ctx, o).unwrap()).collect();
        // x[i * n + j]: contiguous in j; i moves by the symbolic n (no constant stride).
        assert!(maps[0].is_contiguous_in(j));
        assert_eq!(maps[0].stride(0, i), None);
        assert!(maps[0].depends_on(i));
        // x[2 j + 1]: stride 2, not contiguous.
        assert_eq!(maps[1].stride(0, j), Some(2));
        assert!(!maps[1].is_contiguous_in(j) && !maps[1].depends_on(i));
        // w[min(j, n - 1)]: depends on j, stride unknown.
        assert!(maps[2].depends_on(j));
        assert_eq!(maps[2].stride(0, j), None);
        // x[i * j]: non-linear in both.
        assert_eq!(maps[3].stride(0, j), None);
        assert!(!maps[3].is_contiguous_in(j));
    }

    #[test]
    fn per_row_values_of_a_column_loop() {
        let (ctx, m) = parse(
            "func.func @f(%x: !mloop.buffer<?x?xf32>, %s: !mloop.buffer<?xf32>, %y: !mloop.buffer<?x?xf32>) {
              %c0 = mloop.constant 0 : index
              %c1 = mloop.constant 1 : index
              %z = mloop.constant 0.0 : f32
              %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
              %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
              mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
                %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%z) : f32 {
                  %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
                  %q = mloop.load %s[%i] : !mloop.buffer<?xf32>
                  %e = mloop.div %v, %q : f32
                  mloop.yield %e : f32
                }
                mloop.store %r, %y[%i, %c0] : !mloop.buffer<?x?xf32>
                mloop.yield
              }
              return
            }",
        );
        let ops = ctx.walk_collect(m);
        let red: ReduceOp = ops.iter().find_map(|&o| ctx.dyn_cast(o)).unwrap();
        let j = ctx.block_args(ctx.entry_block(ctx.regions(red.id())[0]).unwrap())[0];
        let loads: Vec<AccessMap> =
            ops.iter().filter(|&&o| ctx.isa::<LoadOp>(o)).map(|&o| AccessMap::of(&ctx, o).unwrap()).collect();
        assert!(loads[0].is_contiguous_in(j));
        assert!(!loads[1].depends_on(j));
        // The store at [i, 0]: the constant index is the empty polynomial.
        let st = ops.iter().find(|&&o| ctx.isa::<crate::ops::StoreOp>(o)).unwrap();
        let map = AccessMap::of(&ctx, *st).unwrap();
        assert_eq!(map.indices[1], Index::Poly(BTreeMap::new()));
        assert!(AccessMap::of(&ctx, red.id()).is_none());
    }
}
