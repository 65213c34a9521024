//! The `morf-opt` tool: registers morf's dialects and passes and hands the command line to
//! the driver in the core ([`morf_ir::tools::opt_main()`]). See `docs/passes.md` for the flags.

use morf_engine::tuning::{resolve, DeviceKey, ProgramRef, Resolution, TuningCache};
use morf_ir::pass::{quote_option_value, PassRegistry};
use morf_ir::tools::{ModulePipeline, OptConfig, PipelineHook, PtxFlags};
use morf_ir::{Context, Diagnostic, OpId};
use morf_passes::target::ptx::PtxOptions;

/// Registers every dialect `morf-opt` knows into `ctx`.
pub fn register_dialects(ctx: &mut Context) {
    morf_tensor::register(ctx);
    morf_loop::register(ctx);
    morf_gpu::register(ctx);
}

/// Every pass and named pipeline `morf-opt` knows.
pub fn pass_registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

/// The PTX options that `flags` select (the emitter's defaults where a flag is absent).
fn ptx_options(flags: &PtxFlags) -> PtxOptions {
    let mut opts = PtxOptions::default();
    if let Some(v) = &flags.version {
        opts.version = v.clone();
    }
    if let Some(t) = &flags.target {
        opts.target = t.clone();
    }
    opts
}

/// Checks `--ptx-version` and `--ptx-target` before any input is read
/// ([`PtxOptions::validate`]): their values are pasted into the PTX header.
pub fn check_ptx_flags(flags: &PtxFlags) -> Result<(), String> {
    ptx_options(flags).validate()
}

/// `--emit=ptx`: every `mgpu.func` of the module as PTX ([`morf_passes::target::ptx`]).
/// A module without any is an error at the module: there is nothing to emit.
pub fn emit_ptx(ctx: &Context, module: OpId, flags: &PtxFlags) -> Result<String, Diagnostic> {
    let mut kernels = 0usize;
    ctx.walk(module, &mut |op| kernels += usize::from(ctx.isa::<morf_gpu::ops::FuncOp>(op)));
    if kernels == 0 {
        return Err(morf_ir::builtin::op_error(
            ctx,
            module,
            "contains no 'mgpu.func' kernels to emit as PTX (run '--pipeline=gpu' first)",
        ));
    }
    morf_passes::target::ptx::emit_module(ctx, module, &ptx_options(flags))
}

/// Adds `extra` to the options of every pass `name` in pipeline text.
fn add_pass_options(text: &str, name: &str, extra: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        out.push_str(&rest[..i + name.len()]);
        rest = &rest[i + name.len()..];
        if let Some(r) = rest.strip_prefix('{') {
            out.push('{');
            out.push_str(extra);
            out.push(' ');
            rest = r;
        } else {
            out.push_str(&format!("{{{extra}}}"));
        }
    }
    out.push_str(rest);
    out
}

/// Splices `extra` into the options of every `pass` the command line runs: as a pass flag
/// (`--pass` or `--pass=...`), in `--pass-pipeline`, and in the registered named pipelines
/// (`--pipeline=...`) that run it.
fn splice_pass_options(
    args: Vec<std::ffi::OsString>,
    reg: &mut PassRegistry,
    pass: &str,
    extra: &str,
) -> Vec<std::ffi::OsString> {
    let pipelines: Vec<morf_ir::pass::NamedPipeline> = reg.pipelines().cloned().collect();
    for p in pipelines {
        if p.text.contains(pass) {
            let text: &'static str = Box::leak(add_pass_options(p.text, pass, extra).into_boxed_str());
            reg.register_pipeline(morf_ir::pass::NamedPipeline { text, ..p });
        }
    }
    let flag = format!("--{pass}");
    let mut out = Vec::new();
    let mut prev_pipeline = false;
    for a in args {
        let s = a.to_string_lossy().to_string();
        let new = if prev_pipeline || s.starts_with("--pass-pipeline=") {
            add_pass_options(&s, pass, extra)
        } else if s == flag {
            format!("{s}={extra}")
        } else if let Some(o) = s.strip_prefix(&format!("{flag}=")) {
            format!("{flag}={o} {extra}")
        } else {
            out.push(a);
            prev_pipeline = s == "--pass-pipeline";
            continue;
        };
        prev_pipeline = false;
        out.push(new.into());
    }
    out
}

/// The report flags: `--fusion-report` and `--dump-egraph=FILE` set the `report` and
/// `dump-egraph` options of every `fuse-mixed-reductions` the command line runs;
/// `--schedule-report` sets `report` of every `lower-loop-to-gpu` (as a pass flag, in
/// `--pass-pipeline` or in a named pipeline such as `--pipeline=gpu`). The file name is
/// quoted for the option text ([`quote_option_value`]), so it may hold spaces, braces or
/// `=`; a name no quoting can carry is an error.
fn apply_fusion_flags(
    args: Vec<std::ffi::OsString>,
    reg: &mut PassRegistry,
) -> Result<Vec<std::ffi::OsString>, String> {
    let mut fusion = Vec::new();
    let mut schedule = Vec::new();
    let mut kept = Vec::new();
    for a in args {
        match a.to_str() {
            Some("--fusion-report") => fusion.push("report".to_string()),
            Some("--schedule-report") => schedule.push("report".to_string()),
            Some(s) if s.starts_with("--dump-egraph=") => {
                let path = &s["--dump-egraph=".len()..];
                let q = quote_option_value(path).map_err(|e| format!("--dump-egraph: {e}"))?;
                fusion.push(format!("dump-egraph={q}"));
            }
            _ => kept.push(a),
        }
    }
    for (pass, extra) in [("fuse-mixed-reductions", fusion), ("lower-loop-to-gpu", schedule)] {
        if !extra.is_empty() {
            kept = splice_pass_options(kept, reg, pass, &extra.join(" "));
        }
    }
    Ok(kept)
}

/// Takes `--tuning-cache FILE|builtin|none` and `--tuning-device NAME[:SMS]` out of the command
/// line. Returns the cache (loaded and checked: a bad file is an error before any input is
/// read) and the device its entries are looked up for (default: the H200, the device the
/// cost model targets).
#[allow(clippy::type_complexity)]
fn take_tuning_flags(
    args: Vec<std::ffi::OsString>,
    reg: &PassRegistry,
) -> Result<(Vec<std::ffi::OsString>, Option<(TuningCache, DeviceKey)>), String> {
    // The flag's cache: `Some(None)` for `--tuning-cache none`.
    let mut cache: Option<Option<TuningCache>> = None;
    let mut device = None;
    let mut kept = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let s = a.to_string_lossy().to_string();
        let mut value = |flag: &str| -> Result<Option<String>, String> {
            if s == flag {
                return it.next().map(|v| Some(v.to_string_lossy().to_string())).ok_or(format!("{flag} needs a value"));
            }
            Ok(s.strip_prefix(&format!("{flag}=")).map(str::to_string))
        };
        if let Some(v) = value("--tuning-cache")? {
            cache = Some(match v.as_str() {
                "none" => None,
                "builtin" => Some(TuningCache::builtin()),
                path => Some(TuningCache::load(std::path::Path::new(path), reg).map_err(|e| e.to_string())?),
            });
        } else if let Some(v) = value("--tuning-device")? {
            device = Some(DeviceKey::parse(&v).map_err(|e| format!("--tuning-device: {e}"))?);
        } else {
            kept.push(a);
        }
    }
    if device.is_some() && cache.is_none() {
        return Err("--tuning-device needs --tuning-cache".into());
    }
    Ok((kept, cache.flatten().map(|c| (c, device.unwrap_or_else(DeviceKey::default_target)))))
}

/// The hook that replaces `--pipeline NAME` by its tuned form for a module the cache has an
/// entry for (the module's only function, in the bucket of the size hints, on `device`).
fn tuning_hook(cache: TuningCache, device: DeviceKey, reg: PassRegistry) -> PipelineHook {
    PipelineHook(std::sync::Arc::new(move |ctx: &Context, module: OpId, name: &str, hints: Option<&str>| {
        let funcs: Vec<OpId> = ctx
            .regions(module)
            .first()
            .and_then(|r| ctx.entry_block(*r))
            .map(|b| ctx.block_ops(b).filter(|&o| ctx.isa::<morf_ir::builtin::FuncOp>(o)).collect())
            .unwrap_or_default();
        let [func] = funcs[..] else {
            return Ok((
                None,
                Some(format!("untuned: the module has {} functions (tuning entries are per function)", funcs.len())),
            ));
        };
        match resolve(&cache, &reg, ProgramRef { ctx, module, func }, name, hints, &device)? {
            Resolution::Tuned { pipeline, hints, note, .. } => {
                Ok((Some(ModulePipeline { pipeline, hints }), Some(note)))
            }
            Resolution::Untuned { note } => Ok((None, Some(note))),
        }
    }))
}

/// Whether this morf-opt links MLIR (the cargo feature `mlir`): `--emit=mlir`,
/// `--import=mlir` and `--ptx-backend=mlir` work.
pub fn mlir_available() -> bool {
    morf_mlir::is_available()
}

/// Whether a `ptxas` is found (`MORF_PTXAS`, the `nvidia-cuda-nvcc` wheel, `PATH`): the pass
/// `ptx-spill-relief` assembles with it.
pub fn ptxas_available() -> bool {
    morf_passes::target::ptx::ptxas::find_ptxas().is_some()
}

/// `--ptx-backend=mlir`: PTX through MLIR's NVVM lowering and `gpu-module-to-binary`
/// ([`morf_mlir::emit_ptx`]), the same module as `--emit=ptx` but a second code generator.
fn emit_ptx_mlir(ctx: &Context, module: OpId, flags: &PtxFlags) -> Result<String, Diagnostic> {
    let mut kernels = 0usize;
    ctx.walk(module, &mut |op| kernels += usize::from(ctx.isa::<morf_gpu::ops::FuncOp>(op)));
    if kernels == 0 {
        return Err(morf_ir::builtin::op_error(
            ctx,
            module,
            "contains no 'mgpu.func' kernels to emit as PTX (run '--pipeline=gpu' first)",
        ));
    }
    let mut opts = morf_mlir::PtxOptions::default();
    if let Some(v) = &flags.version {
        opts.version = v.clone();
    }
    if let Some(t) = &flags.target {
        opts.target = t.clone();
    }
    morf_mlir::emit_ptx(ctx, module, &opts)
}

/// The MLIR flags: installs the exporter and importer of `morf-mlir` when this build has
/// MLIR (without it the driver rejects `--emit=mlir` and `--import=mlir`), and takes
/// `--ptx-backend=morf|mlir` out of the command line (`mlir` swaps the `--emit=ptx` emitter;
/// an error without MLIR).
fn apply_mlir_flags(args: Vec<std::ffi::OsString>, config: &mut OptConfig) -> Result<Vec<std::ffi::OsString>, String> {
    if mlir_available() {
        config.mlir_exporter = Some(morf_mlir::export_mlir);
        config.mlir_importer = Some(morf_mlir::import_mlir);
    }
    let mut kept = Vec::new();
    let mut backend = None;
    let mut it = args.into_iter().enumerate().peekable();
    while let Some((i, a)) = it.next() {
        let s = a.to_str().unwrap_or("");
        if i > 0 && s == "--" {
            kept.push(a);
            kept.extend(it.map(|(_, a)| a));
            break;
        }
        if i > 0 && (s == "--ptx-backend" || s.starts_with("--ptx-backend=")) {
            let v = match s.strip_prefix("--ptx-backend=") {
                Some(v) => v.to_string(),
                None => it
                    .next()
                    .map(|(_, v)| v.to_string_lossy().into_owned())
                    .ok_or("--ptx-backend needs a value: morf or mlir")?,
            };
            backend = Some(v);
            continue;
        }
        kept.push(a);
    }
    match backend.as_deref() {
        None | Some("morf") => {}
        Some("mlir") if mlir_available() => config.ptx_emitter = Some(emit_ptx_mlir),
        Some("mlir") => return Err(format!("--ptx-backend=mlir is not available: {}", morf_mlir::UNAVAILABLE)),
        Some(v) => return Err(format!("--ptx-backend: unknown backend '{v}' (expected morf or mlir)")),
    }
    Ok(kept)
}

/// The flags this tool takes before the driver, for the end of `--help`.
const TOOL_FLAGS: &str =
    "  --tuning-cache <builtin|none|FILE>  Replace `--pipeline NAME` by the tuned pipeline the cache holds for \
the module's function, its size hints' bucket and the device (default: none, the cost model decides)
  --tuning-device <NAME[:SMS]>        The device whose entries are looked up (default: NVIDIA H200:132)
  --ptx-backend <morf|mlir>           Who emits `--emit=ptx`: morf's emitter or MLIR's (a build with MLIR)
  --fusion-report                     Report the fusion search of every fuse-mixed-reductions
  --dump-egraph=FILE                  Write the fusion search's e-graph
  --schedule-report                   Report the schedule of every lower-loop-to-gpu";

/// Runs morf-opt with the given command line (`argv[0]` first) and returns the process exit code.
pub fn main_with_args(args: Vec<std::ffi::OsString>) -> i32 {
    let mut config = OptConfig {
        ptx_emitter: Some(emit_ptx),
        ptx_check: Some(check_ptx_flags),
        pipeline_hook: None,
        extra_help: Some(TOOL_FLAGS.to_string()),
        ..OptConfig::default()
    };
    let args = match apply_mlir_flags(args, &mut config) {
        Ok(a) => a,
        Err(e) => {
            morf_ir::io::eprint_lossy(&format!("morf-opt: error: {e}"));
            return 1;
        }
    };
    let mut reg = pass_registry();
    let args = match apply_fusion_flags(args, &mut reg) {
        Ok(a) => a,
        Err(e) => {
            morf_ir::io::eprint_lossy(&format!("morf-opt: error: {e}"));
            return 1;
        }
    };
    let args = match take_tuning_flags(args, &reg) {
        Ok((a, tuning)) => {
            config.pipeline_hook = tuning.map(|(c, d)| tuning_hook(c, d, reg.clone()));
            a
        }
        Err(e) => {
            morf_ir::io::eprint_lossy(&format!("morf-opt: error: {e}"));
            return 1;
        }
    };
    morf_ir::tools::opt_main_with(args, &register_dialects, &reg, &config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mlir_flags_are_taken_out_and_checked() {
        let mut config = OptConfig::default();
        let args = ["morf-opt", "x.mlir", "--ptx-backend", "morf", "--emit=ptx", "--", "--ptx-backend=z"];
        let out = apply_mlir_flags(args.iter().map(Into::into).collect(), &mut config).unwrap();
        assert_eq!(out, ["morf-opt", "x.mlir", "--emit=ptx", "--", "--ptx-backend=z"]);
        assert_eq!(config.mlir_exporter.is_some(), mlir_available());
        assert_eq!(config.mlir_importer.is_some(), mlir_available());
        let bad = ["morf-opt", "--ptx-backend=nvcc"];
        let e = apply_mlir_flags(bad.iter().map(Into::into).collect(), &mut config).unwrap_err();
        assert!(e.contains("unknown backend 'nvcc'"), "{e}");
        let mlir = ["morf-opt", "--ptx-backend=mlir"];
        let r = apply_mlir_flags(mlir.iter().map(Into::into).collect(), &mut config);
        assert_eq!(r.is_ok(), mlir_available());
    }

    #[test]
    fn dump_egraph_paths_are_quoted_into_the_options() {
        let mut reg = pass_registry();
        let args = ["morf-opt", "x.mlir", "--fuse-mixed-reductions", "--dump-egraph=/tmp/a b{c}.dot"];
        let out = apply_fusion_flags(args.iter().map(Into::into).collect(), &mut reg).unwrap();
        assert_eq!(out[2], "--fuse-mixed-reductions=dump-egraph=\"/tmp/a b{c}.dot\"");
        let bad = ["morf-opt", "--dump-egraph=/tmp/a\nb"];
        assert!(apply_fusion_flags(bad.iter().map(Into::into).collect(), &mut reg).is_err());
    }

    #[test]
    fn schedule_report_sets_the_lowering_option() {
        let mut reg = pass_registry();
        let args = ["morf-opt", "--lower-loop-to-gpu=threads=64", "--schedule-report", "--fusion-report"];
        let out = apply_fusion_flags(args.iter().map(Into::into).collect(), &mut reg).unwrap();
        assert_eq!(out[1], "--lower-loop-to-gpu=threads=64 report");
        let args = ["morf-opt", "--pass-pipeline=builtin.module(fuse-mixed-reductions,lower-loop-to-gpu{grid=2})"];
        let mut args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        args.push("--schedule-report".into());
        let mut reg = pass_registry();
        let out = apply_fusion_flags(args, &mut reg).unwrap();
        assert_eq!(out[1], "--pass-pipeline=builtin.module(fuse-mixed-reductions,lower-loop-to-gpu{report grid=2})");
        let gpu = reg.pipelines().find(|p| p.name == "gpu").unwrap();
        assert!(gpu.text.contains("lower-loop-to-gpu{report}"), "{}", gpu.text);
    }
}
