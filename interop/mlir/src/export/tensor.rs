//! `mtensor` to `linalg`, `tensor`, `arith` and `math` on tensors.
//!
//! Every elementwise op, broadcast, transpose and reduction becomes one `linalg.generic`
//! (identity maps and parallel iterators for elementwise ops, a projected map for a
//! broadcast, reduction iterators over the reduced dims), whose output is a `tensor.empty`
//! (a `linalg.fill` of the combiner's identity for reductions). `mean` is a `sum` reduction
//! followed by a division by the element count (`tensor.dim` sizes, `arith.sitofp`), the form
//! the importer reads back as `mean`. Shape ops map one to one (`tensor.dim`,
//! `tensor.reshape`, `tensor.collapse_shape`, `tensor.expand_shape`).

use melior::ir::{Location, Type};
use mlir_sys::{MlirBlock, MlirValue};
use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise};
use morf_ir::interp::array::ReduceKind;
use morf_ir::{Diagnostic, Dim, OpId};
use morf_tensor::ops::{
    BroadcastOp, CollapseShapeOp, ConstantOp, DimOp, ExpandShapeOp, ReduceOp, ReshapeOp, TransposeOp,
};

use super::{Exporter, SResult};
use crate::bridge;

/// `affine_map<(d0, ..) -> (exprs)>` over `loops` dims.
pub(crate) fn affine_map(loops: usize, exprs: &[String]) -> String {
    let dims: Vec<String> = (0..loops).map(|i| format!("d{i}")).collect();
    format!("affine_map<({}) -> ({})>", dims.join(", "), exprs.join(", "))
}

/// The identity map over `n` dims.
pub(crate) fn identity_map(n: usize) -> String {
    affine_map(n, &(0..n).map(|i| format!("d{i}")).collect::<Vec<_>>())
}

/// `[[0, 1], [2]]`.
pub(crate) fn groups_text(groups: &[Vec<i64>]) -> String {
    let g: Vec<String> = groups
        .iter()
        .map(|g| format!("[{}]", g.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")))
        .collect();
    format!("[{}]", g.join(", "))
}

/// `array<i64: ...>` of a shape, dynamic dims as MLIR's `kDynamic`.
pub(crate) fn static_shape_text(shape: &[Dim]) -> String {
    let v: Vec<String> = shape
        .iter()
        .map(|d| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Dynamic => i64::MIN.to_string(),
        })
        .collect();
    if v.is_empty() {
        "array<i64>".into()
    } else {
        format!("array<i64: {}>", v.join(", "))
    }
}

/// The identity of a reduction's combiner.
pub(crate) fn reduce_identity(kind: ReduceKind) -> f64 {
    match kind {
        ReduceKind::Sum | ReduceKind::Mean => 0.0,
        ReduceKind::Prod => 1.0,
        ReduceKind::Max => f64::NEG_INFINITY,
        ReduceKind::Min => f64::INFINITY,
    }
}

/// The combiner of a reduction as a binary function (`mean` sums).
pub(crate) fn reduce_combiner(kind: ReduceKind) -> BinaryFn {
    match kind {
        ReduceKind::Sum | ReduceKind::Mean => BinaryFn::Add,
        ReduceKind::Prod => BinaryFn::Mul,
        ReduceKind::Max => BinaryFn::Max,
        ReduceKind::Min => BinaryFn::Min,
    }
}

/// One input or output of a `linalg.generic`: the value, its indexing map and its element
/// type (morf).
pub(crate) struct Operand {
    pub value: MlirValue,
    pub map: String,
    pub elem: morf_ir::Type,
}

impl<'c> Exporter<'c, '_> {
    /// Exports an `mtensor` op.
    pub(super) fn tensor_op(&mut self, op: OpId, b: MlirBlock) -> Result<(), Diagnostic> {
        let r = self.tensor_op_inner(op, b);
        r.map_err(|e| self.fail(op, e))
    }

    fn shape(&self, v: morf_ir::Value) -> Vec<Dim> {
        self.m.shape_of(self.m.value_type(v)).unwrap_or(&[]).to_vec()
    }

    fn elem(&self, v: morf_ir::Value) -> morf_ir::Type {
        self.m.element_type(self.m.value_type(v))
    }

    /// The sizes of the dynamic dims of `v` (a tensor of morf shape `shape`), as `tensor.dim`s.
    fn dyn_sizes(&mut self, b: MlirBlock, v: MlirValue, shape: &[Dim]) -> SResult<Vec<MlirValue>> {
        let mut out = Vec::new();
        for (i, d) in shape.iter().enumerate() {
            if *d == Dim::Dynamic {
                out.push(self.dim(b, v, i, false)?);
            }
        }
        Ok(out)
    }

    /// `tensor.empty(sizes) : ty`.
    fn empty(&self, b: MlirBlock, loc: Location<'c>, ty: morf_ir::Type, sizes: &[MlirValue]) -> SResult<MlirValue> {
        self.op1(b, "tensor.empty", loc, sizes, self.ty(ty)?, &[])
    }

    /// `linalg.fill ins(value) outs(init)`, its region the one MLIR's builder makes.
    pub(crate) fn fill(
        &self,
        b: MlirBlock,
        loc: Location<'c>,
        value: MlirValue,
        init: MlirValue,
        elem: morf_ir::Type,
        ty: Type<'c>,
    ) -> SResult<MlirValue> {
        let seg = self.attr("array<i32: 1, 1>")?;
        let f = self.op(b, "linalg.fill", loc, &[value, init], &[ty], &[("operandSegmentSizes", seg)], 1)?;
        let e = self.ty(elem)?;
        let body = bridge::add_block(f, 0, &[e, e], loc);
        self.op(body, "linalg.yield", loc, &[bridge::block_arg(body, 0)], &[], &[], 0)?;
        Ok(bridge::result(f, 0))
    }

    /// A `linalg.generic` with `loops` loops (`reduction[i]` marks reduction loops), inputs
    /// and one output, and the body `body(block, args)` returning the yielded value.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn generic(
        &mut self,
        b: MlirBlock,
        loc: Location<'c>,
        reduction: &[bool],
        ins: &[Operand],
        out: Operand,
        result: Type<'c>,
        body: impl FnOnce(&mut Self, MlirBlock, &[MlirValue]) -> SResult<MlirValue>,
    ) -> SResult<MlirValue> {
        let maps: Vec<&str> = ins.iter().chain(std::iter::once(&out)).map(|o| o.map.as_str()).collect();
        let iters: Vec<String> = reduction
            .iter()
            .map(|r| format!("#linalg.iterator_type<{}>", if *r { "reduction" } else { "parallel" }))
            .collect();
        let attrs = [
            ("indexing_maps", self.attr(&format!("[{}]", maps.join(", ")))?),
            ("iterator_types", self.attr(&format!("[{}]", iters.join(", ")))?),
            ("operandSegmentSizes", self.attr(&format!("array<i32: {}, 1>", ins.len()))?),
        ];
        let mut operands: Vec<MlirValue> = ins.iter().map(|o| o.value).collect();
        operands.push(out.value);
        let g = self.op(b, "linalg.generic", loc, &operands, &[result], &attrs, 1)?;
        let arg_tys = ins.iter().chain(std::iter::once(&out)).map(|o| self.ty(o.elem)).collect::<SResult<Vec<_>>>()?;
        let blk = bridge::add_block(g, 0, &arg_tys, loc);
        let args: Vec<MlirValue> = (0..arg_tys.len()).map(|i| bridge::block_arg(blk, i)).collect();
        let y = body(self, blk, &args)?;
        self.op(blk, "linalg.yield", loc, &[y], &[], &[], 0)?;
        Ok(bridge::result(g, 0))
    }

    fn tensor_op_inner(&mut self, op: OpId, b: MlirBlock) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        if let Some(ew) = elementwise(m, op) {
            return self.t_elementwise(op, b, ew);
        }
        if let Some(c) = m.dyn_cast::<ConstantOp>(op) {
            let value = c.value(m).ok_or("has no 'value'")?;
            let a = self.attr(&m.attr_to_string(value))?;
            let ty = self.ty(m.value_type(c.result(m)))?;
            let v = self.op1(b, "arith.constant", loc, &[], ty, &[("value", a)])?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(d) = m.dyn_cast::<DimOp>(op) {
            let src = self.val(d.source(m))?;
            let i = d.index(m).ok_or("has no 'index'")?;
            let v = self.dim(b, src, i as usize, false)?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(o) = m.dyn_cast::<BroadcastOp>(op) {
            return self.t_broadcast(op, b, o);
        }
        if let Some(r) = m.dyn_cast::<ReduceOp>(op) {
            return self.t_reduce(op, b, r);
        }
        if let Some(t) = m.dyn_cast::<TransposeOp>(op) {
            let input = t.input(m);
            let perm = t.perm(m).ok_or("has no 'perm'")?;
            let n = perm.len();
            let mut inv = vec![0usize; n];
            for (i, p) in perm.iter().enumerate() {
                inv[*p as usize] = i;
            }
            let x = self.val(input)?;
            let rt = m.value_type(t.result(m));
            let rshape = m.shape_of(rt).unwrap_or(&[]).to_vec();
            let mut sizes = Vec::new();
            for (i, d) in rshape.iter().enumerate() {
                if *d == Dim::Dynamic {
                    sizes.push(self.dim(b, x, perm[i] as usize, false)?);
                }
            }
            let init = self.empty(b, loc, rt, &sizes)?;
            let elem = self.elem(input);
            let in_map = affine_map(n, &inv.iter().map(|l| format!("d{l}")).collect::<Vec<_>>());
            let v = self.generic(
                b,
                loc,
                &vec![false; n],
                &[Operand { value: x, map: in_map, elem }],
                Operand { value: init, map: identity_map(n), elem },
                self.ty(rt)?,
                |_, _, args| Ok(args[0]),
            )?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(r) = m.dyn_cast::<ReshapeOp>(op) {
            let rt = m.value_type(r.result(m));
            let rshape = m.shape_of(rt).unwrap_or(&[]).to_vec();
            let dynamic = self.vals(r.sizes(m))?;
            let mut elems = Vec::new();
            let mut next = dynamic.iter();
            for d in &rshape {
                elems.push(match d {
                    Dim::Static(n) => self.index_const(b, *n as i64)?,
                    Dim::Dynamic => *next.next().ok_or("has too few sizes")?,
                });
            }
            let shape_ty = bridge::parse_type(self.cx, &format!("tensor<{}xindex>", rshape.len()))?;
            let shape = self.op1(b, "tensor.from_elements", loc, &elems, shape_ty, &[])?;
            let x = self.val(r.input(m))?;
            let v = self.op1(b, "tensor.reshape", loc, &[x, shape], self.ty(rt)?, &[])?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(c) = m.dyn_cast::<CollapseShapeOp>(op) {
            let groups = c.reassociation(m).ok_or("has no 'reassociation'")?;
            let x = self.val(c.input(m))?;
            let a = self.attr(&groups_text(&groups))?;
            let v = self.op1(
                b,
                "tensor.collapse_shape",
                loc,
                &[x],
                self.ty(m.value_type(c.result(m)))?,
                &[("reassociation", a)],
            )?;
            self.bind_result(op, v);
            return Ok(());
        }
        if let Some(e) = m.dyn_cast::<ExpandShapeOp>(op) {
            let groups = e.reassociation(m).ok_or("has no 'reassociation'")?;
            let rt = m.value_type(e.result(m));
            let mut operands = vec![self.val(e.input(m))?];
            operands.extend(self.vals(e.sizes(m))?);
            let attrs = [
                ("reassociation", self.attr(&groups_text(&groups))?),
                ("static_output_shape", self.attr(&static_shape_text(m.shape_of(rt).unwrap_or(&[])))?),
            ];
            let v = self.op1(b, "tensor.expand_shape", loc, &operands, self.ty(rt)?, &attrs)?;
            self.bind_result(op, v);
            return Ok(());
        }
        Err("cannot be exported to MLIR (no mapping for this op)".into())
    }

    /// An elementwise op as a `linalg.generic` with identity maps.
    fn t_elementwise(&mut self, op: OpId, b: MlirBlock, ew: Elementwise) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let operands: Vec<morf_ir::Value> = m.operands(op).to_vec();
        let result = m.result(op, 0);
        let rt = m.value_type(result);
        let shape = self.shape(result);
        let n = shape.len();
        let xs = self.vals(&operands)?;
        let sizes = self.dyn_sizes(b, xs[0], &self.shape(operands[0]))?;
        let init = self.empty(b, loc, rt, &sizes)?;
        let ins: Vec<Operand> = operands
            .iter()
            .zip(&xs)
            .map(|(o, x)| Operand { value: *x, map: identity_map(n), elem: self.elem(*o) })
            .collect();
        let out_elem = self.elem(result);
        let in_elem = self.elem(operands[0]);
        let v = self.generic(
            b,
            loc,
            &vec![false; n],
            &ins,
            Operand { value: init, map: identity_map(n), elem: out_elem },
            self.ty(rt)?,
            |ex, blk, args| {
                let ty = ex.ty(out_elem)?;
                match ew {
                    Elementwise::Unary(f) => ex.unary(blk, loc, f, args[0], ty),
                    Elementwise::Binary(f) => ex.binary(blk, loc, f, args[0], args[1], out_elem),
                    Elementwise::Cmp(p) => ex.cmp(blk, loc, p, args[0], args[1], in_elem),
                    Elementwise::Select => ex.select(blk, loc, args[0], args[1], args[2], ty),
                    Elementwise::Convert => ex.convert(blk, loc, args[0], in_elem, out_elem),
                }
            },
        )?;
        self.bind_result(op, v);
        Ok(())
    }

    /// A broadcast as a `linalg.generic` whose input map projects the result dims onto the
    /// operand's (a constant 0 for an operand dim of size 1 stretched to a larger dim).
    fn t_broadcast(&mut self, op: OpId, b: MlirBlock, o: BroadcastOp) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let input = o.input(m);
        let dims = o.dims(m).ok_or("has no 'dims'")?;
        let ishape = self.shape(input);
        let rt = m.value_type(o.result(m));
        let rshape = self.shape(o.result(m));
        let n = rshape.len();
        let exprs: Vec<String> = ishape
            .iter()
            .zip(&dims)
            .map(|(d, r)| {
                if *d == Dim::Static(1) && rshape[*r as usize] != Dim::Static(1) {
                    "0".to_string()
                } else {
                    format!("d{r}")
                }
            })
            .collect();
        let sizes = self.vals(o.sizes(m))?;
        let init = self.empty(b, loc, rt, &sizes)?;
        let elem = self.elem(input);
        let x = self.val(input)?;
        let v = self.generic(
            b,
            loc,
            &vec![false; n],
            &[Operand { value: x, map: affine_map(n, &exprs), elem }],
            Operand { value: init, map: identity_map(n), elem },
            self.ty(rt)?,
            |_, _, args| Ok(args[0]),
        )?;
        self.bind_result(op, v);
        Ok(())
    }

    /// A reduction: `linalg.fill` of the identity, a `linalg.generic` with reduction
    /// iterators over the reduced dims; `mean` divides by the count; `keepdim` expands.
    fn t_reduce(&mut self, op: OpId, b: MlirBlock, r: ReduceOp) -> SResult<()> {
        let m = self.m;
        let loc = self.loc(op);
        let input = r.input(m);
        let kind = r.kind(m).ok_or("has no 'kind'")?;
        let dims: Vec<usize> = r.dims(m).ok_or("has no 'dims'")?.iter().map(|d| *d as usize).collect();
        let keepdim = r.keepdim(m).is_some();
        let ishape = self.shape(input);
        let n = ishape.len();
        let elem = self.elem(input);
        let x = self.val(input)?;
        let kept: Vec<usize> = (0..n).filter(|i| !dims.contains(i)).collect();
        let r0_shape: Vec<Dim> = kept.iter().map(|i| ishape[*i]).collect();
        let mut ctx_sizes = Vec::new();
        for i in &kept {
            if ishape[*i] == Dim::Dynamic {
                ctx_sizes.push(self.dim(b, x, *i, false)?);
            }
        }
        let r0_text = format!(
            "tensor<{}{}>",
            r0_shape.iter().map(|d| format!("{}x", m.dim_to_string(*d))).collect::<String>(),
            m.type_to_string(elem)
        );
        let r0_ty = bridge::parse_type(self.cx, &r0_text)?;
        let empty = self.op1(b, "tensor.empty", loc, &ctx_sizes, r0_ty, &[])?;
        let identity = self.scalar_const(b, loc, reduce_identity(kind), elem)?;
        let init = self.fill(b, loc, identity, empty, elem, r0_ty)?;
        let combiner = reduce_combiner(kind);
        let reduction: Vec<bool> = (0..n).map(|i| dims.contains(&i)).collect();
        let out_map = affine_map(n, &kept.iter().map(|i| format!("d{i}")).collect::<Vec<_>>());
        let mut v = self.generic(
            b,
            loc,
            &reduction,
            &[Operand { value: x, map: identity_map(n), elem }],
            Operand { value: init, map: out_map, elem },
            r0_ty,
            |ex, blk, args| ex.binary(blk, loc, combiner, args[0], args[1], elem),
        )?;
        if kind == ReduceKind::Mean {
            let count = self.count(b, loc, x, &ishape, &dims, elem)?;
            let k = r0_shape.len();
            let empty2 = self.op1(b, "tensor.empty", loc, &ctx_sizes, r0_ty, &[])?;
            v = self.generic(
                b,
                loc,
                &vec![false; k],
                &[Operand { value: v, map: identity_map(k), elem }],
                Operand { value: empty2, map: identity_map(k), elem },
                r0_ty,
                |ex, blk, args| ex.binary(blk, loc, BinaryFn::Div, args[0], count, elem),
            )?;
        }
        if keepdim {
            let rt = m.value_type(r.result(m));
            let rshape = self.shape(r.result(m));
            let mut groups: Vec<Vec<i64>> = kept.iter().map(|i| vec![*i as i64]).collect();
            for d in &dims {
                if groups.is_empty() {
                    break;
                }
                // A reduced dim joins the group of the kept dim before it (or the first one).
                let g = kept.iter().rposition(|k| k < d).unwrap_or(0);
                groups[g].push(*d as i64);
                groups[g].sort_unstable();
            }
            let attrs = [
                ("reassociation", self.attr(&groups_text(&groups))?),
                ("static_output_shape", self.attr(&static_shape_text(&rshape))?),
            ];
            let mut operands = vec![v];
            operands.extend(ctx_sizes.iter().copied());
            v = self.op1(b, "tensor.expand_shape", loc, &operands, self.ty(rt)?, &attrs)?;
        }
        self.bind_result(op, v);
        Ok(())
    }

    /// The number of elements of `x` over `dims`, as a float of type `elem`: a constant when
    /// the dims are static, else `tensor.dim`s multiplied, `arith.index_cast` to i64 and
    /// `arith.sitofp`.
    fn count(
        &mut self,
        b: MlirBlock,
        loc: Location<'c>,
        x: MlirValue,
        shape: &[Dim],
        dims: &[usize],
        elem: morf_ir::Type,
    ) -> SResult<MlirValue> {
        let mut fixed = 1u64;
        let mut dynamic = Vec::new();
        for d in dims {
            match shape[*d] {
                Dim::Static(n) => fixed *= n,
                Dim::Dynamic => dynamic.push(self.dim(b, x, *d, false)?),
            }
        }
        if dynamic.is_empty() {
            return self.scalar_const(b, loc, fixed as f64, elem);
        }
        let idx = Type::index(self.cx);
        let mut p = dynamic[0];
        for s in &dynamic[1..] {
            p = self.op1(b, "arith.muli", loc, &[p, *s], idx, &[])?;
        }
        if fixed != 1 {
            let c = self.index_const(b, fixed as i64)?;
            p = self.op1(b, "arith.muli", loc, &[p, c], idx, &[])?;
        }
        let i64t = bridge::parse_type(self.cx, "i64")?;
        let w = self.op1(b, "arith.index_cast", loc, &[p], i64t, &[])?;
        self.op1(b, "arith.sitofp", loc, &[w], self.ty(elem)?, &[])
    }
}
