//! The [`Context`]: owner of every operation, block, region and value, and of the type,
//! attribute and string interners.
//!
//! IR refers to IR through small `Copy` handles ([`OpId`], [`BlockId`], [`RegionId`],
//! [`Value`]). Handles are generational (slotmap keys): a handle to an erased entity fails
//! loudly instead of aliasing a reused slot. Reads go through `&Context`, mutations through
//! `&mut Context`, so the borrow checker (not a `RefCell`) catches conflicting accesses.
//!
//! Invariants kept here:
//! - every value's use list holds exactly the `(op, operand index)` pairs whose operand is
//!   that value, in insertion order (deterministic);
//! - blocks hold their ops, and regions their blocks, in doubly linked lists, so inserting or
//!   erasing during a rewrite is O(1);
//! - an op is erased only when none of its results has a use.

use std::collections::HashMap;

use slotmap::{new_key_type, SlotMap};

use crate::attrs::{Attr, AttrData};
use crate::location::Loc;
use crate::registry::{OpInfo, Registry};
use crate::types::{Type, TypeData};

new_key_type! {
    /// Handle of an operation.
    pub struct OpId;
    /// Handle of a block.
    pub struct BlockId;
    /// Handle of a region.
    pub struct RegionId;
    /// Handle of an SSA value: an op result or a block argument.
    pub struct Value;
}

/// An interned string (op names, attribute names, symbols, value names).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Sym(pub(crate) u32);

/// Where a value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result `index` of operation `op`.
    OpResult {
        /// The defining operation.
        op: OpId,
        /// The result number.
        index: usize,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// The block that owns the argument.
        block: BlockId,
        /// The argument number.
        index: usize,
    },
    /// A value used before its definition while parsing; replaced when the definition is
    /// seen. None survives a successful parse.
    Placeholder,
}

/// One use of a value: operand `index` of `op`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Use {
    /// The operation that uses the value.
    pub op: OpId,
    /// The operand number.
    pub index: usize,
}

/// Storage of a value.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// The value's type.
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
    /// Its uses, in insertion order.
    pub uses: Vec<Use>,
    /// The name it had in the source (`x` for `%x`), kept for printing.
    pub name: Option<Sym>,
    /// Where it was defined (block arguments; op results use the op's location).
    pub loc: Loc,
}

/// Storage of an operation.
#[derive(Clone, Debug)]
pub struct OpData {
    /// The op's name, such as `mtensor.add`.
    pub name: Sym,
    /// Its registered kind, resolved once when the op is created: the interned name that
    /// typed handles compare (`None` for an unregistered op).
    pub kind: Option<&'static OpInfo>,
    /// Its source location.
    pub loc: Loc,
    pub(crate) operands: Vec<Value>,
    pub(crate) results: Vec<Value>,
    /// Attributes sorted by name.
    pub(crate) attrs: Vec<(Sym, Attr)>,
    pub(crate) regions: Vec<RegionId>,
    pub(crate) parent: Option<BlockId>,
    pub(crate) prev: Option<OpId>,
    pub(crate) next: Option<OpId>,
}

/// Storage of a block.
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub(crate) args: Vec<Value>,
    pub(crate) first: Option<OpId>,
    pub(crate) last: Option<OpId>,
    pub(crate) parent: Option<RegionId>,
    pub(crate) prev: Option<BlockId>,
    pub(crate) next: Option<BlockId>,
    /// The label it had in the source (`bb1` for `^bb1`).
    pub label: Option<Sym>,
}

/// Storage of a region.
#[derive(Clone, Debug, Default)]
pub struct RegionData {
    pub(crate) first: Option<BlockId>,
    pub(crate) last: Option<BlockId>,
    pub(crate) parent: Option<OpId>,
}

/// Interns values of type `T` and hands out dense `u32` indices.
#[derive(Debug)]
pub(crate) struct Interner<T: std::hash::Hash + Eq + Clone> {
    items: Vec<T>,
    map: HashMap<T, u32>,
}

impl<T: std::hash::Hash + Eq + Clone> Default for Interner<T> {
    fn default() -> Self {
        Interner { items: Vec::new(), map: HashMap::new() }
    }
}

impl<T: std::hash::Hash + Eq + Clone> Interner<T> {
    pub(crate) fn intern(&mut self, item: T) -> u32 {
        if let Some(&i) = self.map.get(&item) {
            return i;
        }
        let i = self.items.len() as u32;
        self.items.push(item.clone());
        self.map.insert(item, i);
        i
    }
    pub(crate) fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }
}

/// Owner of all IR and interned data. See the module docs.
pub struct Context {
    pub(crate) ops: SlotMap<OpId, OpData>,
    pub(crate) blocks: SlotMap<BlockId, BlockData>,
    pub(crate) regions: SlotMap<RegionId, RegionData>,
    pub(crate) values: SlotMap<Value, ValueData>,
    pub(crate) types: Interner<TypeData>,
    pub(crate) attrs: Interner<AttrData>,
    pub(crate) syms: Interner<String>,
    pub(crate) registry: Registry,
    pub(crate) diag: crate::diag::DiagEngine,
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Context {
    /// A context with the builtin and func dialects registered.
    pub fn new() -> Self {
        let mut ctx = Context {
            ops: SlotMap::with_key(),
            blocks: SlotMap::with_key(),
            regions: SlotMap::with_key(),
            values: SlotMap::with_key(),
            types: Interner::default(),
            attrs: Interner::default(),
            syms: Interner::default(),
            registry: Registry::default(),
            diag: Default::default(),
        };
        crate::builtin::register(&mut ctx);
        ctx
    }

    // ----- strings -----

    /// Interns a string.
    pub fn sym(&mut self, s: &str) -> Sym {
        if let Some(&i) = self.syms.map.get(s) {
            return Sym(i);
        }
        Sym(self.syms.intern(s.to_string()))
    }

    /// Looks up an already interned string.
    pub fn lookup_sym(&self, s: &str) -> Option<Sym> {
        self.syms.map.get(s).map(|&i| Sym(i))
    }

    /// The text of an interned string.
    pub fn str(&self, s: Sym) -> &str {
        self.syms.get(s.0)
    }

    // ----- types and attributes -----

    /// Interns a type.
    pub fn intern_type(&mut self, data: TypeData) -> Type {
        Type(self.types.intern(data))
    }

    /// The data of a type.
    pub fn type_data(&self, t: Type) -> &TypeData {
        self.types.get(t.0)
    }

    /// Interns an attribute.
    pub fn intern_attr(&mut self, data: AttrData) -> Attr {
        Attr(self.attrs.intern(data))
    }

    /// The data of an attribute.
    pub fn attr_data(&self, a: Attr) -> &AttrData {
        self.attrs.get(a.0)
    }

    // ----- registry -----

    /// The op and dialect registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The registry, for registering dialects.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// The registered description of `op`'s kind, if any.
    pub fn op_info(&self, op: OpId) -> Option<&'static OpInfo> {
        self.ops[op].kind
    }

    /// Whether `op` is of the registered kind `kind` (a pointer comparison, no string).
    pub fn op_is(&self, op: OpId, kind: &'static OpInfo) -> bool {
        self.ops[op].kind.is_some_and(|k| std::ptr::eq(k, kind))
    }

    /// Whether `op` is an instance of the typed op `T`.
    pub fn isa<T: crate::opdef::Op>(&self, op: OpId) -> bool {
        self.op_is(op, T::info())
    }

    /// `op` as the typed op `T`, if it is one.
    pub fn dyn_cast<T: crate::opdef::Op>(&self, op: OpId) -> Option<T> {
        T::dyn_cast(self, op)
    }

    // ----- operations -----

    /// Creates a detached operation (not in any block).
    pub fn create_op(&mut self, state: OperationState) -> OpId {
        let OperationState { name, loc, operands, result_types, attrs, regions, result_names } = state;
        let kind = self.registry.op(&name);
        let name = self.sym(&name);
        let mut sorted: Vec<(Sym, Attr)> = Vec::with_capacity(attrs.len());
        for (k, v) in attrs {
            let k = self.sym(&k);
            match sorted.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => sorted.push((k, v)),
            }
        }
        sorted.sort_by(|a, b| self.str(a.0).cmp(self.str(b.0)));
        let op = self.ops.insert(OpData {
            name,
            kind,
            loc,
            operands: Vec::new(),
            results: Vec::new(),
            attrs: sorted,
            regions: Vec::new(),
            parent: None,
            prev: None,
            next: None,
        });
        for (i, v) in operands.iter().enumerate() {
            self.values[*v].uses.push(Use { op, index: i });
        }
        self.ops[op].operands = operands;
        let mut results = Vec::with_capacity(result_types.len());
        for (i, ty) in result_types.into_iter().enumerate() {
            let nm = result_names.get(i).cloned().flatten();
            results.push(self.values.insert(ValueData {
                ty,
                def: ValueDef::OpResult { op, index: i },
                uses: Vec::new(),
                name: nm,
                loc,
            }));
        }
        self.ops[op].results = results;
        for r in &regions {
            self.regions[*r].parent = Some(op);
        }
        self.ops[op].regions = regions;
        op
    }

    /// Whether the handle still names a live op.
    pub fn op_exists(&self, op: OpId) -> bool {
        self.ops.contains_key(op)
    }

    /// The op's data.
    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op]
    }

    /// The op's name.
    pub fn op_name(&self, op: OpId) -> &str {
        self.str(self.ops[op].name)
    }

    /// The op's location.
    pub fn op_loc(&self, op: OpId) -> Loc {
        self.ops[op].loc
    }

    /// The op's operands.
    pub fn operands(&self, op: OpId) -> &[Value] {
        &self.ops[op].operands
    }

    /// Operand `i` of `op`.
    pub fn operand(&self, op: OpId, i: usize) -> Value {
        self.ops[op].operands[i]
    }

    /// The op's results.
    pub fn results(&self, op: OpId) -> &[Value] {
        &self.ops[op].results
    }

    /// Result `i` of `op`.
    pub fn result(&self, op: OpId, i: usize) -> Value {
        self.ops[op].results[i]
    }

    /// The op's regions.
    pub fn regions(&self, op: OpId) -> &[RegionId] {
        &self.ops[op].regions
    }

    /// The op's attributes, sorted by name.
    pub fn attrs(&self, op: OpId) -> &[(Sym, Attr)] {
        &self.ops[op].attrs
    }

    /// The attribute named `name`, if present.
    pub fn attr(&self, op: OpId, name: &str) -> Option<Attr> {
        let s = self.lookup_sym(name)?;
        self.ops[op].attrs.iter().find(|(k, _)| *k == s).map(|(_, v)| *v)
    }

    /// Sets (or replaces) an attribute.
    pub fn set_attr(&mut self, op: OpId, name: &str, value: Attr) {
        let s = self.sym(name);
        let mut attrs = std::mem::take(&mut self.ops[op].attrs);
        match attrs.iter_mut().find(|(k, _)| *k == s) {
            Some(slot) => slot.1 = value,
            None => {
                attrs.push((s, value));
                attrs.sort_by(|a, b| self.str(a.0).cmp(self.str(b.0)));
            }
        }
        self.ops[op].attrs = attrs;
    }

    /// Removes an attribute; returns whether it was present.
    pub fn remove_attr(&mut self, op: OpId, name: &str) -> bool {
        let Some(s) = self.lookup_sym(name) else {
            return false;
        };
        let before = self.ops[op].attrs.len();
        self.ops[op].attrs.retain(|(k, _)| *k != s);
        before != self.ops[op].attrs.len()
    }

    /// The block that holds `op`, if attached.
    pub fn op_parent_block(&self, op: OpId) -> Option<BlockId> {
        self.ops[op].parent
    }

    /// The op whose region holds `op`, if any.
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        let b = self.ops[op].parent?;
        let r = self.blocks[b].parent?;
        self.regions[r].parent
    }

    /// The next op in the same block.
    pub fn next_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op].next
    }

    /// The previous op in the same block.
    pub fn prev_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op].prev
    }

    /// Replaces operand `i` of `op`, keeping use lists consistent.
    pub fn set_operand(&mut self, op: OpId, i: usize, v: Value) {
        let old = self.ops[op].operands[i];
        if old == v {
            return;
        }
        self.remove_use(old, Use { op, index: i });
        self.ops[op].operands[i] = v;
        self.values[v].uses.push(Use { op, index: i });
    }

    fn remove_use(&mut self, v: Value, u: Use) {
        let uses = &mut self.values[v].uses;
        if let Some(pos) = uses.iter().position(|x| *x == u) {
            uses.remove(pos);
        }
    }

    /// Replaces every use of `from` by `to`.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let uses = std::mem::take(&mut self.values[from].uses);
        for u in &uses {
            self.ops[u.op].operands[u.index] = to;
        }
        self.values[to].uses.extend(uses);
    }

    /// Detaches `op` from its block (it stays alive).
    pub fn detach_op(&mut self, op: OpId) {
        let Some(b) = self.ops[op].parent else { return };
        let (prev, next) = (self.ops[op].prev, self.ops[op].next);
        match prev {
            Some(p) => self.ops[p].next = next,
            None => self.blocks[b].first = next,
        }
        match next {
            Some(n) => self.ops[n].prev = prev,
            None => self.blocks[b].last = prev,
        }
        let d = &mut self.ops[op];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }

    /// Appends a detached op at the end of `block`.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        debug_assert!(self.ops[op].parent.is_none(), "op already attached");
        let last = self.blocks[block].last;
        self.ops[op].parent = Some(block);
        self.ops[op].prev = last;
        self.ops[op].next = None;
        match last {
            Some(l) => self.ops[l].next = Some(op),
            None => self.blocks[block].first = Some(op),
        }
        self.blocks[block].last = Some(op);
    }

    /// Inserts a detached op right before `before`.
    pub fn insert_op_before(&mut self, before: OpId, op: OpId) {
        let block = self.ops[before].parent.expect("anchor op is detached");
        let prev = self.ops[before].prev;
        self.ops[op].parent = Some(block);
        self.ops[op].prev = prev;
        self.ops[op].next = Some(before);
        self.ops[before].prev = Some(op);
        match prev {
            Some(p) => self.ops[p].next = Some(op),
            None => self.blocks[block].first = Some(op),
        }
    }

    /// Inserts a detached op right after `after`.
    pub fn insert_op_after(&mut self, after: OpId, op: OpId) {
        match self.ops[after].next {
            Some(n) => self.insert_op_before(n, op),
            None => {
                let b = self.ops[after].parent.expect("anchor op is detached");
                self.append_op(b, op)
            }
        }
    }

    /// Moves `op` (attached or not) right before `before`.
    pub fn move_op_before(&mut self, op: OpId, before: OpId) {
        self.detach_op(op);
        self.insert_op_before(before, op);
    }

    /// Erases `op` and everything nested in it.
    ///
    /// # Panics
    /// If a result of `op` still has a use outside `op` itself: erasing it would leave a
    /// dangling operand, which is a bug in the caller.
    pub fn erase_op(&mut self, op: OpId) {
        for &r in &self.ops[op].results {
            assert!(
                self.values[r].uses.is_empty(),
                "erasing '{}' whose result still has uses",
                self.str(self.ops[op].name)
            );
        }
        self.detach_op(op);
        self.drop_op_tree(op);
    }

    fn drop_op_tree(&mut self, op: OpId) {
        // Drop nested ops first, so that uses from inside the tree disappear.
        let regions = self.ops[op].regions.clone();
        for r in regions {
            let blocks: Vec<BlockId> = self.region_blocks(r).collect();
            for b in blocks {
                let ops: Vec<OpId> = self.block_ops(b).collect();
                for o in ops.into_iter().rev() {
                    self.drop_op_tree(o);
                }
                for a in std::mem::take(&mut self.blocks[b].args) {
                    self.values.remove(a);
                }
                self.blocks.remove(b);
            }
            self.regions.remove(r);
        }
        let operands = std::mem::take(&mut self.ops[op].operands);
        for (i, v) in operands.into_iter().enumerate() {
            if self.values.contains_key(v) {
                self.remove_use(v, Use { op, index: i });
            }
        }
        for r in std::mem::take(&mut self.ops[op].results) {
            self.values.remove(r);
        }
        self.ops.remove(op);
    }

    // ----- blocks and regions -----

    /// Creates an empty, detached region.
    pub fn create_region(&mut self) -> RegionId {
        self.regions.insert(RegionData::default())
    }

    /// Creates a block at the end of `region`, with arguments of the given types.
    pub fn create_block(&mut self, region: RegionId, arg_types: &[Type]) -> BlockId {
        let b = self.blocks.insert(BlockData::default());
        for &t in arg_types {
            self.add_block_arg(b, t, None, Loc::Unknown);
        }
        let last = self.regions[region].last;
        self.blocks[b].parent = Some(region);
        self.blocks[b].prev = last;
        match last {
            Some(l) => self.blocks[l].next = Some(b),
            None => self.regions[region].first = Some(b),
        }
        self.regions[region].last = Some(b);
        b
    }

    /// Appends an argument to a block.
    pub fn add_block_arg(&mut self, block: BlockId, ty: Type, name: Option<Sym>, loc: Loc) -> Value {
        let index = self.blocks[block].args.len();
        let v =
            self.values.insert(ValueData { ty, def: ValueDef::BlockArg { block, index }, uses: Vec::new(), name, loc });
        self.blocks[block].args.push(v);
        v
    }

    /// The arguments of a block.
    pub fn block_args(&self, block: BlockId) -> &[Value] {
        &self.blocks[block].args
    }

    /// The block's data.
    pub fn block(&self, block: BlockId) -> &BlockData {
        &self.blocks[block]
    }

    /// The region holding `block`.
    pub fn block_parent(&self, block: BlockId) -> Option<RegionId> {
        self.blocks[block].parent
    }

    /// The op holding `region`.
    pub fn region_parent(&self, region: RegionId) -> Option<OpId> {
        self.regions[region].parent
    }

    /// The ops of a block in order.
    pub fn block_ops(&self, block: BlockId) -> BlockOps<'_> {
        BlockOps { ctx: self, next: self.blocks[block].first }
    }

    /// The last op of a block.
    pub fn block_last_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block].last
    }

    /// The blocks of a region in order.
    pub fn region_blocks(&self, region: RegionId) -> RegionBlocks<'_> {
        RegionBlocks { ctx: self, next: self.regions[region].first }
    }

    /// The first block of a region.
    pub fn entry_block(&self, region: RegionId) -> Option<BlockId> {
        self.regions[region].first
    }

    // ----- values -----

    /// The value's data.
    pub fn value(&self, v: Value) -> &ValueData {
        &self.values[v]
    }

    /// Whether the handle still names a live value.
    pub fn value_exists(&self, v: Value) -> bool {
        self.values.contains_key(v)
    }

    /// The value's type.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// Changes a value's type (for in-place rewrites that keep the IR valid).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }

    /// The op defining `v`, if it is an op result.
    pub fn defining_op(&self, v: Value) -> Option<OpId> {
        match self.values[v].def {
            ValueDef::OpResult { op, .. } => Some(op),
            _ => None,
        }
    }

    /// The uses of `v`.
    pub fn uses(&self, v: Value) -> &[Use] {
        &self.values[v].uses
    }

    /// Sets the source name used when printing `v`.
    pub fn set_value_name(&mut self, v: Value, name: Option<&str>) {
        let s = name.map(|n| self.sym(n));
        self.values[v].name = s;
    }

    pub(crate) fn new_placeholder(&mut self, ty: Type, loc: Loc) -> Value {
        self.values.insert(ValueData { ty, def: ValueDef::Placeholder, uses: Vec::new(), name: None, loc })
    }

    pub(crate) fn remove_value(&mut self, v: Value) {
        self.values.remove(v);
    }

    /// Visits `op` and every op nested in it, parents before children.
    pub fn walk(&self, op: OpId, f: &mut dyn FnMut(OpId)) {
        // An explicit stack, so deep nesting cannot overflow the native stack.
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            f(o);
            let mut nested = Vec::new();
            for &r in &self.ops[o].regions {
                for b in self.region_blocks(r) {
                    nested.extend(self.block_ops(b));
                }
            }
            stack.extend(nested.into_iter().rev());
        }
    }

    /// All ops nested in `op` (and `op` itself), in pre-order.
    pub fn walk_collect(&self, op: OpId) -> Vec<OpId> {
        let mut v = Vec::new();
        self.walk(op, &mut |o| v.push(o));
        v
    }

    /// Whether `ancestor` is `op` or holds it (transitively).
    pub fn is_ancestor(&self, ancestor: OpId, op: OpId) -> bool {
        let mut cur = Some(op);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.parent_op(c);
        }
        false
    }

    /// Clones `op` with its regions, mapping operands through `map` (values not in the map
    /// are used as they are). The clone is detached; results and block arguments of the
    /// clone are added to `map`.
    pub fn clone_op(&mut self, op: OpId, map: &mut HashMap<Value, Value>) -> OpId {
        let d = self.ops[op].clone();
        let operands = d.operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
        let result_types = d.results.iter().map(|r| self.values[*r].ty).collect();
        let result_names = d.results.iter().map(|r| self.values[*r].name).collect();
        let mut regions = Vec::new();
        for &r in &d.regions {
            let nr = self.create_region();
            let blocks: Vec<BlockId> = self.region_blocks(r).collect();
            for b in blocks {
                let args = self.blocks[b].args.clone();
                let nb = self.create_block(nr, &[]);
                self.blocks[nb].label = self.blocks[b].label;
                for a in args {
                    let (ty, name, loc) = (self.values[a].ty, self.values[a].name, self.values[a].loc);
                    let na = self.add_block_arg(nb, ty, name, loc);
                    map.insert(a, na);
                }
                let ops: Vec<OpId> = self.block_ops(b).collect();
                for o in ops {
                    let c = self.clone_op(o, map);
                    self.append_op(nb, c);
                }
            }
            regions.push(nr);
        }
        let name = self.str(d.name).to_string();
        let attrs = d.attrs.iter().map(|(k, v)| (self.str(*k).to_string(), *v)).collect();
        let new =
            self.create_op(OperationState { name, loc: d.loc, operands, result_types, attrs, regions, result_names });
        for (a, b) in d.results.iter().zip(self.ops[new].results.clone()) {
            map.insert(*a, b);
        }
        new
    }
}

/// Iterator over the ops of a block.
pub struct BlockOps<'a> {
    ctx: &'a Context,
    next: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;
    fn next(&mut self) -> Option<OpId> {
        let cur = self.next?;
        self.next = self.ctx.ops[cur].next;
        Some(cur)
    }
}

/// Iterator over the blocks of a region.
pub struct RegionBlocks<'a> {
    ctx: &'a Context,
    next: Option<BlockId>,
}

impl Iterator for RegionBlocks<'_> {
    type Item = BlockId;
    fn next(&mut self) -> Option<BlockId> {
        let cur = self.next?;
        self.next = self.ctx.blocks[cur].next;
        Some(cur)
    }
}

/// Everything needed to create an operation; see [`Context::create_op`].
#[derive(Clone, Debug)]
pub struct OperationState {
    /// The op name, such as `mtensor.add`.
    pub name: String,
    /// Its location.
    pub loc: Loc,
    /// Operand values.
    pub operands: Vec<Value>,
    /// Result types.
    pub result_types: Vec<Type>,
    /// Attributes by name (a later duplicate replaces an earlier one).
    pub attrs: Vec<(String, Attr)>,
    /// Detached regions to move into the op.
    pub regions: Vec<RegionId>,
    /// Optional source names of the results.
    pub result_names: Vec<Option<Sym>>,
}

impl OperationState {
    /// An empty state for an op named `name`.
    pub fn new(name: &str, loc: Loc) -> Self {
        OperationState {
            name: name.to_string(),
            loc,
            operands: Vec::new(),
            result_types: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            result_names: Vec::new(),
        }
    }

    /// Adds operands.
    pub fn operands(mut self, vs: &[Value]) -> Self {
        self.operands.extend_from_slice(vs);
        self
    }

    /// Adds result types.
    pub fn results(mut self, ts: &[Type]) -> Self {
        self.result_types.extend_from_slice(ts);
        self
    }

    /// Adds an attribute.
    pub fn attr(mut self, name: &str, a: Attr) -> Self {
        self.attrs.push((name.to_string(), a));
        self
    }

    /// Adds a region.
    pub fn region(mut self, r: RegionId) -> Self {
        self.regions.push(r);
        self
    }
}
