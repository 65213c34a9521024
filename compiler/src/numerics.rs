//! Floating-point storage formats and the numerics used to judge kernel output.
//!
//! [`FloatKind`] names the element types a kernel can store (`f16`, `bf16`,
//! `f32`, `f64`) and rounds an fp64 value to exactly what such a store would
//! hold: correctly rounded straight from f64 with round-to-nearest-even, IEEE
//! overflow to ±inf, gradual underflow, NaN kept NaN and the sign of zero kept.
//! [`relative_error`] and [`tolerance`] compare an output against the fp64
//! reference interpreter's result.

use std::fmt;

/// A floating-point element type a kernel reads or writes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum FloatKind {
    /// IEEE 754 binary16: 11-bit significand, exponents -14..=15.
    F16,
    /// bfloat16: 8-bit significand, the exponent range of f32.
    BF16,
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary64; rounding to it is the identity.
    F64,
}

impl FloatKind {
    /// Every kind, narrowest first.
    pub const ALL: [FloatKind; 4] = [FloatKind::F16, FloatKind::BF16, FloatKind::F32, FloatKind::F64];

    /// The MLIR spelling of the type: `"f16"`, `"bf16"`, `"f32"` or `"f64"`.
    pub fn name(self) -> &'static str {
        match self {
            FloatKind::F16 => "f16",
            FloatKind::BF16 => "bf16",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
        }
    }

    /// The storage width in bits.
    pub fn bits(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
        }
    }

    /// Parses the MLIR spelling produced by [`FloatKind::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "f16" => Some(FloatKind::F16),
            "bf16" => Some(FloatKind::BF16),
            "f32" => Some(FloatKind::F32),
            "f64" => Some(FloatKind::F64),
            _ => None,
        }
    }

    /// The largest finite value of the type.
    pub fn max_finite(self) -> f64 {
        match self {
            FloatKind::F16 => 65504.0,
            FloatKind::BF16 => f64::from(f32::from_bits(0x7f7f_0000)),
            FloatKind::F32 => f64::from(f32::MAX),
            FloatKind::F64 => f64::MAX,
        }
    }

    /// The value a kernel stores when it writes `x` to this type.
    ///
    /// Rounds directly from f64 (never through f32) to nearest, ties to even;
    /// magnitudes that round past the largest finite value become ±inf,
    /// subnormal results are produced where the format has them, NaN stays
    /// NaN and the sign of zero (including of underflowed results) is kept.
    #[inline]
    pub fn round(self, x: f64) -> f64 {
        match self {
            FloatKind::F64 => x,
            // `as f32` is a correctly rounded (ties-to-even) conversion.
            FloatKind::F32 => f64::from(x as f32),
            FloatKind::BF16 => round_binary(x, 8, -126, FloatKind::BF16.max_finite()),
            FloatKind::F16 => round_binary(x, 11, -14, 65504.0),
        }
    }
}

impl fmt::Display for FloatKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// 2^e as an f64, for e in the normal exponent range.
#[inline]
fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Rounds `x` to a binary format with `p` significand bits (implicit bit
/// included), minimum normal exponent `emin` and largest finite value `max`.
#[inline]
fn round_binary(x: f64, p: i32, emin: i32, max: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    let biased = (a.to_bits() >> 52) as i32;
    if biased == 0 {
        // f64 subnormals lie far below half the smallest subnormal of any
        // narrower format.
        return 0.0f64.copysign(x);
    }
    // Quantum (spacing of representable values) at a's binade, clamped at the
    // subnormal spacing; scaling by it is exact, so one integer rounding gives
    // the correctly rounded result.
    let qexp = (biased - 1023).max(emin) - (p - 1);
    let r = (a * pow2(-qexp)).round_ties_even() * pow2(qexp);
    if r > max {
        f64::INFINITY.copysign(x)
    } else {
        r.copysign(x)
    }
}

/// The relative L2 error `||out - reference||_2 / ||reference||_2`.
///
/// If `||reference||_2` is zero, the absolute error `||out - reference||_2`
/// is returned instead. The result is NaN (so it never passes a `<= tol`
/// check) if either slice holds a NaN or the lengths differ; an infinity in
/// `out` that the reference does not have gives +inf or NaN.
pub fn relative_error(out: &[f64], reference: &[f64]) -> f64 {
    if out.len() != reference.len() || out.iter().chain(reference).any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let diff = norm2(out.iter().zip(reference).map(|(o, r)| o - r));
    let base = norm2(reference.iter().copied());
    if base == 0.0 {
        diff
    } else {
        diff / base
    }
}

/// The L2 norm of `values`, rescaled when the plain sum of squares would
/// overflow or underflow.
fn norm2(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let sum: f64 = values.clone().map(|v| v * v).sum();
    if sum.is_finite() && sum > 1e-290 {
        return sum.sqrt();
    }
    let scale = values.clone().fold(0.0f64, |m, v| if v.abs() > m || v.is_nan() { v.abs() } else { m });
    if scale == 0.0 || !scale.is_finite() {
        return if scale.is_nan() { f64::NAN } else { scale };
    }
    let s: f64 = values.map(|v| (v / scale) * (v / scale)).sum();
    s.sqrt() * scale
}

/// The relative-error tolerance an output of this type must meet:
/// `1e-5` for f32 and f64, `1e-2` for f16 and bf16.
pub fn tolerance(kind: FloatKind) -> f64 {
    match kind {
        FloatKind::F32 | FloatKind::F64 => 1e-5,
        FloatKind::F16 | FloatKind::BF16 => 1e-2,
    }
}

/// For each result of function `func`, the float kind whose [`tolerance`] judges it: the
/// least precise float type among the result itself and every value computed on its way
/// (the results of the ops in its backward slice, nested ops included; function arguments
/// are exact inputs and do not count). `None` for a result with no float type on its way.
///
/// Why: a value rounded to f16 on its way may land one f16 ulp (about 5e-4 relative) from
/// the reference's rounding of the same value, whenever the two sides' unrounded values sit
/// on opposite sides of a rounding boundary. An f32 output computed from it can then be
/// off by that much however exact both sides are, so it is judged by the f16 tolerance, not
/// the f32 one. The slice follows operands only (not stores into buffers), so it can only
/// miss a narrow type, which keeps the check at the stricter tolerance.
pub fn result_precisions(ctx: &crate::Context, func: crate::OpId) -> Vec<Option<FloatKind>> {
    let Some(ret) = ctx.regions(func).first().and_then(|r| ctx.entry_block(*r)).and_then(|b| ctx.block_ops(b).last())
    else {
        return Vec::new();
    };
    let kind_of = |v: crate::Value| ctx.float_kind(ctx.element_type(ctx.value_type(v)));
    let narrower = |a: Option<FloatKind>, b: Option<FloatKind>| match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    };
    ctx.operands(ret)
        .iter()
        .map(|&out| {
            let mut kind = kind_of(out);
            let mut seen = std::collections::HashSet::new();
            let mut stack = vec![out];
            while let Some(v) = stack.pop() {
                let Some(op) = ctx.defining_op(v) else { continue };
                if !seen.insert(op) {
                    continue;
                }
                for nested in ctx.walk_collect(op) {
                    for &r in ctx.results(nested) {
                        kind = narrower(kind, kind_of(r));
                    }
                    stack.extend(ctx.operands(nested).iter().copied());
                }
            }
            kind
        })
        .collect()
}

/// The error function, `erf(x) = 2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt`, in f64
/// (the reference semantics of `mtensor.erf` and `mloop.erf`), within a few ulp.
///
/// For `|x| <= 6` the series `erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n (2x^2)^n x / (1*3*...*(2n+1))`:
/// every term is positive, so nothing cancels and the sum's rounding error stays a few ulp;
/// it converges for every x and needs about `2x^2 + 40` terms. Beyond 6, `1 - erf(x) < 2e-17`
/// is below half an ulp of 1, so the result is exactly ±1. Odd: `erf(-x) = -erf(x)`, which
/// keeps `erf(-0) = -0`; NaN stays NaN.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a > 6.0 {
        return 1f64.copysign(x);
    }
    let z = 2.0 * a * a;
    let (mut term, mut sum, mut n) = (a, a, 0u32);
    loop {
        n += 1;
        term *= z / f64::from(2 * n + 1);
        sum += term;
        if term <= sum * 1e-17 || n > 400 {
            break;
        }
    }
    let r = std::f64::consts::FRAC_2_SQRT_PI * (-a * a).exp() * sum;
    r.min(1.0).copysign(x)
}

/// The value of an IEEE binary16 bit pattern.
pub fn f16_bits_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((b >> 10) & 0x1f) as i32;
    let man = (b & 0x3ff) as f64;
    match exp {
        0 => sign * man * 2f64.powi(-24),
        31 => {
            if man == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        e => sign * (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_reference_values() {
        // Reference values to 17 digits (A&S table 7.1 / mpmath).
        let cases = [
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (1.0, 0.8427007929497149),
            (1.5, 0.9661051464753108),
            (2.0, 0.9953222650189527),
            (3.0, 0.9999779095030014),
            (4.0, 0.9999999845827421),
            (1e-10, 1.1283791670955126e-10),
        ];
        for (x, want) in cases {
            for (x, want) in [(x, want), (-x, -want)] {
                let got = erf(x);
                assert!(((got - want) / want).abs() < 4.0 * f64::EPSILON, "erf({x}) = {got}, want {want}");
            }
        }
        assert_eq!(erf(7.0), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(-0.0).is_sign_negative() && erf(-0.0) == 0.0);
        assert!(erf(f64::NAN).is_nan());
        // Monotone across the switch to the constant.
        assert!(erf(5.99) <= erf(6.0) && erf(6.0) <= erf(6.01));
    }

    /// Same value, or both NaN.
    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }

    /// Every finite non-negative value of a 16-bit format, ascending, then the
    /// "next" value 2^(emax+1) standing for infinity; with each entry, whether
    /// its significand is even.
    fn table16(kind: FloatKind) -> Vec<(f64, bool)> {
        let mut t: Vec<(f64, bool)> = (0u16..0x8000)
            .map(|b| match kind {
                FloatKind::F16 => half::f16::from_bits(b).to_f64(),
                _ => half::bf16::from_bits(b).to_f64(),
            })
            .take_while(|v| v.is_finite())
            .enumerate()
            .map(|(i, v)| (v, i % 2 == 0))
            .collect();
        let next = match kind {
            FloatKind::F16 => 65536.0,
            _ => 2f64.powi(128),
        };
        t.push((next, true));
        t
    }

    /// Independent oracle: nearest table entry, ties to even significand.
    fn oracle16(table: &[(f64, bool)], x: f64) -> f64 {
        if x.is_nan() || x.is_infinite() || x == 0.0 {
            return x;
        }
        let a = x.abs();
        let last = table.len() - 1;
        let i = table.partition_point(|&(v, _)| v <= a);
        let r = if i > last {
            f64::INFINITY
        } else {
            let (lo, lo_even) = table[i - 1];
            let (hi, _) = table[i];
            // lo and hi are adjacent: their midpoint is exact in f64.
            let mid = lo + (hi - lo) / 2.0;
            if a < mid || (a == mid && lo_even) {
                lo
            } else if i == last {
                f64::INFINITY
            } else {
                hi
            }
        };
        r.copysign(x)
    }

    /// A small deterministic generator (splitmix64).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    #[test]
    fn names_round_trip() {
        for k in FloatKind::ALL {
            assert_eq!(FloatKind::from_name(k.name()), Some(k));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(FloatKind::from_name("f8"), None);
        assert_eq!(FloatKind::from_name("F32"), None);
        assert_eq!(FloatKind::ALL.map(FloatKind::bits), [16, 16, 32, 64]);
        assert!(FloatKind::F16 < FloatKind::F64);
    }

    #[test]
    fn sampled_f32_patterns_match_half() {
        // ~1e6 patterns spread over all 2^32 with a prime stride, plus the
        // neighbourhoods of the interesting boundaries.
        let step: u64 = 4099;
        let mut patterns: Vec<u32> = (0..(1u64 << 32)).step_by(step as usize).map(|b| b as u32).collect();
        for center in [
            0u32,
            0x0000_0001,
            0x0080_0000,
            0x3380_0000,
            0x3800_0000,
            0x387f_e000,
            0x477f_e000,
            0x477f_f000,
            0x7f7f_0000,
            0x7f7f_8000,
            0x7f80_0000,
            0x3f80_0000,
            0x3380_0000,
        ] {
            for d in 0..4096u32 {
                patterns.push(center.wrapping_add(d));
                patterns.push(center.wrapping_sub(d));
                patterns.push(center.wrapping_add(d) | 0x8000_0000);
            }
        }
        assert!(patterns.len() > 1_000_000);
        for b in patterns {
            let f = f32::from_bits(b);
            let x = f64::from(f);
            let want_bf = half::bf16::from_f32(f).to_f64();
            let want_h = half::f16::from_f32(f).to_f64();
            assert!(same(FloatKind::BF16.round(x), want_bf), "bf16 {b:#010x}: {x:e}");
            assert!(same(FloatKind::F16.round(x), want_h), "f16 {b:#010x}: {x:e}");
            assert!(same(FloatKind::F32.round(x), x), "f32 {b:#010x}");
            assert!(same(FloatKind::F64.round(x), x), "f64 {b:#010x}");
        }
    }

    #[test]
    fn random_f64_match_table_oracle() {
        let tf16 = table16(FloatKind::F16);
        let tbf16 = table16(FloatKind::BF16);
        let mut rng = Rng(7);
        for i in 0..400_000 {
            let r = rng.next();
            let x = match i % 4 {
                // Arbitrary bit patterns.
                0 => f64::from_bits(r),
                // Exponents around the 16-bit ranges.
                1 => f64::from_bits((r & 0x800f_ffff_ffff_ffff) | (((r >> 52) % 300 + 1023 - 160) << 52)),
                // Values at or next to midpoints of 16-bit neighbours.
                _ => {
                    let t = if i % 4 == 2 { &tf16 } else { &tbf16 };
                    let j = (r % (t.len() as u64 - 1)) as usize;
                    let mid = t[j].0 + (t[j + 1].0 - t[j].0) / 2.0;
                    let nudge = [-1i64, 0, 1][(r >> 40) as usize % 3];
                    let m = f64::from_bits((mid.to_bits() as i64 + nudge) as u64);
                    if r >> 63 == 1 {
                        -m
                    } else {
                        m
                    }
                }
            };
            assert!(same(FloatKind::F16.round(x), oracle16(&tf16, x)), "f16 {x:e} ({:#x})", x.to_bits());
            assert!(same(FloatKind::BF16.round(x), oracle16(&tbf16, x)), "bf16 {x:e} ({:#x})", x.to_bits());
            // The generic path agrees with the hardware f64->f32 conversion.
            let g = round_binary(x, 24, -126, f64::from(f32::MAX));
            assert!(same(g, FloatKind::F32.round(x)), "f32 {x:e}");
        }
    }

    #[test]
    fn no_double_rounding() {
        // 1 + 2^-8 + 2^-30: rounding to f32 first gives 1 + 2^-8, an exact
        // bf16 tie that goes to even (1.0); directly it is above the tie.
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(f64::from(half::bf16::from_f32(x as f32)), 1.0);
        assert_eq!(FloatKind::BF16.round(x), 1.0 + 2f64.powi(-7));
        // Same for f16: tie at 1 + 2^-11.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f64::from(half::f16::from_f32(x as f32)), 1.0);
        assert_eq!(FloatKind::F16.round(x), 1.0 + 2f64.powi(-10));
        // Just below a tie stays down even when f32 would round up to it.
        let x = 1.0 + 3.0 * 2f64.powi(-8) - 2f64.powi(-40);
        assert_eq!(FloatKind::BF16.round(x), 1.0 + 2f64.powi(-7));
        let x = 1.0 + 2f64.powi(-8) - 2f64.powi(-40);
        assert_eq!(FloatKind::BF16.round(x), 1.0);
        // Double rounding at the f16 overflow boundary: 65520 - tiny.
        let x = 65520.0 - 2f64.powi(-20);
        assert_eq!(x as f32, 65520.0);
        assert_eq!(FloatKind::F16.round(x), 65504.0);
    }

    #[test]
    fn ties_go_to_even() {
        let bf = FloatKind::BF16;
        assert_eq!(bf.round(1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(bf.round(1.0 + 3.0 * 2f64.powi(-8)), 1.0 + 2f64.powi(-6));
        assert_eq!(bf.round(-(1.0 + 2f64.powi(-8))), -1.0);
        let h = FloatKind::F16;
        assert_eq!(h.round(2049.0), 2048.0);
        assert_eq!(h.round(2051.0), 2052.0);
        assert_eq!(h.round(0.1), f64::from(half::f16::from_f64(0.1)));
        assert_eq!(FloatKind::F32.round(1.0 + 2f64.powi(-24)), 1.0);
        assert_eq!(FloatKind::F32.round(1.0 + 3.0 * 2f64.powi(-24)), 1.0 + 2f64.powi(-22));
    }

    #[test]
    fn overflow_boundaries() {
        let h = FloatKind::F16;
        assert_eq!(h.round(65504.0), 65504.0);
        assert_eq!(h.round(65519.999), 65504.0);
        assert_eq!(h.round(65520.0), f64::INFINITY);
        assert_eq!(h.round(-65520.0), f64::NEG_INFINITY);
        assert_eq!(h.round(1e300), f64::INFINITY);
        assert_eq!(h.max_finite(), 65504.0);

        let bf = FloatKind::BF16;
        let max = bf.max_finite();
        assert!((max - 3.3895e38).abs() < 1e34);
        let half_ulp = 2f64.powi(127 - 8);
        assert_eq!(bf.round(max), max);
        assert_eq!(bf.round(max + half_ulp - 2f64.powi(80)), max);
        assert_eq!(bf.round(max + half_ulp), f64::INFINITY);
        assert_eq!(bf.round(-(max + half_ulp)), f64::NEG_INFINITY);
        assert_eq!(bf.round(f64::MAX), f64::INFINITY);

        let f = FloatKind::F32;
        let max = f64::from(f32::MAX);
        let half_ulp = 2f64.powi(127 - 24);
        assert_eq!(f.round(max + half_ulp - 2f64.powi(80)), max);
        assert_eq!(f.round(max + half_ulp), f64::INFINITY);
        assert_eq!(FloatKind::F64.round(f64::MAX), f64::MAX);
    }

    #[test]
    fn subnormals() {
        let h = FloatKind::F16;
        let tiny = 2f64.powi(-24);
        assert_eq!(h.round(tiny), tiny);
        assert_eq!(h.round(3.0 * tiny), 3.0 * tiny);
        assert_eq!(h.round(tiny / 2.0), 0.0); // tie to even: 0
        assert_eq!(h.round(tiny / 2.0 + 2f64.powi(-60)), tiny);
        assert_eq!(h.round(1.5 * tiny), 2.0 * tiny); // tie to even: 2
        assert_eq!(h.round(2.5 * tiny), 2.0 * tiny);
        assert_eq!(h.round(2f64.powi(-14) - tiny / 4.0), 2f64.powi(-14));
        assert!(h.round(-tiny / 4.0).is_sign_negative());
        assert_eq!(h.round(-tiny / 4.0), 0.0);

        let bf = FloatKind::BF16;
        let tiny = 2f64.powi(-133);
        assert_eq!(bf.round(tiny), tiny);
        assert_eq!(bf.round(tiny * 0.5), 0.0);
        assert_eq!(bf.round(tiny * 0.75), tiny);
        assert_eq!(bf.round(5.0 * tiny), 5.0 * tiny);

        let f = FloatKind::F32;
        let tiny = 2f64.powi(-149);
        assert_eq!(f.round(tiny), tiny);
        assert_eq!(f.round(tiny * 0.5), 0.0);
        assert_eq!(f.round(tiny * 0.51), tiny);

        // f64 subnormal inputs.
        for k in [FloatKind::F16, FloatKind::BF16, FloatKind::F32] {
            assert_eq!(k.round(f64::from_bits(1)).to_bits(), 0);
            assert_eq!(k.round(-f64::from_bits(1)).to_bits(), (-0.0f64).to_bits());
        }
        assert_eq!(FloatKind::F64.round(f64::from_bits(1)), f64::from_bits(1));
    }

    #[test]
    fn specials() {
        for k in FloatKind::ALL {
            assert!(k.round(f64::NAN).is_nan());
            assert!(k.round(-f64::NAN).is_nan());
            assert_eq!(k.round(f64::INFINITY), f64::INFINITY);
            assert_eq!(k.round(f64::NEG_INFINITY), f64::NEG_INFINITY);
            assert_eq!(k.round(0.0).to_bits(), 0);
            assert_eq!(k.round(-0.0).to_bits(), (-0.0f64).to_bits());
            assert_eq!(k.round(1.0), 1.0);
            assert_eq!(k.round(-2.5), -2.5);
        }
    }

    #[test]
    // The point is that a NaN error fails a `<= tol` check, so spell it so.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn relative_error_cases() {
        assert_eq!(relative_error(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        let e = relative_error(&[3.0, 4.0 + 1e-3], &[3.0, 4.0]);
        assert!((e - 1e-3 / 5.0).abs() < 1e-15);
        // Zero reference: absolute error.
        assert_eq!(relative_error(&[3.0, 4.0], &[0.0, 0.0]), 5.0);
        assert_eq!(relative_error(&[], &[]), 0.0);
        // NaN never passes.
        for (o, r) in [([f64::NAN, 1.0], [1.0, 1.0]), ([1.0, 1.0], [1.0, f64::NAN])] {
            let e = relative_error(&o, &r);
            assert!(e.is_nan());
            assert!(!(e <= 1e-2));
        }
        assert!(relative_error(&[1.0], &[1.0, 2.0]).is_nan());
        // Infinities fail too.
        assert_eq!(relative_error(&[f64::INFINITY, 1.0], &[1.0, 1.0]), f64::INFINITY);
        assert!(!(relative_error(&[f64::INFINITY], &[f64::INFINITY]) <= 1.0));
        // No spurious overflow or underflow in the norms.
        let e = relative_error(&[1e200, 1e200 * (1.0 + 1e-6)], &[1e200, 1e200]);
        assert!((e - 1e-6 / 2f64.sqrt()).abs() < 1e-12, "{e}");
        let e = relative_error(&[1e-200, 2e-200], &[1e-200, 1e-200]);
        assert!((e - 1.0 / 2f64.sqrt()).abs() < 1e-12, "{e}");
    }

    #[test]
    fn tolerances() {
        assert_eq!(tolerance(FloatKind::F64), 1e-5);
        assert_eq!(tolerance(FloatKind::F32), 1e-5);
        assert_eq!(tolerance(FloatKind::F16), 1e-2);
        assert_eq!(tolerance(FloatKind::BF16), 1e-2);
    }
}
