//! Thread-block clusters (sm_90): the CTAs of a kernel launched in clusters of `cluster`
//! (an attribute of its `mgpu.func`) run at once on one GPC and may write each other's
//! shared memory (`cluster_store`) between cluster barriers (`cluster_arrive`,
//! `cluster_wait`).
//!
//! Clusters are one-dimensional: the CTAs `c * C .. (c + 1) * C` form cluster `c`, and a
//! CTA's rank in its cluster is `block_id % C`. A launch's grid must be a multiple of `C`.

use morf_ir::asm::parser::{OpParser, PResult};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::opdef::{AnyType, Index};
use morf_ir::{define_op, Context, OpId, OperationState};

use super::{
    enclosing_kernel, interpret_in_kernel_only, parse_attr_dict, print_attr_dict, SharedPtr, UnitAttr, VResult,
};
use crate::types::ptr_parts;

/// The most CTAs of a cluster (the portable size on sm_90).
pub const MAX_CLUSTER: i64 = 8;

define_op! {
    /// Stores one element into the shared memory of another CTA of the cluster
    /// (`mapa` + `st.shared::cluster`): the element `%i` of CTA `%rank`'s copy of the shared
    /// array `%p` points to.
    ///
    /// ```mlir
    /// mgpu.cluster_store %v, %s[%i], %rank : !mgpu.ptr<f32, 3>
    /// ```
    ///
    /// `%p` must come from an `mgpu.shared_alloc` or `mgpu.dynamic_shared` of the kernel
    /// (every CTA has its own copy), and `%rank` be in `0..cluster`. The store becomes
    /// visible to the target CTA after a `cluster_arrive` of the storing thread and the
    /// target thread's `cluster_wait` of the same phase.
    pub struct ClusterStoreOp("mgpu.cluster_store") {
        summary: "stores one element into another CTA's shared memory in the cluster",
        operands: [value: AnyType, ptr: SharedPtr, index: Index, rank: Index],
        verify: verify_cluster_store,
        format: (parse_cluster_store, print_cluster_store),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Arrives at the cluster barrier without waiting (`barrier.cluster.arrive`): the thread's
    /// earlier shared-memory writes (its `cluster_store`s included) are released to the
    /// threads that wait for this phase. `{relaxed}` releases nothing (it only counts the
    /// thread in). Every thread of every CTA of the cluster arrives once per phase, in
    /// uniform control flow, and alternates arrivals with `mgpu.cluster_wait`s.
    pub struct ClusterArriveOp("mgpu.cluster_arrive") {
        summary: "arrives at the cluster barrier (barrier.cluster.arrive)",
        optional_attrs: [relaxed: UnitAttr],
        verify: verify_in_cluster_kernel,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Waits until every thread of the cluster has arrived at the phase the thread's last
    /// `mgpu.cluster_arrive` joined (`barrier.cluster.wait`), and acquires what they
    /// released.
    pub struct ClusterWaitOp("mgpu.cluster_wait") {
        summary: "waits for the cluster barrier's phase (barrier.cluster.wait)",
        verify: verify_in_cluster_kernel,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

/// Checks that `op` is nested in a kernel launched in clusters.
fn verify_in_cluster_kernel(ctx: &Context, op: OpId) -> VResult {
    match enclosing_kernel(ctx, op) {
        Some(f) if f.cluster(ctx).is_some_and(|c| c > 1) => Ok(()),
        Some(_) => Err(op_error(ctx, op, "requires its 'mgpu.func' to have a 'cluster' of 2 or more CTAs")),
        None => Err(op_error(ctx, op, "must be nested in an 'mgpu.func'")),
    }
}

fn verify_cluster_store(ctx: &Context, op: OpId) -> VResult {
    verify_in_cluster_kernel(ctx, op)?;
    let o = ClusterStoreOp(op);
    let elem = ptr_parts(ctx, ctx.value_type(o.ptr(ctx))).map(|p| p.0);
    let vt = ctx.value_type(o.value(ctx));
    if elem != Some(vt) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "stored value has type '{}', but the pointer's element type is '{}'",
                ctx.type_to_string(vt),
                elem.map_or("?".into(), |e| ctx.type_to_string(e))
            ),
        ));
    }
    Ok(())
}

fn parse_cluster_store(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let ptr = p.parse_operand()?;
    p.expect_punct("[")?;
    let idx = p.parse_operand()?;
    p.expect_punct("]")?;
    p.expect_punct(",")?;
    let rank = p.parse_operand()?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let Some((elem, _)) = ptr_parts(p.ctx, pty) else {
        return Err(p.error_at(loc, format!("expected a '!mgpu.ptr' type, got '{}'", p.ctx.type_to_string(pty))));
    };
    let it = p.ctx.index_type();
    let vv = p.resolve_operand(&v, elem)?;
    let pv = p.resolve_operand(&ptr, pty)?;
    let iv = p.resolve_operand(&idx, it)?;
    let rv = p.resolve_operand(&rank, it)?;
    st.operands = vec![vv, pv, iv, rv];
    Ok(())
}

fn print_cluster_store(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 4 {
        return;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    p.write("[");
    p.print_operand(ops[2]);
    p.write("], ");
    p.print_operand(ops[3]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[1]));
}
