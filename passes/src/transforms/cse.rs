//! `cse`: common subexpression elimination.
//!
//! Two ops are equivalent when they have the same name, operands, attributes and result
//! types, are pure (`Traits::PURE`), have no regions, are not terminators and have at least
//! one result. For commutative ops (`Traits::COMMUTATIVE`) the operand order does not matter.
//! When an op is equivalent to one that dominates it, its results are replaced by the
//! earlier op's results and it is erased.
//!
//! Scoping follows dominance: the ops of a block are visible to the later ops of the same
//! block and to everything nested in them; the entry block of a region is visible to the
//! other blocks of that region. Nothing is visible across an op that is isolated from above
//! (such as `func.func`) or an unregistered op: its regions start with an empty scope.
//!
//! **IR expected:** any. The pass runs on the op it is given and only touches ops nested in
//! it. **Options:** none.
//!
//! **Example:**
//!
//! ```text
//! // before                                       // after
//! %a = mtensor.add %x, %y : tensor<4xf32>         %a = mtensor.add %x, %y : tensor<4xf32>
//! %b = mtensor.add %x, %y : tensor<4xf32>         %c = mtensor.mul %a, %a : tensor<4xf32>
//! %c = mtensor.mul %a, %b : tensor<4xf32>
//! ```

use std::collections::HashMap;

use morf_ir::pass::{Pass, PassInfo, PassResult};
use morf_ir::{Attr, BlockId, Context, OpId, RegionId, Sym, Traits, Type, Value};

/// The registry entry of `cse`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "cse",
        description: "eliminate common subexpressions of pure ops, scoped by dominance",
        options: &[],
        create: |_| Ok(Box::new(Cse)),
    }
}

/// The cse pass.
#[derive(Debug, Default)]
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
        let n = eliminate_common_subexpressions(ctx, op);
        tracing::debug!(erased = n, "cse");
        Ok(())
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    name: Sym,
    operands: Vec<Value>,
    attrs: Vec<(Sym, Attr)>,
    result_types: Vec<Type>,
}

/// A stack of scopes; lookups see every scope on the stack.
#[derive(Default)]
struct ScopedMap {
    scopes: Vec<HashMap<Key, OpId>>,
}

impl ScopedMap {
    fn get(&self, k: &Key) -> Option<OpId> {
        self.scopes.iter().rev().find_map(|s| s.get(k).copied())
    }
    fn insert(&mut self, k: Key, op: OpId) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(k, op);
        }
    }
}

fn key_of(ctx: &Context, op: OpId) -> Option<Key> {
    let info = ctx.op_info(op)?;
    if !info.has(Traits::PURE)
        || info.has(Traits::TERMINATOR)
        || !ctx.regions(op).is_empty()
        || ctx.results(op).is_empty()
    {
        return None;
    }
    let mut operands = ctx.operands(op).to_vec();
    if info.has(Traits::COMMUTATIVE) {
        operands.sort();
    }
    Some(Key {
        name: ctx.op(op).name,
        operands,
        attrs: ctx.attrs(op).to_vec(),
        result_types: ctx.results(op).iter().map(|r| ctx.value_type(*r)).collect(),
    })
}

/// Runs cse on everything nested in `root`; returns how many ops were erased.
pub fn eliminate_common_subexpressions(ctx: &mut Context, root: OpId) -> usize {
    let mut erased = 0;
    // The root's regions are scoped on their own whatever the root is: nothing outside it
    // may be touched.
    let mut map = ScopedMap::default();
    for r in ctx.regions(root).to_vec() {
        erased += cse_region(ctx, r, &mut map);
    }
    erased
}

fn cse_region(ctx: &mut Context, r: RegionId, map: &mut ScopedMap) -> usize {
    let blocks: Vec<BlockId> = ctx.region_blocks(r).collect();
    let Some((&entry, rest)) = blocks.split_first() else { return 0 };
    let mut erased = 0;
    // The entry block dominates every other block of its region.
    map.scopes.push(HashMap::new());
    erased += cse_block(ctx, entry, map);
    for &b in rest {
        map.scopes.push(HashMap::new());
        erased += cse_block(ctx, b, map);
        map.scopes.pop();
    }
    map.scopes.pop();
    erased
}

fn cse_block(ctx: &mut Context, b: BlockId, map: &mut ScopedMap) -> usize {
    let mut erased = 0;
    let ops: Vec<OpId> = ctx.block_ops(b).collect();
    for op in ops {
        if !ctx.regions(op).is_empty() {
            let isolated = ctx.op_info(op).is_none_or(|i| i.has(Traits::ISOLATED_FROM_ABOVE));
            let regions = ctx.regions(op).to_vec();
            if isolated {
                let mut fresh = ScopedMap::default();
                for r in regions {
                    erased += cse_region(ctx, r, &mut fresh);
                }
            } else {
                for r in regions {
                    erased += cse_region(ctx, r, map);
                }
            }
            continue;
        }
        let Some(key) = key_of(ctx, op) else { continue };
        match map.get(&key) {
            Some(existing) => {
                let old = ctx.results(op).to_vec();
                let new = ctx.results(existing).to_vec();
                for (o, n) in old.into_iter().zip(new) {
                    ctx.replace_all_uses_with(o, n);
                }
                ctx.erase_op(op);
                erased += 1;
            }
            None => map.insert(key, op),
        }
    }
    erased
}
