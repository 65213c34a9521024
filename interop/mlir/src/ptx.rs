//! The second PTX path: the GPU level exported to `gpu`/`nvvm`/`llvm` ([`crate::export`]),
//! then MLIR's own lowering and serializer, run in process by melior's pass manager:
//!
//! ```text
//! builtin.module(gpu.module(convert-scf-to-cf, arith-expand, convert-gpu-to-nvvm,
//!                           canonicalize, reconcile-unrealized-casts),
//!                gpu-module-to-binary{format=isa})
//! ```
//!
//! `gpu-module-to-binary{format=isa}` translates each `gpu.module` to LLVM IR and runs LLVM's
//! NVPTX backend: the `gpu.binary` it leaves holds the PTX text, which this module returns.
//! `math` functions become libdevice calls (`__nv_expf`, ...), linked from the CUDA toolkit
//! that `CUDA_HOME`, `CUDA_PATH` or `CUDA_ROOT` names, else the one around `$MORF_PTXAS`
//! (`.../bin/ptxas` -> `...`), else the pip wheel's (`nvidia/cu13`); a kernel that needs
//! libdevice without one is an error, not PTX with unresolved calls.

use std::path::{Path, PathBuf};
use std::sync::Once;

use melior::ir::operation::OperationLike;
use melior::ir::AttributeLike;
use melior::pass::PassManager;
use morf_ir::builtin::op_error;
use morf_ir::{Context, Diagnostic, OpId};

use crate::bridge::Mlir;
use crate::PtxOptions;

/// The CUDA toolkit folder whose `nvvm/libdevice/libdevice.10.bc` MLIR links.
fn cuda_toolkit() -> Option<PathBuf> {
    let has_libdevice = |p: &Path| p.join("nvvm/libdevice/libdevice.10.bc").is_file();
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(p) = std::env::var_os(var).map(PathBuf::from).filter(|p| has_libdevice(p)) {
            return Some(p);
        }
    }
    if let Some(ptxas) = std::env::var_os("MORF_PTXAS").map(PathBuf::from) {
        if let Some(root) = ptxas.parent().and_then(Path::parent).filter(|p| has_libdevice(p)) {
            return Some(root.to_path_buf());
        }
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import nvidia; print(list(nvidia.__path__)[0])"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    ["cu13", "cu12", "cuda_nvcc"].iter().map(|s| dir.join(s)).find(|p| has_libdevice(p))
}

/// PTX of every kernel of a GPU-level module, through MLIR.
pub(crate) fn emit(ctx: &Context, module: OpId, options: &PtxOptions) -> Result<String, Diagnostic> {
    static PASSES: Once = Once::new();
    PASSES.call_once(melior::utility::register_all_passes);
    let mlir = Mlir::new();
    melior::utility::register_all_llvm_translations(&mlir.cx);
    let mut m = crate::export::build_module(&mlir, ctx, module, options)?;
    let toolkit = cuda_toolkit();
    let toolkit_opt = toolkit.as_ref().map(|p| format!(" toolkit={}", p.display())).unwrap_or_default();
    let pipeline = format!(
        "builtin.module(gpu.module(convert-scf-to-cf,arith-expand,convert-gpu-to-nvvm,canonicalize,\
         reconcile-unrealized-casts),gpu-module-to-binary{{format=isa{toolkit_opt}}})"
    );
    let pm = PassManager::new(&mlir.cx);
    melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), &pipeline)
        .map_err(|e| op_error(ctx, module, format!("MLIR rejected the pass pipeline '{pipeline}': {e}")))?;
    if pm.run(&mut m).is_err() {
        return Err(op_error(ctx, module, format!("MLIR's lowering to PTX failed:\n{}", mlir.diag_text())));
    }
    let mut ptx = Vec::new();
    let body = m.body();
    let mut next = melior::ir::BlockLike::first_operation(&body);
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("gpu.binary") {
            continue;
        }
        let objects = op.attribute("objects").map_err(|_| op_error(ctx, module, "MLIR's gpu.binary has no objects"))?;
        let objects = melior::ir::attribute::ArrayAttribute::try_from(objects)
            .map_err(|_| op_error(ctx, module, "MLIR's gpu.binary has malformed objects"))?;
        for i in 0..objects.len() {
            let o = objects.element(i).map_err(|_| op_error(ctx, module, "malformed gpu.object"))?;
            let text = unsafe {
                let s = mlir_sys::mlirGPUObjectAttrGetObject(o.to_raw());
                String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length)).into_owned()
            };
            ptx.push(text.trim_end_matches('\0').to_string());
        }
    }
    if ptx.is_empty() {
        return Err(op_error(ctx, module, "MLIR produced no PTX (the module has no kernels)"));
    }
    let ptx = ptx.join("\n");
    if toolkit.is_none() && ptx.contains("__nv_") {
        return Err(op_error(
            ctx,
            module,
            "the kernels call libdevice functions (__nv_*), but no CUDA toolkit with \
             nvvm/libdevice/libdevice.10.bc was found (set CUDA_HOME or MORF_PTXAS)",
        ));
    }
    Ok(ptx)
}
