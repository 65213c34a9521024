//! Dependence graphs between loop nests, as petgraph graphs.
//!
//! Two relations over [`NestInfo`]s, each built once and then queried with petgraph's
//! algorithms instead of hand-written walks:
//!
//! * [`program_order_graph`]: every dependence that fixes the order of two nests in program
//!   order (flow, anti and output: [`depends`]), a DAG whose edges run forward in program
//!   order. [`super::seed_order`] takes a topological order of it, and the pass moves each
//!   pointwise nest right after its last predecessor.
//! * [`flow_graph`]: producer -> consumer edges (a nest reads a buffer another writes), in any
//!   program direction. The report asks it whether one nest needs another's result
//!   (`has_path_connecting`) and for the chain of nests that makes it so ([`flow_path`]).

use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{depth_first_search, Control, DfsEvent};

use super::NestInfo;

/// Whether `b` must run after `a`: `b` reads what `a` writes, or writes what `a` reads or
/// writes.
pub fn depends(b: &NestInfo, a: &NestInfo) -> bool {
    let touches = |n: &NestInfo, buf: usize| n.reads.iter().chain(&n.writes).any(|x| x.buffer == buf);
    b.reads.iter().any(|r| a.writes.iter().any(|w| w.buffer == r.buffer))
        || b.writes.iter().any(|w| touches(a, w.buffer))
}

/// The dependences among `nests` taken in program order: node `i` (weight `i`) is the `i`-th
/// nest, and an edge `a -> b` (`a < b`) says `b` [`depends`] on `a`. Edges run forward only, so
/// the graph is acyclic.
pub fn program_order_graph<'n>(nests: impl IntoIterator<Item = &'n NestInfo>) -> DiGraph<usize, ()> {
    let nests: Vec<&NestInfo> = nests.into_iter().collect();
    let mut g = DiGraph::with_capacity(nests.len(), 0);
    for i in 0..nests.len() {
        g.add_node(i);
    }
    for b in 0..nests.len() {
        for a in 0..b {
            if depends(nests[b], nests[a]) {
                g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
            }
        }
    }
    g
}

/// The flow dependences of a function's nests: one node per nest id (weight: the id; nodes in
/// order of first appearance in `all`, a repeated id is its first nest) and an edge `n -> m`
/// when `m` reads a buffer `n` writes (`n == m` included). Look nodes up with
/// [`FlowGraph::node`].
#[derive(Clone, Debug)]
pub struct FlowGraph<'n> {
    /// The nests, as given to [`flow_graph`].
    pub nests: &'n [NestInfo],
    /// The graph.
    pub graph: DiGraph<usize, ()>,
    /// The node of each nest id.
    pub nodes: BTreeMap<usize, NodeIndex>,
}

impl FlowGraph<'_> {
    /// The node of nest `id`, if the nests had it.
    pub fn node(&self, id: usize) -> Option<NodeIndex> {
        self.nodes.get(&id).copied()
    }
}

/// Builds the [`FlowGraph`] of `all`.
///
/// The consumers of a nest are its edges in a fixed order: per buffer it writes (in order),
/// the nests reading it (program order), each consumer kept at its last place. A petgraph
/// `Graph` lists a node's edges newest first, so a depth-first search ([`flow_path`]) tries
/// the consumers of the last buffer written first, the last reader first: the path the report
/// prints does not depend on hashing, only on the program.
pub fn flow_graph(all: &[NestInfo]) -> FlowGraph<'_> {
    let mut graph = DiGraph::with_capacity(all.len(), 0);
    let mut nodes: BTreeMap<usize, NodeIndex> = BTreeMap::new();
    for n in all {
        nodes.entry(n.id).or_insert_with(|| graph.add_node(n.id));
    }
    for (from, &node) in &nodes {
        let n = all.iter().find(|n| n.id == *from).expect("a node per nest id");
        let consumers: Vec<usize> = n
            .writes
            .iter()
            .flat_map(|w| all.iter().filter(move |m| m.reads.iter().any(|r| r.buffer == w.buffer)).map(|m| m.id))
            .collect();
        for (i, &m) in consumers.iter().enumerate() {
            if !consumers[i + 1..].contains(&m) {
                graph.add_edge(node, nodes[&m], ());
            }
        }
    }
    FlowGraph { nests: all, graph, nodes }
}

/// A chain of flow dependences from nest `from` to nest `to` (nest ids, both included), as
/// the depth-first search from `from` first reaches `to`; `None` when there is none, or when
/// `from == to`.
pub fn flow_path(flow: &FlowGraph<'_>, from: usize, to: usize) -> Option<Vec<usize>> {
    let (Some(src), Some(dst)) = (flow.node(from), flow.node(to)) else { return None };
    if src == dst {
        return None;
    }
    let g = &flow.graph;
    let mut parent: Vec<Option<NodeIndex>> = vec![None; g.node_count()];
    let found = depth_first_search(g, Some(src), |event| {
        if let DfsEvent::TreeEdge(u, v) = event {
            parent[v.index()] = Some(u);
            if v == dst {
                return Control::Break(());
            }
        }
        Control::Continue
    });
    if !matches!(found, Control::Break(())) {
        return None;
    }
    let mut path = vec![g[dst]];
    let mut at = dst;
    while let Some(p) = parent[at.index()] {
        path.push(g[p]);
        at = p;
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use petgraph::algo::{has_path_connecting, is_cyclic_directed};
    use petgraph::graph::NodeIndex;

    use super::super::{Access, Axis, NestInfo, NestKind};
    use super::{depends, flow_graph, flow_path, program_order_graph};

    /// A pointwise nest `id` reading and writing these buffers.
    fn nest(id: usize, reads: &[usize], writes: &[usize]) -> NestInfo {
        let acc = |&b: &usize| Access { buffer: b, axes: vec![Axis(0)], elem_bytes: 4, dims: vec![0] };
        NestInfo {
            id,
            name: format!("nest{id}"),
            kind: NestKind::Pointwise { domain: vec![Axis(0)] },
            reads: reads.iter().map(acc).collect(),
            writes: writes.iter().map(acc).collect(),
            work: 0,
            exprs: vec![],
        }
    }

    #[test]
    fn program_order_edges_are_flow_anti_and_output_dependences() {
        let nests = [
            nest(0, &[0], &[1]), // reads x (0), writes t (1)
            nest(1, &[1], &[2]), // flow from 0
            nest(2, &[0], &[3]), // independent of 0 and 1
            nest(3, &[3], &[0]), // flow from 2, overwrites x: anti from 0 and 2
            nest(4, &[5], &[2]), // overwrites 1's output
        ];
        let g = program_order_graph(&nests);
        let mut edges: Vec<(usize, usize)> =
            g.edge_indices().map(|e| g.edge_endpoints(e).unwrap()).map(|(a, b)| (a.index(), b.index())).collect();
        edges.sort();
        assert_eq!(edges, vec![(0, 1), (0, 3), (1, 4), (2, 3)]);
        assert!(!is_cyclic_directed(&g));
        assert!(depends(&nests[3], &nests[0]));
        assert!(!depends(&nests[2], &nests[1]));
    }

    #[test]
    fn flow_path_is_the_first_chain_of_a_depth_first_search() {
        // 0 -> 1 -> 3 and 0 -> 2 -> 3; 3 -> 4. The consumers of 0 (readers of t, program
        // order) are 1 and 2; the last one is tried first.
        let nests = [
            nest(0, &[0], &[1]),
            nest(1, &[1], &[2]),
            nest(2, &[1], &[3]),
            nest(3, &[2, 3], &[4]),
            nest(4, &[4], &[5]),
            nest(5, &[9], &[6]),
        ];
        let flow = flow_graph(&nests);
        assert_eq!(flow_path(&flow, 0, 4), Some(vec![0, 2, 3, 4]));
        assert_eq!(flow_path(&flow, 1, 4), Some(vec![1, 3, 4]));
        assert_eq!(flow_path(&flow, 4, 0), None);
        assert_eq!(flow_path(&flow, 0, 5), None);
        assert_eq!(flow_path(&flow, 0, 0), None);
        assert_eq!(flow_path(&flow, 0, 7), None);
        let (a, b) = (flow.node(0).unwrap(), flow.node(4).unwrap());
        assert!(has_path_connecting(&flow.graph, a, b, None));
        assert!(!has_path_connecting(&flow.graph, b, a, None));
        assert_eq!(flow.graph[NodeIndex::new(5)], 5);
    }
}
