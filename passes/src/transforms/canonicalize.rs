//! `canonicalize`: folds ops and applies every registered canonicalization pattern until
//! nothing changes.
//!
//! The pass collects the `patterns` of every op kind in the context's registry and hands
//! them, with the op folders (`OpInfo::fold`), to the greedy driver
//! ([`morf_ir::rewrite::apply_patterns_greedily`]). Per op the driver erases it if it is
//! trivially dead (pure, no regions, results unused), else tries its folder, else its
//! patterns by decreasing benefit, and re-queues what a change touched. Folded constants are
//! materialized by the dialect's `materialize_constant` hook.
//!
//! **IR expected:** any. The pass runs on the op it is given and rewrites only the ops nested
//! in it (never the op itself, its siblings or its parents), so it can be nested under any
//! anchor: `builtin.module(func.func(canonicalize))`.
//!
//! **Options:**
//! - `max-iterations` (default 10): full sweeps of the driver before it gives up;
//! - `test-convergence` (default false): fail with a diagnostic when the driver has not
//!   reached a fixpoint within `max-iterations` (a pattern set that cycles A→B→A);
//! - `fold` (default true): apply op folders as well as patterns.
//!
//! **Example** (with `mtensor.add` folding `x + 0` to `x`):
//!
//! ```text
//! // before                                          // after
//! func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> { func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
//!   %z = mtensor.constant dense<0.0> : tensor<4xf32>   return %x : tensor<4xf32>
//!   %y = mtensor.add %x, %z : tensor<4xf32>          }
//!   %u = mtensor.mul %x, %x : tensor<4xf32>  // dead
//!   return %y : tensor<4xf32>
//! }
//! ```

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::rewrite::{apply_patterns_greedily, GreedyConfig, RewritePattern};
use morf_ir::{Context, OpId};

/// The options of [`Canonicalize`].
#[derive(Clone, Debug)]
pub struct CanonicalizeOptions {
    /// Full sweeps of the greedy driver before it gives up (`max-iterations`).
    pub max_iterations: usize,
    /// Fail when the driver does not converge (`test-convergence`).
    pub test_convergence: bool,
    /// Apply op folders (`fold`).
    pub fold: bool,
}

impl Default for CanonicalizeOptions {
    fn default() -> Self {
        CanonicalizeOptions { max_iterations: 10, test_convergence: false, fold: true }
    }
}

/// The option table of `canonicalize`.
pub const OPTIONS: &[PassOptionInfo] = &[
    PassOptionInfo { key: "max-iterations", help: "full sweeps of the rewrite driver before giving up", default: "10" },
    PassOptionInfo {
        key: "test-convergence",
        help: "fail when the rewrites have not converged within max-iterations",
        default: "false",
    },
    PassOptionInfo { key: "fold", help: "apply op folders as well as patterns", default: "true" },
];

/// The registry entry of `canonicalize`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "canonicalize",
        description: "fold ops and apply canonicalization patterns to a fixpoint",
        options: OPTIONS,
        create: |o| Ok(Box::new(Canonicalize::new(CanonicalizeOptions::from_pass_options(o)?))),
    }
}

impl CanonicalizeOptions {
    /// Reads the options from `key=value` text options.
    pub fn from_pass_options(o: &PassOptions) -> Result<Self, String> {
        let d = CanonicalizeOptions::default();
        let max_iterations = o.usize("max-iterations", d.max_iterations)?;
        if max_iterations == 0 {
            return Err("option 'max-iterations' must be at least 1".into());
        }
        Ok(CanonicalizeOptions {
            max_iterations,
            test_convergence: o.bool("test-convergence", d.test_convergence)?,
            fold: o.bool("fold", d.fold)?,
        })
    }
}

/// The canonicalization pass.
#[derive(Debug, Default)]
pub struct Canonicalize {
    /// Its options.
    pub options: CanonicalizeOptions,
}

impl Canonicalize {
    /// A pass with these options.
    pub fn new(options: CanonicalizeOptions) -> Self {
        Canonicalize { options }
    }
}

/// The canonicalization patterns of every op kind registered in `ctx`.
pub fn collect_patterns(ctx: &Context) -> Vec<Box<dyn RewritePattern>> {
    ctx.registry().ops().filter_map(|i| i.patterns).flat_map(|f| f()).collect()
}

impl Pass for Canonicalize {
    fn name(&self) -> &'static str {
        "canonicalize"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        let patterns = collect_patterns(ctx);
        let config = GreedyConfig { max_iterations: self.options.max_iterations, fold: self.options.fold };
        let stats = apply_patterns_greedily(ctx, op, &patterns, &config);
        tracing::debug!(
            iterations = stats.iterations,
            rewrites = stats.rewrites,
            converged = stats.converged,
            "canonicalize"
        );
        if self.options.test_convergence && !stats.converged {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "canonicalization did not converge within {} iteration{}",
                    self.options.max_iterations,
                    if self.options.max_iterations == 1 { "" } else { "s" }
                ),
            ));
        }
        Ok(())
    }

    fn options_text(&self) -> String {
        let o = &self.options;
        format!("fold={} max-iterations={} test-convergence={}", o.fold, o.max_iterations, o.test_convergence)
    }
}
