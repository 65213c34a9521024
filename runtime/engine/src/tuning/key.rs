//! What a tuning-cache entry is keyed by: the program ([`program_hash`]), its shape bucket
//! ([`shape_bucket`]) and the device ([`super::DeviceKey`]).

use morf_ir::{Context, OpId};

use crate::bind::dict_get;

/// A stable hash of `module` ([`morf_ir::hash::op_hash`]): formatting, comments and file names
/// do not change it while any change to an op, a type or an attribute does.
pub fn program_hash(ctx: &Context, module: OpId) -> String {
    morf_ir::hash::op_hash(ctx, module)
}

pub use morf_ir::hash::fnv1a;

/// The shape bucket of a set of sizes: the sizes the compiled program is specialized on stay
/// exact, the others are rounded down to a power of two, so that one compiled program (and
/// one tuning entry) serves every size of the bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeBucket {
    /// The bucket's name in the cache, e.g. `M~2^19,N=384` (`M` in [2^19, 2^20)).
    pub key: String,
    /// The size hints every program of the bucket is compiled with, e.g. `M=524288,N=384`:
    /// the bucket's lower bound for a rounded size.
    pub hints: String,
}

/// The dims a compiled program is specialized on: the innermost `morf.dims` name of each
/// argument of the highest rank (the contiguous dim, whose size fixes vector widths and the
/// columns each thread holds). Every other dim only changes the grid, at run time.
pub fn exact_dims(ctx: &Context, func: OpId) -> Vec<String> {
    let mut per_arg: Vec<Vec<String>> = Vec::new();
    if let Some(arg_attrs) = ctx.attr(func, "arg_attrs").and_then(|a| ctx.attr_array(a)) {
        for dict in arg_attrs {
            let names = dict_get(ctx, *dict, "morf.dims")
                .and_then(|v| ctx.attr_array(v))
                .map(|a| a.iter().map(|n| ctx.attr_str(*n).unwrap_or("").to_string()).collect())
                .unwrap_or_default();
            per_arg.push(names);
        }
    }
    let rank = per_arg.iter().map(Vec::len).max().unwrap_or(0);
    let mut out: Vec<String> = Vec::new();
    for names in per_arg.iter().filter(|n| n.len() == rank && rank > 0) {
        if let Some(last) = names.last().filter(|n| !n.is_empty()) {
            if !out.contains(last) {
                out.push(last.clone());
            }
        }
    }
    out
}

/// The bucket of `sizes` (`NAME=SIZE` pairs, in the order given) for function `func`
/// ([`exact_dims`] stay exact; a size `s >= 1` of another dim becomes `NAME~2^k` with
/// `2^k <= s < 2^(k+1)`, hinted as `2^k`).
pub fn shape_bucket(ctx: &Context, func: OpId, sizes: &[(String, u64)]) -> ShapeBucket {
    let exact = exact_dims(ctx, func);
    let mut key = Vec::new();
    let mut hints = Vec::new();
    for (name, size) in sizes {
        if exact.contains(name) || *size == 0 {
            key.push(format!("{name}={size}"));
            hints.push(format!("{name}={size}"));
        } else {
            let k = 63 - size.leading_zeros();
            key.push(format!("{name}~2^{k}"));
            hints.push(format!("{name}={}", 1u64 << k));
        }
    }
    ShapeBucket { key: key.join(","), hints: hints.join(",") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::{load_module, new_context, select_function};

    const NORM: &str = "func.func @f(%x: tensor<?x?xbf16> {morf.dims = [\"M\", \"N\"]}, %r: tensor<?xf32> {morf.dims = [\"M\"]}, %w: tensor<?xbf16> {morf.dims = [\"N\"]}) -> tensor<?x?xbf16> {\n  func.return %x : tensor<?x?xbf16>\n}\n";

    fn load(text: &str) -> (Context, OpId, OpId) {
        let mut ctx = new_context(false);
        let m = load_module(&mut ctx, "t.mlir", text).unwrap();
        let f = select_function(&ctx, m, None, "t.mlir").unwrap();
        (ctx, m, f)
    }

    #[test]
    fn hash_ignores_layout_not_content() {
        let (a, ma, _) = load(NORM);
        let spaced = NORM.replace("  func.return", "\n   // a comment\n      func.return");
        let (b, mb, _) = load(&spaced);
        assert_eq!(program_hash(&a, ma), program_hash(&b, mb));
        let (c, mc, _) = load(&NORM.replace("@f", "@g"));
        assert_ne!(program_hash(&a, ma), program_hash(&c, mc));
        assert_eq!(program_hash(&a, ma).len(), 16);
    }

    #[test]
    fn buckets() {
        let (ctx, _, f) = load(NORM);
        assert_eq!(exact_dims(&ctx, f), vec!["N".to_string()]);
        let s = |m: u64, n: u64| shape_bucket(&ctx, f, &[("M".into(), m), ("N".into(), n)]);
        assert_eq!(s(576000, 384), ShapeBucket { key: "M~2^19,N=384".into(), hints: "M=524288,N=384".into() });
        // One bucket for every M in [2^19, 2^20); N stays exact.
        assert_eq!(s(524288, 384), s(1048575, 384));
        assert_ne!(s(1048576, 384).key, s(576000, 384).key);
        assert_ne!(s(576000, 385).key, s(576000, 384).key);
        assert_eq!(s(1, 1).key, "M~2^0,N=1");
        assert_eq!(s(0, 7).key, "M=0,N=7");
    }
}
