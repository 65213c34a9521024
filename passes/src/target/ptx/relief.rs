//! Spill relief: the CTAs-per-SM bound (`.minnctapersm`) for each kernel that an assembler
//! spilled while it had no bound, read from the assembler's report (`ptxas -v`, or the CUDA
//! driver's JIT log, which holds the same lines).
//!
//! Left without a bound, ptxas picks a kernel's register count itself, and now and then it
//! picks a count and spills at it: the unfused baseline's row kernel of rmsnorm_bwd at
//! 32768 x 768 (256 threads) got 48 registers and 12 bytes of spills. Told to keep the CTAs
//! that this very count leaves resident (five CTAs of 256 at 48 registers), the same ptxas
//! assembles it at 48 registers without a spill: the kernel keeps its occupancy and loses its
//! local-memory traffic. The bound is the assembler's own choice written down, not a guess of
//! the lowering's, so it needs no register estimate.
//!
//! [`plan`] reads each kernel's registers and spills ([`KernelStats`]: from a report with
//! [`stats_from_log`]; the engine falls back on the driver's local-memory size where the JIT
//! log is silent, as it is when the driver's JIT cache answers); [`SpillRelief::apply`] sets
//! `min_ctas_per_sm` on the kernels it names, and the PTX is emitted again; [`relieve`] does
//! both, assembles, tries a kernel that still spills one CTA lower, and keeps the assembly that
//! spills least, if it spills less ([`spilled_bytes`]). A kernel that has no `max_threads`, or a
//! bound that was asked for (`min_ctas_per_sm` without `min_ctas_planned`: `min-ctas=N`, or 0
//! from `min-ctas=none`), is left alone; a cooperative kernel without one (a split-K partial
//! with its final in its grid) is not: its launch caps the grid at the CTAs resident under
//! whatever bound it carries. The execution engine relieves morf's PTX on every load.
//!
//! A bound the lowering planned from its register estimate (`min_ctas_planned`) is a guess
//! the assembler checks: where it spills under that bound, the bound goes one CTA lower (two
//! where that still spills). The estimate runs up to a third under ptxas' count, so the plan
//! takes the CTAs the estimate leaves resident and lets relief catch the rare kernel that
//! does not fit (rmsnorm_bwd at 576000 x 384: three CTAs of 256 planned, 44 bytes spilled
//! under their cap of 80; two, at 110 registers, none), where a margin on every plan cost
//! the kernels that fit a CTA a SM (RMSNorm backward at 131072 x 256: 94.7 against 79.9 us
//! on an H100).

use morf_gpu::ops::FuncOp;
use morf_ir::{Context, OpId};

use super::ptxas::{registers, spills};
use crate::conversion::schedule::resident_ctas;
use crate::fusion::device::Device;

/// One kernel to bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillRelief {
    /// The kernel (its `.entry` name, the `mgpu.func` symbol).
    pub kernel: String,
    /// The registers the assembler gave a thread.
    pub registers: u64,
    /// The bytes it spilled (stores plus loads).
    pub spilled: u64,
    /// The CTAs per SM it was assembled for: those its registers leave resident, or its
    /// planned bound (`planned`).
    pub resident: u64,
    /// The bound it gets: `resident` (one fewer for a planned bound), or one fewer again
    /// where that still spilled ([`relieve`]).
    pub ctas_per_sm: u64,
    /// The bound the lowering planned (`min_ctas_per_sm` with `min_ctas_planned`), which the
    /// relief lowers; `None` for a kernel assembled without a bound.
    pub planned: Option<u64>,
}

impl SpillRelief {
    /// Sets each kernel's `min_ctas_per_sm` in `module`.
    pub fn apply(reliefs: &[SpillRelief], ctx: &mut Context, module: OpId) {
        for r in reliefs {
            if let Some(f) = kernel(ctx, module, &r.kernel) {
                let n = ctx.i64_attr(r.ctas_per_sm as i64);
                ctx.set_attr(f.0, "min_ctas_per_sm", n);
            }
        }
    }

    /// Takes the bounds of [`SpillRelief::apply`] off again (a planned bound back to the
    /// plan).
    pub fn revert(reliefs: &[SpillRelief], ctx: &mut Context, module: OpId) {
        for r in reliefs {
            if let Some(f) = kernel(ctx, module, &r.kernel) {
                match r.planned {
                    Some(p) => {
                        let n = ctx.i64_attr(p as i64);
                        ctx.set_attr(f.0, "min_ctas_per_sm", n);
                    }
                    None => {
                        ctx.remove_attr(f.0, "min_ctas_per_sm");
                    }
                }
            }
        }
    }

    /// A line for a log or a report.
    pub fn describe(&self) -> String {
        if let Some(p) = self.planned {
            let why = if self.ctas_per_sm + 1 == p {
                "one fewer than planned".to_string()
            } else {
                format!("{} fewer than planned, one fewer still spilled", p - self.ctas_per_sm)
            };
            return format!(
                "spill relief: kernel '{}' spilled {} bytes at {} registers under its planned bound of {p} CTA(s) per SM; bounded to {} CTA(s) per SM (.minnctapersm: {why})",
                self.kernel, self.spilled, self.registers, self.ctas_per_sm
            );
        }
        let why = if self.ctas_per_sm == self.resident {
            "the CTAs those registers leave resident".to_string()
        } else {
            format!("one fewer than the {} those registers leave resident, which still spilled", self.resident)
        };
        format!(
            "spill relief: kernel '{}' spilled {} bytes at the {} registers ptxas chose without a bound; bounded to {} CTA(s) per SM (.minnctapersm: {why})",
            self.kernel, self.spilled, self.registers, self.ctas_per_sm
        )
    }
}

/// The `mgpu.func` kernel named `name` directly in `module`.
fn kernel(ctx: &Context, module: OpId, name: &str) -> Option<FuncOp> {
    morf_gpu::ops::kernel::lookup_kernel(ctx, module, name)
}

/// What an assembly gave one kernel: its registers a thread and the bytes it spilled (stores
/// plus loads; or, where no report names it, the local memory a thread, which for morf's
/// kernels, which declare no local arrays, is their spills).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelStats {
    /// The kernel (its `.entry` name).
    pub kernel: String,
    /// Registers a thread.
    pub registers: u64,
    /// Bytes spilled.
    pub spilled: u64,
}

/// The kernels of a `ptxas -v` report (or a verbose JIT log), with their registers and spills.
pub fn stats_from_log(log: &str) -> Vec<KernelStats> {
    let regs = registers(log);
    spills(log)
        .into_iter()
        .filter_map(|(kernel, stores, loads)| {
            let registers = regs.iter().find(|(k, _)| *k == kernel)?.1;
            Some(KernelStats { kernel, registers, spilled: stores + loads })
        })
        .collect()
}

/// The kernels of `module` that `stats` show spilling without a bound, each with the bound
/// that keeps the occupancy the assembler chose (register file of `device`), and those that
/// spill under a planned bound (`min_ctas_planned`), each with one CTA fewer.
pub fn plan(ctx: &Context, module: OpId, stats: &[KernelStats], device: &Device) -> Vec<SpillRelief> {
    stats
        .iter()
        .filter(|k| k.spilled > 0)
        .filter_map(|k| {
            let f = kernel(ctx, module, &k.kernel)?;
            let threads = f.max_threads(ctx).filter(|t| *t > 0)? as u64;
            let relief = |resident, ctas_per_sm, planned| SpillRelief {
                kernel: k.kernel.clone(),
                registers: k.registers,
                spilled: k.spilled,
                resident,
                ctas_per_sm,
                planned,
            };
            match f.min_ctas_per_sm(ctx) {
                // (A cooperative kernel without a bound, a split-K partial with its final
                // behind a grid barrier, may take one: its launch caps the grid at the CTAs
                // resident.) The verifier's range of `min_ctas_per_sm` (an SM holds at most
                // 32 CTAs).
                None => {
                    let resident = resident_ctas(device, threads, k.registers).min(32);
                    Some(relief(resident, resident, None))
                }
                Some(p) if p > 1 && f.min_ctas_planned(ctx).is_some() => {
                    Some(relief(p as u64, p as u64 - 1, Some(p as u64)))
                }
                Some(_) => None,
            }
        })
        .collect()
}

/// Relieves the kernels that `stats`, of `module` as it is assembled, show spilling without a
/// bound. It applies the bounds of [`plan`] and has `assemble` emit and assemble the module
/// again (it returns the new stats and whatever the caller keeps of that assembly: a loaded
/// module, a cubin). A kernel that still spills at the occupancy ptxas chose is tried once more
/// one CTA lower (ptxas gave layernorm_bwd_f32's unfused row kernel at 131072 x 256 40
/// registers and a 4-byte spill with and without `.minnctapersm 6`, 48 registers and none with
/// 5). Of the assemblies, the one that spills the fewest bytes is kept, if it spills fewer than
/// `stats` do: `Some((reliefs, artifact))` with `module` holding its bounds. `None`: nothing to
/// relieve or nothing gained, and `module` is as it was.
pub fn relieve<T, E>(
    ctx: &mut Context,
    module: OpId,
    device: &Device,
    stats: &[KernelStats],
    mut assemble: impl FnMut(&Context) -> Result<(Vec<KernelStats>, T), E>,
) -> Result<Option<(Vec<SpillRelief>, T)>, E> {
    let mut reliefs = plan(ctx, module, stats, device);
    if reliefs.is_empty() {
        return Ok(None);
    }
    let mut best: Option<(u64, Vec<SpillRelief>, T)> = None;
    for attempt in 0..2 {
        SpillRelief::apply(&reliefs, ctx, module);
        let result = assemble(ctx);
        SpillRelief::revert(&reliefs, ctx, module);
        let (after, artifact) = result?;
        let spilled = spilled_bytes(&after);
        let still: Vec<&str> = after.iter().filter(|k| k.spilled > 0).map(|k| k.kernel.as_str()).collect();
        if spilled < best.as_ref().map_or(spilled_bytes(stats), |b| b.0) {
            best = Some((spilled, reliefs.clone(), artifact));
        }
        let lower: Vec<&mut SpillRelief> =
            reliefs.iter_mut().filter(|r| r.ctas_per_sm > 1 && still.contains(&r.kernel.as_str())).collect();
        if attempt == 1 || lower.is_empty() {
            break;
        }
        for r in lower {
            r.ctas_per_sm -= 1;
        }
    }
    Ok(best.map(|(_, reliefs, artifact)| {
        SpillRelief::apply(&reliefs, ctx, module);
        (reliefs, artifact)
    }))
}

/// The bytes spilled over all kernels.
pub fn spilled_bytes(stats: &[KernelStats]) -> u64 {
    stats.iter().map(|k| k.spilled).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"
module {
  mgpu.func @free(%x: !mgpu.ptr<f32>) kernel attributes {max_threads = 256 : i64} {
    mgpu.return
  }
  mgpu.func @bound(%x: !mgpu.ptr<f32>) kernel attributes {max_threads = 256 : i64, min_ctas_per_sm = 0 : i64} {
    mgpu.return
  }
  mgpu.func @asked(%x: !mgpu.ptr<f32>) kernel attributes {max_threads = 256 : i64, min_ctas_per_sm = 3 : i64} {
    mgpu.return
  }
  mgpu.func @planned(%x: !mgpu.ptr<f32>) kernel attributes {max_threads = 256 : i64, min_ctas_per_sm = 3 : i64, min_ctas_planned} {
    mgpu.return
  }
}
"#;

    fn log(k: &str, regs: u64, spill: u64) -> String {
        format!(
            "ptxas info    : Compiling entry function '{k}' for 'sm_90'\nptxas info    : Function properties for {k}\n    16 bytes stack frame, {spill} bytes spill stores, {spill} bytes spill loads\nptxas info    : Used {regs} registers, used 0 barriers\n"
        )
    }

    fn module() -> (Context, OpId) {
        let mut ctx = Context::new();
        morf_loop::register(&mut ctx);
        morf_gpu::register(&mut ctx);
        let m = morf_ir::parse_source(&mut ctx, "relief.mlir", MODULE, 0).expect("parses");
        (ctx, m)
    }

    #[test]
    fn a_kernel_spilling_without_a_bound_keeps_the_occupancy_ptxas_chose() {
        let (mut ctx, m) = module();
        let report = log("free", 48, 12) + &log("bound", 48, 12);
        let r = plan(&ctx, m, &stats_from_log(&report), &Device::h200());
        // 48 registers x 256 threads: five CTAs in 64 Ki registers. `bound` asked for none.
        assert_eq!(
            r,
            [SpillRelief {
                kernel: "free".into(),
                registers: 48,
                spilled: 24,
                resident: 5,
                ctas_per_sm: 5,
                planned: None
            }]
        );
        SpillRelief::apply(&r, &mut ctx, m);
        assert_eq!(kernel(&ctx, m, "free").unwrap().min_ctas_per_sm(&ctx), Some(5));
        SpillRelief::revert(&r, &mut ctx, m);
        assert_eq!(kernel(&ctx, m, "free").unwrap().min_ctas_per_sm(&ctx), None);
        assert_eq!(spilled_bytes(&stats_from_log(&report)), 48);
    }

    #[test]
    fn relief_is_kept_only_where_the_assembler_spills_less() {
        let (mut ctx, m) = module();
        let report = stats_from_log(&log("free", 48, 12));
        let bound = |ctx: &Context| kernel(ctx, m, "free").unwrap().min_ctas_per_sm(ctx);
        // The second assembly spills nothing: the bound stays, with that assembly.
        let kept = relieve(&mut ctx, m, &Device::h200(), &report, |c| {
            assert_eq!(bound(c), Some(5));
            Ok::<_, ()>((stats_from_log(&log("free", 48, 0)), "relieved"))
        });
        let (reliefs, artifact) = kept.unwrap().unwrap();
        assert_eq!((reliefs.len(), artifact), (1, "relieved"));
        assert_eq!(bound(&ctx), Some(5));
        // Still spilling at five CTAs: tried at four, which spills less, and kept.
        let (mut ctx, m) = module();
        let mut tried = Vec::new();
        let kept = relieve(&mut ctx, m, &Device::h200(), &report, |c| {
            let n = bound(c).unwrap();
            tried.push(n);
            Ok::<_, ()>((stats_from_log(&log("free", 56, if n == 5 { 12 } else { 0 })), n))
        });
        assert_eq!(tried, [5, 4]);
        assert_eq!(kept.unwrap().unwrap().1, 4);
        assert_eq!(kernel(&ctx, m, "free").unwrap().min_ctas_per_sm(&ctx), Some(4));
        // It spills as much at both: nothing is kept. A failed assembly is an error; either way
        // the module is as it was.
        let (mut ctx, m) = module();
        assert!(relieve(&mut ctx, m, &Device::h200(), &report, |_| Ok::<_, ()>((
            stats_from_log(&log("free", 40, 12)),
            ()
        )))
        .unwrap()
        .is_none());
        assert_eq!(kernel(&ctx, m, "free").unwrap().min_ctas_per_sm(&ctx), None);
        assert!(relieve(&mut ctx, m, &Device::h200(), &report, |_| Err::<(Vec<KernelStats>, ()), _>("no GPU")).is_err());
        assert_eq!(kernel(&ctx, m, "free").unwrap().min_ctas_per_sm(&ctx), None);
    }

    #[test]
    fn a_planned_bound_that_spills_goes_one_cta_lower_and_an_asked_one_stays() {
        let (mut ctx, m) = module();
        let report = log("planned", 80, 22) + &log("asked", 80, 22);
        let r = plan(&ctx, m, &stats_from_log(&report), &Device::h200());
        assert_eq!(
            r,
            [SpillRelief {
                kernel: "planned".into(),
                registers: 80,
                spilled: 44,
                resident: 3,
                ctas_per_sm: 2,
                planned: Some(3)
            }]
        );
        assert!(
            r[0].describe().contains("under its planned bound of 3 CTA(s) per SM; bounded to 2"),
            "{}",
            r[0].describe()
        );
        let bound = |ctx: &Context| kernel(ctx, m, "planned").unwrap().min_ctas_per_sm(ctx);
        // Still spilling at two: tried at one, which spills nothing, and kept.
        let mut tried = Vec::new();
        let stats = stats_from_log(&log("planned", 80, 22));
        let kept = relieve(&mut ctx, m, &Device::h200(), &stats, |c| {
            let n = bound(c).unwrap();
            tried.push(n);
            Ok::<_, ()>((stats_from_log(&log("planned", 110, if n == 2 { 4 } else { 0 })), n))
        });
        assert_eq!(tried, [2, 1]);
        let (reliefs, n) = kept.unwrap().unwrap();
        assert_eq!((n, bound(&ctx)), (1, Some(1)));
        assert!(reliefs[0].describe().contains("2 fewer than planned"), "{}", reliefs[0].describe());
        // Nothing gained: the plan is back, marked as it was.
        let (mut ctx, m) = module();
        assert!(relieve(&mut ctx, m, &Device::h200(), &stats, |_| Ok::<_, ()>((
            stats_from_log(&log("planned", 80, 22)),
            ()
        )))
        .unwrap()
        .is_none());
        let f = kernel(&ctx, m, "planned").unwrap();
        assert_eq!((f.min_ctas_per_sm(&ctx), f.min_ctas_planned(&ctx).is_some()), (Some(3), true));
    }

    #[test]
    fn nothing_spilled_nothing_planned() {
        let (ctx, m) = module();
        assert!(plan(&ctx, m, &stats_from_log(&log("free", 48, 0)), &Device::h200()).is_empty());
        assert!(plan(&ctx, m, &[], &Device::h200()).is_empty());
    }
}
