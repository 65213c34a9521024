//! The dense row-major f64 array the tensor reference interpreter computes on.
//!
//! [`Array`] holds a shape and its elements in row-major order, and provides
//! the element-wise, broadcast, reduction, transpose and reshape primitives
//! the interpreter evaluates tensor ops with. Everything is computed in f64;
//! [`Array::round_to`] models a store to a narrower dtype.
//!
//! The data-movement primitives are written for large arrays: dims are
//! collapsed first (size-1 dims dropped, adjacent dims with compatible strides
//! merged), an odometer walks the outer dims with incremental offsets, and the
//! innermost run is a contiguous copy, a fill, an element-wise combine, or a
//! cache-blocked transpose tile.

use crate::numerics::FloatKind;

/// A dense array of f64 in row-major order.
///
/// Invariant: `data.len()` is the product of `shape` (1 for a 0-d array).
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// The extent of each dimension, outermost first.
    pub shape: Vec<usize>,
    /// The elements, row-major (last dimension contiguous).
    pub data: Vec<f64>,
}

/// The combining function of a reduction.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ReduceKind {
    /// Sum; 0 over an empty set.
    Sum,
    /// Sum divided by the number of reduced elements; NaN over an empty set.
    Mean,
    /// Maximum, NaN if any element is NaN; -inf over an empty set.
    Max,
    /// Minimum, NaN if any element is NaN; +inf over an empty set.
    Min,
    /// Product; 1 over an empty set.
    Prod,
}

impl ReduceKind {
    /// Every kind.
    pub const ALL: [ReduceKind; 5] =
        [ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Max, ReduceKind::Min, ReduceKind::Prod];

    /// The lower-case name: `"sum"`, `"mean"`, `"max"`, `"min"` or `"prod"`.
    pub fn name(self) -> &'static str {
        match self {
            ReduceKind::Sum => "sum",
            ReduceKind::Mean => "mean",
            ReduceKind::Max => "max",
            ReduceKind::Min => "min",
            ReduceKind::Prod => "prod",
        }
    }

    /// Parses a name produced by [`ReduceKind::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        ReduceKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The accumulator's starting value (the result over an empty set, except
    /// for `Mean`, whose empty result is 0/0 = NaN).
    fn init(self) -> f64 {
        match self {
            ReduceKind::Sum | ReduceKind::Mean => 0.0,
            ReduceKind::Prod => 1.0,
            ReduceKind::Max => f64::NEG_INFINITY,
            ReduceKind::Min => f64::INFINITY,
        }
    }
}

/// Row-major strides of `shape`, in elements.
fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut s = 1;
    for (st, &n) in strides.iter_mut().zip(shape).rev() {
        *st = s;
        s *= n;
    }
    strides
}

/// Calls `f(src_offset, dst_offset)` for every multi-index over `sizes`, in
/// row-major order, with offsets built incrementally from the strides.
/// Every size must be non-zero; with no dims, `f(0, 0)` is called once.
fn for_each_offset(sizes: &[usize], src_strides: &[usize], dst_strides: &[usize], mut f: impl FnMut(usize, usize)) {
    debug_assert!(sizes.iter().all(|&n| n > 0));
    let rank = sizes.len();
    let mut idx = vec![0usize; rank];
    let (mut src, mut dst) = (0usize, 0usize);
    loop {
        f(src, dst);
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            src += src_strides[d];
            dst += dst_strides[d];
            if idx[d] < sizes[d] {
                break;
            }
            src -= src_strides[d] * sizes[d];
            dst -= dst_strides[d] * sizes[d];
            idx[d] = 0;
        }
    }
}

/// Tile extent, in a transposing gather, along the dim that reads the source
/// contiguously.
const TILE_J: usize = 64;
/// Tile extent, in a transposing gather, along the output's contiguous dim
/// (which reads the source with a stride). Kept at one cache line of f64 so
/// that power-of-two source strides do not thrash the cache's sets.
const TILE_L: usize = 8;

/// Builds the row-major array of shape `out_shape` whose element at index
/// `i` is `src[sum_d i[d] * strides[d]]` (a stride of 0 replicates).
fn gather(src: &[f64], out_shape: &[usize], strides: &[usize]) -> Vec<f64> {
    let n: usize = out_shape.iter().product();
    if n == 0 {
        return Vec::new();
    }
    // Collapse: drop size-1 dims, merge a dim into the next when walking it
    // is the same as continuing the next one (this includes two stride-0
    // dims).
    let mut dims: Vec<(usize, usize)> = Vec::with_capacity(out_shape.len());
    for (&size, &stride) in out_shape.iter().zip(strides) {
        if size == 1 {
            continue;
        }
        match dims.last_mut() {
            Some(last) if last.1 == stride * size => *last = (last.0 * size, stride),
            _ => dims.push((size, stride)),
        }
    }
    let Some(&(inner_n, inner_s)) = dims.last() else {
        return vec![src[0]];
    };
    let sizes: Vec<usize> = dims.iter().map(|d| d.0).collect();
    let src_strides: Vec<usize> = dims.iter().map(|d| d.1).collect();
    let dst_strides = row_major_strides(&sizes);
    let mut out = vec![0.0; n];
    let rank = dims.len();

    // A transposing gather: the innermost output dim walks the source with a
    // stride while some other dim walks it contiguously. Copy tile by tile.
    let unit = if inner_s > 1 { src_strides[..rank - 1].iter().rposition(|&s| s == 1) } else { None };
    if let Some(j) = unit {
        let nj = sizes[j];
        let dj = dst_strides[j];
        let outer = |v: &[usize]| -> Vec<usize> {
            v.iter().enumerate().filter(|&(d, _)| d != j && d != rank - 1).map(|(_, &x)| x).collect()
        };
        for_each_offset(&outer(&sizes), &outer(&src_strides), &outer(&dst_strides), |s0, d0| {
            for jb in (0..nj).step_by(TILE_J) {
                for lb in (0..inner_n).step_by(TILE_L) {
                    let l_end = (lb + TILE_L).min(inner_n);
                    for jj in jb..(jb + TILE_J).min(nj) {
                        let o = d0 + jj * dj;
                        let row = &mut out[o + lb..o + l_end];
                        let mut s = s0 + jj + lb * inner_s;
                        for v in row {
                            *v = src[s];
                            s += inner_s;
                        }
                    }
                }
            }
        });
        return out;
    }

    let outer = rank - 1;
    for_each_offset(&sizes[..outer], &src_strides[..outer], &dst_strides[..outer], |s, d| {
        let row = &mut out[d..d + inner_n];
        match inner_s {
            0 => row.fill(src[s]),
            1 => row.copy_from_slice(&src[s..s + inner_n]),
            _ => {
                let mut k = s;
                for v in row {
                    *v = src[k];
                    k += inner_s;
                }
            }
        }
    });
    out
}

/// Maximum that lets a NaN in either argument win.
#[inline(always)]
fn nan_max(acc: f64, x: f64) -> f64 {
    if x > acc || x.is_nan() {
        x
    } else {
        acc
    }
}

/// Minimum that lets a NaN in either argument win.
#[inline(always)]
fn nan_min(acc: f64, x: f64) -> f64 {
    if x < acc || x.is_nan() {
        x
    } else {
        acc
    }
}

impl Array {
    /// An array of the given shape and row-major data.
    ///
    /// Panics if `data.len()` is not the product of `shape`.
    pub fn new(shape: Vec<usize>, data: Vec<f64>) -> Self {
        let n: usize = shape.iter().product();
        assert_eq!(data.len(), n, "array data length does not match shape {shape:?}");
        Array { shape, data }
    }

    /// An array of the given shape with every element `v`.
    pub fn splat(shape: Vec<usize>, v: f64) -> Self {
        let n = shape.iter().product();
        Array { shape, data: vec![v; n] }
    }

    /// [`Array::splat`] with its storage reserved fallibly (`Vec::try_reserve_exact`): an
    /// error, not an abort, when the memory cannot be had (or the size overflows).
    pub fn try_splat(shape: Vec<usize>, v: f64) -> Result<Self, std::collections::TryReserveError> {
        let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).unwrap_or(usize::MAX);
        let mut data = Vec::new();
        data.try_reserve_exact(n)?;
        data.resize(n, v);
        Ok(Array { shape, data })
    }

    /// A 0-d array holding `v`.
    pub fn scalar(v: f64) -> Self {
        Array { shape: Vec::new(), data: vec![v] }
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements (the product of the shape; 1 for a 0-d array).
    pub fn num_elements(&self) -> usize {
        self.data.len()
    }

    /// Applies `f` to every element.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Array {
        Array { shape: self.shape.clone(), data: self.data.iter().map(|&x| f(x)).collect() }
    }

    /// Combines corresponding elements of two arrays of the same shape.
    pub fn zip(&self, other: &Array, f: impl Fn(f64, f64) -> f64) -> Array {
        debug_assert_eq!(self.shape, other.shape, "zip of differently shaped arrays");
        let data = self.data.iter().zip(&other.data).map(|(&a, &b)| f(a, b)).collect();
        Array { shape: self.shape.clone(), data }
    }

    /// Combines corresponding elements of three arrays of the same shape.
    pub fn zip3(a: &Array, b: &Array, c: &Array, f: impl Fn(f64, f64, f64) -> f64) -> Array {
        debug_assert_eq!(a.shape, b.shape, "zip3 of differently shaped arrays");
        debug_assert_eq!(a.shape, c.shape, "zip3 of differently shaped arrays");
        let data = a.data.iter().zip(&b.data).zip(&c.data).map(|((&x, &y), &z)| f(x, y, z)).collect();
        Array { shape: a.shape.clone(), data }
    }

    /// Broadcasts to `result_shape`: operand dim `i` becomes result dim
    /// `dims[i]` (`dims` strictly increasing) and must have that dim's size or
    /// size 1 (then it is replicated); result dims not named in `dims` are
    /// replicated.
    ///
    /// Panics if the mapping is malformed (the verifier rules it out).
    pub fn broadcast_in_dim(&self, result_shape: &[usize], dims: &[usize]) -> Array {
        assert_eq!(dims.len(), self.rank(), "broadcast_in_dim: one result dim per operand dim");
        assert!(dims.windows(2).all(|w| w[0] < w[1]), "broadcast_in_dim: dims must be strictly increasing");
        let in_strides = row_major_strides(&self.shape);
        let mut strides = vec![0; result_shape.len()];
        for (i, &d) in dims.iter().enumerate() {
            assert!(d < result_shape.len(), "broadcast_in_dim: dim {d} out of range");
            let (n, m) = (self.shape[i], result_shape[d]);
            if n == m {
                strides[d] = in_strides[i];
            } else {
                assert_eq!(n, 1, "broadcast_in_dim: operand dim {i} (size {n}) cannot broadcast to {m}");
            }
        }
        Array { shape: result_shape.to_vec(), data: gather(&self.data, result_shape, &strides) }
    }

    /// Permutes the dims: result dim `i` is operand dim `perm[i]`.
    ///
    /// Panics if `perm` is not a permutation of `0..rank`.
    pub fn transpose(&self, perm: &[usize]) -> Array {
        let rank = self.rank();
        let mut seen = vec![false; rank];
        assert_eq!(perm.len(), rank, "transpose: permutation length");
        for &p in perm {
            assert!(p < rank && !seen[p], "transpose: {perm:?} is not a permutation");
            seen[p] = true;
        }
        let in_strides = row_major_strides(&self.shape);
        let shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
        let data = gather(&self.data, &shape, &strides);
        Array { shape, data }
    }

    /// The same elements, in the same row-major order, under a new shape.
    ///
    /// Panics if the element counts differ.
    pub fn reshape(&self, shape: Vec<usize>) -> Array {
        Array::new(shape, self.data.clone())
    }

    /// Reduces over the dims in `dims` (any set, in any order; duplicates are
    /// ignored), accumulating in f64 in row-major order of the reduced
    /// elements. With `keepdim` the reduced dims stay as size 1, otherwise
    /// they are removed.
    ///
    /// Panics if a dim is out of range.
    pub fn reduce(&self, dims: &[usize], kind: ReduceKind, keepdim: bool) -> Array {
        match kind {
            ReduceKind::Sum | ReduceKind::Mean => self.reduce_with(dims, kind, keepdim, |a, x| a + x),
            ReduceKind::Prod => self.reduce_with(dims, kind, keepdim, |a, x| a * x),
            ReduceKind::Max => self.reduce_with(dims, kind, keepdim, nan_max),
            ReduceKind::Min => self.reduce_with(dims, kind, keepdim, nan_min),
        }
    }

    /// [`Array::reduce`] with the combining function `f` monomorphized.
    fn reduce_with(
        &self,
        dims: &[usize],
        kind: ReduceKind,
        keepdim: bool,
        f: impl Fn(f64, f64) -> f64 + Copy,
    ) -> Array {
        let rank = self.rank();
        let mut reduced = vec![false; rank];
        for &d in dims {
            assert!(d < rank, "reduce: dim {d} out of range for rank {rank}");
            reduced[d] = true;
        }
        let mut out_shape = Vec::with_capacity(rank);
        let mut count = 1usize;
        for (&n, &r) in self.shape.iter().zip(&reduced) {
            if r {
                count *= n;
                if keepdim {
                    out_shape.push(1);
                }
            } else {
                out_shape.push(n);
            }
        }
        let out_n: usize = out_shape.iter().product();
        let mut out = vec![kind.init(); out_n];

        if !self.data.is_empty() {
            // Group runs of adjacent reduced / kept dims (size-1 dims join
            // either); each run is contiguous in the row-major layout.
            let mut groups: Vec<(usize, bool)> = Vec::with_capacity(rank);
            for (&n, &r) in self.shape.iter().zip(&reduced) {
                if n == 1 {
                    continue;
                }
                match groups.last_mut() {
                    Some(g) if g.1 == r => g.0 *= n,
                    _ => groups.push((n, r)),
                }
            }
            match groups.pop() {
                None => out[0] = f(out[0], self.data[0]),
                Some((inner_n, inner_reduced)) => {
                    let sizes: Vec<usize> = groups.iter().map(|g| g.0).collect();
                    let src_strides: Vec<usize> = row_major_strides(&sizes).iter().map(|s| s * inner_n).collect();
                    // Output strides: row-major over the kept groups (the
                    // inner group included when kept), 0 for reduced groups.
                    let mut dst_strides = vec![0; sizes.len()];
                    let mut s = if inner_reduced { 1 } else { inner_n };
                    for (i, g) in groups.iter().enumerate().rev() {
                        if !g.1 {
                            dst_strides[i] = s;
                            s *= g.0;
                        }
                    }
                    let src = &self.data;
                    for_each_offset(&sizes, &src_strides, &dst_strides, |s, d| {
                        let run = &src[s..s + inner_n];
                        if inner_reduced {
                            out[d] = run.iter().fold(out[d], |a, &x| f(a, x));
                        } else {
                            for (o, &x) in out[d..d + inner_n].iter_mut().zip(run) {
                                *o = f(*o, x);
                            }
                        }
                    });
                }
            }
        }
        if kind == ReduceKind::Mean {
            let c = count as f64;
            for v in &mut out {
                *v /= c;
            }
        }
        Array { shape: out_shape, data: out }
    }

    /// Rounds every element to what a store to `kind` would hold
    /// (see [`FloatKind::round`]).
    pub fn round_to(&mut self, kind: FloatKind) {
        if kind == FloatKind::F64 {
            return;
        }
        for v in &mut self.data {
            *v = kind.round(*v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random values (splitmix64), some negative.
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x1234_5678;
        (0..n)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^= z >> 31;
                ((z >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0
            })
            .collect()
    }

    fn arange(shape: &[usize], seed: u64) -> Array {
        let n = shape.iter().product();
        Array::new(shape.to_vec(), values(n, seed))
    }

    /// Multi-index of row-major flat index `flat` (the naive way).
    fn unravel(shape: &[usize], mut flat: usize) -> Vec<usize> {
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        idx
    }

    fn ravel(shape: &[usize], idx: &[usize]) -> usize {
        idx.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
    }

    fn naive_broadcast(a: &Array, shape: &[usize], dims: &[usize]) -> Array {
        let n = shape.iter().product();
        let data = (0..n)
            .map(|flat| {
                let idx = unravel(shape, flat);
                let src: Vec<usize> =
                    dims.iter().enumerate().map(|(i, &d)| if a.shape[i] == 1 { 0 } else { idx[d] }).collect();
                a.data[ravel(&a.shape, &src)]
            })
            .collect();
        Array::new(shape.to_vec(), data)
    }

    fn naive_transpose(a: &Array, perm: &[usize]) -> Array {
        let shape: Vec<usize> = perm.iter().map(|&p| a.shape[p]).collect();
        let n = shape.iter().product();
        let data = (0..n)
            .map(|flat| {
                let idx = unravel(&shape, flat);
                let mut src = vec![0; perm.len()];
                for (i, &p) in perm.iter().enumerate() {
                    src[p] = idx[i];
                }
                a.data[ravel(&a.shape, &src)]
            })
            .collect();
        Array::new(shape, data)
    }

    fn naive_reduce(a: &Array, dims: &[usize], kind: ReduceKind, keepdim: bool) -> Array {
        let red = |d: usize| dims.contains(&d);
        let full_shape: Vec<usize> = (0..a.rank()).map(|d| if red(d) { 1 } else { a.shape[d] }).collect();
        let count: usize = (0..a.rank()).filter(|&d| red(d)).map(|d| a.shape[d]).product();
        let mut out = vec![kind.init(); full_shape.iter().product()];
        for (flat, &x) in a.data.iter().enumerate() {
            let mut idx = unravel(&a.shape, flat);
            for (d, i) in idx.iter_mut().enumerate() {
                if red(d) {
                    *i = 0;
                }
            }
            let o = &mut out[ravel(&full_shape, &idx)];
            *o = match kind {
                ReduceKind::Sum | ReduceKind::Mean => *o + x,
                ReduceKind::Prod => *o * x,
                ReduceKind::Max => {
                    if o.is_nan() || x.is_nan() {
                        f64::NAN
                    } else {
                        o.max(x)
                    }
                }
                ReduceKind::Min => {
                    if o.is_nan() || x.is_nan() {
                        f64::NAN
                    } else {
                        o.min(x)
                    }
                }
            };
        }
        if kind == ReduceKind::Mean {
            out.iter_mut().for_each(|v| *v /= count as f64);
        }
        let shape = if keepdim { full_shape } else { (0..a.rank()).filter(|&d| !red(d)).map(|d| a.shape[d]).collect() };
        Array::new(shape, out)
    }

    /// Bit-identical (NaN equal to NaN).
    fn assert_same(got: &Array, want: &Array, what: &str) {
        assert_eq!(got.shape, want.shape, "{what}: shape");
        for (i, (g, w)) in got.data.iter().zip(&want.data).enumerate() {
            assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()), "{what}: element {i}: {g} vs {w}");
        }
    }

    /// All shapes of the given rank with extents drawn from `sizes`.
    fn shapes(rank: usize, sizes: &[usize]) -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        for _ in 0..rank {
            out = out.into_iter().flat_map(|s| sizes.iter().map(move |&n| [s.clone(), vec![n]].concat())).collect();
        }
        out
    }

    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for i in 0..=p.len() {
                let mut q = p.clone();
                q.insert(i, n - 1);
                out.push(q);
            }
        }
        out
    }

    fn subsets(n: usize) -> Vec<Vec<usize>> {
        (0..1usize << n).map(|m| (0..n).filter(|&d| m >> d & 1 == 1).collect()).collect()
    }

    #[test]
    fn construction() {
        let a = Array::new(vec![2, 3], (0..6).map(f64::from).collect());
        assert_eq!(a.num_elements(), 6);
        assert_eq!(a.rank(), 2);
        assert_eq!(Array::try_splat(vec![2, 3], 1.5).unwrap(), Array::splat(vec![2, 3], 1.5));
        assert!(Array::try_splat(vec![1 << 40, 1 << 40], 0.0).is_err());
        assert!(Array::try_splat(vec![usize::MAX / 2, 3], 0.0).is_err());
        let s = Array::splat(vec![2, 0, 3], 1.5);
        assert_eq!(s.num_elements(), 0);
        let z = Array::splat(vec![], 2.0);
        assert_eq!(z, Array::scalar(2.0));
        assert_eq!(z.num_elements(), 1);
        assert_eq!(Array::splat(vec![2, 2], 7.0).data, vec![7.0; 4]);
    }

    #[test]
    #[should_panic]
    fn new_rejects_bad_length() {
        Array::new(vec![2, 3], vec![0.0; 5]);
    }

    #[test]
    fn elementwise() {
        let a = arange(&[3, 4], 1);
        let b = arange(&[3, 4], 2);
        let c = arange(&[3, 4], 3);
        let m = a.map(|x| x * 2.0 + 1.0);
        let z = a.zip(&b, |x, y| x - y);
        let z3 = Array::zip3(&a, &b, &c, |x, y, w| x * y + w);
        for i in 0..12 {
            assert_eq!(m.data[i], a.data[i] * 2.0 + 1.0);
            assert_eq!(z.data[i], a.data[i] - b.data[i]);
            assert_eq!(z3.data[i], a.data[i] * b.data[i] + c.data[i]);
        }
        assert_eq!(z3.shape, vec![3, 4]);
        let s = Array::scalar(3.0);
        assert_eq!(s.map(|x| -x), Array::scalar(-3.0));
        assert_eq!(s.zip(&s, |x, y| x * y), Array::scalar(9.0));
        let e = Array::splat(vec![0, 5], 0.0);
        assert_eq!(Array::zip3(&e, &e, &e, |x, _, _| x).shape, vec![0, 5]);
    }

    #[test]
    fn reshape_keeps_order() {
        let a = arange(&[2, 3, 4], 4);
        let r = a.reshape(vec![4, 6]);
        assert_eq!(r.shape, vec![4, 6]);
        assert_eq!(r.data, a.data);
        assert_eq!(Array::scalar(1.0).reshape(vec![1, 1]).shape, vec![1, 1]);
        assert_eq!(Array::splat(vec![0, 3], 0.0).reshape(vec![3, 0, 7]).num_elements(), 0);
    }

    #[test]
    #[should_panic]
    fn reshape_rejects_count_change() {
        arange(&[2, 3], 0).reshape(vec![7]);
    }

    #[test]
    fn transpose_matches_naive() {
        let mut seed = 0;
        for rank in 0..=4 {
            for shape in shapes(rank, &[0, 1, 2, 3]) {
                let a = arange(&shape, seed);
                seed += 1;
                for perm in permutations(rank) {
                    assert_same(&a.transpose(&perm), &naive_transpose(&a, &perm), &format!("{shape:?} {perm:?}"));
                }
            }
        }
        // Large enough for the tiled path, with ragged tiles.
        for shape in [vec![70, 33], vec![5, 37, 41], vec![33, 2, 65], vec![3, 40, 1, 35]] {
            let a = arange(&shape, 99);
            for perm in permutations(shape.len()) {
                assert_same(&a.transpose(&perm), &naive_transpose(&a, &perm), &format!("{shape:?} {perm:?}"));
            }
        }
    }

    #[test]
    #[should_panic]
    fn transpose_rejects_non_permutation() {
        arange(&[2, 3], 0).transpose(&[0, 0]);
    }

    #[test]
    fn broadcast_matches_naive() {
        let mut cases = 0;
        for rank in 0..=4 {
            for result in shapes(rank, &[0, 1, 2, 3]) {
                for dims in subsets(rank) {
                    // Each operand dim is either the result's size or 1.
                    for ones in subsets(dims.len()) {
                        let op_shape: Vec<usize> = dims
                            .iter()
                            .enumerate()
                            .map(|(i, &d)| if ones.contains(&i) { 1 } else { result[d] })
                            .collect();
                        let a = arange(&op_shape, cases);
                        cases += 1;
                        assert_same(
                            &a.broadcast_in_dim(&result, &dims),
                            &naive_broadcast(&a, &result, &dims),
                            &format!("{op_shape:?} -> {result:?} via {dims:?}"),
                        );
                    }
                }
            }
        }
        assert!(cases > 1000);
        // Row and column vectors, and a scalar, into a matrix.
        let row = arange(&[5], 1);
        let b = row.broadcast_in_dim(&[3, 5], &[1]);
        assert_same(&b, &naive_broadcast(&row, &[3, 5], &[1]), "row");
        assert_eq!(&b.data[5..10], &row.data[..]);
        let col = arange(&[3], 2);
        let b = col.broadcast_in_dim(&[3, 5], &[0]);
        assert_eq!(&b.data[5..10], &[col.data[1]; 5]);
        let b = Array::scalar(4.0).broadcast_in_dim(&[2, 3], &[]);
        assert_eq!(b, Array::splat(vec![2, 3], 4.0));
        let k = arange(&[3, 1], 3);
        assert_same(&k.broadcast_in_dim(&[3, 4], &[0, 1]), &naive_broadcast(&k, &[3, 4], &[0, 1]), "keepdim col");
    }

    #[test]
    #[should_panic]
    fn broadcast_rejects_size_mismatch() {
        arange(&[3], 0).broadcast_in_dim(&[2, 4], &[1]);
    }

    #[test]
    fn reduce_matches_naive() {
        let mut seed = 100;
        for rank in 0..=4 {
            for shape in shapes(rank, &[0, 1, 2, 3]) {
                let a = arange(&shape, seed);
                seed += 1;
                for dims in subsets(rank) {
                    for kind in ReduceKind::ALL {
                        for keepdim in [false, true] {
                            assert_same(
                                &a.reduce(&dims, kind, keepdim),
                                &naive_reduce(&a, &dims, kind, keepdim),
                                &format!("{shape:?} {dims:?} {kind:?} keepdim={keepdim}"),
                            );
                        }
                    }
                }
            }
        }
        let a = arange(&[4, 5, 6, 7], 5);
        for dims in subsets(4) {
            for kind in ReduceKind::ALL {
                assert_same(&a.reduce(&dims, kind, true), &naive_reduce(&a, &dims, kind, true), &format!("{dims:?}"));
            }
        }
    }

    #[test]
    fn reduce_specifics() {
        let a = Array::new(vec![2, 3, 2], (1..=12).map(f64::from).collect());
        // Non-contiguous dim set {0, 2}.
        let s = a.reduce(&[2, 0], ReduceKind::Sum, false);
        assert_eq!(s, Array::new(vec![3], vec![1. + 2. + 7. + 8., 3. + 4. + 9. + 10., 5. + 6. + 11. + 12.]));
        let m = a.reduce(&[0, 2], ReduceKind::Max, true);
        assert_eq!(m, Array::new(vec![1, 3, 1], vec![8., 10., 12.]));
        let mean = a.reduce(&[0, 1, 2], ReduceKind::Mean, false);
        assert_eq!(mean, Array::scalar(6.5));
        // Reducing nothing copies (mean divides by 1).
        assert_eq!(a.reduce(&[], ReduceKind::Mean, false), a);
        // 0-d input.
        assert_eq!(Array::scalar(3.0).reduce(&[], ReduceKind::Prod, true), Array::scalar(3.0));
        // Empty reductions.
        let e = Array::splat(vec![2, 0], 0.0);
        assert_eq!(e.reduce(&[1], ReduceKind::Sum, false).data, vec![0.0, 0.0]);
        assert_eq!(e.reduce(&[1], ReduceKind::Prod, false).data, vec![1.0, 1.0]);
        assert_eq!(e.reduce(&[1], ReduceKind::Max, false).data, vec![f64::NEG_INFINITY; 2]);
        assert_eq!(e.reduce(&[1], ReduceKind::Min, true).data, vec![f64::INFINITY; 2]);
        assert!(e.reduce(&[1], ReduceKind::Mean, false).data.iter().all(|v| v.is_nan()));
        assert_eq!(e.reduce(&[0], ReduceKind::Sum, false).shape, vec![0]);
        // NaN propagates through max and min wherever it sits.
        for pos in 0..4 {
            let mut d = vec![1.0, 5.0, -2.0, 3.0];
            d[pos] = f64::NAN;
            let a = Array::new(vec![4], d);
            for kind in [ReduceKind::Max, ReduceKind::Min, ReduceKind::Sum] {
                assert!(a.reduce(&[0], kind, false).data[0].is_nan(), "{kind:?} {pos}");
            }
            let a2 = a.reshape(vec![4, 1]).broadcast_in_dim(&[4, 3], &[0, 1]);
            assert!(a2.reduce(&[0], ReduceKind::Max, false).data.iter().all(|v| v.is_nan()));
        }
    }

    #[test]
    fn reduce_kind_names() {
        for k in ReduceKind::ALL {
            assert_eq!(ReduceKind::from_name(k.name()), Some(k));
        }
        assert_eq!(ReduceKind::from_name("avg"), None);
    }

    #[test]
    fn round_to_dtypes() {
        let mut a = Array::new(vec![4], vec![1.0 + 2f64.powi(-9), 70000.0, f64::NAN, -0.0]);
        a.round_to(FloatKind::BF16);
        assert_eq!(a.data[0], 1.0);
        assert_eq!(a.data[1], 70144.0);
        assert!(a.data[2].is_nan());
        assert!(a.data[3].is_sign_negative());
        let mut h = Array::new(vec![2], vec![70000.0, 0.1]);
        h.round_to(FloatKind::F16);
        assert_eq!(h.data[0], f64::INFINITY);
        assert_eq!(h.data[1], FloatKind::F16.round(0.1));
        let mut f = Array::new(vec![1], vec![0.1]);
        f.round_to(FloatKind::F32);
        assert_eq!(f.data[0], f64::from(0.1f32));
        f.round_to(FloatKind::F64);
        assert_eq!(f.data[0], f64::from(0.1f32));
    }

    /// RMSNorm backward on 4096x4096 in f64, about fifteen primitive ops.
    /// Run with `cargo test -p morf-tensor --release --lib -- --ignored --nocapture rmsnorm`.
    #[test]
    #[ignore]
    fn rmsnorm_backward_4096_timing() {
        let (m, n) = (4096, 4096);
        let x = Array::new(vec![m, n], values(m * n, 1));
        let dy = Array::new(vec![m, n], values(m * n, 2));
        let w = Array::new(vec![n], values(n, 3));
        let start = std::time::Instant::now();
        let eps = 1e-6;
        // r = rsqrt(mean(x^2) + eps), per row.
        let sq = x.map(|v| v * v);
        let ms = sq.reduce(&[1], ReduceKind::Mean, false);
        let r = ms.map(|v| 1.0 / (v + eps).sqrt());
        let rb = r.broadcast_in_dim(&[m, n], &[0]);
        let xhat = x.zip(&rb, |a, b| a * b);
        // dw = sum over rows of dy * xhat.
        let dyxhat = dy.zip(&xhat, |a, b| a * b);
        let dw = dyxhat.reduce(&[0], ReduceKind::Sum, false);
        // g = dy * w; dx = r * (g - xhat * mean(g * xhat)).
        let wb = w.broadcast_in_dim(&[m, n], &[1]);
        let g = dy.zip(&wb, |a, b| a * b);
        let gx = g.zip(&xhat, |a, b| a * b);
        let c = gx.reduce(&[1], ReduceKind::Mean, true);
        let cb = c.broadcast_in_dim(&[m, n], &[0, 1]);
        let t = Array::zip3(&g, &xhat, &cb, |g, xh, c| g - xh * c);
        let mut dx = t.zip(&rb, |a, b| a * b);
        dx.round_to(FloatKind::BF16);
        let xt = x.transpose(&[1, 0]);
        let elapsed = start.elapsed();
        assert_eq!(dw.shape, vec![n]);
        assert_eq!(xt.data[1], x.data[n]);
        assert!(dx.data.iter().all(|v| v.is_finite()));
        println!("rmsnorm backward 4096x4096 (+ one transpose): {elapsed:?}");
        assert!(elapsed.as_secs_f64() < 5.0);
    }
}
