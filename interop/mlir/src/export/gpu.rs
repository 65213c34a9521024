//! `mgpu` to `gpu`, `nvvm` and `llvm`.
//!
//! Kernels go into one `gpu.module @morf_kernels` with an `#nvvm.target` (the module gets
//! `gpu.container_module`); each `mgpu.func` is a `gpu.func ... kernel` whose pointer
//! parameters are `!llvm.ptr<1>` (global) and `index` parameters stay `index`, so the kernel's
//! PTX signature is morf's (`.param .u64` each). Memory goes through the LLVM dialect
//! (`llvm.getelementptr` + `llvm.load`/`llvm.store`, `invariant` for `nc` loads, vector
//! loads and stores, `llvm.atomicrmw`); shared memory is an `addr_space = 3`
//! `llvm.mlir.global` per `mgpu.shared_alloc` (and one external one for the dynamic shared
//! memory); ids, barriers and shuffles are `gpu` ops (a warp reduction is five `gpu.shuffle
//! xor`; the warp barrier is `nvvm.bar.warp.sync`); `copy_async` is `nvvm.cp.async.*`;
//! `mgpu.if` is `scf.if`; the grid barrier is the same counter protocol as morf's PTX emitter
//! (a per-kernel global, `llvm.atomicrmw` and fences at device scope, a spin loop in
//! `scf.while`), and so is `mgpu.work_loop` (an `scf.while` over the iteration, the body in an
//! `scf.execute_region`, thread 0's ticket from a per-kernel `i64` global through a shared
//! one between two `gpu.barrier`s). In host functions `mgpu.launch` is
//! `gpu.launch_func`, a buffer argument passed as its aligned pointer
//! (`memref.extract_aligned_pointer_as_index` + `llvm.inttoptr`).

use melior::ir::attribute::{StringAttribute, TypeAttribute};
use melior::ir::{Location, Type};
use mlir_sys::{MlirBlock, MlirValue};
use morf_gpu::ops::{
    AtomicRmwOp, CopyAsyncOp, CopyAsyncWaitOp, FuncOp, IfOp, LaunchOp, LoadOp, LoadVecOp, ResidentBlocksOp,
    SharedAllocOp, ShuffleOp, StoreOp, StoreVecOp, WarpReduceOp, WorkLoopOp,
};
use morf_gpu::ops::{ClusterArriveOp, ClusterStoreOp};
use morf_ir::interfaces::BinaryFn;
use morf_ir::{Diagnostic, OpId, TypeData};

use super::{Exporter, SResult};
use crate::bridge;

/// The name of the `gpu.module` that holds the kernels.
pub(crate) const GPU_MODULE: &str = "morf_kernels";

/// `llvm.atomicrmw`'s `bin_op` codes (LLVM 22's `AtomicBinOp`).
const ATOMIC_ADD: i64 = 1;
const ATOMIC_MAX: i64 = 7;
const ATOMIC_MIN: i64 = 8;
const ATOMIC_FADD: i64 = 11;
const ATOMIC_FMAXIMUM: i64 = 19;
const ATOMIC_FMINIMUM: i64 = 20;
/// `AtomicOrdering`: monotonic (relaxed) and acq_rel.
const MONOTONIC: i64 = 2;
const ACQ_REL: i64 = 6;

impl<'c> Exporter<'c, '_> {
    /// Exports an `mgpu` op inside a kernel or a host function.
    pub(super) fn gpu_op(&mut self, op: OpId, b: MlirBlock) -> Result<(), Diagnostic> {
        let r = self.gpu_op_inner(op, b);
        r.map_err(|e| self.fail(op, e))
    }

    /// The MLIR type of a pointer's element in LLVM ops (`index` as `i64`).
    fn llvm_elem(&self, t: morf_ir::Type) -> SResult<Type<'c>> {
        if matches!(self.m.type_data(t), TypeData::Index) {
            bridge::parse_type(self.cx, "i64")
        } else {
            self.ty(t)
        }
    }

    /// `index` to `i64`.
    fn to_i64(&self, b: MlirBlock, loc: Location<'c>, v: MlirValue) -> SResult<MlirValue> {
        let i64t = bridge::parse_type(self.cx, "i64")?;
        self.op1(b, "arith.index_cast", loc, &[v], i64t, &[])
    }

    /// `&p[i]` for a pointer to `elem`.
    fn gep(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        p: MlirValue,
        i: MlirValue,
        elem: morf_ir::Type,
    ) -> SResult<MlirValue> {
        let i = self.to_i64(b, loc, i)?;
        let attrs = [
            ("elem_type", TypeAttribute::new(self.llvm_elem(elem)?).into()),
            ("rawConstantIndices", self.attr("array<i32: -2147483648>")?),
        ];
        self.op1(b, "llvm.getelementptr", loc, &[p, i], bridge::value_type(p), &attrs)
    }

    /// Loads an `elem` from `addr` (an `index` element is loaded as `i64` and cast).
    fn load_elem(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        addr: MlirValue,
        elem: morf_ir::Type,
        nc: bool,
    ) -> SResult<MlirValue> {
        let mut attrs = vec![("ordering", self.attr("0 : i64")?)];
        if nc {
            attrs.push(("invariant", melior::ir::Attribute::unit(self.cx)));
        }
        let v = self.op1(b, "llvm.load", loc, &[addr], self.llvm_elem(elem)?, &attrs)?;
        if matches!(self.m.type_data(elem), TypeData::Index) {
            self.op1(b, "arith.index_cast", loc, &[v], Type::index(self.cx), &[])
        } else {
            Ok(v)
        }
    }

    /// Stores `v` (of type `elem`) to `addr`.
    fn store_elem(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        v: MlirValue,
        addr: MlirValue,
        elem: morf_ir::Type,
    ) -> SResult<()> {
        let v = if matches!(self.m.type_data(elem), TypeData::Index) { self.to_i64(b, loc, v)? } else { v };
        self.op(b, "llvm.store", loc, &[v, addr], &[], &[("ordering", self.attr("0 : i64")?)], 0)?;
        Ok(())
    }

    /// An `i32` constant.
    fn i32_const(&self, b: MlirBlock, loc: Location<'c>, v: i64) -> SResult<MlirValue> {
        let t = bridge::parse_type(self.cx, "i32")?;
        self.op1(b, "arith.constant", loc, &[], t, &[("value", self.attr(&format!("{v} : i32"))?)])
    }

    /// A `gpu` id op (`gpu.thread_id x`, ...).
    fn gpu_id(&self, b: MlirBlock, loc: Location<'c>, name: &str) -> SResult<MlirValue> {
        let idx = Type::index(self.cx);
        if name == "gpu.lane_id" {
            return self.op1(b, name, loc, &[], idx, &[]);
        }
        self.op1(b, name, loc, &[], idx, &[("dimension", self.attr("#gpu<dim x>")?)])
    }

    /// The `gpu.module` of the kernels (created on first use).
    fn kernels_module(&mut self, loc: Location<'c>) -> SResult<MlirBlock> {
        if let Some(b) = self.gpu_module {
            return Ok(b);
        }
        let body = self.module_body.ok_or("is outside a module")?;
        let attrs = [
            ("sym_name", StringAttribute::new(self.cx, GPU_MODULE).into()),
            (
                "targets",
                self.attr(&format!(
                    "[#nvvm.target<chip = \"{}\", features = \"+ptx{}\">]",
                    self.sm, self.ptx_features
                ))?,
            ),
        ];
        let g = self.op(body, "gpu.module", loc, &[], &[], &attrs, 1)?;
        let blk = bridge::add_block(g, 0, &[], loc);
        self.gpu_module = Some(blk);
        Ok(blk)
    }

    /// Declares an `llvm.mlir.global` in the kernels' module; returns its name.
    #[allow(clippy::too_many_arguments)]
    fn llvm_global(
        &mut self,
        loc: Location<'c>,
        name: &str,
        ty: &str,
        space: i64,
        align: i64,
        linkage: &str,
        value: Option<&str>,
    ) -> SResult<()> {
        let g = self.kernels_module(loc)?;
        let mut attrs = vec![
            ("sym_name", StringAttribute::new(self.cx, name).into()),
            ("global_type", TypeAttribute::new(bridge::parse_type(self.cx, ty)?).into()),
            ("linkage", self.attr(&format!("#llvm.linkage<{linkage}>"))?),
            ("addr_space", self.attr(&format!("{space} : i32"))?),
            ("alignment", self.attr(&format!("{align} : i64"))?),
            ("unnamed_addr", self.attr("0 : i64")?),
            ("visibility_", self.attr("0 : i64")?),
        ];
        if let Some(v) = value {
            attrs.push(("value", self.attr(v)?));
        }
        self.op(g, "llvm.mlir.global", loc, &[], &[], &attrs, 1)?;
        Ok(())
    }

    /// `llvm.mlir.addressof @name : !llvm.ptr<space>`.
    fn address_of(&self, b: MlirBlock, loc: Location<'c>, name: &str, space: i64) -> SResult<MlirValue> {
        let t = bridge::parse_type(self.cx, &format!("!llvm.ptr<{space}>"))?;
        self.op1(b, "llvm.mlir.addressof", loc, &[], t, &[("global_name", self.attr(&format!("@{name}"))?)])
    }

    /// Exports an `mgpu.func` kernel into the module's `gpu.module`.
    pub(super) fn kernel(&mut self, op: OpId, _module_body: MlirBlock) -> Result<(), Diagnostic> {
        let r = self.kernel_inner(op);
        r.map_err(|e| self.fail(op, e))
    }

    fn kernel_inner(&mut self, op: OpId) -> SResult<()> {
        let m = self.m;
        let f = FuncOp(op);
        let loc = self.loc(op);
        let name = f.sym_name(m).ok_or("has no 'sym_name'")?.to_string();
        let fty = f.function_type(m).ok_or("has no 'function_type'")?;
        let (ins, _) = m.function_parts(fty).ok_or("has a non-function type")?;
        let ins = ins.to_vec();
        let arg_tys = ins.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>()?;
        let mty = melior::ir::r#type::FunctionType::new(self.cx, &arg_tys, &[]);
        let mut attrs = vec![
            ("sym_name", StringAttribute::new(self.cx, &name).into()),
            ("function_type", TypeAttribute::new(mty.into()).into()),
            ("workgroup_attributions", self.attr("0 : i64")?),
        ];
        if f.kernel(m).is_some() {
            attrs.push(("gpu.kernel", melior::ir::Attribute::unit(self.cx)));
        }
        if let Some(t) = f.max_threads(m) {
            attrs.push(("nvvm.maxntid", self.attr(&format!("array<i32: {t}, 1, 1>"))?));
        }
        if let Some(c) = f.min_ctas_per_sm(m) {
            attrs.push(("nvvm.minctasm", self.attr(&format!("{c} : i32"))?));
        }
        if let Some(r) = f.max_registers(m) {
            attrs.push(("nvvm.maxnreg", self.attr(&format!("{r} : i32"))?));
        }
        if f.cooperative(m).is_some() {
            attrs.push(("morf.cooperative", melior::ir::Attribute::unit(self.cx)));
        }
        if let Some(c) = f.cluster(m).filter(|c| *c > 1) {
            // Launched in clusters of C CTAs (`.reqnctapercluster`).
            attrs.push(("nvvm.cluster_dim", self.attr(&format!("array<i32: {c}, 1, 1>"))?));
        }
        let g = self.kernels_module(loc)?;
        let gf = self.op(g, "gpu.func", loc, &[], &[], &attrs, 1)?;
        let blk = bridge::add_block(gf, 0, &arg_tys, loc);
        self.kernel_name = name;
        let region = m.regions(op)[0];
        let entry = m.entry_block(region).ok_or("has no body")?;
        for (i, a) in m.block_args(entry).to_vec().into_iter().enumerate() {
            let arg = bridge::block_arg(blk, i);
            self.bind(a, arg);
            self.name_value(a, arg);
        }
        let r = self.block(entry, blk);
        self.nest(r)
    }

    fn gpu_op_inner(&mut self, op: OpId, b: MlirBlock) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let name = m.op_name(op);
        let simple_id = match name {
            "mgpu.thread_id" => Some("gpu.thread_id"),
            "mgpu.block_id" => Some("gpu.block_id"),
            "mgpu.block_dim" => Some("gpu.block_dim"),
            "mgpu.grid_dim" => Some("gpu.grid_dim"),
            "mgpu.lane_id" => Some("gpu.lane_id"),
            _ => None,
        };
        if let Some(id) = simple_id {
            let v = self.gpu_id(b, loc, id)?;
            self.bind_result(op, v);
            return Ok(());
        }
        match name {
            "mgpu.warp_id" => {
                let t = self.gpu_id(b, loc, "gpu.thread_id")?;
                let c = self.index_const(b, 32)?;
                let v = self.op1(b, "arith.divui", loc, &[t, c], Type::index(self.cx), &[])?;
                self.bind_result(op, v);
                return Ok(());
            }
            "mgpu.barrier" => {
                self.op(b, "gpu.barrier", loc, &[], &[], &[], 0)?;
                return Ok(());
            }
            "mgpu.warp_barrier" => {
                // bar.warp.sync over the full warp (mask -1).
                let mask = self.i32_const(b, loc, -1)?;
                self.op(b, "nvvm.bar.warp.sync", loc, &[mask], &[], &[], 0)?;
                return Ok(());
            }
            "mgpu.return" => {
                self.op(b, "gpu.return", loc, &[], &[], &[], 0)?;
                return Ok(());
            }
            "mgpu.yield" => {
                let vs = self.vals(m.operands(op))?;
                self.op(b, "scf.yield", loc, &vs, &[], &[], 0)?;
                return Ok(());
            }
            "mgpu.grid_barrier" => return self.grid_barrier(b, loc),
            "mgpu.cluster_arrive" | "mgpu.cluster_wait" => {
                let relaxed = m.dyn_cast::<ClusterArriveOp>(op).is_some_and(|a| a.relaxed(m).is_some());
                let nv = match (name, relaxed) {
                    ("mgpu.cluster_wait", _) => "nvvm.cluster.wait",
                    (_, true) => "nvvm.cluster.arrive.relaxed",
                    _ => "nvvm.cluster.arrive",
                };
                self.op(b, nv, loc, &[], &[], &[("aligned", melior::ir::Attribute::unit(self.cx))], 0)?;
                return Ok(());
            }
            "mgpu.copy_async_commit" => {
                self.op(b, "nvvm.cp.async.commit.group", loc, &[], &[], &[], 0)?;
                return Ok(());
            }
            "mgpu.dynamic_shared" => {
                let sym = "__morf_dynamic_shared";
                if !self.dynamic_shared {
                    self.llvm_global(loc, sym, "!llvm.array<0 x i8>", 3, 16, "external", None)?;
                    self.dynamic_shared = true;
                }
                let v = self.address_of(b, loc, sym, 3)?;
                self.bind_result(op, v);
                return Ok(());
            }
            _ => {}
        }
        if let Some(w) = m.dyn_cast::<CopyAsyncWaitOp>(op) {
            let n = w.pending(m).ok_or("has no 'pending'")?;
            self.op(b, "nvvm.cp.async.wait.group", loc, &[], &[], &[("n", self.attr(&format!("{n} : i32"))?)], 0)?;
            return Ok(());
        }
        if let Some(l) = m.dyn_cast::<LoadOp>(op) {
            let elem = m.value_type(l.value(m));
            let addr = self.gep(b, loc, self.val(l.ptr(m))?, self.val(l.index(m))?, elem)?;
            let v = self.load_elem(b, loc, addr, elem, l.nc(m).is_some())?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(s) = m.dyn_cast::<ClusterStoreOp>(op) {
            // The element's shared address, mapped into the target CTA's shared memory
            // (`!llvm.ptr<7>`, shared::cluster).
            let elem = m.value_type(s.value(m));
            let addr = self.gep(b, loc, self.val(s.ptr(m))?, self.val(s.index(m))?, elem)?;
            let i32t = bridge::parse_type(self.cx, "i32")?;
            let rank = self.op1(b, "arith.index_cast", loc, &[self.val(s.rank(m))?], i32t, &[])?;
            let p7 = bridge::parse_type(self.cx, "!llvm.ptr<7>")?;
            let remote = self.op1(b, "nvvm.mapa", loc, &[addr, rank], p7, &[])?;
            self.store_elem(b, loc, self.val(s.value(m))?, remote, elem)?;
            return Ok(());
        }
        if let Some(s) = m.dyn_cast::<StoreOp>(op) {
            let elem = m.value_type(s.value(m));
            let addr = self.gep(b, loc, self.val(s.ptr(m))?, self.val(s.index(m))?, elem)?;
            self.store_elem(b, loc, self.val(s.value(m))?, addr, elem)?;
            return Ok(());
        }
        if let Some(l) = m.dyn_cast::<LoadVecOp>(op) {
            let outs = l.values(m).to_vec();
            let elem = m.value_type(outs[0]);
            let w = outs.len();
            let addr = self.gep(b, loc, self.val(l.ptr(m))?, self.val(l.index(m))?, elem)?;
            let vt = bridge::parse_type(self.cx, &format!("vector<{w}x{}>", self.llvm_elem(elem)?))?;
            let bytes = w * morf_gpu::types::elem_bytes(m, elem);
            let mut attrs =
                vec![("ordering", self.attr("0 : i64")?), ("alignment", self.attr(&format!("{bytes} : i64"))?)];
            if l.nc(m).is_some() {
                attrs.push(("invariant", melior::ir::Attribute::unit(self.cx)));
            }
            let vec = self.op1(b, "llvm.load", loc, &[addr], vt, &attrs)?;
            for (i, r) in outs.iter().enumerate() {
                let c = self.i32_const(b, loc, i as i64)?;
                let e = self.op1(b, "llvm.extractelement", loc, &[vec, c], self.llvm_elem(elem)?, &[])?;
                let e = if matches!(m.type_data(elem), TypeData::Index) {
                    self.op1(b, "arith.index_cast", loc, &[e], Type::index(self.cx), &[])?
                } else {
                    e
                };
                self.bind(*r, e);
            }
            return Ok(());
        }
        if let Some(s) = m.dyn_cast::<StoreVecOp>(op) {
            let vals = s.values(m).to_vec();
            let elem = m.value_type(vals[0]);
            let w = vals.len();
            let addr = self.gep(b, loc, self.val(s.ptr(m))?, self.val(s.index(m))?, elem)?;
            let vt = bridge::parse_type(self.cx, &format!("vector<{w}x{}>", self.llvm_elem(elem)?))?;
            let mut vec = self.op1(b, "llvm.mlir.poison", loc, &[], vt, &[])?;
            for (i, v) in vals.iter().enumerate() {
                let x = self.val(*v)?;
                let x = if matches!(m.type_data(elem), TypeData::Index) { self.to_i64(b, loc, x)? } else { x };
                let c = self.i32_const(b, loc, i as i64)?;
                vec = self.op1(b, "llvm.insertelement", loc, &[vec, x, c], vt, &[])?;
            }
            let bytes = w * morf_gpu::types::elem_bytes(m, elem);
            let attrs = [("ordering", self.attr("0 : i64")?), ("alignment", self.attr(&format!("{bytes} : i64"))?)];
            self.op(b, "llvm.store", loc, &[vec, addr], &[], &attrs, 0)?;
            return Ok(());
        }
        if let Some(a) = m.dyn_cast::<AtomicRmwOp>(op) {
            let elem = m.value_type(a.value(m));
            let float = m.is_float(elem);
            let kind = a.kind(m).ok_or("has no 'kind'")?;
            let code = match (kind, float) {
                ("add", true) => ATOMIC_FADD,
                ("max", true) => ATOMIC_FMAXIMUM,
                ("min", true) => ATOMIC_FMINIMUM,
                ("add", false) => ATOMIC_ADD,
                ("max", false) => ATOMIC_MAX,
                ("min", false) => ATOMIC_MIN,
                _ => return Err(format!("has an unknown kind '{kind}'")),
            };
            let addr = self.gep(b, loc, self.val(a.ptr(m))?, self.val(a.index(m))?, elem)?;
            let mut v = self.val(a.value(m))?;
            if !float {
                v = self.to_i64(b, loc, v)?;
            }
            let attrs = [
                ("bin_op", self.attr(&format!("{code} : i64"))?),
                ("ordering", self.attr(&format!("{MONOTONIC} : i64"))?),
                ("syncscope", self.attr("\"device\"")?),
            ];
            let mut old = self.op1(b, "llvm.atomicrmw", loc, &[addr, v], self.llvm_elem(elem)?, &attrs)?;
            if !float {
                old = self.op1(b, "arith.index_cast", loc, &[old], Type::index(self.cx), &[])?;
            }
            self.bind_result(op, old);
            return Ok(());
        }
        if let Some(s) = m.dyn_cast::<SharedAllocOp>(op) {
            let size = s.size(m).ok_or("has no 'size'")?;
            let (elem, _) =
                morf_gpu::ptr_parts(m, m.value_type(s.ptr(m))).ok_or("has a result that is not a pointer")?;
            let sym = format!("__morf_smem_{}_{}", self.kernel_name, self.next_symbol);
            self.next_symbol += 1;
            let ty = format!("!llvm.array<{size} x {}>", self.llvm_elem(elem)?);
            self.llvm_global(loc, &sym, &ty, 3, 16, "internal", None)?;
            let v = self.address_of(b, loc, &sym, 3)?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(c) = m.dyn_cast::<CopyAsyncOp>(op) {
            let width = c.width(m).ok_or("has no 'width'")?;
            let (elem, _) = morf_gpu::ptr_parts(m, m.value_type(c.src(m))).ok_or("copies from a non-pointer")?;
            // `width` counts elements; cp.async copies 4, 8 or 16 bytes.
            let width = width * morf_gpu::types::elem_bytes(m, elem) as i64;
            let dst = self.gep(b, loc, self.val(c.dst(m))?, self.val(c.dst_index(m))?, elem)?;
            let src = self.gep(b, loc, self.val(c.src(m))?, self.val(c.src_index(m))?, elem)?;
            // cp.async.cg (L2 only) exists for 16 bytes only; smaller copies use .ca.
            let cache = if width == 16 { "cg" } else { "ca" };
            let attrs = [
                ("size", self.attr(&format!("{width} : i32"))?),
                ("modifier", self.attr(&format!("#nvvm<load_cache_modifier {cache}>"))?),
            ];
            self.op(b, "nvvm.cp.async.shared.global", loc, &[dst, src], &[], &attrs, 0)?;
            return Ok(());
        }
        if let Some(s) = m.dyn_cast::<ShuffleOp>(op) {
            let mode = s.mode(m).ok_or("has no 'mode'")?;
            let v = self.val(s.value(m))?;
            let off = self.val(s.offset(m))?;
            let i32t = bridge::parse_type(self.cx, "i32")?;
            let off = self.op1(b, "arith.index_cast", loc, &[off], i32t, &[])?;
            let r = self.shuffle(b, loc, mode, v, off, m.value_type(s.value(m)))?;
            self.bind_result(op, r);
            return Ok(());
        }
        if let Some(w) = m.dyn_cast::<WarpReduceOp>(op) {
            let kind = w.kind(m).ok_or("has no 'kind'")?;
            let f = match kind {
                "sum" => BinaryFn::Add,
                "max" => BinaryFn::Max,
                "min" => BinaryFn::Min,
                _ => return Err(format!("has an unknown kind '{kind}'")),
            };
            let t = m.value_type(w.value(m));
            let width = w.width(m).ok_or("has a 'width' other than 1, 2, 4, 8, 16 or 32")?;
            if (2..32).contains(&width) {
                // gpu.shuffle's width names lanes 0..width-1 of the warp, not each aligned
                // group of that many lanes: no faithful form for the groups past the first.
                return Err(format!(
                    "reduces over groups of {width} lanes, which gpu.shuffle cannot name (its width is the warp's first lanes); lower with threads-per-row=32 to export it"
                ));
            }
            let mut v = self.val(w.value(m))?;
            for off in [16i64, 8, 4, 2, 1].into_iter().filter(|&k| k < i64::from(width)) {
                let c = self.i32_const(b, loc, off)?;
                let o = self.shuffle(b, loc, "xor", v, c, t)?;
                v = self.binary(b, loc, f, v, o, t)?;
            }
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(i) = m.dyn_cast::<IfOp>(op) {
            let cond = self.val(i.condition(m))?;
            let rtys: Vec<morf_ir::Type> = m.results(op).iter().map(|r| m.value_type(*r)).collect();
            let tys = rtys.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>()?;
            let s = self.op(b, "scf.if", loc, &[cond], &tys, &[], 2)?;
            for (k, region) in m.regions(op).to_vec().into_iter().enumerate() {
                if let Some(entry) = m.entry_block(region) {
                    let blk = bridge::add_block(s, k, &[], loc);
                    let r = self.block(entry, blk);
                    self.nest(r)?;
                }
            }
            for (k, r) in m.results(op).to_vec().into_iter().enumerate() {
                self.bind(r, bridge::result(s, k));
            }
            return Ok(());
        }
        if let Some(w) = m.dyn_cast::<WorkLoopOp>(op) {
            return self.work_loop(b, loc, w);
        }
        if let Some(l) = m.dyn_cast::<LaunchOp>(op) {
            return self.launch(b, loc, l);
        }
        if let Some(r) = m.dyn_cast::<ResidentBlocksOp>(op) {
            return self.resident_blocks(b, loc, r);
        }
        Err("cannot be exported to MLIR (no mapping for this op)".into())
    }

    /// `gpu.shuffle <mode> v, offset, 32` (the value; the validity bit is dropped: morf's
    /// shuffles always use the full warp). An `index` value is shuffled as `i64`.
    fn shuffle(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        mode: &str,
        v: MlirValue,
        off: MlirValue,
        t: morf_ir::Type,
    ) -> SResult<MlirValue> {
        let width = self.i32_const(b, loc, 32)?;
        let is_index = matches!(self.m.type_data(t), TypeData::Index);
        let v = if is_index { self.to_i64(b, loc, v)? } else { v };
        let vt = self.llvm_elem(t)?;
        let s = self.op(
            b,
            "gpu.shuffle",
            loc,
            &[v, off, width],
            &[vt, self.ty_i1()?],
            &[("mode", self.attr(&format!("#gpu<shuffle_mode {mode}>"))?)],
            0,
        )?;
        let r = bridge::result(s, 0);
        if is_index {
            self.op1(b, "arith.index_cast", loc, &[r], Type::index(self.cx), &[])
        } else {
            Ok(r)
        }
    }

    /// `gpu.thread_id x == 0` at the end of `b`: whether this thread runs its block's part of a
    /// grid protocol.
    fn is_thread0(&mut self, b: MlirBlock, loc: Location<'c>) -> SResult<MlirValue> {
        let i1 = self.ty_i1()?;
        let tid = self.gpu_id(b, loc, "gpu.thread_id")?;
        let zero = self.index_const(b, 0)?;
        let eq = self.attr("0 : i64")?;
        self.op1(b, "arith.cmpi", loc, &[tid, zero], i1, &[("predicate", eq)])
    }

    /// `scf.if (gpu.thread_id x == 0)` at the end of `b`; returns its `then` block (the caller
    /// ends it with `scf.yield`): the part of a grid protocol that thread 0 runs for its block.
    fn thread0_block(&mut self, b: MlirBlock, loc: Location<'c>) -> SResult<MlirBlock> {
        let first = self.is_thread0(b, loc)?;
        let sif = self.op(b, "scf.if", loc, &[first], &[], &[], 2)?;
        Ok(bridge::add_block(sif, 0, &[], loc))
    }

    /// `llvm.atomicrmw add` of `inc` to `*ptr` at device scope, relaxed (monotonic): a grid
    /// protocol's counter; returns the old value, of type `ty`.
    fn device_atomic_add(
        &mut self,
        b: MlirBlock,
        loc: Location<'c>,
        ptr: MlirValue,
        inc: MlirValue,
        ty: Type<'c>,
    ) -> SResult<MlirValue> {
        let rmw = [
            ("bin_op", self.attr(&format!("{ATOMIC_ADD} : i64"))?),
            ("ordering", self.attr(&format!("{MONOTONIC} : i64"))?),
            ("syncscope", self.attr("\"device\"")?),
        ];
        self.op1(b, "llvm.atomicrmw", loc, &[ptr, inc], ty, &rmw)
    }

    /// The grid barrier: thread 0 of each block adds `2^31 - (G - 1)` (block 0) or 1 to the
    /// kernel's counter and spins until its top bit flips, between block barriers and
    /// device-scope fences (the protocol of morf's PTX emitter).
    fn grid_barrier(&mut self, b: MlirBlock, loc: Location<'c>) -> SResult<()> {
        let sym = format!("{}_grid_barrier", self.kernel_name);
        if !self.grid_counters.contains(&sym) {
            self.llvm_global(loc, &sym, "i32", 1, 4, "internal", Some("0 : i32"))?;
            self.grid_counters.push(sym.clone());
        }
        let i32t = bridge::parse_type(self.cx, "i32")?;
        let i1 = self.ty_i1()?;
        self.op(b, "gpu.barrier", loc, &[], &[], &[], 0)?;
        let t = self.thread0_block(b, loc)?;
        let bid = self.gpu_id(t, loc, "gpu.block_id")?;
        let gdim = self.gpu_id(t, loc, "gpu.grid_dim")?;
        let g32 = self.op1(t, "arith.index_cast", loc, &[gdim], i32t, &[])?;
        let magic = self.i32_const(t, loc, 0x8000_0001u32 as i32 as i64)?;
        let one = self.i32_const(t, loc, 1)?;
        let lead_inc = self.op1(t, "arith.subi", loc, &[magic, g32], i32t, &[])?;
        let zero_t = self.index_const(t, 0)?;
        let is0 = self.op1(t, "arith.cmpi", loc, &[bid, zero_t], i1, &[("predicate", self.attr("0 : i64")?)])?;
        let inc = self.op1(t, "arith.select", loc, &[is0, lead_inc, one], i32t, &[])?;
        let ctr = self.address_of(t, loc, &sym, 1)?;
        let fence = [("ordering", self.attr(&format!("{ACQ_REL} : i64"))?), ("syncscope", self.attr("\"device\"")?)];
        self.op(t, "llvm.fence", loc, &[], &[], &fence, 0)?;
        let old = self.device_atomic_add(t, loc, ctr, inc, i32t)?;
        // while ((load(ctr) ^ old) >= 0) {}  (the top bit has not flipped)
        let w = self.op(t, "scf.while", loc, &[], &[], &[], 2)?;
        let before = bridge::add_block(w, 0, &[], loc);
        let ld = [
            ("ordering", self.attr(&format!("{MONOTONIC} : i64"))?),
            ("syncscope", self.attr("\"device\"")?),
            ("alignment", self.attr("4 : i64")?),
        ];
        let cur = self.op1(before, "llvm.load", loc, &[ctr], i32t, &ld)?;
        let x = self.op1(before, "arith.xori", loc, &[cur, old], i32t, &[])?;
        let z = self.i32_const(before, loc, 0)?;
        let sge = self.attr("5 : i64")?;
        let same = self.op1(before, "arith.cmpi", loc, &[x, z], i1, &[("predicate", sge)])?;
        self.op(before, "scf.condition", loc, &[same], &[], &[], 0)?;
        let after = bridge::add_block(w, 1, &[], loc);
        self.op(after, "scf.yield", loc, &[], &[], &[], 0)?;
        self.op(t, "llvm.fence", loc, &[], &[], &fence, 0)?;
        self.op(t, "scf.yield", loc, &[], &[], &[], 0)?;
        self.op(b, "gpu.barrier", loc, &[], &[], &[], 0)?;
        Ok(())
    }

    /// `mgpu.work_loop %s to %n`: `scf.while` from `gpu.block_id` while `%s < %n`; thread 0
    /// takes a ticket (`llvm.atomicrmw add` on the kernel's `i64` counter at device scope,
    /// relaxed), then the body runs in an `scf.execute_region`, then thread 0 stores the ticket
    /// to a shared `i64` and, at the launch's last ticket (`%n - 1`), sets the counter back to
    /// 0; the block reads the ticket between two `gpu.barrier`s and goes on at `gpu.grid_dim +
    /// ticket` (the protocol of morf's PTX emitter).
    fn work_loop(&mut self, b: MlirBlock, loc: Location<'c>, w: WorkLoopOp) -> SResult<()> {
        let m = self.m;
        let (count, slot) = (format!("{}_work_count", self.kernel_name), format!("{}_work_ticket", self.kernel_name));
        if !self.grid_counters.contains(&count) {
            self.llvm_global(loc, &count, "i64", 1, 8, "internal", Some("0 : i64"))?;
            self.llvm_global(loc, &slot, "i64", 3, 8, "internal", None)?;
            self.grid_counters.push(count.clone());
        }
        let idx = Type::index(self.cx);
        let i64t = bridge::parse_type(self.cx, "i64")?;
        let i1 = self.ty_i1()?;
        let ub = self.val(w.upper_bound(m))?;
        let first = self.gpu_id(b, loc, "gpu.block_id")?;
        let wl = self.op(b, "scf.while", loc, &[first], &[idx], &[], 2)?;
        let before = bridge::add_block(wl, 0, &[idx], loc);
        let s = bridge::block_arg(before, 0);
        let slt = self.attr("2 : i64")?;
        let more = self.op1(before, "arith.cmpi", loc, &[s, ub], i1, &[("predicate", slt)])?;
        self.op(before, "scf.condition", loc, &[more, s], &[], &[], 0)?;
        let after = bridge::add_block(wl, 1, &[idx], loc);
        let entry = m.entry_block(w.body(m)).ok_or("has no body")?;
        let iv = m.block_args(entry)[0];
        let arg = bridge::block_arg(after, 0);
        self.bind(iv, arg);
        self.name_value(iv, arg);
        // The ticket of the block's next iteration, taken by thread 0 before this one's body
        // (an `scf.if` yielding it, 0 elsewhere) and handed over after it, as morf's PTX
        // emitter does: the atomic's round trip runs under the body.
        let first = self.is_thread0(after, loc)?;
        let tif = self.op(after, "scf.if", loc, &[first], &[i64t], &[], 2)?;
        let tt = bridge::add_block(tif, 0, &[], loc);
        let ctr = self.address_of(tt, loc, &count, 1)?;
        let one = self.op1(tt, "arith.constant", loc, &[], i64t, &[("value", self.attr("1 : i64")?)])?;
        let taken = self.device_atomic_add(tt, loc, ctr, one, i64t)?;
        self.op(tt, "scf.yield", loc, &[taken], &[], &[], 0)?;
        let te = bridge::add_block(tif, 1, &[], loc);
        let none = self.op1(te, "arith.constant", loc, &[], i64t, &[("value", self.attr("0 : i64")?)])?;
        self.op(te, "scf.yield", loc, &[none], &[], &[], 0)?;
        let ticket = bridge::result(tif, 0);
        let er = self.op(after, "scf.execute_region", loc, &[], &[], &[], 1)?;
        let eb = bridge::add_block(er, 0, &[], loc);
        let r = self.block(entry, eb);
        self.nest(r)?;
        let t = self.thread0_block(after, loc)?;
        let ctr = self.address_of(t, loc, &count, 1)?;
        let one = self.op1(t, "arith.constant", loc, &[], i64t, &[("value", self.attr("1 : i64")?)])?;
        let sp = self.address_of(t, loc, &slot, 3)?;
        let st = [("ordering", self.attr("0 : i64")?), ("alignment", self.attr("8 : i64")?)];
        self.op(t, "llvm.store", loc, &[ticket, sp], &[], &st, 0)?;
        let ub64 = self.op1(t, "arith.index_cast", loc, &[ub], i64t, &[])?;
        let last = self.op1(t, "arith.subi", loc, &[ub64, one], i64t, &[])?;
        let is_last = self.op1(t, "arith.cmpi", loc, &[ticket, last], i1, &[("predicate", self.attr("0 : i64")?)])?;
        let rif = self.op(t, "scf.if", loc, &[is_last], &[], &[], 2)?;
        let rt = bridge::add_block(rif, 0, &[], loc);
        let z = self.op1(rt, "arith.constant", loc, &[], i64t, &[("value", self.attr("0 : i64")?)])?;
        let reset = [
            ("ordering", self.attr(&format!("{MONOTONIC} : i64"))?),
            ("syncscope", self.attr("\"device\"")?),
            ("alignment", self.attr("8 : i64")?),
        ];
        self.op(rt, "llvm.store", loc, &[z, ctr], &[], &reset, 0)?;
        self.op(rt, "scf.yield", loc, &[], &[], &[], 0)?;
        self.op(t, "scf.yield", loc, &[], &[], &[], 0)?;
        self.op(after, "gpu.barrier", loc, &[], &[], &[], 0)?;
        let sp = self.address_of(after, loc, &slot, 3)?;
        let ld = [("ordering", self.attr("0 : i64")?), ("alignment", self.attr("8 : i64")?)];
        let got = self.op1(after, "llvm.load", loc, &[sp], i64t, &ld)?;
        self.op(after, "gpu.barrier", loc, &[], &[], &[], 0)?;
        let g = self.gpu_id(after, loc, "gpu.grid_dim")?;
        let gi = self.op1(after, "arith.index_cast", loc, &[got], idx, &[])?;
        let next = self.op1(after, "arith.addi", loc, &[g, gi], idx, &[])?;
        self.op(after, "scf.yield", loc, &[next], &[], &[], 0)?;
        Ok(())
    }

    /// `mgpu.resident_blocks @k threads(%t) shared(%s)` as a call of a private declaration,
    /// `func.func private @__morf_resident_blocks_N(index, index) -> index` with
    /// `morf.kernel = @morf_kernels::@k`: upstream MLIR has no occupancy query, so the runtime
    /// that runs the exported module provides it (the CTAs of the kernel the device holds at
    /// once at that CTA size and dynamic shared memory).
    fn resident_blocks(&mut self, b: MlirBlock, loc: Location<'c>, r: ResidentBlocksOp) -> SResult<()> {
        let m = self.m;
        let kname = r.kernel(m).ok_or("has no 'kernel'")?.to_string();
        let args = [self.val(r.threads(m))?, self.val(r.shared(m))?];
        let kernel = self.attr(&format!("@{GPU_MODULE}::@{kname}"))?;
        let c = self.call_runtime_hook(b, loc, "__morf_resident_blocks", &args, ("morf.kernel", kernel))?;
        self.bind_result(r.0, c);
        Ok(())
    }

    /// `mgpu.launch` as `gpu.launch_func @morf_kernels::@k`: 1-D grid and block, the dynamic
    /// shared memory as `i32`, buffers passed as `!llvm.ptr<1>` to their first element.
    fn launch(&mut self, b: MlirBlock, loc: Location<'c>, l: LaunchOp) -> SResult<()> {
        let m = self.m;
        let kernel = m.attr(l.0, "kernel").ok_or("has no 'kernel'")?;
        let kname = m.attr_to_string(kernel);
        let kname = kname.trim_start_matches('@');
        let one = self.index_const(b, 1)?;
        let blocks = self.val(l.blocks(m))?;
        let threads = self.val(l.threads(m))?;
        let shared = self.val(l.shared(m))?;
        let i32t = bridge::parse_type(self.cx, "i32")?;
        let shared = self.op1(b, "arith.index_cast", loc, &[shared], i32t, &[])?;
        let mut args = Vec::new();
        for a in l.args(m).to_vec() {
            let v = self.val(a)?;
            if morf_loop::is_buffer(m, m.value_type(a)) {
                let idx = Type::index(self.cx);
                let p = self.op1(b, "memref.extract_aligned_pointer_as_index", loc, &[v], idx, &[])?;
                let p = self.to_i64(b, loc, p)?;
                let pt = bridge::parse_type(self.cx, "!llvm.ptr<1>")?;
                args.push(self.op1(b, "llvm.inttoptr", loc, &[p], pt, &[])?);
            } else {
                args.push(v);
            }
        }
        let mut ops = vec![blocks, one, one, threads, one, one, shared];
        ops.extend(args.iter().copied());
        let mut attrs = vec![
            ("kernel", self.attr(&format!("@{GPU_MODULE}::@{kname}"))?),
            (
                "operandSegmentSizes",
                self.attr(&format!("array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, {}, 0>", args.len()))?,
            ),
        ];
        let cooperative = morf_ir::builtin::lookup_function(m, self.morf_module, kname)
            .or_else(|| {
                let mut found = None;
                m.walk(self.morf_module, &mut |o| {
                    if m.isa::<FuncOp>(o) && FuncOp(o).sym_name(m) == Some(kname) {
                        found = Some(o);
                    }
                });
                found
            })
            .is_some_and(|k| m.isa::<FuncOp>(k) && FuncOp(k).cooperative(m).is_some());
        if cooperative {
            attrs.push(("morf.cooperative", melior::ir::Attribute::unit(self.cx)));
        }
        self.op(b, "gpu.launch_func", loc, &ops, &[], &attrs, 0)?;
        Ok(())
    }
}
