//! `ptx-spill-relief`: spill relief ([`super::relief`]) as a pass over GPU-level IR, with an
//! assembler (`ptxas`) in the CUDA driver's place, for PTX that is loaded by something other
//! than the execution engine (which relieves morf's PTX on every load itself).
//!
//! The pass emits the module's kernels as PTX, assembles them with `ptxas -arch=sm_90 -v`, and
//! where a kernel spills (without a CTAs-per-SM bound, or under the bound its lowering planned,
//! `min_ctas_planned`) sets the bound that [`super::relief::relieve`] keeps: the occupancy the
//! assembler chose, or one CTA under the plan (two where one still spills), kept only where
//! the assembly spills less. A bound that was asked for (`min-ctas=N`, `min-ctas=none`) is left
//! alone. Each relief kept is said on stderr as a remark at the kernel's location. Run it last,
//! before `--emit=ptx`:
//!
//! ```text
//! morf-opt prog.mlir --pass-pipeline='builtin.module(...,lower-loop-to-gpu,ptx-spill-relief)' --emit=ptx
//! ```
//!
//! The assembler is the option `ptxas=PATH`, else the one the tests use
//! ([`super::ptxas::find_ptxas`]: `MORF_PTXAS`, the `nvidia-cuda-nvcc` wheel, `PATH`); without
//! one the pass fails with a diagnostic. A module without kernels is left as it is.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use morf_ir::builtin::op_error;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Context, OpId};

use super::ptxas::{assemble_text, find_ptxas};
use super::relief::{relieve, stats_from_log};
use super::{emit_module, PtxOptions};
use crate::fusion::device::Device;

/// The registry entry of `ptx-spill-relief`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "ptx-spill-relief",
        description: "assemble the module's kernels with ptxas and bound those that spill (without a bound, or under a planned one) as the execution engine does on loading",
        options: &[
            PassOptionInfo {
                key: "ptxas",
                help: "the assembler (default: MORF_PTXAS, the nvidia-cuda-nvcc wheel's, or PATH's)",
                default: "",
            },
            PassOptionInfo { key: "device", help: "device overrides for the register file, e.g. sms=108", default: "" },
        ],
        create: |o| Ok(Box::new(PtxSpillRelief::from_options(o)?)),
    }
}

/// The ptx-spill-relief pass.
#[derive(Debug, Clone)]
pub struct PtxSpillRelief {
    /// `ptxas`: the assembler; `None`: [`find_ptxas`] at run time.
    pub ptxas: Option<PathBuf>,
    /// The device whose register file sizes the bounds.
    pub device: Device,
}

impl PtxSpillRelief {
    /// Reads the options.
    pub fn from_options(o: &PassOptions) -> Result<Self, String> {
        let ptxas = Some(o.string("ptxas", "")).filter(|p| !p.is_empty()).map(PathBuf::from);
        Ok(PtxSpillRelief { ptxas, device: Device::parse(&o.string("device", ""))? })
    }
}

/// A fresh temporary path for one assembly (the process and a counter).
fn scratch_path() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("morf-spill-relief-{}-{n}.ptx", std::process::id()))
}

impl Pass for PtxSpillRelief {
    fn name(&self) -> &'static str {
        "ptx-spill-relief"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        let has_kernels = ctx.walk_collect(op).into_iter().any(|o| ctx.isa::<morf_gpu::ops::FuncOp>(o));
        if !has_kernels {
            return Ok(());
        }
        let ptxas = self.ptxas.clone().or_else(find_ptxas).ok_or_else(|| {
            op_error(
                ctx,
                op,
                "ptx-spill-relief: no ptxas found (pass ptxas=PATH, set MORF_PTXAS, or install the nvidia-cuda-nvcc wheel)",
            )
        })?;
        let path = scratch_path();
        let assemble_module = |c: &Context| -> Result<String, morf_ir::Diagnostic> {
            let ptx = emit_module(c, op, &PtxOptions::default())?;
            assemble_text(&ptxas, &path, &ptx).map_err(|e| op_error(c, op, format!("ptx-spill-relief: {e}")))
        };
        let result = assemble_module(ctx).and_then(|first| {
            relieve(ctx, op, &self.device, &stats_from_log(&first), |c| {
                assemble_module(c).map(|log| (stats_from_log(&log), ()))
            })
        });
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(path.with_extension("cubin"));
        for r in result?.map(|(kept, ())| kept).unwrap_or_default() {
            let loc =
                morf_gpu::ops::kernel::lookup_kernel(ctx, op, &r.kernel).map_or(ctx.op_loc(op), |f| ctx.op_loc(f.0));
            tracing::info!("{}", r.describe());
            morf_ir::io::eprint_lossy(&format!("{}: remark: {}\n", ctx.loc_prefix(loc), r.describe()));
        }
        Ok(())
    }
}
