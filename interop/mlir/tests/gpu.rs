//! Both PTX paths on the GPU: each program is lowered once with the `gpu` pipeline, then run
//! with morf's PTX and with MLIR's PTX of the same kernels (same names and parameters), and
//! every output is checked against the fp64 interpreter. Skipped without a CUDA driver.
//!
//! ```sh
//! MLIR_SYS_220_PREFIX=/usr/lib/llvm-22 TABLEGEN_220_PREFIX=/usr/lib/llvm-22 \
//!     cargo test --release -p morf-mlir --features mlir --test gpu -- --nocapture
//! ```
#![cfg(feature = "mlir")]

use std::path::Path;

use morf::engine::bind::{bind_arguments, load_module, new_context, select_function};
use morf::engine::compile::lower_for_gpu;
use morf::engine::{compare_outputs_judged, Inputs};

/// The morf text of a program: examples as they are, linalg files imported.
fn morf_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    if !path.to_string_lossy().ends_with(".linalg.mlir") {
        return text;
    }
    let mut ctx = new_context(false);
    let m = morf_mlir::import_mlir(&mut ctx, &path.to_string_lossy(), &text, 0).unwrap();
    morf::ir::print_op(&ctx, m, &morf::ir::PrintOptions::default())
}

#[test]
fn both_ptx_paths_agree_with_the_interpreter_on_the_gpu() {
    if !morf::runtime::cuda_available() {
        eprintln!("no CUDA driver, skipping");
        return;
    }
    let gpu = morf::runtime::Gpu::new(0).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The last two rows are over the 16384 columns one CTA holds well, so the heuristic splits
    // each row over a cluster of 2 CTAs: the cluster directives, mapa and the remote stores
    // go through MLIR's NVVM path too.
    let small: &[(&str, usize)] = &[("M", 4096), ("N", 1024)];
    let wide: &[(&str, usize)] = &[("M", 512), ("N", 32768)];
    for (file, sizes) in [
        ("examples/rmsnorm_bwd.mlir", small),
        ("examples/layernorm_bwd.mlir", small),
        ("examples/gelu_bwd_bias.mlir", small),
        ("test/Interop/MLIR/rmsnorm_bwd.linalg.mlir", small),
        ("test/Interop/MLIR/layernorm_bwd.linalg.mlir", small),
        ("examples/rmsnorm_bwd.mlir", wide),
        ("examples/layernorm_bwd.mlir", wide),
    ] {
        let text = morf_text(&root.join(file));
        let mut rctx = new_context(false);
        let rmodule = load_module(&mut rctx, file, &text).unwrap();
        let rfunc = select_function(&rctx, rmodule, None, file).unwrap();
        let inputs = Inputs::new().random(sizes).seed(7);
        let (args, _) = bind_arguments(&rctx, rfunc, inputs.options()).unwrap();
        let hints = sizes.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
        let mut outputs = Vec::new();
        for backend in ["morf", "mlir"] {
            let mut lowered = lower_for_gpu(file, &text, None, false, "gpu", Some(&hints)).unwrap();
            if backend == "mlir" {
                lowered.ptx = morf_mlir::emit_ptx(&lowered.ctx, lowered.module, &morf_mlir::PtxOptions::default())
                    .unwrap_or_else(|d| panic!("{file}: {}", lowered.ctx.render(&d)));
            }
            if sizes == wide {
                assert!(lowered.ptx.contains("mapa.shared::cluster"), "{file}: no cluster kernel at {hints}");
            }
            let prog = lowered.load(&gpu).unwrap();
            let out = prog.run(&gpu, &args).unwrap();
            outputs.push((backend, prog, out));
        }
        let reference = morf::ir::interp::run_function(&rctx, rfunc, args).unwrap();
        let precisions = morf::ir::numerics::result_precisions(&rctx, rfunc);
        for (backend, prog, out) in &outputs {
            let checks = compare_outputs_judged(&prog.ctx, out, &reference, &precisions);
            eprintln!("{file} ({backend} PTX): {checks:?}");
            assert!(checks.iter().all(|c| c.ok()), "{file}: the {backend} PTX disagrees with the interpreter");
        }
    }
}
