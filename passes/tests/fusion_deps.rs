//! The dependence graphs of the fusion engine (`fusion::deps`, petgraph's): the "why not
//! fused" line that names a chain of dependences, which no example reaches, and the
//! producer/consumer queries behind it.

use morf_passes::fusion::deps::{flow_graph, flow_path, program_order_graph};
use morf_passes::fusion::{search, Access, Axis, Combiner, Device, Extents, NestInfo, NestKind, SearchConfig};
use petgraph::algo::{is_cyclic_directed, toposort};

const A: Axis = Axis(0);

fn acc(buffer: usize, dims: &[usize]) -> Access {
    Access { buffer, axes: vec![A; dims.len()], elem_bytes: 4, dims: dims.to_vec() }
}

/// Over the square `x` (buffer 0): `t[i] = sum_j x[i, j]` (buffer 1), `s[k] = 2 t[k]` (buffer
/// 2), then `u[i] = sum_j x[i, j] * s[j]` (buffer 3): `u` needs `s` at the column, which row
/// `j` computes, so no row kernel holds both reductions, though they share `x`.
fn chain() -> Vec<NestInfo> {
    let red = || NestKind::Reduction { kept: vec![A], reduced: vec![A], combiner: Combiner::Sum, epilogue_ops: 0 };
    let nest = |id: usize, kind: NestKind, reads: Vec<Access>, writes: Vec<Access>| NestInfo {
        id,
        name: format!("nest{id}"),
        kind,
        reads,
        writes,
        work: 0,
        exprs: Vec::new(),
    };
    vec![
        nest(0, red(), vec![acc(0, &[0, 1])], vec![acc(1, &[0])]),
        nest(1, NestKind::Pointwise { domain: vec![A] }, vec![acc(1, &[0])], vec![acc(2, &[0])]),
        nest(2, red(), vec![acc(0, &[0, 1]), acc(2, &[1])], vec![acc(3, &[0])]),
    ]
}

#[test]
fn report_names_the_chain_of_dependences() {
    let nests = chain();
    let ext = Extents { sizes: vec![Some(4096)], hints: vec![4096] };
    let r = search(&nests, &ext, &Device::h200(), &SearchConfig::default());
    assert!(r.chosen.kernels.iter().all(|k| !(k.nests().contains(&0) && k.nests().contains(&2))), "{}", r.chosen);
    assert!(
        r.report.contains(
            "nest0 & nest2: not fused: dependence nest0 -> nest1 -> nest2 (nest2 needs nest0's complete result)"
        ),
        "{}",
        r.report
    );
}

#[test]
fn graphs_of_the_chain() {
    let nests = chain();
    let flow = flow_graph(&nests);
    assert_eq!(flow_path(&flow, 0, 2), Some(vec![0, 1, 2]));
    assert_eq!(flow_path(&flow, 2, 0), None);
    let order = program_order_graph(&nests);
    assert!(!is_cyclic_directed(&order));
    let topo: Vec<usize> = toposort(&order, None).expect("a DAG").into_iter().map(|v| order[v]).collect();
    assert_eq!(topo, vec![0, 1, 2]);
}
