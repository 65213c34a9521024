//! Checking outputs against the fp64 reference interpreter: the relative L2 error of each
//! output over its finite values, NaN and infinities compared by position, against the
//! tolerance of the narrowest float type on the output's way ([`morf_ir::numerics`]).

use morf_ir::interp::RtValue;
use morf_ir::{Context, FloatKind};

use crate::gpu_exec::DevElem;

/// The comparison of one output with the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputCheck {
    /// Position among the results.
    pub index: usize,
    /// Relative L2 error over the finite positions (NaN when the shapes differ).
    pub rel_err: f64,
    /// The tolerance of the output's element type.
    pub tol: f64,
    /// Why the output fails whatever its error (a shape mismatch, a NaN or infinity
    /// where the reference has another value), if so.
    pub note: Option<String>,
}

impl OutputCheck {
    /// `rel_err <= tol` (NaN never passes).
    pub fn ok(&self) -> bool {
        self.rel_err <= self.tol && self.note.is_none()
    }
}

impl std::fmt::Display for OutputCheck {
    /// `check result0: rel_err=1.2e-03 (tol 1e-02) ok`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "check result{}: rel_err={} (tol {}) {}",
            self.index,
            sci(self.rel_err, 1),
            sci(self.tol, 0),
            if self.ok() { "ok" } else { "FAILED" }
        )?;
        if let Some(n) = &self.note {
            write!(f, " ({n})")?;
        }
        Ok(())
    }
}

/// `x` in C's `%.*e` style, with a two-digit exponent: `sci(0.0012, 1)` is `1.2e-03`.
pub fn sci(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return format!("{x}").to_lowercase();
    }
    let s = format!("{x:.digits$e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let e: i32 = e.parse().unwrap_or(0);
            format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}

pub(crate) fn shape_and_data(v: &RtValue) -> Option<(Vec<usize>, Vec<f64>)> {
    match v {
        RtValue::Tensor { array, .. } => Some((array.shape.clone(), array.data.clone())),
        RtValue::Buffer { data, .. } => {
            let a = data.borrow();
            Some((a.shape.clone(), a.data.clone()))
        }
        RtValue::Float(x) => Some((vec![], vec![*x])),
        RtValue::Int(i) => Some((vec![], vec![*i as f64])),
    }
}

/// The comparison of one output's values with the reference's ([`compare_values`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueComparison {
    /// Relative L2 error over the positions where both values are finite (NaN when the
    /// lengths differ).
    pub rel_err: f64,
    /// Why the output fails whatever the error: a NaN or an infinity where the reference
    /// has another value (the count and the first position).
    pub mismatch: Option<String>,
}

/// Compares `out` with `reference` value by value. Positions where both are NaN, or both
/// the same infinity, agree and are left out of the relative L2 error, which is computed
/// over the remaining (finite) positions. A NaN or an infinity on one side only, or
/// infinities of opposite signs, is a mismatch: the output fails.
pub fn compare_values(out: &[f64], reference: &[f64]) -> ValueComparison {
    if out.len() != reference.len() {
        return ValueComparison {
            rel_err: f64::NAN,
            mismatch: Some(format!("{} values but the reference has {}", out.len(), reference.len())),
        };
    }
    let mut bad = 0usize;
    let mut first: Option<(usize, f64, f64)> = None;
    let mut special = 0usize;
    for (i, (&o, &r)) in out.iter().zip(reference).enumerate() {
        if o.is_finite() && r.is_finite() {
            continue;
        }
        special += 1;
        let agree = (o.is_nan() && r.is_nan()) || (o.is_infinite() && o == r);
        if !agree {
            bad += 1;
            first.get_or_insert((i, o, r));
        }
    }
    let rel_err = if special == 0 {
        morf_ir::numerics::relative_error(out, reference)
    } else {
        let (o, r): (Vec<f64>, Vec<f64>) =
            out.iter().zip(reference).filter(|(o, r)| o.is_finite() && r.is_finite()).map(|(o, r)| (*o, *r)).unzip();
        morf_ir::numerics::relative_error(&o, &r)
    };
    let mismatch = first.map(|(i, o, r)| {
        format!(
            "{bad} value(s) non-finite where the reference differs; first: element {i} is {} where the reference is {}",
            fmt_value(o),
            fmt_value(r)
        )
    });
    ValueComparison { rel_err, mismatch }
}

fn fmt_value(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{x}")
    }
}

/// The tolerance of an output's own element type (f32/f64 1e-5, bf16/f16 1e-2; exact
/// for integers).
fn tolerance_of(out_ctx: &Context, out: Option<&RtValue>) -> f64 {
    match out {
        Some(RtValue::Tensor { elem, .. }) | Some(RtValue::Buffer { elem, .. }) => match DevElem::of(out_ctx, *elem) {
            Some(DevElem::Float(k)) => morf_ir::numerics::tolerance(k),
            _ => 0.0,
        },
        Some(RtValue::Float(_)) => morf_ir::numerics::tolerance(FloatKind::F32),
        _ => 0.0,
    }
}

/// Compares `out` (in `out_ctx`) with `reference`, output by output: relative L2 error
/// against the tolerance of each output's element type (f32/f64 1e-5, bf16/f16 1e-2;
/// integers must match exactly), with NaN and infinities compared by position
/// ([`compare_values`]).
pub fn compare_outputs(out_ctx: &Context, out: &[RtValue], reference: &[RtValue]) -> Vec<OutputCheck> {
    compare_outputs_judged(out_ctx, out, reference, &[])
}

/// [`compare_outputs`], with output `i` judged by the tolerance of `precisions[i]` where it
/// is given: the least precise float type on the output's way through the reference program
/// ([`morf_ir::numerics::result_precisions`] of the reference function), so that an f32
/// output computed through f16 values gets the f16 tolerance.
pub fn compare_outputs_judged(
    out_ctx: &Context,
    out: &[RtValue],
    reference: &[RtValue],
    precisions: &[Option<FloatKind>],
) -> Vec<OutputCheck> {
    let mut checks = Vec::new();
    for i in 0..out.len().max(reference.len()) {
        let tol = match (precisions.get(i).copied().flatten(), out.get(i)) {
            (Some(k), Some(RtValue::Tensor { elem, .. } | RtValue::Buffer { elem, .. }))
                if out_ctx.float_kind(*elem).is_some() =>
            {
                morf_ir::numerics::tolerance(k)
            }
            (Some(k), Some(RtValue::Float(_))) => morf_ir::numerics::tolerance(k),
            _ => tolerance_of(out_ctx, out.get(i)),
        };
        let (o, r) = (out.get(i).and_then(shape_and_data), reference.get(i).and_then(shape_and_data));
        let check = match (o, r) {
            (Some((so, o)), Some((sr, r))) if so == sr => {
                let c = compare_values(&o, &r);
                OutputCheck { index: i, rel_err: c.rel_err, tol, note: c.mismatch }
            }
            (Some((so, _)), Some((sr, _))) => OutputCheck {
                index: i,
                rel_err: f64::NAN,
                tol,
                note: Some(format!("shape {so:?} but the reference has {sr:?}")),
            },
            _ => OutputCheck { index: i, rel_err: f64::NAN, tol, note: Some("missing output".into()) },
        };
        checks.push(check);
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An f32 output computed through an f16 `tanh` is judged at the f16 tolerance; one
    /// that only converts a bf16 argument (exactly) keeps the f32 tolerance.
    #[test]
    fn outputs_are_judged_by_the_narrowest_type_on_their_way() {
        let text = r#"
func.func @f(%x: tensor<4xf32>, %b: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>) {
  %h = mtensor.convert %x : tensor<4xf32> to tensor<4xf16>
  %t = mtensor.tanh %h : tensor<4xf16>
  %y = mtensor.convert %t : tensor<4xf16> to tensor<4xf32>
  %z = mtensor.convert %b : tensor<4xbf16> to tensor<4xf32>
  %w = mtensor.add %z, %x : tensor<4xf32>
  func.return %y, %w, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>
}
"#;
        let mut ctx = crate::new_context(false);
        let m = crate::load_module(&mut ctx, "t.mlir", text).expect("parses");
        let f = crate::select_function(&ctx, m, None, "t.mlir").expect("one function");
        let p = morf_ir::numerics::result_precisions(&ctx, f);
        assert_eq!(p, vec![Some(FloatKind::F16), Some(FloatKind::F32), Some(FloatKind::BF16)]);
    }

    #[test]
    fn check_lines() {
        let c = OutputCheck { index: 0, rel_err: 1.2e-3, tol: 1e-2, note: None };
        assert_eq!(c.to_string(), "check result0: rel_err=1.2e-03 (tol 1e-02) ok");
        assert_eq!(sci(1.0, 0), "1e+00");
        assert_eq!(sci(f64::NAN, 1), "nan");
        let nan = OutputCheck { index: 1, rel_err: f64::NAN, tol: 1e-2, note: None };
        assert!(!nan.ok());
        assert!(nan.to_string().ends_with("FAILED"));
    }

    #[test]
    fn nan_and_inf_compare_by_position() {
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        // Agreeing NaN positions pass; the error is over the other positions.
        let c = compare_values(&[1.0, nan, 3.0], &[1.0, nan, 3.0]);
        assert_eq!((c.rel_err, c.mismatch.clone()), (0.0, None));
        let c = compare_values(&[1.0, nan, 3.0 + 3e-6], &[1.0, nan, 3.0]);
        assert!(c.mismatch.is_none() && c.rel_err > 0.0 && c.rel_err < 1e-5, "{c:?}");
        // Both the same infinity agree; opposite signs do not.
        assert_eq!(
            compare_values(&[inf, 2.0, -inf], &[inf, 2.0, -inf]),
            ValueComparison { rel_err: 0.0, mismatch: None }
        );
        let c = compare_values(&[inf, 2.0], &[-inf, 2.0]);
        assert!(
            c.mismatch.as_deref().is_some_and(|m| m.contains("element 0 is inf where the reference is -inf")),
            "{c:?}"
        );
        // A NaN or inf where the reference has a number fails.
        let c = compare_values(&[1.0, nan], &[1.0, 2.0]);
        assert!(
            c.mismatch.as_deref().is_some_and(|m| m.contains("element 1 is NaN where the reference is 2")),
            "{c:?}"
        );
        let c = compare_values(&[inf, 1.0], &[5.0, 1.0]);
        assert!(c.mismatch.as_deref().is_some_and(|m| m.starts_with("1 value(s)")), "{c:?}");
        // A number where the reference has NaN fails too.
        let c = compare_values(&[1.0, 7.0, 8.0], &[1.0, nan, nan]);
        assert!(
            c.mismatch.as_deref().is_some_and(|m| m.starts_with("2 value(s)") && m.contains("element 1 is 7 where the reference is NaN")),
            "{c:?}"
        );
        // Different lengths.
        assert!(compare_values(&[1.0], &[1.0, 2.0]).rel_err.is_nan());
        // As an output check: the note makes it fail whatever the error.
        let check = OutputCheck { index: 0, rel_err: c.rel_err, tol: 1e-2, note: c.mismatch };
        assert!(!check.ok());
        assert!(check.to_string().contains("FAILED (2 value(s)"), "{check}");
    }
}
