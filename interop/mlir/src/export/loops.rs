//! `mloop` to `scf`, `memref` and `arith`.
//!
//! Buffers are `memref`s of the same shape; `mloop.for` is `scf.for`, `mloop.parallel` an
//! `scf.parallel` without reductions and `mloop.reduce` an `scf.parallel` with one reduction
//! (its combiner in the `scf.reduce` region); loads, stores, `dim`, `alloc` and `dealloc` are
//! their `memref` counterparts, `accumulate` a load, combine and store (`memref.atomic_rmw`
//! when it is marked `atomic`), `fill` an `scf.parallel` of stores, `constant_buffer` a
//! private constant `memref.global` copied into a fresh buffer. Scalar ops are `arith` and
//! `math` ([`super::scalar`]); `mloop.rem` expands to the floor remainder. Attributes of the
//! loops that MLIR does not define (`morf.kernel`, `mapping`, ...) are kept as discardable
//! attributes, those without a dialect prefix as `morf.<name>`.

use melior::ir::{Location, Type};
use mlir_sys::{MlirBlock, MlirOperation, MlirValue};
use morf_ir::interfaces::{elementwise, BinaryFn, CmpPredicate, Elementwise};
use morf_ir::{Diagnostic, Dim, OpId, TypeData};
use morf_loop::ops::{
    AccumulateOp, AllocOp, ConstantBufferOp, ConstantOp, DeallocOp, DimOp, FillOp, ForOp, LoadOp, ParallelOp, ReduceOp,
    ResidentProgramsOp, StoreOp,
};

use super::scalar::float_text;
use super::{Exporter, SResult};
use crate::bridge;

/// The `memref.atomic_rmw` kind (its enum value) of an accumulation on floats.
fn atomic_kind(kind: &str) -> Option<(i64, BinaryFn)> {
    // arith::AtomicRMWKind in LLVM 22: addf = 0, maximumf = 4, minimumf = 8, mulf = 12.
    Some(match kind {
        "sum" => (0, BinaryFn::Add),
        "max" => (4, BinaryFn::Max),
        "min" => (8, BinaryFn::Min),
        "prod" => (12, BinaryFn::Mul),
        _ => return None,
    })
}

/// The binary function of a reduction or accumulation kind.
fn combine(kind: &str) -> Option<BinaryFn> {
    atomic_kind(kind).map(|(_, f)| f)
}

impl<'c> Exporter<'c, '_> {
    /// Exports an `mloop` op.
    pub(super) fn loop_op(&mut self, op: OpId, b: MlirBlock) -> Result<(), Diagnostic> {
        let r = self.loop_op_inner(op, b);
        r.map_err(|e| self.fail(op, e))
    }

    /// The discardable attributes of a morf loop op that MLIR does not define, renamed
    /// `morf.<name>` unless they have a dialect prefix.
    fn extra_attrs(&self, op: OpId, inherent: &[&str]) -> SResult<Vec<(String, melior::ir::Attribute<'c>)>> {
        let mut out = Vec::new();
        for (k, v) in self.m.attrs(op) {
            let name = self.m.str(*k);
            if inherent.contains(&name) {
                continue;
            }
            let name = if name.contains('.') { name.to_string() } else { format!("morf.{name}") };
            out.push((name, self.attr(&self.m.attr_to_string(*v))?));
        }
        Ok(out)
    }

    /// Appends an op with attributes given by owned names (see [`Exporter::op`]).
    #[allow(clippy::too_many_arguments)]
    fn op_owned(
        &self,
        b: MlirBlock,
        name: &str,
        loc: Location<'c>,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attrs: &[(String, melior::ir::Attribute<'c>)],
        regions: usize,
    ) -> SResult<MlirOperation> {
        let a: Vec<(&str, melior::ir::Attribute<'c>)> = attrs.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        self.op(b, name, loc, operands, results, &a, regions)
    }

    /// Binds the entry block's arguments of `op`'s region 0 to those of MLIR block `blk` and
    /// exports the body.
    fn body(&mut self, op: OpId, blk: MlirBlock) -> Result<(), Diagnostic> {
        let region = self.m.regions(op)[0];
        let entry = self.m.entry_block(region).ok_or_else(|| self.err(op, "has an empty body"))?;
        for (i, a) in self.m.block_args(entry).to_vec().into_iter().enumerate() {
            let arg = bridge::block_arg(blk, i);
            self.bind(a, arg);
            self.name_value(a, arg);
        }
        self.block(entry, blk)
    }

    fn loop_op_inner(&mut self, op: OpId, b: MlirBlock) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let name = m.op_name(op);
        if let Some(ew) = elementwise(m, op) {
            let xs = self.vals(m.operands(op))?;
            let rt = m.value_type(m.result(op, 0));
            let it = m.value_type(m.operand(op, 0));
            let ty = self.ty(rt)?;
            let v = match ew {
                Elementwise::Unary(f) => self.unary(b, loc, f, xs[0], ty)?,
                Elementwise::Binary(f) => self.binary(b, loc, f, xs[0], xs[1], rt)?,
                Elementwise::Cmp(p) => self.cmp(b, loc, p, xs[0], xs[1], it)?,
                Elementwise::Select => self.select(b, loc, xs[0], xs[1], xs[2], ty)?,
                Elementwise::Convert => self.convert(b, loc, xs[0], it, rt)?,
            };
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(c) = m.dyn_cast::<ConstantOp>(op) {
            let value = c.value(m).ok_or("has no 'value'")?;
            let rt = m.value_type(c.result(m));
            if let (TypeData::Index, Some(n)) = (m.type_data(rt), m.attr_int(value)) {
                // One constant per block and value, shared with the export's own.
                let v = self.index_const(b, n)?;
                self.bind_result(op, v);
                return Ok(());
            }
            let text = match (m.type_data(rt), m.attr_data(value)) {
                (TypeData::Float(_), _) => {
                    float_text(m.attr_float(value).ok_or("has a non-float 'value'")?, &m.type_to_string(rt))
                }
                (TypeData::Integer(1), morf_ir::AttrData::Bool(v)) => v.to_string(),
                (TypeData::Integer(1), _) => (m.attr_int(value).unwrap_or(0) != 0).to_string(),
                _ => format!("{} : {}", m.attr_int(value).ok_or("has a non-integer 'value'")?, m.type_to_string(rt)),
            };
            let a = self.attr(&text)?;
            let v = self.op1(b, "arith.constant", loc, &[], self.ty(rt)?, &[("value", a)])?;
            self.bind_result(op, v);
            return Ok(());
        }
        if name == "mloop.rem" {
            let xs = self.vals(m.operands(op))?;
            let v = self.floor_rem(b, loc, xs[0], xs[1])?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(d) = m.dyn_cast::<DimOp>(op) {
            let src = self.val(d.source(m))?;
            let i = d.index(m).ok_or("has no 'index'")?;
            let v = self.dim(b, src, i as usize, true)?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(a) = m.dyn_cast::<AllocOp>(op) {
            let sizes = self.vals(a.sizes(m))?;
            let seg = self.attr(&format!("array<i32: {}, 0>", sizes.len()))?;
            let v = self.op1(
                b,
                "memref.alloc",
                loc,
                &sizes,
                self.ty(m.value_type(a.buffer(m)))?,
                &[("operandSegmentSizes", seg)],
            )?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(c) = m.dyn_cast::<ConstantBufferOp>(op) {
            return self.constant_buffer(op, b, c);
        }
        if let Some(d) = m.dyn_cast::<DeallocOp>(op) {
            let x = self.val(d.buffer(m))?;
            self.op(b, "memref.dealloc", loc, &[x], &[], &[], 0)?;
            return Ok(());
        }
        if let Some(l) = m.dyn_cast::<LoadOp>(op) {
            let mut ops = vec![self.val(l.buffer(m))?];
            ops.extend(self.vals(l.indices(m))?);
            let v = self.op1(b, "memref.load", loc, &ops, self.ty(m.value_type(l.value(m)))?, &[])?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(s) = m.dyn_cast::<StoreOp>(op) {
            let mut ops = vec![self.val(s.value(m))?, self.val(s.buffer(m))?];
            ops.extend(self.vals(s.indices(m))?);
            self.op(b, "memref.store", loc, &ops, &[], &[], 0)?;
            return Ok(());
        }
        if let Some(a) = m.dyn_cast::<AccumulateOp>(op) {
            let kind = a.kind(m).ok_or("has no 'kind'")?;
            let (code, f) = atomic_kind(kind).ok_or_else(|| format!("has an unknown kind '{kind}'"))?;
            let v = self.val(a.value(m))?;
            let buf = self.val(a.buffer(m))?;
            let idx = self.vals(a.indices(m))?;
            let et = m.value_type(a.value(m));
            if m.attr(op, "atomic").is_some() {
                if !m.is_float(et) {
                    return Err("is atomic on a non-float element, which the export does not map".into());
                }
                let mut ops = vec![v, buf];
                ops.extend(idx);
                let k = self.attr(&format!("{code} : i64"))?;
                self.op(b, "memref.atomic_rmw", loc, &ops, &[self.ty(et)?], &[("kind", k)], 0)?;
            } else {
                let mut lops = vec![buf];
                lops.extend(idx.iter().copied());
                let old = self.op1(b, "memref.load", loc, &lops, self.ty(et)?, &[])?;
                let new = self.binary(b, loc, f, old, v, et)?;
                let mut sops = vec![new, buf];
                sops.extend(idx);
                self.op(b, "memref.store", loc, &sops, &[], &[], 0)?;
            }
            return Ok(());
        }
        if let Some(f) = m.dyn_cast::<FillOp>(op) {
            let v = self.val(f.value(m))?;
            let buf = self.val(f.buffer(m))?;
            let shape = m.shape_of(m.value_type(f.buffer(m))).unwrap_or(&[]).to_vec();
            return self.fill_buffer(b, loc, v, buf, &shape);
        }
        if let Some(f) = m.dyn_cast::<ForOp>(op) {
            let mut ops = vec![self.val(f.lower_bound(m))?, self.val(f.upper_bound(m))?, self.val(f.step(m))?];
            ops.extend(self.vals(f.inits(m))?);
            let rtys: Vec<morf_ir::Type> = f.outputs(m).iter().map(|r| m.value_type(*r)).collect();
            let tys = rtys.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>()?;
            let attrs = self.extra_attrs(op, &[])?;
            let s = self.op_owned(b, "scf.for", loc, &ops, &tys, &attrs, 1)?;
            let mut arg_tys = vec![Type::index(self.cx)];
            arg_tys.extend(tys.iter().copied());
            let blk = bridge::add_block(s, 0, &arg_tys, loc);
            let r = self.body(op, blk);
            self.nest(r)?;
            for (i, r) in f.outputs(m).to_vec().into_iter().enumerate() {
                self.bind(r, bridge::result(s, i));
            }
            return Ok(());
        }
        if let Some(p) = m.dyn_cast::<ParallelOp>(op) {
            let bounds = self.vals(p.bounds(m))?;
            let k = bounds.len() / 3;
            let mut attrs = self.extra_attrs(op, &[])?;
            attrs.push(("operandSegmentSizes".into(), self.attr(&format!("array<i32: {k}, {k}, {k}, 0>"))?));
            let s = self.op_owned(b, "scf.parallel", loc, &bounds, &[], &attrs, 1)?;
            let blk = bridge::add_block(s, 0, &vec![Type::index(self.cx); k], loc);
            let r = self.body(op, blk);
            self.nest(r)?;
            return Ok(());
        }
        if let Some(r) = m.dyn_cast::<ReduceOp>(op) {
            let all = self.vals(r.bounds_and_init(m))?;
            let k = (all.len() - 1) / 3;
            let mut attrs = self.extra_attrs(op, &["kind"])?;
            attrs.push(("operandSegmentSizes".into(), self.attr(&format!("array<i32: {k}, {k}, {k}, 1>"))?));
            let rt = self.ty(m.value_type(r.result(m)))?;
            let s = self.op_owned(b, "scf.parallel", loc, &all, &[rt], &attrs, 1)?;
            let blk = bridge::add_block(s, 0, &vec![Type::index(self.cx); k], loc);
            let r = self.body(op, blk);
            self.nest(r)?;
            self.bind_result(op, bridge::result(s, 0));
            return Ok(());
        }
        if name == "mloop.yield" {
            return self.yield_op(op, b);
        }
        if let Some(r) = m.dyn_cast::<ResidentProgramsOp>(op) {
            return self.resident_programs(b, loc, r);
        }
        Err("cannot be exported to MLIR (no mapping for this op)".into())
    }

    /// `mloop.resident_programs {assumed = N}` as a call of a private declaration,
    /// `func.func private @__morf_resident_programs_K() -> index` with `morf.assumed = N`: the
    /// number is bound by a later GPU lowering, which upstream MLIR does not have, so whoever
    /// runs the exported module provides it (morf's interpreter answers `assumed`).
    fn resident_programs(&mut self, b: MlirBlock, loc: Location<'c>, r: ResidentProgramsOp) -> SResult<()> {
        let assumed = r.assumed(self.m).ok_or("has no 'assumed'")?;
        let a = self.attr(&format!("{assumed} : i64"))?;
        let c = self.call_runtime_hook(b, loc, "__morf_resident_programs", &[], ("morf.assumed", a))?;
        self.bind_result(r.0, c);
        Ok(())
    }

    /// `mloop.yield`: `scf.yield` in a for, `scf.reduce` in a parallel (with the combiner
    /// region in a reduce).
    fn yield_op(&mut self, op: OpId, b: MlirBlock) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let parent = m.parent_op(op).ok_or("is outside a loop")?;
        let vs = self.vals(m.operands(op))?;
        match m.op_name(parent) {
            "mloop.for" => {
                self.op(b, "scf.yield", loc, &vs, &[], &[], 0)?;
            }
            "mloop.parallel" => {
                self.op(b, "scf.reduce", loc, &[], &[], &[], 0)?;
            }
            "mloop.reduce" => {
                let kind = m.attr(parent, "kind").and_then(|a| m.attr_str(a)).ok_or("has a parent without 'kind'")?;
                let f = combine(kind).ok_or_else(|| format!("has an unknown combiner '{kind}'"))?;
                let t = m.value_type(m.operand(op, 0));
                let ty = self.ty(t)?;
                let red = self.op(b, "scf.reduce", loc, &vs, &[], &[], 1)?;
                let cb = bridge::add_block(red, 0, &[ty, ty], loc);
                let r = self.binary(cb, loc, f, bridge::block_arg(cb, 0), bridge::block_arg(cb, 1), t)?;
                self.op(cb, "scf.reduce.return", loc, &[r], &[], &[], 0)?;
            }
            other => return Err(format!("has a parent '{other}' the export does not map")),
        }
        Ok(())
    }

    /// The floor remainder of `a` by `b` (sign of the divisor), as morf's `rem`.
    fn floor_rem(&mut self, b: MlirBlock, loc: Location<'c>, x: MlirValue, y: MlirValue) -> SResult<MlirValue> {
        let idx = Type::index(self.cx);
        let i1 = self.ty_i1()?;
        let r = self.op1(b, "arith.remsi", loc, &[x, y], idx, &[])?;
        let zero = self.index_const(b, 0)?;
        let lt = |p: CmpPredicate| crate::export::scalar::cmpi_predicate(p).0;
        let slt = self.attr(&format!("{} : i64", lt(CmpPredicate::Lt)))?;
        let ne = self.attr(&format!("{} : i64", lt(CmpPredicate::Ne)))?;
        let rn = self.op1(b, "arith.cmpi", loc, &[r, zero], i1, &[("predicate", slt)])?;
        let yn = self.op1(b, "arith.cmpi", loc, &[y, zero], i1, &[("predicate", slt)])?;
        let nz = self.op1(b, "arith.cmpi", loc, &[r, zero], i1, &[("predicate", ne)])?;
        let diff = self.op1(b, "arith.xori", loc, &[rn, yn], i1, &[])?;
        let adj = self.op1(b, "arith.andi", loc, &[diff, nz], i1, &[])?;
        let ry = self.op1(b, "arith.addi", loc, &[r, y], idx, &[])?;
        self.op1(b, "arith.select", loc, &[adj, ry, r], idx, &[])
    }

    /// Every element of `buf` (of morf shape `shape`) set to `v`: an `scf.parallel` of stores.
    fn fill_buffer(
        &mut self,
        b: MlirBlock,
        loc: Location<'c>,
        v: MlirValue,
        buf: MlirValue,
        shape: &[Dim],
    ) -> SResult<()> {
        let k = shape.len();
        if k == 0 {
            self.op(b, "memref.store", loc, &[v, buf], &[], &[], 0)?;
            return Ok(());
        }
        let mut ops = Vec::new();
        for _ in 0..k {
            ops.push(self.index_const(b, 0)?);
        }
        for (i, d) in shape.iter().enumerate() {
            ops.push(match *d {
                Dim::Static(n) => self.index_const(b, n as i64)?,
                Dim::Dynamic => self.dim(b, buf, i, true)?,
            });
        }
        for _ in 0..k {
            ops.push(self.index_const(b, 1)?);
        }
        let seg = self.attr(&format!("array<i32: {k}, {k}, {k}, 0>"))?;
        let s = self.op(b, "scf.parallel", loc, &ops, &[], &[("operandSegmentSizes", seg)], 1)?;
        let blk = bridge::add_block(s, 0, &vec![Type::index(self.cx); k], loc);
        let mut sops = vec![v, buf];
        sops.extend((0..k).map(|i| bridge::block_arg(blk, i)));
        self.op(blk, "memref.store", loc, &sops, &[], &[], 0)?;
        self.op(blk, "scf.reduce", loc, &[], &[], &[], 0)?;
        Ok(())
    }

    /// `mloop.constant_buffer`: a private constant `memref.global` copied into a new buffer
    /// (each execution makes a fresh, mutable buffer, as morf's does).
    fn constant_buffer(&mut self, op: OpId, b: MlirBlock, c: ConstantBufferOp) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let value = c.value(m).ok_or("has no 'value'")?;
        let bt = m.value_type(c.buffer(m));
        let mty = self.ty(bt)?;
        let (shape, elem) = morf_loop::buffer_parts(m, bt).ok_or("has a result that is not a buffer")?;
        let tensor = format!(
            "tensor<{}{}>",
            shape.iter().map(|d| format!("{}x", m.dim_to_string(*d))).collect::<String>(),
            m.type_to_string(elem)
        );
        // The value with a tensor type of the buffer's shape (morf may store it either way).
        let text = m.attr_to_string(value);
        let body = text.rsplit_once(" : ").map(|(v, _)| v).unwrap_or(&text);
        let init = self.attr(&format!("{body} : {tensor}"))?;
        let sym = format!("__morf_constant_{}", self.next_symbol);
        self.next_symbol += 1;
        let module = self.module_body.ok_or("is outside a module")?;
        let attrs = [
            ("sym_name", self.attr(&format!("\"{sym}\""))?),
            ("sym_visibility", self.attr("\"private\"")?),
            ("type", self.attr(&m.type_to_string(bt).replace("!mloop.buffer", "memref"))?),
            ("initial_value", init),
            ("constant", melior::ir::Attribute::unit(self.cx)),
        ];
        self.op(module, "memref.global", loc, &[], &[], &attrs, 0)?;
        let g = self.op1(b, "memref.get_global", loc, &[], mty, &[("name", self.attr(&format!("@{sym}"))?)])?;
        let seg = self.attr("array<i32: 0, 0>")?;
        let fresh = self.op1(b, "memref.alloc", loc, &[], mty, &[("operandSegmentSizes", seg)])?;
        self.op(b, "memref.copy", loc, &[g, fresh], &[], &[], 0)?;
        self.bind_result(op, fresh);
        Ok(())
    }
}
