//! One kernel (`mgpu.func`) to one PTX `.entry`.
//!
//! Every SSA value gets its own virtual register, except the results of `mloop.for`, which
//! are the loop's iteration registers after the exit. Values of 16-bit float types live in
//! `.b16` registers; arithmetic on them widens to f32, computes, and rounds back with
//! `cvt.rn`, which is exactly "round to the result type": for `+ - * / sqrt` the f32 result
//! rounded to bf16 or f16 equals the exactly rounded one, because f32 has at least `2p + 2`
//! bits for both (p = 8 and 11).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use morf_gpu::ops::{self as gpu, AtomicKind, ReduceKind, ShuffleMode};
use morf_ir::interfaces::{elementwise, BinaryFn, CmpPredicate, Elementwise, UnaryFn};
use morf_ir::{BlockId, Context, Diagnostic, FloatKind, OpId, Type, TypeData, Value};
use morf_loop::ops as lp;

use super::{PtxOptions, DYNAMIC_SHARED};
use crate::conversion::remat_converts::REMAT_ATTR;

/// The scalar types a kernel computes with.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Sc {
    I1,
    Index,
    F16,
    BF16,
    F32,
    F64,
}

impl Sc {
    fn class(self) -> Rc {
        match self {
            Sc::I1 => Rc::Pred,
            Sc::Index => Rc::B64,
            Sc::F16 | Sc::BF16 => Rc::B16,
            Sc::F32 => Rc::F32,
            Sc::F64 => Rc::F64,
        }
    }
    fn bytes(self) -> u32 {
        match self {
            Sc::I1 => 1,
            Sc::F16 | Sc::BF16 => 2,
            Sc::F32 => 4,
            Sc::Index | Sc::F64 => 8,
        }
    }
    fn is_half(self) -> bool {
        matches!(self, Sc::F16 | Sc::BF16)
    }
    /// The PTX type name of a 16-bit float for `cvt` (`bf16`, `f16`).
    fn half_name(self) -> &'static str {
        if self == Sc::BF16 {
            "bf16"
        } else {
            "f16"
        }
    }
    /// The type suffix of a load or store of one element.
    fn mem_suffix(self) -> &'static str {
        match self {
            Sc::I1 => "u8",
            Sc::F16 | Sc::BF16 => "b16",
            Sc::F32 => "f32",
            Sc::Index => "u64",
            Sc::F64 => "f64",
        }
    }
}

/// A register class: one `.reg` declaration with its own prefix.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Rc {
    Pred,
    B16,
    B32,
    F32,
    F64,
    B64,
}

const CLASSES: [Rc; 6] = [Rc::Pred, Rc::B16, Rc::B32, Rc::F32, Rc::F64, Rc::B64];

impl Rc {
    fn prefix(self) -> &'static str {
        match self {
            Rc::Pred => "%p",
            Rc::B16 => "%h",
            Rc::B32 => "%r",
            Rc::F32 => "%f",
            Rc::F64 => "%fd",
            Rc::B64 => "%rd",
        }
    }
    fn decl(self) -> &'static str {
        match self {
            Rc::Pred => ".pred",
            Rc::B16 => ".b16",
            Rc::B32 => ".b32",
            Rc::F32 => ".f32",
            Rc::F64 => ".f64",
            Rc::B64 => ".b64",
        }
    }
    fn mov(self) -> &'static str {
        match self {
            Rc::Pred => "mov.pred",
            Rc::B16 => "mov.b16",
            Rc::B32 => "mov.b32",
            Rc::F32 => "mov.f32",
            Rc::F64 => "mov.f64",
            Rc::B64 => "mov.b64",
        }
    }
    fn index(self) -> usize {
        self as usize
    }
}

/// A scalar function the emitter computes: a unary or binary function of
/// [`morf_ir::interfaces`], or the remainder of `index` division (`mloop.rem`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Arith {
    Unary(UnaryFn),
    Binary(BinaryFn),
    Rem,
}

/// A memory access (`mgpu.load`, `mgpu.store`, `mgpu.load_vec`, `mgpu.store_vec`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Access {
    /// A store (else a load).
    store: bool,
    /// A vector access (`_vec`).
    vector: bool,
}

/// The type of a kernel value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum VTy {
    Scalar(Sc),
    /// A pointer: its element type and whether it points into shared memory.
    Ptr(Sc, bool),
}

impl VTy {
    fn class(self) -> Rc {
        match self {
            VTy::Scalar(s) => s.class(),
            VTy::Ptr(..) => Rc::B64,
        }
    }
}

/// An emitted kernel.
pub(super) struct Entry {
    /// The `.entry` text.
    pub text: String,
    /// Whether it uses `mgpu.dynamic_shared`.
    pub uses_dynamic_shared: bool,
    /// Module-scope declarations it needs (the counter of its grid barriers, the counter and
    /// generation of its grid tail).
    pub globals: Vec<String>,
}

/// The PTX name of kernel `op`: its symbol with characters PTX does not allow replaced by `_`.
pub(super) fn kernel_name(ctx: &Context, op: OpId) -> String {
    let raw = ctx
        .attr(op, "sym_name")
        .and_then(|a| ctx.attr_str(a).or_else(|| ctx.attr_symbol(a)))
        .unwrap_or("kernel")
        .to_string();
    let mut s: String =
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '$' { c } else { '_' }).collect();
    if s.chars().next().is_none_or(|c| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// Emits one kernel.
pub(super) fn emit_kernel(ctx: &Context, op: OpId, opts: &PtxOptions) -> Result<Entry, Diagnostic> {
    let name = kernel_name(ctx, op);
    let mut k = Kernel {
        ctx,
        opts,
        body: String::new(),
        regs: HashMap::new(),
        counts: [0; 6],
        labels: 0,
        shared: Vec::new(),
        uses_dynamic_shared: false,
        name: name.clone(),
        globals: Vec::new(),
        halves: HashMap::new(),
        contract: gpu::FuncOp(op).contract_fma(ctx).is_some(),
    };
    let region = ctx.regions(op).first().copied();
    let Some(block) = region.and_then(|r| ctx.entry_block(r)) else {
        return Err(k.err(op, "the kernel has no body"));
    };
    let mut params = Vec::new();
    let mut loads: Vec<(Value, String, VTy, &str)> = Vec::new();
    for (i, &arg) in ctx.block_args(block).iter().enumerate() {
        let pname = format!("{name}_param_{i}");
        let ty = k.vty(op, ctx.value_type(arg))?;
        let ptype = match ty {
            VTy::Scalar(Sc::F32) => "f32",
            VTy::Scalar(Sc::F64) => "f64",
            VTy::Scalar(Sc::F16 | Sc::BF16) => "b16",
            _ => "u64",
        };
        params.push(format!("\t.param .{ptype} {pname}"));
        if !matches!(ty, VTy::Ptr(_, false) | VTy::Scalar(Sc::Index | Sc::F32 | Sc::F64 | Sc::F16 | Sc::BF16)) {
            let t = k.type_text(ctx.value_type(arg));
            return Err(k.err(
                op,
                &format!(
                    "kernel parameter #{i} has type '{t}'; only global pointers, 'index' and floats are supported"
                ),
            ));
        }
        loads.push((arg, pname, ty, ptype));
    }
    // Parameters are loaded at the top in order, except in a cooperative kernel, where those
    // first used after a grid barrier are loaded right after it (so they are not live through
    // the phase before it).
    let tops: Vec<OpId> = ctx.block_ops(block).collect();
    let mut loaded = vec![false; loads.len()];
    for (i, &top) in tops.iter().enumerate() {
        let sep = |o: OpId| ctx.isa::<gpu::GridBarrierOp>(o) || ctx.isa::<gpu::GridTailOp>(o);
        let phase_start = i == 0 || sep(tops[i - 1]);
        if phase_start {
            let phase_end = tops[i..].iter().position(|&o| sep(o)).map_or(tops.len(), |e| i + e);
            let mut used = HashSet::new();
            for &o in &tops[i..phase_end] {
                ctx.walk(o, &mut |x| used.extend(ctx.operands(x).iter().copied()));
            }
            let last_phase = phase_end == tops.len();
            for (j, (arg, pname, ty, ptype)) in loads.iter().enumerate() {
                // The last phase loads whatever is left (unused parameters included).
                if loaded[j] || !(used.contains(arg) || last_phase) {
                    continue;
                }
                loaded[j] = true;
                if let VTy::Ptr(_, false) = ty {
                    let raw = k.tmp(Rc::B64);
                    k.line(format!("ld.param.u64 {raw}, [{pname}];"));
                    let d = k.def(op, *arg)?;
                    k.line(format!("cvta.to.global.u64 {d}, {raw};"));
                } else {
                    let d = k.def(op, *arg)?;
                    k.line(format!("ld.param.{ptype} {d}, [{pname}];"));
                }
            }
        }
        if ctx.isa::<lp::YieldOp>(top) || ctx.isa::<gpu::YieldOp>(top) {
            break;
        }
        k.op(top)?;
    }
    if !k.body.ends_with("\tret;\n") {
        k.line("ret;".into());
    }

    let mut text = String::new();
    let _ = write!(text, ".visible .entry {name}(");
    if params.is_empty() {
        text.push_str(")\n");
    } else {
        let _ = write!(text, "\n{}\n)\n", params.join(",\n"));
    }
    let func = gpu::FuncOp(op);
    if let Some(n) = func.max_threads(ctx) {
        let _ = writeln!(text, ".maxntid {n}, 1, 1");
        if let Some(m) = func.min_ctas_per_sm(ctx) {
            // 0: the schedule asked for no bound (`lower-loop-to-gpu{min-ctas=none}`).
            // The lowering planned this kernel's CTAs per SM by its own register estimate
            // (`schedule::planned_ctas_per_sm`): without the bound ptxas may cap the registers
            // lower and spill
            // (colmax_rowsum at 16384 x 8192, 256 threads: 64 registers and 16 bytes of spills;
            // with it 109 and none).
            if m > 0 {
                let _ = writeln!(text, ".minnctapersm {m}");
            }
        } else if n > 256 {
            // Without it ptxas may cap a CTA of 512 threads at 64 registers (two CTAs per
            // SM) and spill (tanh_bwd_bias at 16384 x 8192: 64 registers and 8 bytes of
            // spills; with it 91 and none): the lowering plans one such CTA per SM.
            let _ = writeln!(text, ".minnctapersm 1");
        }
    }
    if let Some(r) = func.max_registers(ctx) {
        // A register cap the kernel's IR asks for (no pass sets one yet), binding where the
        // launch bounds leave more (ptxas takes the lower cap of the two).
        let _ = writeln!(text, ".maxnreg {r}");
    }
    if let Some(c) = func.cluster(ctx).filter(|c| *c > 1) {
        // Launched in clusters of C CTAs by a plain launch (the size is the kernel's own).
        let _ = writeln!(text, ".reqnctapercluster {c}, 1, 1");
    }
    text.push_str("{\n");
    for c in CLASSES {
        let n = k.counts[c.index()];
        if n > 0 {
            let _ = writeln!(text, "\t.reg {} {}<{n}>;", c.decl(), c.prefix());
        }
    }
    for s in &k.shared {
        let _ = writeln!(text, "\t{s}");
    }
    text.push('\n');
    text.push_str(&k.body);
    text.push_str("}\n");
    Ok(Entry { text, uses_dynamic_shared: k.uses_dynamic_shared, globals: k.globals })
}

struct Kernel<'a> {
    ctx: &'a Context,
    opts: &'a PtxOptions,
    body: String,
    regs: HashMap<Value, String>,
    counts: [u32; 6],
    labels: u32,
    /// Declarations of the static shared arrays.
    shared: Vec<String>,
    uses_dynamic_shared: bool,
    /// The kernel's PTX name.
    name: String,
    /// Module-scope declarations (see [`Entry::globals`]).
    globals: Vec<String>,
    /// The 16-bit registers unpacked from a 32-bit word of an 8-element vector load: the word
    /// and whether the register is its high half. A conversion marked [`REMAT_ATTR`] widens
    /// such a half from the word (`prmt`), not from the 16-bit register.
    halves: HashMap<String, (String, bool)>,
    /// The kernel's `contract_fma`: f32 `add`, `sub` and `mul` without `.rn`, which lets ptxas
    /// contract a multiply and an add into one `fma` (PTX ISA: an instruction without a
    /// rounding modifier may be optimized that way).
    contract: bool,
}

/// `0fXXXXXXXX`, PTX's exact f32 immediate.
fn f32_imm(x: f32) -> String {
    format!("0f{:08X}", x.to_bits())
}

const LOG2_E: f32 = std::f32::consts::LOG2_E;
const LN_2: f32 = std::f32::consts::LN_2;
/// `log2(e) - LOG2_E` (1.925963e-8): the low part of log2 e for the accurate `exp`.
const LOG2_E_LO: f32 = 1.925_963_e-8;
/// 88.72283 (0x42B17217), the largest f32 whose `x * LOG2_E` rounds below 128: the accurate
/// `exp` clamps its argument to it, and exp of anything larger rounds to inf.
const EXP_X_MAX: f32 = 88.722_83;
/// ln 2 = LN2_HI + LN2_LO; LN2_HI (0x3F318000) has 9 significant bits, so `k * LN2_HI` is exact
/// for every binary exponent k of an f32.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// Below it, the accurate `tanh` is the odd polynomial.
const TANH_SMALL: f32 = 0.9;
/// tanh x = x + x z P(z) (z = x^2) on [0, 0.9]: the coefficients of P, constant term first, a
/// minimax fit of tanh's relative error (1.6e-8; `python3 passes/tests/ptx_math_model.py --fit`).
const TANH_P: [f64; 6] = [
    -0.333_332_121_817_289_55,
    0.133_303_599_813_267_61,
    -0.053_721_489_868_147_42,
    0.020_904_125_520_997_213,
    -0.006_860_054_525_028_889,
    0.001_303_959_101_037_988,
];
/// Below it, the accurate `erf` is the odd polynomial; from it on, `1 - 2^R(|x|)`.
const ERF_SMALL: f32 = 1.0;
/// erf x = x + x P(z) (z = x^2) below [`ERF_SMALL`]: the coefficients of P, constant term
/// (2 / sqrt(pi) - 1) first, a minimax fit of erf's relative error (3.95e-8;
/// `python3 passes/tests/ptx_math_model.py --fit`).
const ERF_P: [f64; 6] = [
    0.128_379_122_499_287_48,
    -0.376_123_261_966_633_7,
    0.112_801_801_642_330_82,
    -0.026_711_312_425_079_712,
    0.004_917_552_461_567_427,
    -0.000_563_142_570_416_812,
];
/// log2 erfc(a) = R(a) for a from [`ERF_SMALL`] to 3.92: the coefficients of R, constant term
/// first, a minimax fit of the error it makes in erf = 1 - erfc (R's error times
/// erfc(a) ln 2 / erf(a): 1.62e-8; `ptx_math_model.py --fit`). From 3.9192 on erf rounds to 1
/// in f32; the leading coefficient is negative, and R stays below -25 for every f32 from there
/// (at most -25.03, at 3.9192), falling to -inf at +inf.
const ERF_R: [f64; 6] = [
    -0.003_778_654_176_567_821_3,
    -1.612_386_706_687_823_5,
    -0.943_868_828_174_918_5,
    -0.128_110_954_729_297_07,
    0.021_397_840_251_512_34,
    -0.001_669_518_181_022_518,
];

impl<'a> Kernel<'a> {
    fn err(&self, op: OpId, why: &str) -> Diagnostic {
        Diagnostic::error(self.ctx.op_loc(op), format!("'{}' op cannot be emitted to PTX: {why}", self.ctx.op_name(op)))
    }

    fn line(&mut self, s: String) {
        if s.ends_with(':') {
            self.body.push_str(&s);
        } else {
            self.body.push('\t');
            self.body.push_str(&s);
        }
        self.body.push('\n');
    }

    fn tmp(&mut self, c: Rc) -> String {
        let n = self.counts[c.index()];
        self.counts[c.index()] += 1;
        format!("{}{n}", c.prefix())
    }

    /// Declares module variable `name`, a `u32` in global memory (zero at load), once.
    fn global_u32(&mut self, name: &str) {
        declare_once(&mut self.globals, format!(".global .align 4 .u32 {name};"));
    }

    /// `mgpu.grid_barrier`: every block's thread 0 adds to a counter in global memory (a
    /// module variable of this kernel, zero at load) and waits until the counter's top bit
    /// flips; the block's other threads wait at `bar.sync` on either side.
    ///
    /// Block 0 adds `2^31 - (G - 1)` and each of the other `G - 1` blocks adds 1, so one
    /// barrier adds exactly `2^31`: the low 31 bits, zero before, are zero again after, and
    /// the top bit flips only when the last block arrives (before that the partial sum keeps
    /// it: a sum short of `2^31` borrows from block 0's term). The counter thus needs no reset
    /// between barriers or launches, and a thread knows the barrier is done when the top bit
    /// differs from the one the atomic returned. The fences make it a release (the block's
    /// writes, ordered before thread 0's by `bar.sync`, become visible at GPU scope before
    /// the add) and an acquire (other blocks' writes are visible after the wait). Only safe
    /// when every block is resident: the runtime launches a cooperative kernel with
    /// `cuLaunchCooperativeKernel` and a grid capped at what fits.
    fn grid_barrier(&mut self) {
        let counter = format!("{}_grid_barrier", self.name);
        self.global_u32(&counter);
        let (tid, first, ctaid, nctaid, inc) =
            (self.tmp(Rc::B32), self.tmp(Rc::Pred), self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::B32));
        let (zero, addr, old, cur, flip) =
            (self.tmp(Rc::Pred), self.tmp(Rc::B64), self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::Pred));
        let (wait, done) = (self.label(), self.label());
        self.line("bar.sync 0;".into());
        self.line(format!("mov.u32 {tid}, %tid.x;"));
        self.line(format!("setp.ne.u32 {first}, {tid}, 0;"));
        self.line(format!("@{first} bra {done};"));
        self.line(format!("mov.u32 {ctaid}, %ctaid.x;"));
        self.line(format!("mov.u32 {nctaid}, %nctaid.x;"));
        self.line(format!("setp.eq.u32 {zero}, {ctaid}, 0;"));
        // 2^31 - (G - 1) = 0x80000001 - G.
        self.line(format!("neg.s32 {inc}, {nctaid};"));
        self.line(format!("add.u32 {inc}, {inc}, 0x80000001;"));
        self.line(format!("selp.u32 {inc}, {inc}, 1, {zero};"));
        self.line(format!("mov.u64 {addr}, {counter};"));
        self.line("fence.acq_rel.gpu;".into());
        self.line(format!("atom.add.relaxed.gpu.global.u32 {old}, [{addr}], {inc};"));
        self.line(format!("{wait}:"));
        self.line(format!("ld.relaxed.gpu.global.u32 {cur}, [{addr}];"));
        self.line(format!("xor.b32 {cur}, {cur}, {old};"));
        self.line(format!("setp.lt.s32 {flip}, {cur}, 0;"));
        self.line(format!("@!{flip} bra {wait};"));
        self.line("fence.acq_rel.gpu;".into());
        self.line(format!("{done}:"));
        self.line("bar.sync 0;".into());
    }

    /// `mgpu.grid_tail`: every block's thread 0 reads the generation word, then takes a
    /// ticket (an atomic add to the arrival counter; both module variables of this kernel,
    /// zero at load). With `T = min(ctas, G)`, its rank is `ticket - (G - T)`: a negative
    /// rank returns. The last block to arrive (ticket `G - 1`) resets the counter and bumps
    /// the generation; the other ranked blocks wait until the generation moves. The rank
    /// reaches the block's threads through a shared word. The counter is zero again after
    /// every launch, and the generation only moves on, so neither needs a reset between
    /// launches. The fences order it as `grid_barrier`'s do: each block's writes are released
    /// before its ticket, the last block acquires them all after its own and releases them
    /// again with the generation, which the waiting blocks acquire.
    fn grid_tail(&mut self, op: OpId, t: gpu::GridTailOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let ctas = t.ctas(ctx).unwrap_or(1).clamp(1, u32::MAX as i64);
        let (count, generation, slot) = (
            format!("{}_tail_count", self.name),
            format!("{}_tail_gen", self.name),
            format!("{}_tail_rank", self.name),
        );
        self.global_u32(&count);
        self.global_u32(&generation);
        declare_once(&mut self.shared, format!(".shared .align 4 .s32 {slot};"));
        let (tid, other, nctaid, teff, rank) =
            (self.tmp(Rc::B32), self.tmp(Rc::Pred), self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::B32));
        let (ac, ag, gen0, old, lastidx) =
            (self.tmp(Rc::B64), self.tmp(Rc::B64), self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::B32));
        let (last, cur, same, gone) = (self.tmp(Rc::Pred), self.tmp(Rc::B32), self.tmp(Rc::Pred), self.tmp(Rc::Pred));
        let (notlast, wait, publish, after) = (self.label(), self.label(), self.label(), self.label());
        self.line("bar.sync 0;".into());
        self.line(format!("mov.u32 {tid}, %tid.x;"));
        self.line(format!("mov.u32 {nctaid}, %nctaid.x;"));
        self.line(format!("min.u32 {teff}, {nctaid}, {ctas};"));
        self.line(format!("setp.ne.u32 {other}, {tid}, 0;"));
        self.line(format!("@{other} bra {after};"));
        self.line(format!("mov.u64 {ac}, {count};"));
        self.line(format!("mov.u64 {ag}, {generation};"));
        self.line(format!("ld.relaxed.gpu.global.u32 {gen0}, [{ag}];"));
        self.line("fence.acq_rel.gpu;".into());
        self.line(format!("atom.add.relaxed.gpu.global.u32 {old}, [{ac}], 1;"));
        // rank = ticket - (G - T)
        self.line(format!("sub.u32 {rank}, {nctaid}, {teff};"));
        self.line(format!("sub.u32 {rank}, {old}, {rank};"));
        self.line(format!("sub.u32 {lastidx}, {nctaid}, 1;"));
        self.line(format!("setp.eq.u32 {last}, {old}, {lastidx};"));
        self.line(format!("@!{last} bra {notlast};"));
        self.line("fence.acq_rel.gpu;".into());
        self.line(format!("st.relaxed.gpu.global.u32 [{ac}], 0;"));
        self.line(format!("add.u32 {cur}, {gen0}, 1;"));
        self.line(format!("st.relaxed.gpu.global.u32 [{ag}], {cur};"));
        self.line(format!("bra {publish};"));
        self.line(format!("{notlast}:"));
        self.line(format!("setp.lt.s32 {gone}, {rank}, 0;"));
        self.line(format!("@{gone} bra {publish};"));
        self.line(format!("{wait}:"));
        self.line(format!("ld.relaxed.gpu.global.u32 {cur}, [{ag}];"));
        self.line(format!("setp.eq.u32 {same}, {cur}, {gen0};"));
        self.line(format!("@{same} bra {wait};"));
        self.line("fence.acq_rel.gpu;".into());
        self.line(format!("{publish}:"));
        self.line(format!("st.shared.s32 [{slot}], {rank};"));
        self.line(format!("{after}:"));
        self.line("bar.sync 0;".into());
        let r = self.tmp(Rc::B32);
        self.line(format!("ld.shared.s32 {r}, [{slot}];"));
        let gone = self.tmp(Rc::Pred);
        self.line(format!("setp.lt.s32 {gone}, {r}, 0;"));
        self.line(format!("@{gone} exit;"));
        let dr = self.def(op, t.rank(ctx))?;
        self.line(format!("cvt.u64.u32 {dr}, {r};"));
        let dc = self.def(op, t.count(ctx))?;
        self.line(format!("cvt.u64.u32 {dc}, {teff};"));
        Ok(())
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("$L{}", self.labels)
    }

    fn type_text(&self, t: Type) -> String {
        self.ctx.type_to_string(t)
    }

    fn scalar(&self, t: Type) -> Option<Sc> {
        match self.ctx.type_data(t) {
            TypeData::Integer(1) => Some(Sc::I1),
            TypeData::Index => Some(Sc::Index),
            TypeData::Float(FloatKind::F16) => Some(Sc::F16),
            TypeData::Float(FloatKind::BF16) => Some(Sc::BF16),
            TypeData::Float(FloatKind::F32) => Some(Sc::F32),
            TypeData::Float(FloatKind::F64) => Some(Sc::F64),
            _ => None,
        }
    }

    fn vty(&self, op: OpId, t: Type) -> Result<VTy, Diagnostic> {
        if let Some(s) = self.scalar(t) {
            return Ok(VTy::Scalar(s));
        }
        if let Some((e, space)) = morf_gpu::ptr_parts(self.ctx, t) {
            if let Some(s) = self.scalar(e).filter(|s| *s != Sc::I1) {
                match space {
                    0 | 1 => return Ok(VTy::Ptr(s, false)),
                    morf_gpu::SHARED => return Ok(VTy::Ptr(s, true)),
                    _ => {}
                }
            }
        }
        Err(self.err(op, &format!("unsupported type '{}'", self.type_text(t))))
    }

    fn sc_of(&self, op: OpId, v: Value) -> Result<Sc, Diagnostic> {
        match self.vty(op, self.ctx.value_type(v))? {
            VTy::Scalar(s) => Ok(s),
            VTy::Ptr(..) => Err(self.err(op, "expected a scalar, got a pointer")),
        }
    }

    /// A fresh register for `v`, which `v` then names.
    fn def(&mut self, op: OpId, v: Value) -> Result<String, Diagnostic> {
        let c = self.vty(op, self.ctx.value_type(v))?.class();
        let r = self.tmp(c);
        self.regs.insert(v, r.clone());
        Ok(r)
    }

    fn get(&self, op: OpId, v: Value) -> Result<String, Diagnostic> {
        self.regs.get(&v).cloned().ok_or_else(|| self.err(op, "uses a value defined outside the kernel"))
    }

    fn operand(&self, op: OpId, i: usize) -> Result<String, Diagnostic> {
        let v = self.ctx.operands(op).get(i).copied().ok_or_else(|| self.err(op, &format!("missing operand #{i}")))?;
        self.get(op, v)
    }

    /// Operand `i` of `op`; an `index` constant becomes its decimal immediate. Used for
    /// divisors: ptxas does not propagate a constant through a `mov` into a division, and a
    /// 64-bit division by a register is a call of about 60 instructions. (Immediates
    /// everywhere cost registers: ptxas then hoists more folded addresses, and a 240-register
    /// row kernel spilled.)
    fn index_operand(&self, op: OpId, i: usize) -> Result<String, Diagnostic> {
        let v = self.ctx.operands(op).get(i).copied();
        if let Some(c) = v.and_then(|v| self.index_constant(v)) {
            return Ok(c.to_string());
        }
        self.operand(op, i)
    }

    /// The value of `v` when an `index` constant defines it.
    fn index_constant(&self, v: Value) -> Option<i64> {
        if !matches!(self.ctx.type_data(self.ctx.value_type(v)), TypeData::Index) {
            return None;
        }
        crate::transforms::loop_utils::const_int(self.ctx, v)
    }

    fn result(&mut self, op: OpId) -> Result<(String, Sc), Diagnostic> {
        let Some(&v) = self.ctx.results(op).first() else {
            return Err(self.err(op, "expected a result"));
        };
        let s = self.sc_of(op, v)?;
        Ok((self.def(op, v)?, s))
    }

    /// Emits the ops of `b` and returns the operands of its terminating `yield`, if any.
    fn block(&mut self, b: BlockId) -> Result<Vec<Value>, Diagnostic> {
        for op in self.ctx.block_ops(b).collect::<Vec<_>>() {
            if self.ctx.isa::<lp::YieldOp>(op) || self.ctx.isa::<gpu::YieldOp>(op) {
                return Ok(self.ctx.operands(op).to_vec());
            }
            self.op(op)?;
        }
        Ok(Vec::new())
    }

    fn op(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        // Scalar math: the elementwise interface says what the op computes.
        match elementwise(ctx, op) {
            Some(Elementwise::Binary(f)) => {
                let (d, s) = self.result(op)?;
                let a = self.operand(op, 0)?;
                let b = if f == BinaryFn::Div { self.index_operand(op, 1)? } else { self.operand(op, 1)? };
                return self.binary(op, Arith::Binary(f), s, &d, &a, &b);
            }
            Some(Elementwise::Unary(f)) => {
                let (d, s) = self.result(op)?;
                let a = self.operand(op, 0)?;
                return self.float_op(op, Arith::Unary(f), s, &d, &[a]);
            }
            Some(Elementwise::Cmp(pred)) => return self.cmp(op, pred),
            Some(Elementwise::Select) => return self.select(op),
            Some(Elementwise::Convert) => return self.convert(op),
            None => {}
        }
        if let Some(c) = lp::ConstantOp::dyn_cast(ctx, op) {
            self.constant(c)
        } else if ctx.isa::<lp::RemOp>(op) {
            let (d, s) = self.result(op)?;
            let (a, b) = (self.operand(op, 0)?, self.index_operand(op, 1)?);
            self.binary(op, Arith::Rem, s, &d, &a, &b)
        } else if ctx.isa::<lp::ForOp>(op) {
            self.for_loop(op)
        } else if ctx.isa::<gpu::IfOp>(op) {
            self.if_op(op)
        } else if ctx.isa::<gpu::WorkLoopOp>(op) {
            self.work_loop(op)
        } else if ctx.isa::<gpu::ReturnOp>(op) {
            self.line("ret;".into());
            Ok(())
        } else if let Some(sreg) = self.special_reg(op) {
            self.special(op, sreg)
        } else if ctx.isa::<gpu::BarrierOp>(op) {
            self.line("bar.sync 0;".into());
            Ok(())
        } else if ctx.isa::<gpu::WarpBarrierOp>(op) {
            self.line("bar.warp.sync -1;".into());
            Ok(())
        } else if ctx.isa::<gpu::GridBarrierOp>(op) {
            self.grid_barrier();
            Ok(())
        } else if let Some(t) = gpu::GridTailOp::dyn_cast(ctx, op) {
            self.grid_tail(op, t)
        } else if let Some(a) = gpu::ClusterArriveOp::dyn_cast(ctx, op) {
            let sem = if a.relaxed(ctx).is_some() { ".relaxed" } else { "" };
            self.line(format!("barrier.cluster.arrive{sem}.aligned;"));
            Ok(())
        } else if ctx.isa::<gpu::ClusterWaitOp>(op) {
            self.line("barrier.cluster.wait.aligned;".into());
            Ok(())
        } else if let Some(c) = gpu::ClusterStoreOp::dyn_cast(ctx, op) {
            self.cluster_store(c)
        } else if let Some(access) = self.access(op) {
            self.memory(op, access)
        } else if let Some(a) = gpu::AtomicRmwOp::dyn_cast(ctx, op) {
            self.atomic_rmw(a)
        } else if let Some(c) = gpu::CopyAsyncOp::dyn_cast(ctx, op) {
            self.copy_async(c)
        } else if ctx.isa::<gpu::CopyAsyncCommitOp>(op) {
            self.line("cp.async.commit_group;".into());
            Ok(())
        } else if let Some(w) = gpu::CopyAsyncWaitOp::dyn_cast(ctx, op) {
            let n = w.pending(ctx).filter(|n| (0..=7).contains(n));
            let n = n.ok_or_else(|| self.err(op, "requires 'pending' in 0..=7"))?;
            self.line(format!("cp.async.wait_group {n};"));
            Ok(())
        } else if let Some(alloc) = gpu::SharedAllocOp::dyn_cast(ctx, op) {
            let (VTy::Ptr(e, true), Some(&v)) = (self.vty(op, self.result_type(op)?)?, ctx.results(op).first()) else {
                return Err(self.err(op, "the result must be a shared pointer"));
            };
            let size = alloc.size(ctx).unwrap_or(-1);
            if size < 0 {
                return Err(self.err(op, "requires a non-negative integer attribute 'size'"));
            }
            let arr = format!("__smem{}", self.shared.len());
            let bytes = (size as u64 * u64::from(e.bytes())).max(1);
            self.shared.push(format!(".shared .align 16 .b8 {arr}[{bytes}];"));
            let d = self.def(op, v)?;
            self.line(format!("mov.u64 {d}, {arr};"));
            Ok(())
        } else if ctx.isa::<gpu::DynamicSharedOp>(op) {
            let Some(&v) = ctx.results(op).first() else {
                return Err(self.err(op, "expected a result"));
            };
            self.uses_dynamic_shared = true;
            let d = self.def(op, v)?;
            self.line(format!("mov.u64 {d}, {DYNAMIC_SHARED};"));
            Ok(())
        } else if let Some(sh) = gpu::ShuffleOp::dyn_cast(ctx, op) {
            self.shuffle_op(sh)
        } else if let Some(wr) = gpu::WarpReduceOp::dyn_cast(ctx, op) {
            self.warp_reduce(wr)
        } else if ctx.isa::<lp::LoadOp>(op)
            || ctx.isa::<lp::StoreOp>(op)
            || ctx.isa::<lp::AccumulateOp>(op)
            || ctx.isa::<lp::FillOp>(op)
            || ctx.isa::<lp::AllocOp>(op)
            || ctx.isa::<lp::DeallocOp>(op)
            || ctx.isa::<lp::DimOp>(op)
        {
            Err(self
                .err(op, "buffer ops belong to host code; kernels access memory through 'mgpu.load' and 'mgpu.store'"))
        } else if ctx.isa::<lp::ParallelOp>(op) || ctx.isa::<lp::ReduceOp>(op) {
            Err(self.err(op, "lower it to threads first ('mloop.for' is the only loop a kernel may hold)"))
        } else {
            Err(self.err(op, "no PTX lowering for this op"))
        }
    }

    /// The special register an id op reads (`%tid.x`), and whether it is the warp id.
    fn special_reg(&self, op: OpId) -> Option<(&'static str, bool)> {
        let ctx = self.ctx;
        if ctx.isa::<gpu::ThreadIdOp>(op) {
            Some(("%tid.x", false))
        } else if ctx.isa::<gpu::WarpIdOp>(op) {
            Some(("%tid.x", true))
        } else if ctx.isa::<gpu::BlockIdOp>(op) {
            Some(("%ctaid.x", false))
        } else if ctx.isa::<gpu::BlockDimOp>(op) {
            Some(("%ntid.x", false))
        } else if ctx.isa::<gpu::GridDimOp>(op) {
            Some(("%nctaid.x", false))
        } else if ctx.isa::<gpu::LaneIdOp>(op) {
            Some(("%laneid", false))
        } else {
            None
        }
    }

    /// The kind of memory access `op` is, if it is one.
    fn access(&self, op: OpId) -> Option<Access> {
        let ctx = self.ctx;
        if ctx.isa::<gpu::LoadOp>(op) {
            Some(Access { store: false, vector: false })
        } else if ctx.isa::<gpu::StoreOp>(op) {
            Some(Access { store: true, vector: false })
        } else if ctx.isa::<gpu::LoadVecOp>(op) {
            Some(Access { store: false, vector: true })
        } else if ctx.isa::<gpu::StoreVecOp>(op) {
            Some(Access { store: true, vector: true })
        } else {
            None
        }
    }

    fn result_type(&self, op: OpId) -> Result<Type, Diagnostic> {
        self.ctx.results(op).first().map(|&v| self.ctx.value_type(v)).ok_or_else(|| self.err(op, "expected a result"))
    }

    fn constant(&mut self, c: lp::ConstantOp) -> Result<(), Diagnostic> {
        let op = c.id();
        let (d, s) = self.result(op)?;
        let Some(a) = c.value(self.ctx) else {
            return Err(self.err(op, "requires attribute 'value'"));
        };
        let line = match s {
            Sc::I1 => {
                let b = self.ctx.attr_bool(a).or_else(|| self.ctx.attr_int(a).map(|i| i != 0));
                let b = b.ok_or_else(|| self.err(op, "expected a boolean 'value'"))?;
                format!("setp.ne.u32 {d}, {}, 0;", u32::from(b))
            }
            Sc::Index => {
                let i = self.ctx.attr_int(a).ok_or_else(|| self.err(op, "expected an integer 'value'"))?;
                format!("mov.u64 {d}, {};", i as u64)
            }
            _ => {
                let x = self.ctx.attr_float(a).ok_or_else(|| self.err(op, "expected a float 'value'"))?;
                match s {
                    Sc::F32 => format!("mov.f32 {d}, {};", f32_imm(x as f32)),
                    Sc::F64 => format!("mov.f64 {d}, 0d{:016X};", x.to_bits()),
                    Sc::BF16 => {
                        format!("mov.b16 {d}, 0x{:04X};", half::bf16::from_f64(FloatKind::BF16.round(x)).to_bits())
                    }
                    _ => format!("mov.b16 {d}, 0x{:04X};", half::f16::from_f64(FloatKind::F16.round(x)).to_bits()),
                }
            }
        };
        self.line(line);
        Ok(())
    }

    /// `d = a <f> b` of scalar type `s` (float or index).
    fn binary(&mut self, op: OpId, f: Arith, s: Sc, d: &str, a: &str, b: &str) -> Result<(), Diagnostic> {
        if s == Sc::Index {
            // Index division and remainder are floor operations; kernels only divide
            // non-negative indices (thread and element positions), where they equal the
            // unsigned ones.
            // A power-of-two divisor (an immediate, see `index_operand`) is a shift or a mask:
            // ptxas calls its 64-bit division routine even for an immediate divisor.
            if let Some(k) = b.parse::<i64>().ok().filter(|c| *c > 0 && (*c as u64).is_power_of_two()) {
                match f {
                    Arith::Binary(BinaryFn::Div) => {
                        self.line(format!("shr.u64 {d}, {a}, {};", k.trailing_zeros()));
                        return Ok(());
                    }
                    Arith::Rem => {
                        self.line(format!("and.b64 {d}, {a}, {};", k - 1));
                        return Ok(());
                    }
                    _ => {}
                }
            }
            let instr = match f {
                Arith::Binary(f) => match f {
                    BinaryFn::Add => "add.s64",
                    BinaryFn::Sub => "sub.s64",
                    BinaryFn::Mul => "mul.lo.s64",
                    BinaryFn::Div => "div.u64",
                    BinaryFn::Max => "max.s64",
                    BinaryFn::Min => "min.s64",
                    BinaryFn::Pow => return Err(self.err(op, "not defined on 'index'")),
                },
                Arith::Rem => "rem.u64",
                Arith::Unary(_) => return Err(self.err(op, "not defined on 'index'")),
            };
            self.line(format!("{instr} {d}, {a}, {b};"));
            return Ok(());
        }
        if s == Sc::I1 {
            return Err(self.err(op, "not defined on 'i1'"));
        }
        self.float_op(op, f, s, d, &[a.to_string(), b.to_string()])
    }

    /// A float op of type `s`: 16-bit types compute in f32 and round back.
    fn float_op(&mut self, op: OpId, f: Arith, s: Sc, d: &str, args: &[String]) -> Result<(), Diagnostic> {
        match s {
            Sc::F32 => self.compute(op, f, false, d, args),
            Sc::F64 => self.compute(op, f, true, d, args),
            Sc::F16 | Sc::BF16 => {
                let wide: Vec<String> = args.iter().map(|a| self.widen(a, s)).collect();
                let t = self.tmp(Rc::F32);
                self.compute(op, f, false, &t, &wide)?;
                self.line(format!("cvt.rn.{}.f32 {d}, {t};", s.half_name()));
                Ok(())
            }
            _ => Err(self.err(op, "expects float operands")),
        }
    }

    /// An f32 register holding 16-bit float `a` of type `s` (exact).
    fn widen(&mut self, a: &str, s: Sc) -> String {
        let t = self.tmp(Rc::F32);
        self.line(format!("cvt.f32.{} {t}, {a};", s.half_name()));
        t
    }

    fn compute(&mut self, op: OpId, f: Arith, f64: bool, d: &str, a: &[String]) -> Result<(), Diagnostic> {
        let t = if f64 { "f64" } else { "f32" };
        let arg = |i: usize| a.get(i).cloned().unwrap_or_default();
        let (x, y) = (arg(0), arg(1));
        // Exhaustive over the function lists: a new entry needs its PTX lowering here.
        match f {
            Arith::Binary(f) => match f {
                BinaryFn::Add | BinaryFn::Sub | BinaryFn::Mul => {
                    let name = match f {
                        BinaryFn::Add => "add",
                        BinaryFn::Sub => "sub",
                        _ => "mul",
                    };
                    let rn = if self.contract && !f64 { "" } else { ".rn" };
                    self.line(format!("{name}{rn}.{t} {d}, {x}, {y};"));
                }
                BinaryFn::Div => self.line(format!("div.rn.{t} {d}, {x}, {y};")),
                BinaryFn::Max | BinaryFn::Min => {
                    let name = if f == BinaryFn::Max { "max" } else { "min" };
                    if f64 {
                        // `max.f64` returns the non-NaN operand; our max propagates NaN.
                        let m = self.tmp(Rc::F64);
                        let p = self.tmp(Rc::Pred);
                        let n = self.tmp(Rc::F64);
                        self.line(format!("{name}.f64 {m}, {x}, {y};"));
                        self.line(format!("setp.nan.f64 {p}, {x}, {y};"));
                        self.line(format!("add.rn.f64 {n}, {x}, {y};"));
                        self.line(format!("selp.f64 {d}, {n}, {m}, {p};"));
                    } else {
                        self.line(format!("{name}.NaN.f32 {d}, {x}, {y};"));
                    }
                }
                BinaryFn::Pow if f64 => return Err(self.err(op, "not supported on f64 in PTX emission yet")),
                BinaryFn::Pow => {
                    // The same sequence with and without fast-math (docs/target-ptx.md): its error
                    // grows with |y * log2 x| (the rounding of the product feeds ex2).
                    let (l, m) = (self.tmp(Rc::F32), self.tmp(Rc::F32));
                    self.line(format!("lg2.approx.f32 {l}, {x};"));
                    self.line(format!("mul.rn.f32 {m}, {l}, {y};"));
                    self.line(format!("ex2.approx.f32 {d}, {m};"));
                }
            },
            Arith::Unary(f) => match f {
                UnaryFn::Neg => self.line(format!("neg.{t} {d}, {x};")),
                UnaryFn::Abs => self.line(format!("abs.{t} {d}, {x};")),
                UnaryFn::Sqrt => self.line(format!("sqrt.rn.{t} {d}, {x};")),
                UnaryFn::Rsqrt if !f64 && (self.opts.fast_math || self.opts.approx_rsqrt) => {
                    self.line(format!("rsqrt.approx.f32 {d}, {x};"))
                }
                UnaryFn::Rsqrt => {
                    let r = self.tmp(if f64 { Rc::F64 } else { Rc::F32 });
                    self.line(format!("sqrt.rn.{t} {r}, {x};"));
                    self.line(format!("rcp.rn.{t} {d}, {r};"));
                }
                UnaryFn::Exp | UnaryFn::Log | UnaryFn::Tanh | UnaryFn::Erf if f64 => {
                    return Err(self.err(op, "not supported on f64 in PTX emission yet"));
                }
                UnaryFn::Exp if self.opts.fast_math => {
                    let s = self.tmp(Rc::F32);
                    self.line(format!("mul.rn.f32 {s}, {x}, {};", f32_imm(LOG2_E)));
                    self.line(format!("ex2.approx.f32 {d}, {s};"));
                }
                UnaryFn::Exp => self.accurate_exp(d, &x),
                UnaryFn::Log if self.opts.fast_math => {
                    let s = self.tmp(Rc::F32);
                    self.line(format!("lg2.approx.f32 {s}, {x};"));
                    self.line(format!("mul.rn.f32 {d}, {s}, {};", f32_imm(LN_2)));
                }
                UnaryFn::Log => self.accurate_log(d, &x),
                UnaryFn::Tanh if self.opts.fast_math => self.line(format!("tanh.approx.f32 {d}, {x};")),
                UnaryFn::Tanh => self.accurate_tanh(d, &x),
                UnaryFn::Erf => self.accurate_erf(d, &x),
            },
            Arith::Rem => return Err(self.err(op, "'rem' is not defined on floats")),
        }
        Ok(())
    }

    /// `acc = c[0] + v (c[1] + v (c[2] + ...))` in f32 by Horner's rule: the last coefficient
    /// moved in, then one fma per coefficient down to the constant term.
    fn horner(&mut self, acc: &str, coeffs: &[f64], v: &str) {
        let Some((last, rest)) = coeffs.split_last() else { return };
        self.line(format!("mov.f32 {acc}, {};", f32_imm(*last as f32)));
        for c in rest.iter().rev() {
            self.line(format!("fma.rn.f32 {acc}, {acc}, {v}, {};", f32_imm(*c as f32)));
        }
    }

    /// `d = erf(x)` on f32, within about 2.4 ulp (`passes/tests/ptx_math_model.py`: 1.42e-7);
    /// 20 instructions, the approximate one `ex2.approx`.
    ///
    /// `|x| <` [`ERF_SMALL`]: `fma(x, P(x^2), x)` = `x + x P(x^2)` ([`ERF_P`], relative error
    /// 3.95e-8; with the 1 of 2/sqrt(pi) moved into the fma, P's constant term rounds to f32
    /// with an error about 10 times smaller). Otherwise `1 - erfc(a)`, `a = |x|`, with
    /// `erfc(a) = 2^R(a)` by `ex2.approx` of the polynomial [`ERF_R`] in `a` itself: no
    /// reciprocal and no separate `-a^2` term. Every error of `2^R` (ex2's 2^-22, R's fit and
    /// rounding) counts in erf scaled by erfc / erf <= 0.19. `copysign` puts the sign of `x`
    /// on either branch (erf is odd: erf(-0) = -0). NaN compares false and takes the second
    /// branch, where R is NaN. For every f32 `a` from 3.9192 on (erf rounds to 1) R is below
    /// -25, so `2^R <= 2^-25` and `1 - 2^R` rounds to 1; huge `a` and +inf give `R = -inf`
    /// (each Horner step multiplies by `a >= 0` and adds a constant: no `inf - inf`) and
    /// `2^R = 0`. `ex2` is `.ftz` (one SASS instruction instead of four): on this branch
    /// `R <= -2.6` is never subnormal, and results below 2^-126 flush where `1 - 2^R` is 1
    /// either way.
    fn accurate_erf(&mut self, d: &str, x: &str) {
        let [a, z, p, small, r, e, big, sel] = std::array::from_fn(|_| self.tmp(Rc::F32));
        let is_small = self.tmp(Rc::Pred);
        self.line(format!("abs.f32 {a}, {x};"));
        self.line(format!("mul.rn.f32 {z}, {x}, {x};"));
        self.horner(&p, &ERF_P, &z);
        self.line(format!("fma.rn.f32 {small}, {x}, {p}, {x};"));
        self.horner(&r, &ERF_R, &a);
        self.line(format!("ex2.approx.ftz.f32 {e}, {r};"));
        self.line(format!("sub.rn.f32 {big}, {}, {e};", f32_imm(1.0)));
        self.line(format!("setp.lt.f32 {is_small}, {a}, {};", f32_imm(ERF_SMALL)));
        self.line(format!("selp.f32 {sel}, {small}, {big}, {is_small};"));
        self.line(format!("copysign.f32 {d}, {x}, {sel};"));
    }

    /// `d = exp(x)` on f32, within about 6 ulp over the whole range (`passes/tests/ptx_math_model.py`
    /// measures 3.8e-7 with `ex2.approx` at its worst-case error); 11 instructions, the
    /// approximate one `ex2.approx`.
    ///
    /// `t = x * log2 e` rounded; `e = x * log2 e - t` from an exact fma plus the low part of
    /// log2 e; `exp(x) = 2^t * 2^e = r + r * (e ln 2)` with `r = ex2.approx.f32(t)`, whose
    /// maximum relative error on sm_90 is 2^-22 over the full range (PTX ISA, `ex2`), subnormal
    /// results included without `.ftz`. The argument is clamped to [-104, [`EXP_X_MAX`]]
    /// (NaN-propagating `min.NaN`/`max.NaN`): exp(-104) already rounds to 0, the clamp keeps
    /// `t` finite (no `inf - inf` in the fmas) and below 128, so that `r` is finite (an
    /// infinite `r` would make `fma(r, c, r)` NaN for `c < 0`); above [`EXP_X_MAX`] exp(x)
    /// rounds to inf, which a final select gives (NaN compares false and stays NaN).
    fn accurate_exp(&mut self, d: &str, x: &str) {
        let [xc, t, e, c, r, y] = std::array::from_fn(|_| self.tmp(Rc::F32));
        let over = self.tmp(Rc::Pred);
        let x_max = f32_imm(EXP_X_MAX);
        self.line(format!("min.NaN.f32 {xc}, {x}, {x_max};"));
        self.line(format!("max.NaN.f32 {xc}, {xc}, {};", f32_imm(-104.0)));
        self.line(format!("mul.rn.f32 {t}, {xc}, {};", f32_imm(LOG2_E)));
        self.line(format!("neg.f32 {e}, {t};"));
        // Exact: the rounding error of the product x * LOG2_E is representable.
        self.line(format!("fma.rn.f32 {e}, {xc}, {}, {e};", f32_imm(LOG2_E)));
        self.line(format!("fma.rn.f32 {e}, {xc}, {}, {e};", f32_imm(LOG2_E_LO)));
        self.line(format!("mul.rn.f32 {c}, {e}, {};", f32_imm(LN_2)));
        self.line(format!("ex2.approx.f32 {r}, {t};"));
        self.line(format!("fma.rn.f32 {y}, {r}, {c}, {r};"));
        self.line(format!("setp.gt.f32 {over}, {x}, {x_max};"));
        self.line(format!("selp.f32 {d}, {}, {y}, {over};", f32_imm(f32::INFINITY)));
    }

    /// `d = log(x)` on f32, within about 1.7 ulp (`passes/tests/ptx_math_model.py`: 9.9e-8); the
    /// approximate instruction `rcp.approx.ftz` (of `2 + f` in [1.7, 2.5], never subnormal).
    ///
    /// Subnormal `x` is scaled by 2^23 first (exact). The bits split `x = m * 2^k` with `m` in
    /// [sqrt(1/2), sqrt(2)); with `f = m - 1` (exact), `s = f * rcp(2 + f)` and `z = s^2`
    /// (`s` enters the result as `s (f - R)`, about `f^2 / 2`, so its 1.5 ulp count a fifth),
    /// `log(m) = f - s * (f - R)`, `R = z (2/3 + z (2/5 + z (2/7 + z 2/9)))` (`|s| <= 0.1716`: the
    /// next term changes the result by less than 2^-27 of it); `k ln 2` is added in two parts
    /// (`k * LN2_HI` is exact). `x <= 0`, inf and NaN take the special values: log(±0) = -inf,
    /// log(x < 0) = NaN, log(inf) = inf, NaN stays NaN.
    fn accurate_log(&mut self, d: &str, x: &str) {
        let f = |k: &mut Self| k.tmp(Rc::F32);
        let (xs, kadj, m, kf, fm, den, s, z, rr, q, ns, ym, res, spec) = (
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
            f(self),
        );
        let (ix, ib, k) = (self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::B32));
        let (sub, ok, neg, zero) = (self.tmp(Rc::Pred), self.tmp(Rc::Pred), self.tmp(Rc::Pred), self.tmp(Rc::Pred));
        let sqrt_half = "0x3F3504F3";
        self.line(format!("setp.lt.f32 {sub}, {x}, {};", f32_imm(f32::MIN_POSITIVE)));
        self.line(format!("mul.rn.f32 {xs}, {x}, {};", f32_imm(2f32.powi(23))));
        self.line(format!("selp.f32 {xs}, {xs}, {x}, {sub};"));
        self.line(format!("selp.f32 {kadj}, {}, {}, {sub};", f32_imm(-23.0), f32_imm(0.0)));
        self.line(format!("mov.b32 {ix}, {xs};"));
        self.line(format!("sub.s32 {ix}, {ix}, {sqrt_half};"));
        self.line(format!("shr.s32 {k}, {ix}, 23;"));
        self.line(format!("and.b32 {ib}, {ix}, 0x007FFFFF;"));
        self.line(format!("add.s32 {ib}, {ib}, {sqrt_half};"));
        self.line(format!("mov.b32 {m}, {ib};"));
        self.line(format!("cvt.rn.f32.s32 {kf}, {k};"));
        self.line(format!("add.rn.f32 {kf}, {kf}, {kadj};"));
        self.line(format!("sub.rn.f32 {fm}, {m}, {};", f32_imm(1.0)));
        self.line(format!("add.rn.f32 {den}, {fm}, {};", f32_imm(2.0)));
        self.line(format!("rcp.approx.ftz.f32 {s}, {den};"));
        self.line(format!("mul.rn.f32 {s}, {fm}, {s};"));
        self.line(format!("mul.rn.f32 {z}, {s}, {s};"));
        self.line(format!("mov.f32 {rr}, {};", f32_imm(2.0 / 9.0)));
        for c in [2.0 / 7.0, 2.0 / 5.0, 2.0 / 3.0] {
            self.line(format!("fma.rn.f32 {rr}, {rr}, {z}, {};", f32_imm(c)));
        }
        self.line(format!("mul.rn.f32 {rr}, {rr}, {z};"));
        self.line(format!("sub.rn.f32 {q}, {fm}, {rr};"));
        self.line(format!("neg.f32 {ns}, {s};"));
        self.line(format!("fma.rn.f32 {ym}, {ns}, {q}, {fm};"));
        self.line(format!("fma.rn.f32 {res}, {kf}, {}, {ym};", f32_imm(LN2_LO)));
        self.line(format!("fma.rn.f32 {res}, {kf}, {}, {res};", f32_imm(LN2_HI)));
        // Ordered comparisons: false on NaN, which takes the special path.
        self.line(format!("setp.lt.f32 {ok}, {x}, {};", f32_imm(f32::INFINITY)));
        self.line(format!("setp.gt.and.f32 {ok}, {x}, {}, {ok};", f32_imm(0.0)));
        self.line(format!("setp.lt.f32 {neg}, {x}, {};", f32_imm(0.0)));
        self.line(format!("setp.eq.f32 {zero}, {x}, {};", f32_imm(0.0)));
        self.line(format!("selp.f32 {spec}, {}, {x}, {neg};", f32_imm(f32::NAN)));
        self.line(format!("selp.f32 {spec}, {}, {spec}, {zero};", f32_imm(f32::NEG_INFINITY)));
        self.line(format!("selp.f32 {d}, {res}, {spec}, {ok};"));
    }

    /// `d = tanh(x)` on f32, within about 4 ulp (`passes/tests/ptx_math_model.py`: 2.3e-7);
    /// 18 instructions, the approximate ones `ex2.approx` and `rcp.approx`.
    ///
    /// `|x| < 0.9`: `x + x z P(z)`, `z = x^2`, P a degree-5 minimax fit (relative error of tanh
    /// 1.6e-8). Otherwise `1 - 2 / (2^(|x| 2 log2 e) + 1)`: `ex2.approx` (2^-22) of `|x|` times
    /// `2 LOG2_E` (exact doubling of the f32 log2 e), `rcp.approx` (1 ulp) of `E + 1`, and
    /// `fma(r, -2, 1)`; from 0.9 on, the cancellation scales the error of `E` by at most
    /// `2E / (E^2 - 1)` <= 0.34 and that of `r` by `2 / (E - 1)` <= 0.40. `E = inf` (|x| >= 44.4)
    /// gives `r = 0` and exactly 1. Both approximate instructions are `.ftz`: `E >= 1`, and `r`
    /// is flushed only where `E > 2^126`, where the result rounds to 1 either way. `copysign` puts the sign of `x` on either branch, which also
    /// makes tanh(-0) = -0; NaN propagates through the second branch.
    fn accurate_tanh(&mut self, d: &str, x: &str) {
        let [a, z, p, xz, small, t, ex, den, r, big, sel] = std::array::from_fn(|_| self.tmp(Rc::F32));
        let is_small = self.tmp(Rc::Pred);
        self.line(format!("abs.f32 {a}, {x};"));
        self.line(format!("mul.rn.f32 {z}, {x}, {x};"));
        self.horner(&p, &TANH_P, &z);
        self.line(format!("mul.rn.f32 {xz}, {x}, {z};"));
        self.line(format!("fma.rn.f32 {small}, {xz}, {p}, {x};"));
        self.line(format!("mul.rn.f32 {t}, {a}, {};", f32_imm(2.0 * LOG2_E)));
        self.line(format!("ex2.approx.ftz.f32 {ex}, {t};"));
        self.line(format!("add.rn.f32 {den}, {ex}, {};", f32_imm(1.0)));
        self.line(format!("rcp.approx.ftz.f32 {r}, {den};"));
        self.line(format!("fma.rn.f32 {big}, {r}, {}, {};", f32_imm(-2.0), f32_imm(1.0)));
        self.line(format!("setp.lt.f32 {is_small}, {a}, {};", f32_imm(TANH_SMALL)));
        self.line(format!("selp.f32 {sel}, {small}, {big}, {is_small};"));
        self.line(format!("copysign.f32 {d}, {x}, {sel};"));
    }

    fn cmp(&mut self, op: OpId, pred: CmpPredicate) -> Result<(), Diagnostic> {
        let (d, _) = self.result(op)?;
        let v = self.ctx.operand(op, 0);
        let s = self.sc_of(op, v)?;
        let (mut a, mut b) = (self.operand(op, 0)?, self.operand(op, 1)?);
        let ordered = match pred {
            CmpPredicate::Eq => "eq",
            CmpPredicate::Ne => "ne",
            CmpPredicate::Lt => "lt",
            CmpPredicate::Le => "le",
            CmpPredicate::Gt => "gt",
            CmpPredicate::Ge => "ge",
        };
        let (cond, ty) = match s {
            Sc::Index => (ordered, "s64"),
            Sc::I1 => return Err(self.err(op, "cannot compare 'i1' values")),
            _ => {
                if s.is_half() {
                    a = self.widen(&a, s);
                    b = self.widen(&b, s);
                }
                // Ordered comparisons are false on NaN; `ne` is the unordered one, true on NaN.
                (if pred == CmpPredicate::Ne { "neu" } else { ordered }, if s == Sc::F64 { "f64" } else { "f32" })
            }
        };
        self.line(format!("setp.{cond}.{ty} {d}, {a}, {b};"));
        Ok(())
    }

    fn select(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let (d, s) = self.result(op)?;
        let (p, a, b) = (self.operand(op, 0)?, self.operand(op, 1)?, self.operand(op, 2)?);
        let ty = match s {
            Sc::I1 => {
                // No `selp.pred`: d = (p & a) | (!p & b).
                let (t, n) = (self.tmp(Rc::Pred), self.tmp(Rc::Pred));
                self.line(format!("and.pred {t}, {p}, {a};"));
                self.line(format!("not.pred {n}, {p};"));
                self.line(format!("and.pred {n}, {n}, {b};"));
                self.line(format!("or.pred {d}, {t}, {n};"));
                return Ok(());
            }
            Sc::F16 | Sc::BF16 => "b16",
            Sc::F32 => "f32",
            Sc::F64 => "f64",
            Sc::Index => "b64",
        };
        self.line(format!("selp.{ty} {d}, {a}, {b}, {p};"));
        Ok(())
    }

    fn convert(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let (d, to) = self.result(op)?;
        let v = self.ctx.operand(op, 0);
        let from = self.sc_of(op, v)?;
        let a = self.operand(op, 0)?;
        let ptx = |s: Sc| match s {
            Sc::F16 => "f16",
            Sc::BF16 => "bf16",
            Sc::F32 => "f32",
            Sc::F64 => "f64",
            Sc::Index => "s64",
            Sc::I1 => "pred",
        };
        match (from, to) {
            _ if from == to => self.line(format!("{} {d}, {a};", to.class().mov())),
            // A recomputed widening (`REMAT_ATTR`) of a half of a loaded word: the f32's bits are
            // the bf16's in the high half, zeros below (exact, as `cvt.f32.bf16`).
            (Sc::BF16, Sc::F32) if self.ctx.attr(op, REMAT_ATTR).is_some() && self.halves.contains_key(&a) => {
                let (word, high) = self.halves[&a].clone();
                let sel = if high { "0x3244" } else { "0x1044" };
                self.line(format!("prmt.b32 {d}, {word}, 0, {sel};"));
            }
            (Sc::I1, _) | (_, Sc::I1) | (_, Sc::Index) => {
                return Err(self.err(op, "only float to float and index to float conversions are supported"))
            }
            // Widening is exact: no rounding modifier.
            (Sc::F16 | Sc::BF16, Sc::F32) | (Sc::F32, Sc::F64) | (Sc::F16, Sc::F64) => {
                self.line(format!("cvt.{}.{} {d}, {a};", ptx(to), ptx(from)))
            }
            // Through f32, where both steps are exact but the last.
            (Sc::BF16, Sc::F64 | Sc::F16) | (Sc::F16, Sc::BF16) => {
                let w = self.widen(&a, from);
                let rn = if to == Sc::F64 { "" } else { ".rn" };
                self.line(format!("cvt{rn}.{}.f32 {d}, {w};", ptx(to)));
            }
            // An index becomes f64 exactly below 2^53, then rounds once to bf16.
            (Sc::Index, Sc::BF16) => {
                let w = self.tmp(Rc::F64);
                self.line(format!("cvt.rn.f64.s64 {w}, {a};"));
                self.line(format!("cvt.rn.bf16.f64 {d}, {w};"));
            }
            _ => self.line(format!("cvt.rn.{}.{} {d}, {a};", ptx(to), ptx(from))),
        }
        Ok(())
    }

    /// An id op: special register `sreg`, shifted down by 5 for the warp id.
    fn special(&mut self, op: OpId, (sreg, warp): (&str, bool)) -> Result<(), Diagnostic> {
        let (d, _) = self.result(op)?;
        let r = self.tmp(Rc::B32);
        self.line(format!("mov.u32 {r}, {sreg};"));
        let r = if warp {
            let w = self.tmp(Rc::B32);
            self.line(format!("shr.u32 {w}, {r}, 5;"));
            w
        } else {
            r
        };
        self.line(format!("cvt.u64.u32 {d}, {r};"));
        Ok(())
    }

    /// Loads and stores, scalar and vector. Operands: `load (p, i)`, `store (v, p, i)`,
    /// `load_vec (p, i)` with `w` results, `store_vec (v0..vw-1, p, i)`.
    /// `mgpu.cluster_store`: the element's shared address, mapped to the target CTA's
    /// (`mapa`), then `st.shared::cluster`.
    fn cluster_store(&mut self, c: gpu::ClusterStoreOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let op = c.id();
        let VTy::Ptr(e, true) = self.vty(op, ctx.value_type(c.ptr(ctx)))? else {
            return Err(self.err(op, "expects a shared pointer"));
        };
        if e == Sc::I1 {
            return Err(self.err(op, "cannot access 'i1' elements"));
        }
        let (pr, ir, rr, vr) = (
            self.get(op, c.ptr(ctx))?,
            self.get(op, c.index(ctx))?,
            self.get(op, c.rank(ctx))?,
            self.get(op, c.value(ctx))?,
        );
        let off = self.tmp(Rc::B64);
        self.line(format!("shl.b64 {off}, {ir}, {};", e.bytes().trailing_zeros()));
        let addr = self.tmp(Rc::B64);
        self.line(format!("add.s64 {addr}, {pr}, {off};"));
        let rank = self.tmp(Rc::B32);
        self.line(format!("cvt.u32.u64 {rank}, {rr};"));
        let remote = self.tmp(Rc::B64);
        self.line(format!("mapa.shared::cluster.u64 {remote}, {addr}, {rank};"));
        self.line(format!("st.shared::cluster.{} [{remote}], {vr};", e.mem_suffix()));
        Ok(())
    }

    fn memory(&mut self, op: OpId, Access { store: stores, vector }: Access) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        if ops.len() < 2 {
            return Err(self.err(op, "expects a pointer and an index"));
        }
        let (p, i) = (ops[ops.len() - 2], ops[ops.len() - 1]);
        let VTy::Ptr(e, shared) = self.vty(op, self.ctx.value_type(p))? else {
            return Err(self.err(op, "expects a pointer"));
        };
        if e == Sc::I1 {
            return Err(self.err(op, "cannot access 'i1' elements"));
        }
        // `stream`: cache streaming (`.cs`, evict-first in L1 and L2) on a global load.
        let stream = !shared && !stores && self.ctx.attr(op, "stream").is_some();
        let space = match (shared, !stores && self.ctx.attr(op, "nc").is_some(), stream) {
            (true, _, _) => "shared",
            (false, true, true) => "global.cs.nc",
            (false, true, false) => "global.nc",
            (false, false, true) => "global.cs",
            (false, false, false) => "global",
        };
        let (pr, ir) = (self.get(op, p)?, self.get(op, i)?);
        let off = self.tmp(Rc::B64);
        self.line(format!("shl.b64 {off}, {ir}, {};", e.bytes().trailing_zeros()));
        let addr = self.tmp(Rc::B64);
        self.line(format!("add.s64 {addr}, {pr}, {off};"));
        let elems: Vec<String> = if stores {
            ops[..ops.len() - 2].iter().map(|&v| self.get(op, v)).collect::<Result<_, _>>()?
        } else {
            let rs = self.ctx.results(op).to_vec();
            rs.iter().map(|&v| self.def(op, v)).collect::<Result<_, _>>()?
        };
        let w = elems.len();
        if vector {
            if !matches!(w, 2 | 4 | 8) || w as u32 * e.bytes() > 16 {
                return Err(self.err(
                    op,
                    &format!(
                        "a vector of {w} x {} bytes is not a 2-, 4- or 8-element access of at most 16 bytes",
                        e.bytes()
                    ),
                ));
            }
            if w == 8 {
                // 8 x 16 bits: four 32-bit words, each a pair of halves (low half first).
                let words: Vec<String> = (0..4).map(|_| self.tmp(Rc::B32)).collect();
                if stores {
                    for (k, wd) in words.iter().enumerate() {
                        self.line(format!("mov.b32 {wd}, {{{}, {}}};", elems[2 * k], elems[2 * k + 1]));
                    }
                    self.line(format!("st.{space}.v4.b32 [{addr}], {{{}}};", words.join(", ")));
                } else {
                    self.line(format!("ld.{space}.v4.b32 {{{}}}, [{addr}];", words.join(", ")));
                    for (k, wd) in words.iter().enumerate() {
                        self.line(format!("mov.b32 {{{}, {}}}, {wd};", elems[2 * k], elems[2 * k + 1]));
                        self.halves.insert(elems[2 * k].clone(), (wd.clone(), false));
                        self.halves.insert(elems[2 * k + 1].clone(), (wd.clone(), true));
                    }
                }
            } else if stores {
                self.line(format!("st.{space}.v{w}.{} [{addr}], {{{}}};", e.mem_suffix(), elems.join(", ")));
            } else {
                self.line(format!("ld.{space}.v{w}.{} {{{}}}, [{addr}];", e.mem_suffix(), elems.join(", ")));
            }
        } else if w != 1 {
            return Err(self.err(op, "expects one value"));
        } else if stores {
            self.line(format!("st.{space}.{} [{addr}], {};", e.mem_suffix(), elems[0]));
        } else {
            self.line(format!("ld.{space}.{} {}, [{addr}];", e.mem_suffix(), elems[0]));
        }
        Ok(())
    }

    /// `mgpu.copy_async`: `cp.async.cg` (through L2 only) for 16 bytes, `cp.async.ca` for 4
    /// and 8; a `stream` copy with an evict-first L2 cache hint.
    fn copy_async(&mut self, c: gpu::CopyAsyncOp) -> Result<(), Diagnostic> {
        let op = c.id();
        let ctx = self.ctx;
        let (VTy::Ptr(e, true), VTy::Ptr(_, false)) =
            (self.vty(op, ctx.value_type(c.dst(ctx)))?, self.vty(op, ctx.value_type(c.src(ctx)))?)
        else {
            return Err(self.err(op, "copies from a global to a shared pointer"));
        };
        let bytes = c.width(ctx).unwrap_or(0).max(0) as u64 * u64::from(e.bytes());
        if ![4, 8, 16].contains(&bytes) {
            return Err(self.err(op, &format!("a copy of {bytes} bytes (4, 8 or 16 expected)")));
        }
        let addr = |kb: &mut Self, p: Value, i: Value| -> Result<String, Diagnostic> {
            let (pr, ir) = (kb.get(op, p)?, kb.get(op, i)?);
            let off = kb.tmp(Rc::B64);
            kb.line(format!("shl.b64 {off}, {ir}, {};", e.bytes().trailing_zeros()));
            let a = kb.tmp(Rc::B64);
            kb.line(format!("add.s64 {a}, {pr}, {off};"));
            Ok(a)
        };
        let d = addr(self, c.dst(ctx), c.dst_index(ctx))?;
        let s = addr(self, c.src(ctx), c.src_index(ctx))?;
        let cache = if bytes == 16 { "cg" } else { "ca" };
        if c.stream(ctx).is_some() {
            // Read once: an evict-first L2 policy (ptxas hoists the policy out of loops).
            let pol = self.tmp(Rc::B64);
            self.line(format!("createpolicy.fractional.L2::evict_first.b64 {pol}, 1.0;"));
            self.line(format!("cp.async.{cache}.shared.global.L2::cache_hint [{d}], [{s}], {bytes}, {pol};"));
        } else {
            self.line(format!("cp.async.{cache}.shared.global [{d}], [{s}], {bytes};"));
        }
        Ok(())
    }

    /// `mgpu.atomic_rmw` on global memory (relaxed, `.gpu` scope: PTX's defaults). `add` and
    /// index `max`/`min` are one `atom` (or `red` when the old value is unused); float
    /// `max`/`min` have no NaN-propagating atomic, so they are a compare-and-swap loop around the
    /// dialect's `max`/`min` (`max.NaN.f32`; f64: `max.f64` plus the NaN select).
    fn atomic_rmw(&mut self, a: gpu::AtomicRmwOp) -> Result<(), Diagnostic> {
        let op = a.id();
        let ctx = self.ctx;
        let Some(kind) = a.atomic_kind(ctx) else {
            let k = a.kind(ctx).unwrap_or_default();
            return Err(self.err(op, &format!("unknown atomic kind '{k}'")));
        };
        let VTy::Ptr(e, false) = self.vty(op, ctx.value_type(a.ptr(ctx)))? else {
            return Err(self.err(op, "atomics need a global pointer"));
        };
        if !matches!(e, Sc::F32 | Sc::F64 | Sc::Index) {
            return Err(self.err(op, "atomic elements must be 'f32', 'f64' or 'index'"));
        }
        let (pr, ir, v) = (self.get(op, a.ptr(ctx))?, self.get(op, a.index(ctx))?, self.get(op, a.value(ctx))?);
        let off = self.tmp(Rc::B64);
        self.line(format!("shl.b64 {off}, {ir}, {};", e.bytes().trailing_zeros()));
        let addr = self.tmp(Rc::B64);
        self.line(format!("add.s64 {addr}, {pr}, {off};"));
        let unused = ctx.uses(a.old(ctx)).is_empty();
        let single = match (kind, e) {
            (AtomicKind::Add, Sc::Index) => Some("add.u64"),
            (AtomicKind::Add, _) => Some(if e == Sc::F32 { "add.f32" } else { "add.f64" }),
            (AtomicKind::Max, Sc::Index) => Some("max.s64"),
            (AtomicKind::Min, Sc::Index) => Some("min.s64"),
            (AtomicKind::Max | AtomicKind::Min, _) => None,
        };
        if let Some(instr) = single {
            if unused {
                self.line(format!("red.global.{instr} [{addr}], {v};"));
            } else {
                let d = self.def(op, a.old(ctx))?;
                self.line(format!("atom.global.{instr} {d}, [{addr}], {v};"));
            }
            return Ok(());
        }
        // old = *addr; loop { new = f(old, v); seen = cas(addr, old, new); if seen == old break;
        // old = seen }. The CAS compares bits, so a NaN in memory ends the loop too.
        let f64 = e == Sc::F64;
        let (bits, cl, w) = if f64 { (Rc::B64, Rc::F64, "b64") } else { (Rc::B32, Rc::F32, "b32") };
        let f = if kind == AtomicKind::Max { BinaryFn::Max } else { BinaryFn::Min };
        let old = self.tmp(bits);
        self.line(format!("ld.relaxed.gpu.global.{w} {old}, [{addr}];"));
        let head = self.label();
        self.line(format!("{head}:"));
        let (oldf, newf, new, seen, p) =
            (self.tmp(cl), self.tmp(cl), self.tmp(bits), self.tmp(bits), self.tmp(Rc::Pred));
        self.line(format!("mov.{w} {oldf}, {old};"));
        self.compute(op, Arith::Binary(f), f64, &newf, &[oldf.clone(), v])?;
        self.line(format!("mov.{w} {new}, {newf};"));
        self.line(format!("atom.global.cas.{w} {seen}, [{addr}], {old}, {new};"));
        self.line(format!("setp.ne.{w} {p}, {seen}, {old};"));
        self.line(format!("mov.{w} {old}, {seen};"));
        self.line(format!("@{p} bra {head};"));
        let d = self.def(op, a.old(ctx))?;
        self.line(format!("mov.{w} {d}, {old};"));
        Ok(())
    }

    /// `d = shfl(a)` of scalar type `s`, through 32-bit words: 16-bit values travel in the
    /// low half of a word, 64-bit values as two shuffles.
    fn shuffle(&mut self, mode: &str, s: Sc, d: &str, a: &str, lane: &str) {
        self.shuffle_in(mode, s, d, a, lane, "0xffffffff");
    }

    /// A shuffle among the lanes of `mask` (a register or an immediate): every lane it names
    /// executes this shuffle.
    fn shuffle_in(&mut self, mode: &str, s: Sc, d: &str, a: &str, lane: &str, mask: &str) {
        let clamp = if mode == "up" { 0 } else { 31 };
        let shfl = |k: &mut Self, dst: &str, src: &str| {
            k.line(format!("shfl.sync.{mode}.b32 {dst}, {src}, {lane}, {clamp}, {mask};"));
        };
        match s {
            Sc::F32 | Sc::F16 | Sc::BF16 | Sc::I1 => {
                let (x, y) = (self.tmp(Rc::B32), self.tmp(Rc::B32));
                match s {
                    Sc::F32 => self.line(format!("mov.b32 {x}, {a};")),
                    Sc::I1 => self.line(format!("selp.u32 {x}, 1, 0, {a};")),
                    _ => self.line(format!("mov.b32 {x}, {{{a}, {a}}};")),
                }
                shfl(self, &y, &x);
                match s {
                    Sc::F32 => self.line(format!("mov.b32 {d}, {y};")),
                    Sc::I1 => self.line(format!("setp.ne.u32 {d}, {y}, 0;")),
                    _ => {
                        let hi = self.tmp(Rc::B16);
                        self.line(format!("mov.b32 {{{d}, {hi}}}, {y};"));
                    }
                }
            }
            Sc::F64 | Sc::Index => {
                let r: Vec<String> = (0..4).map(|_| self.tmp(Rc::B32)).collect();
                self.line(format!("mov.b64 {{{}, {}}}, {a};", r[0], r[1]));
                shfl(self, &r[2], &r[0]);
                shfl(self, &r[3], &r[1]);
                self.line(format!("mov.b64 {d}, {{{}, {}}};", r[2], r[3]));
            }
        }
    }

    fn shuffle_op(&mut self, sh: gpu::ShuffleOp) -> Result<(), Diagnostic> {
        let op = sh.id();
        let ptx_mode = match sh.shuffle_mode(self.ctx) {
            Some(ShuffleMode::Xor) => "bfly",
            Some(ShuffleMode::Down) => "down",
            Some(ShuffleMode::Up) => "up",
            Some(ShuffleMode::Idx) => "idx",
            None => {
                let mode = sh.mode(self.ctx).unwrap_or_default();
                return Err(self.err(op, &format!("unknown shuffle mode '{mode}'")));
            }
        };
        let (d, s) = self.result(op)?;
        let (a, off) = (self.operand(op, 0)?, self.operand(op, 1)?);
        let lane = self.tmp(Rc::B32);
        self.line(format!("cvt.u32.u64 {lane}, {off};"));
        self.shuffle(ptx_mode, s, &d, &a, &lane);
        Ok(())
    }

    fn warp_reduce(&mut self, wr: gpu::WarpReduceOp) -> Result<(), Diagnostic> {
        let op = wr.id();
        let f = match wr.reduce_kind(self.ctx) {
            Some(ReduceKind::Sum) => BinaryFn::Add,
            Some(ReduceKind::Max) => BinaryFn::Max,
            Some(ReduceKind::Min) => BinaryFn::Min,
            None => {
                let kind = wr.kind(self.ctx).unwrap_or_default();
                return Err(self.err(op, &format!("unknown reduction kind '{kind}'")));
            }
        };
        let (d, s) = self.result(op)?;
        if s == Sc::I1 {
            return Err(self.err(op, "cannot reduce 'i1' values"));
        }
        let Some(width) = wr.width(self.ctx) else {
            return Err(self.err(op, "'width' must be 1, 2, 4, 8, 16 or 32"));
        };
        let mut acc = self.operand(op, 0)?;
        // A butterfly: after the step with offset k every lane holds the combination of its
        // group of 2k lanes, so after 16, 8, 4, 2, 1 every lane holds the whole warp's (and
        // after width/2, ..., 1 its aligned group of `width` lanes': xor stays inside it).
        let steps: Vec<u32> = [16, 8, 4, 2, 1].into_iter().filter(|&k| k < width).collect();
        if steps.is_empty() {
            self.line(format!("{} {d}, {acc};", s.class().mov()));
        }
        // A group of lanes names only its own lanes: the groups of a warp may hold rows of
        // different trip counts, so another group need not reach this reduction.
        let mask = if width < 32 && !steps.is_empty() {
            let (lane, base, ones, m) = (self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::B32), self.tmp(Rc::B32));
            self.line(format!("mov.u32 {lane}, %laneid;"));
            self.line(format!("and.b32 {base}, {lane}, {};", 31 & !(width - 1)));
            self.line(format!("mov.b32 {ones}, {};", (1u32 << width) - 1));
            self.line(format!("shl.b32 {m}, {ones}, {base};"));
            m
        } else {
            "0xffffffff".to_string()
        };
        for (n, k) in steps.iter().enumerate() {
            let other = self.tmp(s.class());
            self.shuffle_in("bfly", s, &other, &acc, &k.to_string(), &mask);
            let next = if n + 1 == steps.len() { d.clone() } else { self.tmp(s.class()) };
            self.binary(op, Arith::Binary(f), s, &next, &acc, &other)?;
            acc = next;
        }
        Ok(())
    }

    /// `mloop.for`: `iv = lb; while iv < ub { body; iter args = yields; iv += step }`. The
    /// results are the iteration registers after the exit.
    fn for_loop(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        if ops.len() < 3 {
            return Err(self.err(op, "expects lower bound, upper bound and step"));
        }
        let (lb, ub, step) = (self.get(op, ops[0])?, self.get(op, ops[1])?, self.get(op, ops[2])?);
        let Some(body) = self.ctx.regions(op).first().and_then(|&r| self.ctx.entry_block(r)) else {
            return Err(self.err(op, "has no body"));
        };
        let args = self.ctx.block_args(body).to_vec();
        if args.len() != ops.len() - 2 {
            return Err(self.err(op, "expects one body argument per iteration value"));
        }
        let iv = self.def(op, args[0])?;
        self.line(format!("mov.b64 {iv}, {lb};"));
        let mut iters = Vec::new();
        for (&arg, &init) in args[1..].iter().zip(&ops[3..]) {
            let r = self.def(op, arg)?;
            let c = self.vty(op, self.ctx.value_type(arg))?.class();
            let i = self.get(op, init)?;
            self.line(format!("{} {r}, {i};", c.mov()));
            iters.push((r, c));
        }
        let (head, exit) = (self.label(), self.label());
        self.line(format!("{head}:"));
        let p = self.tmp(Rc::Pred);
        self.line(format!("setp.ge.s64 {p}, {iv}, {ub};"));
        self.line(format!("@{p} bra {exit};"));
        let yields = self.block(body)?;
        if yields.len() != iters.len() {
            return Err(self.err(op, "the body must yield one value per iteration value"));
        }
        // A parallel copy: a yield may read another iteration register, so read them all first.
        let mut staged = Vec::new();
        for (y, (r, c)) in yields.iter().zip(&iters) {
            let y = self.get(op, *y)?;
            if &y != r {
                let t = self.tmp(*c);
                self.line(format!("{} {t}, {y};", c.mov()));
                staged.push((r.clone(), t, *c));
            }
        }
        for (r, t, c) in staged {
            self.line(format!("{} {r}, {t};", c.mov()));
        }
        self.line(format!("add.s64 {iv}, {iv}, {step};"));
        self.line(format!("bra {head};"));
        self.line(format!("{exit}:"));
        for (&res, (r, _)) in self.ctx.results(op).iter().zip(&iters) {
            self.regs.insert(res, r.clone());
        }
        Ok(())
    }

    /// `mgpu.work_loop`: the iteration starts at `%ctaid.x`; after each, thread 0 takes a
    /// ticket (an atomic add on the kernel's `u64` counter, a module variable, zero at load)
    /// and hands it to the block through a shared word, between two `bar.sync`s (the second
    /// keeps the next ticket's store after every thread's read); the next iteration is
    /// `%nctaid.x + ticket`. The thread that takes ticket `ub - 1`, the launch's last, sets the
    /// counter back to 0. Nothing is held across the body but the iteration and the bound.
    fn work_loop(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ub = self.operand(op, 0)?;
        let Some(body) = self.ctx.regions(op).first().and_then(|&r| self.ctx.entry_block(r)) else {
            return Err(self.err(op, "has no body"));
        };
        let args = self.ctx.block_args(body).to_vec();
        if args.len() != 1 {
            return Err(self.err(op, "expects one body argument, the iteration"));
        }
        let (counter, slot) = (format!("{}_work_count", self.name), format!("{}_work_ticket", self.name));
        declare_once(&mut self.globals, format!(".global .align 8 .u64 {counter};"));
        declare_once(&mut self.shared, format!(".shared .align 8 .u64 {slot};"));
        let iv = self.def(op, args[0])?;
        let ctaid = self.tmp(Rc::B32);
        self.line(format!("mov.u32 {ctaid}, %ctaid.x;"));
        self.line(format!("cvt.u64.u32 {iv}, {ctaid};"));
        let (head, exit, taken) = (self.label(), self.label(), self.label());
        self.line(format!("{head}:"));
        let p = self.tmp(Rc::Pred);
        self.line(format!("setp.ge.s64 {p}, {iv}, {ub};"));
        self.line(format!("@{p} bra {exit};"));
        // Thread 0 takes the ticket of the block's next iteration before this one's body (one
        // predicated atomic, whose result it first uses after the body), so that the atomic's
        // round trip runs under the body instead of after it: the same tickets, one for each
        // iteration a block runs, issued earlier. The body never touches the counter or the
        // slot. The block that took the launch's last ticket sets the counter back to 0 after
        // its body (no other ticket of this launch follows the last).
        let (tid, other, addr, ticket) = (self.tmp(Rc::B32), self.tmp(Rc::Pred), self.tmp(Rc::B64), self.tmp(Rc::B64));
        self.line(format!("mov.u32 {tid}, %tid.x;"));
        self.line(format!("setp.ne.u32 {other}, {tid}, 0;"));
        self.line(format!("mov.u64 {addr}, {counter};"));
        self.line(format!("@!{other} atom.add.relaxed.gpu.global.u64 {ticket}, [{addr}], 1;"));
        if !self.block(body)?.is_empty() {
            return Err(self.err(op, "the body must yield nothing"));
        }
        let (tid2, other2, last, notlast) =
            (self.tmp(Rc::B32), self.tmp(Rc::Pred), self.tmp(Rc::B64), self.tmp(Rc::Pred));
        self.line(format!("mov.u32 {tid2}, %tid.x;"));
        self.line(format!("setp.ne.u32 {other2}, {tid2}, 0;"));
        self.line(format!("@{other2} bra {taken};"));
        self.line(format!("st.shared.u64 [{slot}], {ticket};"));
        self.line(format!("sub.s64 {last}, {ub}, 1;"));
        self.line(format!("setp.ne.s64 {notlast}, {ticket}, {last};"));
        self.line(format!("@{notlast} bra {taken};"));
        self.line(format!("st.relaxed.gpu.global.u64 [{addr}], 0;"));
        self.line(format!("{taken}:"));
        self.line("bar.sync 0;".into());
        let (t, n, g) = (self.tmp(Rc::B64), self.tmp(Rc::B32), self.tmp(Rc::B64));
        self.line(format!("ld.shared.u64 {t}, [{slot}];"));
        self.line("bar.sync 0;".into());
        self.line(format!("mov.u32 {n}, %nctaid.x;"));
        self.line(format!("cvt.u64.u32 {g}, {n};"));
        self.line(format!("add.s64 {iv}, {g}, {t};"));
        self.line(format!("bra {head};"));
        self.line(format!("{exit}:"));
        Ok(())
    }

    /// `mgpu.if`: a branch around each region; each `mgpu.yield` moves into the result registers.
    fn if_op(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let c = self.operand(op, 0)?;
        let mut res = Vec::new();
        for &v in self.ctx.results(op) {
            let cl = self.vty(op, self.ctx.value_type(v))?.class();
            res.push((self.def(op, v)?, cl));
        }
        let regions = self.ctx.regions(op).to_vec();
        let blocks: Vec<BlockId> = regions.iter().filter_map(|&r| self.ctx.entry_block(r)).collect();
        let (else_l, end) = (self.label(), self.label());
        let has_else = blocks.len() > 1;
        self.line(format!("@!{c} bra {};", if has_else { &else_l } else { &end }));
        for (n, &b) in blocks.iter().enumerate() {
            if n == 1 {
                self.line(format!("bra {end};"));
                self.line(format!("{else_l}:"));
            }
            let ys = self.block(b)?;
            if ys.len() != res.len() {
                return Err(self.err(op, "each region must yield one value per result"));
            }
            for (y, (r, cl)) in ys.iter().zip(&res) {
                let y = self.get(op, *y)?;
                self.line(format!("{} {r}, {y};", cl.mov()));
            }
        }
        self.line(format!("{end}:"));
        Ok(())
    }
}

/// Adds the module- or kernel-level declaration `decl` to `list` unless it is there already
/// (a variable that several ops of a kernel share, declared at the first).
fn declare_once(list: &mut Vec<String>, decl: String) {
    if !list.contains(&decl) {
        list.push(decl);
    }
}
