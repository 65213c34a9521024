//! A generator of random, valid `mtensor` programs for differential testing: the same
//! program runs in the reference interpreter before and after a pass (or a lowering), and
//! the results must agree.
//!
//! Every generated value's shape is the base shape `D` restricted to a subset of its axes,
//! so broadcasts and reductions between values are always well-typed. Each base axis is
//! static or dynamic (`?`) in the signature; dynamic sizes come from `mtensor.dim`. The
//! generator is deterministic in its seed and needs no dependency.

use std::fmt::Write as _;

use morf_ir::interfaces::{BinaryFn, CmpPredicate, UnaryFn};
use morf_ir::FloatKind;

use crate::ops::{
    binary_op, unary_op, AbsOp, AddOp, BroadcastOp, CmpOp, ConstantOp, ConvertOp, DimOp, ReduceOp, SelectOp, TanhOp,
};

/// A tiny deterministic generator (splitmix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// A float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A standard normal sample (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.unit().max(1e-300);
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
    /// One element of a slice.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// One argument of a generated function.
#[derive(Clone, Debug)]
pub struct ArgSpec {
    /// The SSA name (without `%`).
    pub name: String,
    /// Its run-time shape.
    pub shape: Vec<usize>,
    /// Its element type.
    pub elem: FloatKind,
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    /// The module text.
    pub text: String,
    /// The function's name.
    pub func: String,
    /// Its arguments, in order.
    pub args: Vec<ArgSpec>,
}

/// Knobs of the generator. The defaults reproduce the programs of earlier versions seed for
/// seed; the other knobs draw from the same stream, so changing one changes the programs.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Smallest base rank (1..=3; 1 by default).
    pub min_rank: usize,
    /// Largest base rank (1..=3).
    pub max_rank: usize,
    /// Number of ops to generate (at most).
    pub max_ops: usize,
    /// Element types to draw from.
    pub dtypes: Vec<FloatKind>,
    /// Sizes of the base axes to draw from.
    pub sizes: Vec<usize>,
    /// End with a mixed-order pair on a full-rank value (base rank >= 2): a reduction over
    /// its leading `k` axes (a column reduction, possibly over several axes) and one over
    /// the others (a row reduction), both returned. Off by default.
    pub mixed_tail: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            min_rank: 1,
            max_rank: 3,
            max_ops: 12,
            dtypes: vec![FloatKind::F32, FloatKind::F64, FloatKind::BF16, FloatKind::F16],
            sizes: vec![1, 2, 3, 4, 5, 7, 8, 16],
            mixed_tail: false,
        }
    }
}

#[derive(Clone, Debug)]
struct Val {
    name: String,
    /// Base axes present, increasing.
    axes: Vec<usize>,
    elem: FloatKind,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    sizes: Vec<usize>,
    dynamic: Vec<bool>,
    body: String,
    vals: Vec<Val>,
    next: usize,
    dim_names: Vec<String>,
}

impl Gen<'_> {
    fn ty(&self, axes: &[usize], elem: FloatKind) -> String {
        let mut s = String::from("tensor<");
        for &a in axes {
            if self.dynamic[a] {
                s.push_str("?x");
            } else {
                let _ = write!(s, "{}x", self.sizes[a]);
            }
        }
        s.push_str(elem.name());
        s.push('>');
        s
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }

    fn sizes_clause(&self, axes: &[usize]) -> String {
        let dyns: Vec<String> =
            axes.iter().filter(|a| self.dynamic[**a]).map(|a| format!("%{}", self.dim_names[*a])).collect();
        if dyns.is_empty() {
            String::new()
        } else {
            format!(" sizes({})", dyns.join(", "))
        }
    }

    fn push(&mut self, name: String, axes: Vec<usize>, elem: FloatKind, line: String) {
        self.body.push_str("  ");
        self.body.push_str(&line);
        self.body.push('\n');
        self.vals.push(Val { name, axes, elem });
    }

    /// Returns a value with exactly `axes` and element type `elem`, making one by
    /// broadcast and convert if needed.
    fn value_like(&mut self, axes: &[usize], elem: FloatKind) -> String {
        let same: Vec<Val> = self.vals.iter().filter(|v| v.axes == axes && v.elem == elem).cloned().collect();
        if !same.is_empty() && self.rng.chance(0.8) {
            return self.rng.pick(&same).name.clone();
        }
        // Broadcast a value whose axes are a subset, then convert.
        let subs: Vec<Val> = self.vals.iter().filter(|v| v.axes.iter().all(|a| axes.contains(a))).cloned().collect();
        let src = self.rng.pick(&subs).clone();
        let mut name = src.name.clone();
        let mut cur_elem = src.elem;
        if src.axes != axes {
            let dims: Vec<String> =
                src.axes.iter().map(|a| axes.iter().position(|b| b == a).unwrap_or(0).to_string()).collect();
            let n = self.fresh();
            let line = format!(
                "%{n} = {} %{name} dims [{}]{} : {} -> {}",
                BroadcastOp::NAME,
                dims.join(", "),
                self.sizes_clause(axes),
                self.ty(&src.axes, cur_elem),
                self.ty(axes, cur_elem)
            );
            self.push(n.clone(), axes.to_vec(), cur_elem, line);
            name = n;
        }
        if cur_elem != elem {
            let n = self.fresh();
            let line =
                format!("%{n} = {} %{name} : {} to {}", ConvertOp::NAME, self.ty(axes, cur_elem), self.ty(axes, elem));
            cur_elem = elem;
            self.push(n.clone(), axes.to_vec(), cur_elem, line);
            name = n;
        }
        name
    }

    /// Pushes `1 + abs(x)` for the value `x` of `axes` and `elem`; returns its name.
    fn one_plus_abs(&mut self, x: &str, axes: &[usize], elem: FloatKind) -> String {
        let t = self.ty(axes, elem);
        let m = self.fresh();
        self.push(m.clone(), axes.to_vec(), elem, format!("%{m} = {} %{x} : {t}", AbsOp::NAME));
        let one = self.constant(axes, elem, 1.0);
        let k = self.fresh();
        let line = format!("%{k} = {} %{m}, %{one} : {t}", AddOp::NAME);
        self.push(k.clone(), axes.to_vec(), elem, line);
        k
    }

    fn step(&mut self) {
        let v = self.rng.pick(&self.vals).clone();
        let t = self.ty(&v.axes, v.elem);
        let n = self.fresh();
        match self.rng.below(9) {
            0 => {
                use UnaryFn::*;
                // Every unary function of the list, so new ones are generated too.
                let f = *self.rng.pick(UnaryFn::ALL);
                // Keep exp/log/sqrt/rsqrt in range and well conditioned: exp of a tanh, and
                // log/sqrt/rsqrt of 1 + abs(x), never of a value near 0 (the log of a sum that
                // cancels to almost 0 magnifies the sum's rounding beyond any tolerance).
                let (src, pre) = match f {
                    Exp => {
                        let m = self.fresh();
                        (m.clone(), Some(format!("%{m} = {} %{} : {t}", TanhOp::NAME, v.name)))
                    }
                    Sqrt | Rsqrt | Log => (self.one_plus_abs(&v.name, &v.axes, v.elem), None),
                    _ => (v.name.clone(), None),
                };
                if let Some(p) = pre {
                    self.push(src.clone(), v.axes.clone(), v.elem, p);
                }
                let op = unary_op(f).name;
                self.push(n.clone(), v.axes.clone(), v.elem, format!("%{n} = {op} %{src} : {t}"));
            }
            1..=3 => {
                use BinaryFn::*;
                let f = *self.rng.pick(&[Add, Sub, Mul, Max, Min, Div, Add, Mul]);
                let other = self.value_like(&v.axes.clone(), v.elem);
                let (a, b) = if self.rng.chance(0.5) { (v.name.clone(), other) } else { (other, v.name.clone()) };
                // Divide by something away from zero: 1 + abs(b).
                let b = if f == Div { self.one_plus_abs(&b, &v.axes, v.elem) } else { b };
                let op = binary_op(f).name;
                self.push(n.clone(), v.axes.clone(), v.elem, format!("%{n} = {op} %{a}, %{b} : {t}"));
            }
            4 | 5 if !v.axes.is_empty() => {
                let kind = *self.rng.pick(&["sum", "mean", "max", "min", "sum", "mean"]);
                let mut red: Vec<usize> = v.axes.iter().copied().filter(|_| self.rng.chance(0.5)).collect();
                if red.is_empty() {
                    red.push(*self.rng.pick(&v.axes));
                }
                let keep: Vec<usize> = v.axes.iter().copied().filter(|a| !red.contains(a)).collect();
                let pos: Vec<String> =
                    red.iter().map(|a| v.axes.iter().position(|b| b == a).unwrap_or(0).to_string()).collect();
                let line = format!(
                    "%{n} = {} {kind} %{} dims [{}] : {t} -> {}",
                    ReduceOp::NAME,
                    v.name,
                    pos.join(", "),
                    self.ty(&keep, v.elem)
                );
                self.push(n.clone(), keep, v.elem, line);
            }
            6 => {
                let to = *self.rng.pick(&[FloatKind::F32, FloatKind::F64, FloatKind::BF16, FloatKind::F16]);
                if to != v.elem {
                    let line = format!("%{n} = {} %{} : {t} to {}", ConvertOp::NAME, v.name, self.ty(&v.axes, to));
                    self.push(n.clone(), v.axes.clone(), to, line);
                }
            }
            7 => {
                // Broadcast up to the full base shape.
                let all: Vec<usize> = (0..self.sizes.len()).collect();
                if v.axes != all {
                    let _ = self.value_like(&all, v.elem);
                }
            }
            _ => {
                let other = self.value_like(&v.axes.clone(), v.elem);
                use CmpPredicate::*;
                let pred = self.rng.pick(&[Lt, Le, Gt, Ge, Eq, Ne]).name();
                let c = self.fresh();
                let ct = self.ty(&v.axes, FloatKind::F32).replace("f32>", "i1>");
                self.body.push_str(&format!("  %{c} = {} {pred}, %{}, %{other} : {t}\n", CmpOp::NAME, v.name));
                self.push(
                    n.clone(),
                    v.axes.clone(),
                    v.elem,
                    format!("%{n} = {} %{c}, %{}, %{other} : {ct}, {t}", SelectOp::NAME, v.name),
                );
            }
        }
    }

    /// [`GenConfig::mixed_tail`]: a full-rank value reduced over its leading `k` axes and,
    /// separately, over the rest; returns the two results.
    fn mixed_tail(&mut self, rank: usize) -> Vec<Val> {
        let elem = self.rng.pick(&self.vals).elem;
        let all: Vec<usize> = (0..rank).collect();
        let src = self.value_like(&all, elem);
        let k = 1 + self.rng.below(rank - 1);
        let t = self.ty(&all, elem);
        let mut out = Vec::new();
        for (red, kinds) in
            [((0..k).collect::<Vec<_>>(), ["sum", "mean", "max"]), ((k..rank).collect(), ["sum", "mean", "min"])]
        {
            let kind = *self.rng.pick(&kinds);
            let keep: Vec<usize> = all.iter().copied().filter(|a| !red.contains(a)).collect();
            let pos: Vec<String> = red.iter().map(usize::to_string).collect();
            let n = self.fresh();
            let line = format!(
                "%{n} = {} {kind} %{src} dims [{}] : {t} -> {}",
                ReduceOp::NAME,
                pos.join(", "),
                self.ty(&keep, elem)
            );
            self.push(n.clone(), keep.clone(), elem, line);
            out.push(Val { name: n, axes: keep, elem });
        }
        out
    }

    fn constant(&mut self, axes: &[usize], elem: FloatKind, value: f64) -> String {
        let c = self.fresh();
        let zt = self.ty(&[], elem);
        self.body.push_str(&format!("  %{c} = {} dense<{value:?}> : {zt}\n", ConstantOp::NAME));
        if axes.is_empty() {
            return c;
        }
        let n = self.fresh();
        let line = format!(
            "%{n} = {} %{c} dims []{} : {zt} -> {}",
            BroadcastOp::NAME,
            self.sizes_clause(axes),
            self.ty(axes, elem)
        );
        self.push(n.clone(), axes.to_vec(), elem, line);
        n
    }
}

/// Generates a random program from `seed`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Program {
    let mut rng = Rng::new(seed);
    // With min_rank 1 and the default sizes these draws are those of earlier versions.
    let lo = cfg.min_rank.clamp(1, 3);
    let hi = cfg.max_rank.clamp(lo, 3);
    let rank = lo + rng.below(hi - lo + 1);
    let sizes: Vec<usize> = (0..rank).map(|_| *rng.pick(&cfg.sizes)).collect();
    let dynamic: Vec<bool> = (0..rank).map(|_| rng.chance(0.5)).collect();
    let mut g = Gen {
        rng: &mut rng,
        sizes: sizes.clone(),
        dynamic,
        body: String::new(),
        vals: Vec::new(),
        next: 0,
        dim_names: (0..rank).map(|i| format!("d{i}")).collect(),
    };
    // Arguments: one full-rank tensor, plus up to two more of random sub-shapes.
    let mut args = Vec::new();
    let nargs = 1 + g.rng.below(3);
    for i in 0..nargs {
        let axes: Vec<usize> =
            if i == 0 { (0..rank).collect() } else { (0..rank).filter(|_| g.rng.chance(0.6)).collect() };
        let elem = *g.rng.pick(&cfg.dtypes);
        let name = format!("a{i}");
        args.push((name.clone(), axes.clone(), elem));
        g.vals.push(Val { name, axes, elem });
    }
    for a in 0..rank {
        if g.dynamic[a] {
            let n = g.dim_names[a].clone();
            let t = g.ty(&args[0].1, args[0].2);
            g.body.push_str(&format!("  %{n} = {} %a0, {a} : {t}\n", DimOp::NAME));
        }
    }
    let nops = 1 + g.rng.below(cfg.max_ops.max(1));
    for _ in 0..nops {
        g.step();
    }
    let tail = if cfg.mixed_tail && rank >= 2 { g.mixed_tail(rank) } else { Vec::new() };
    // Results: the last value plus up to two random others (distinct), and the mixed tail.
    let mut outs: Vec<Val> = vec![g.vals.last().cloned().expect("at least one value")];
    for _ in 0..g.rng.below(3) {
        let v = g.rng.pick(&g.vals).clone();
        if !outs.iter().any(|o| o.name == v.name) {
            outs.push(v);
        }
    }
    for v in tail {
        if !outs.iter().any(|o| o.name == v.name) {
            outs.push(v);
        }
    }
    let sig: Vec<String> = args.iter().map(|(n, ax, e)| format!("%{n}: {}", g.ty(ax, *e))).collect();
    let rt: Vec<String> = outs.iter().map(|v| g.ty(&v.axes, v.elem)).collect();
    let rn: Vec<String> = outs.iter().map(|v| format!("%{}", v.name)).collect();
    let text = format!(
        "func.func @main({}) -> ({}) {{\n{}  func.return {} : {}\n}}\n",
        sig.join(", "),
        rt.join(", "),
        g.body,
        rn.join(", "),
        rt.join(", ")
    );
    let arg_specs = args
        .iter()
        .map(|(n, ax, e)| ArgSpec { name: n.clone(), shape: ax.iter().map(|a| sizes[*a]).collect(), elem: *e })
        .collect();
    Program { text, func: "main".into(), args: arg_specs }
}

/// Random inputs for a program's arguments: normal(0, 1) values rounded to each dtype.
pub fn random_inputs(p: &Program, seed: u64) -> Vec<(Vec<usize>, Vec<f64>, FloatKind)> {
    let mut rng = Rng::new(seed.wrapping_mul(31).wrapping_add(7));
    p.args
        .iter()
        .map(|a| {
            let n: usize = a.shape.iter().product();
            let data = (0..n).map(|_| a.elem.round(rng.normal())).collect();
            (a.shape.clone(), data, a.elem)
        })
        .collect()
}

/// Removes body lines of a failing program while `still_fails` holds, keeping the result
/// line valid: a crude but effective shrinker for reports.
pub fn shrink(text: &str, still_fails: &dyn Fn(&str) -> bool) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut i = 1;
    while i + 2 < lines.len() {
        let mut cand = lines.clone();
        cand.remove(i);
        let t = cand.join("\n");
        if still_fails(&t) {
            lines = cand;
        } else {
            i += 1;
        }
    }
    lines.join("\n")
}
