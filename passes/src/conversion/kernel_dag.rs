//! The kernel DAG of a host block: its launches and host memory ops, as a petgraph graph.
//!
//! Node `i` is the `i`-th step of the block that touches device memory: an `mgpu.launch`
//! (the buffers its kernel loads, copies from, stores to or updates atomically, found through
//! the kernel's pointer parameters), a host `mloop.load` (a read), `mloop.store`,
//! `mloop.accumulate`, `mloop.fill` or `mloop.dealloc` (writes), or an op with regions (a loop
//! not lowered yet: it may touch anything). An edge `a -> b` (`a` before `b`) says `b` must stay
//! after `a`: `b` reads what `a` writes, or writes what `a` reads or writes. A step whose
//! accesses are not known (a pointer that is not a parameter, an op with regions) conflicts
//! with every other step. Edges run forward in program order, so the graph is acyclic, and a
//! topological order of it is a legal launch order.
//!
//! Fusing two steps into one kernel is legal only where no third step lies on a path between
//! them: the fused kernel would have to run both before and after it (a cycle). The grid
//! merge ([`super::grid_merge`]) asks [`KernelDag::can_merge_into_later`] before it moves a
//! kernel to a later launch's place.

use std::collections::{HashMap, HashSet};

use morf_gpu::ops as mgpu;
use morf_ir::{Context, OpId, Value};
use morf_loop::ops as mloop;
use petgraph::algo::{has_path_connecting, toposort};
use petgraph::graph::{DiGraph, NodeIndex};

/// What a step reads and writes (host buffer values); `None`: not known, so everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accesses {
    /// Buffers read.
    pub reads: HashSet<Value>,
    /// Buffers written (a dealloc counts as a write).
    pub writes: HashSet<Value>,
}

/// The launches and host memory ops of one block and their dependences.
pub struct KernelDag {
    /// Node weight: the op. Edges: dependences, forward in program order.
    pub graph: DiGraph<OpId, ()>,
    index: HashMap<OpId, NodeIndex>,
}

/// The buffers the kernel launched by `launch` reads and writes (host values: the actual
/// arguments of the pointer parameters its global loads, copies, stores and atomics go
/// through); `None` when a global access's pointer is not a parameter, or the callee is
/// unknown.
pub fn launch_accesses(ctx: &Context, launch: OpId) -> Option<Accesses> {
    let l = mgpu::LaunchOp(launch);
    let f = l.callee(ctx)?;
    let body = ctx.entry_block(f.body(ctx))?;
    let formals = ctx.block_args(body).to_vec();
    let actuals = l.args(ctx).to_vec();
    let mut acc = Accesses::default();
    let mut known = true;
    ctx.walk(f.0, &mut |op| {
        let (ptr, read, write) = if let Some(o) = ctx.dyn_cast::<mgpu::LoadOp>(op) {
            (o.ptr(ctx), true, false)
        } else if let Some(o) = ctx.dyn_cast::<mgpu::LoadVecOp>(op) {
            (o.ptr(ctx), true, false)
        } else if let Some(o) = ctx.dyn_cast::<mgpu::CopyAsyncOp>(op) {
            (o.src(ctx), true, false)
        } else if let Some(o) = ctx.dyn_cast::<mgpu::StoreOp>(op) {
            (o.ptr(ctx), false, true)
        } else if let Some(o) = ctx.dyn_cast::<mgpu::StoreVecOp>(op) {
            (o.ptr(ctx), false, true)
        } else if let Some(o) = ctx.dyn_cast::<mgpu::AtomicRmwOp>(op) {
            (o.ptr(ctx), true, true)
        } else {
            return;
        };
        if morf_gpu::types::ptr_parts(ctx, ctx.value_type(ptr)).is_some_and(|(_, space)| space != 0) {
            return; // shared memory: the CTA's own
        }
        match formals.iter().position(|&p| p == ptr) {
            Some(i) => {
                if read {
                    acc.reads.insert(actuals[i]);
                }
                if write {
                    acc.writes.insert(actuals[i]);
                }
            }
            None => known = false,
        }
    });
    known.then_some(acc)
}

/// The device memory a host op touches: `Some(None)` for an op that may touch anything (a
/// region), `Some(Some(..))` for a launch or a buffer op, `None` for an op that touches none.
fn step_accesses(ctx: &Context, op: OpId) -> Option<Option<Accesses>> {
    if ctx.isa::<mgpu::LaunchOp>(op) {
        return Some(launch_accesses(ctx, op));
    }
    if !ctx.regions(op).is_empty() {
        return Some(None);
    }
    let buffers = || ctx.operands(op).iter().copied().filter(|&v| morf_loop::types::is_buffer(ctx, ctx.value_type(v)));
    let mut acc = Accesses::default();
    if ctx.isa::<mloop::LoadOp>(op) {
        acc.reads.extend(buffers());
    } else if ctx.isa::<mloop::StoreOp>(op)
        || ctx.isa::<mloop::AccumulateOp>(op)
        || ctx.isa::<mloop::FillOp>(op)
        || ctx.isa::<mloop::DeallocOp>(op)
    {
        acc.writes.extend(buffers());
    } else {
        return None;
    }
    Some(Some(acc))
}

/// Whether `b` (later) must stay after `a`; unknown accesses conflict with everything.
fn conflicts(a: &Option<Accesses>, b: &Option<Accesses>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            b.reads.iter().any(|x| a.writes.contains(x))
                || b.writes.iter().any(|x| a.reads.contains(x) || a.writes.contains(x))
        }
        _ => true,
    }
}

impl KernelDag {
    /// The DAG of the steps from `first` to `last` (ops of one block, in program order, both
    /// included), leaving out the ops in `skip` (nests already lowered and about to be
    /// erased): all that [`Self::can_merge_into_later`] asks
    /// of `first` and `last` (edges run forward, so no path between them leaves the range).
    pub fn between(ctx: &Context, first: OpId, last: OpId, skip: &[OpId]) -> Self {
        let mut ops = Vec::new();
        let mut cur = Some(first);
        while let Some(op) = cur {
            ops.push(op);
            if op == last {
                break;
            }
            cur = ctx.next_op(op);
        }
        Self::of_ops(ctx, ops, skip)
    }

    fn of_ops(ctx: &Context, ops: impl IntoIterator<Item = OpId>, skip: &[OpId]) -> Self {
        let steps: Vec<(OpId, Option<Accesses>)> = ops
            .into_iter()
            .filter(|op| !skip.contains(op))
            .filter_map(|op| step_accesses(ctx, op).map(|a| (op, a)))
            .collect();
        Self::from_steps(&steps)
    }

    /// The DAG of `steps` (op and accesses, `None`: unknown) in program order.
    pub fn from_steps(steps: &[(OpId, Option<Accesses>)]) -> Self {
        let mut graph = DiGraph::with_capacity(steps.len(), 0);
        let mut index = HashMap::new();
        for (op, _) in steps {
            index.insert(*op, graph.add_node(*op));
        }
        for (j, (_, b)) in steps.iter().enumerate() {
            for (i, (_, a)) in steps[..j].iter().enumerate() {
                if conflicts(a, b) {
                    graph.add_edge(NodeIndex::new(i), NodeIndex::new(j), ());
                }
            }
        }
        KernelDag { graph, index }
    }

    /// The node of `op`, if it is a step of the DAG.
    pub fn node(&self, op: OpId) -> Option<NodeIndex> {
        self.index.get(&op).copied()
    }

    /// A legal order of the steps (petgraph's topological sort; the graph is acyclic by
    /// construction).
    pub fn topological_order(&self) -> Vec<OpId> {
        toposort(&self.graph, None)
            .expect("edges run forward in program order")
            .into_iter()
            .map(|n| self.graph[n])
            .collect()
    }

    /// Whether `first` may move to the place of the later step `second` and fuse with it:
    /// no step in between depends on `first` (directly or through others). Such a step would
    /// have to run after `first` and, if `second` depends on it, before `second`: the fused
    /// kernel would close a cycle. Both must be steps, `first` before `second`.
    pub fn can_merge_into_later(&self, first: OpId, second: OpId) -> bool {
        let (Some(a), Some(b)) = (self.node(first), self.node(second)) else { return false };
        if a >= b {
            return false;
        }
        (a.index() + 1..b.index()).all(|c| !has_path_connecting(&self.graph, a, NodeIndex::new(c), None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morf_ir::{Loc, OperationState};

    /// Steps as placeholder ops (unregistered `test.step`, never run) with their reads and
    /// writes given by buffer number.
    fn steps(ctx: &mut Context, spec: &[(&[usize], &[usize])]) -> (Vec<(OpId, Option<Accesses>)>, Vec<OpId>) {
        let region = ctx.create_region();
        let idx = ctx.index_type();
        let block = ctx.create_block(region, &[idx; 8]);
        let bufs: Vec<Value> = ctx.block_args(block).to_vec();
        let mut out = Vec::new();
        let mut ops = Vec::new();
        for (r, w) in spec {
            let op = ctx.create_op(OperationState::new("test.step", Loc::Unknown));
            ops.push(op);
            let acc =
                Accesses { reads: r.iter().map(|&i| bufs[i]).collect(), writes: w.iter().map(|&i| bufs[i]).collect() };
            out.push((op, Some(acc)));
        }
        (out, ops)
    }

    /// A row kernel (0) writes its partials W (1) from x (0); a second kernel (1) reads W and
    /// writes y (2); the final (2) reads W and writes dw (3). Merging the final into the row
    /// kernel would move the row kernel past kernel 1, which needs its W: a cycle, refused.
    /// Without that reader (kernel 1 reads only x), the merge is legal.
    #[test]
    fn merging_across_a_dependent_kernel_is_a_cycle() {
        let mut ctx = Context::new();
        let (s, ops) = steps(&mut ctx, &[(&[0], &[1]), (&[1], &[2]), (&[1], &[3])]);
        let dag = KernelDag::from_steps(&s);
        assert!(!dag.can_merge_into_later(ops[0], ops[2]));
        assert!(dag.can_merge_into_later(ops[1], ops[2]));
        // Kernels 1 and 2 both wait for 0 only: either order after it is legal.
        let order = dag.topological_order();
        assert_eq!(order[0], ops[0]);
        let at = |op: OpId| order.iter().position(|&o| o == op).unwrap();
        assert!(dag.graph.edge_indices().all(|e| {
            let (a, b) = dag.graph.edge_endpoints(e).unwrap();
            at(dag.graph[a]) < at(dag.graph[b])
        }));
        let (s, ops) = steps(&mut ctx, &[(&[0], &[1]), (&[0], &[2]), (&[1], &[3])]);
        let dag = KernelDag::from_steps(&s);
        assert!(dag.can_merge_into_later(ops[0], ops[2]));
        assert!(!dag.can_merge_into_later(ops[2], ops[0]), "only a later step");
    }

    /// Anti and output dependences order steps too; an unknown step orders everything.
    #[test]
    fn anti_output_and_unknown_steps() {
        let mut ctx = Context::new();
        // 0 reads x; 1 overwrites x (anti); 2 writes y; 3 writes y again (output).
        let (s, ops) = steps(&mut ctx, &[(&[0], &[]), (&[], &[0]), (&[], &[1]), (&[], &[1])]);
        let dag = KernelDag::from_steps(&s);
        let edges: Vec<(usize, usize)> = dag
            .graph
            .edge_indices()
            .map(|e| dag.graph.edge_endpoints(e).unwrap())
            .map(|(a, b)| (a.index(), b.index()))
            .collect();
        assert_eq!(edges, vec![(0, 1), (2, 3)]);
        assert!(!dag.can_merge_into_later(ops[0], ops[2]), "1 depends on 0");
        let mut s2 = s.clone();
        s2[1].1 = None;
        let dag = KernelDag::from_steps(&s2);
        assert_eq!(dag.graph.edge_count(), 4, "the unknown step 1 is ordered against all three");
        assert!(!dag.can_merge_into_later(ops[0], ops[2]) && dag.can_merge_into_later(ops[2], ops[3]));
    }
}
