//! The registry of dialects and op kinds. Each op kind brings an [`OpInfo`]: its traits,
//! verifier, custom assembly format, folder, canonicalization patterns and interpreter.
//! Dialects register their ops with one explicit line each, so the list is greppable.

use std::collections::BTreeMap;

use crate::asm::parser::{OpParser, PResult};
use crate::asm::printer::OpPrinter;
use crate::attrs::Attr;
use crate::context::{Context, OpId, OperationState};
use crate::diag::Diagnostic;
use crate::interp::{InterpResult, Machine};
use crate::rewrite::RewritePattern;
use crate::types::TypeData;

/// Op traits, as a bit set.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct Traits(pub u32);

impl Traits {
    /// No side effects: removable when unused, mergeable by cse.
    pub const PURE: Traits = Traits(1);
    /// Applies the same scalar function to each element of same-shaped operands.
    pub const ELEMENTWISE: Traits = Traits(1 << 1);
    /// Every operand and result has one type.
    pub const SAME_OPERANDS_AND_RESULT_TYPE: Traits = Traits(1 << 2);
    /// Must be the last op of its block.
    pub const TERMINATOR: Traits = Traits(1 << 3);
    /// Its regions cannot use values defined outside them.
    pub const ISOLATED_FROM_ABOVE: Traits = Traits(1 << 4);
    /// Defines a symbol through its `sym_name` attribute.
    pub const SYMBOL: Traits = Traits(1 << 5);
    /// Its region holds symbols whose names must be unique.
    pub const SYMBOL_TABLE: Traits = Traits(1 << 6);
    /// Its regions' blocks need no terminator.
    pub const NO_TERMINATOR: Traits = Traits(1 << 7);
    /// Each region holds at most one block.
    pub const SINGLE_BLOCK: Traits = Traits(1 << 8);
    /// Produces a constant from attributes alone.
    pub const CONSTANT_LIKE: Traits = Traits(1 << 9);
    /// `op(a, b) == op(b, a)`.
    pub const COMMUTATIVE: Traits = Traits(1 << 10);
    /// Operands and results have the same shape (element types may differ).
    pub const SAME_OPERANDS_AND_RESULT_SHAPE: Traits = Traits(1 << 11);

    /// Whether all bits of `other` are set.
    pub fn contains(self, other: Traits) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Traits {
    type Output = Traits;
    fn bitor(self, rhs: Traits) -> Traits {
        Traits(self.0 | rhs.0)
    }
}

/// Checks what an op's traits cannot say. Returns the first problem.
pub type VerifyFn = fn(&Context, OpId) -> Result<(), Diagnostic>;
/// Parses the custom form of an op after its name.
pub type ParseFn = fn(&mut OpParser<'_>, &mut OperationState) -> PResult<()>;
/// Prints the custom form of an op after its name.
pub type PrintFn = fn(&mut OpPrinter<'_>, OpId);
/// Folds an op given the constant values of its operands (`None` when not constant).
pub type FoldFn = fn(&mut Context, OpId, &[Option<Attr>]) -> Option<Vec<FoldResult>>;
/// Returns the op's canonicalization patterns.
pub type PatternsFn = fn() -> Vec<Box<dyn RewritePattern>>;
/// Executes an op in the reference interpreter.
pub type InterpretFn = fn(&mut Machine, &Context, OpId) -> InterpResult<()>;
/// Checks the parameters of a dialect type.
pub type TypeVerifyFn = fn(&Context, &TypeData) -> Result<(), String>;

/// The outcome of folding one result.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum FoldResult {
    /// The result is this constant (materialized by the dialect's constant op).
    Constant(Attr),
    /// The result is this existing value.
    Value(crate::context::Value),
}

/// Everything the framework knows about one op kind.
#[derive(Clone)]
pub struct OpInfo {
    /// The full name, such as `mtensor.add`.
    pub name: &'static str,
    /// A one-line description.
    pub summary: &'static str,
    /// Its traits; their verifiers run automatically.
    pub traits: Traits,
    /// Op-specific verifier.
    pub verify: Option<VerifyFn>,
    /// Custom-form parser; without one the op is read and written in generic form only.
    pub parse: Option<ParseFn>,
    /// Custom-form printer.
    pub print: Option<PrintFn>,
    /// Folder.
    pub fold: Option<FoldFn>,
    /// Canonicalization patterns.
    pub patterns: Option<PatternsFn>,
    /// Interpreter semantics.
    pub interpret: Option<InterpretFn>,
    /// The elementwise interface: which scalar function the op applies to each element.
    pub elementwise: Option<crate::interfaces::ElementwiseFn>,
    /// The declared operands, results, attributes and regions (ops defined with
    /// `define_op!`), for generated documentation.
    pub signature: Option<&'static OpSignature>,
}

/// A named operand, result or attribute of an op definition and what it must be (the
/// constraint's description, completing "must be ...").
pub type Named = (&'static str, &'static str);

/// What an op definition declares (`define_op!`): its operands, results, attributes and
/// regions, with the descriptions of their constraints.
#[derive(Debug)]
pub struct OpSignature {
    /// Fixed operands.
    pub operands: &'static [Named],
    /// The variadic operand group, if any.
    pub variadic: Option<Named>,
    /// Fixed results.
    pub results: &'static [Named],
    /// The variadic result group, if any.
    pub variadic_results: Option<Named>,
    /// Required attributes.
    pub attrs: &'static [Named],
    /// Optional attributes.
    pub optional_attrs: &'static [Named],
    /// Regions.
    pub regions: &'static [&'static str],
}

impl std::fmt::Debug for OpInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpInfo({})", self.name)
    }
}

impl OpInfo {
    /// An op kind with a name, a summary and nothing else.
    pub const fn new(name: &'static str, summary: &'static str) -> Self {
        OpInfo {
            name,
            summary,
            traits: Traits(0),
            verify: None,
            parse: None,
            print: None,
            fold: None,
            patterns: None,
            interpret: None,
            elementwise: None,
            signature: None,
        }
    }
    /// Sets the declared signature.
    pub const fn signature(mut self, s: &'static OpSignature) -> Self {
        self.signature = Some(s);
        self
    }
    /// Sets the traits.
    pub const fn traits(mut self, t: Traits) -> Self {
        self.traits = t;
        self
    }
    /// Sets the verifier.
    pub const fn verify(mut self, f: VerifyFn) -> Self {
        self.verify = Some(f);
        self
    }
    /// Sets the custom assembly format.
    pub const fn format(mut self, parse: ParseFn, print: PrintFn) -> Self {
        self.parse = Some(parse);
        self.print = Some(print);
        self
    }
    /// Sets the folder.
    pub const fn fold(mut self, f: FoldFn) -> Self {
        self.fold = Some(f);
        self
    }
    /// Sets the canonicalization patterns.
    pub const fn patterns(mut self, f: PatternsFn) -> Self {
        self.patterns = Some(f);
        self
    }
    /// Sets the interpreter semantics.
    pub const fn interpret(mut self, f: InterpretFn) -> Self {
        self.interpret = Some(f);
        self
    }
    /// Sets the elementwise interface.
    pub const fn elementwise(mut self, f: crate::interfaces::ElementwiseFn) -> Self {
        self.elementwise = Some(f);
        self
    }
    /// Whether the op has all of `t`.
    pub fn has(&self, t: Traits) -> bool {
        self.traits.contains(t)
    }
}

/// Creates the constant op of a dialect for a folded value: `(ctx, value, type, loc)`.
pub type MaterializeFn = fn(&mut Context, Attr, crate::types::Type, crate::location::Loc) -> Option<OpId>;

/// Dialect-level hooks.
#[derive(Clone)]
pub struct DialectInfo {
    /// The namespace, such as `mtensor`.
    pub name: &'static str,
    /// A one-line description.
    pub summary: &'static str,
    /// Materializes folded constants as ops of this dialect.
    pub materialize_constant: Option<MaterializeFn>,
}

/// Dialects, op kinds and dialect types known to a context.
#[derive(Default, Clone)]
pub struct Registry {
    ops: BTreeMap<&'static str, &'static OpInfo>,
    dialects: BTreeMap<&'static str, DialectInfo>,
    types: BTreeMap<&'static str, TypeVerifyFn>,
    /// Accept ops and types of unknown dialects (generic form only).
    pub allow_unregistered: bool,
}

impl Registry {
    /// Registers a dialect.
    pub fn register_dialect(&mut self, d: DialectInfo) {
        self.dialects.insert(d.name, d);
    }
    /// Registers an op kind. Registering one name twice replaces the first.
    ///
    /// Op kinds are `'static`: the address of an op's [`OpInfo`] is its interned name, which
    /// typed handles ([`crate::opdef::Op`]) compare instead of strings. Ops defined with
    /// [`crate::define_op!`] pass `FooOp::info()`; a one-off kind (in a test) can be a
    /// `static` or leaked.
    pub fn register_op(&mut self, info: &'static OpInfo) {
        self.ops.insert(info.name, info);
    }
    /// Registers a dialect type (`mloop.buffer`) with its parameter verifier.
    pub fn register_type(&mut self, name: &'static str, verify: TypeVerifyFn) {
        self.types.insert(name, verify);
    }
    /// The op kind named `name`.
    pub fn op(&self, name: &str) -> Option<&'static OpInfo> {
        self.ops.get(name).copied()
    }
    /// The dialect named `name`.
    pub fn dialect(&self, name: &str) -> Option<&DialectInfo> {
        self.dialects.get(name)
    }
    /// The verifier of dialect type `name`.
    pub fn type_verifier(&self, name: &str) -> Option<TypeVerifyFn> {
        self.types.get(name).copied()
    }
    /// All registered op kinds, sorted by name.
    pub fn ops(&self) -> impl Iterator<Item = &'static OpInfo> + '_ {
        self.ops.values().copied()
    }
    /// All registered dialects, sorted by name.
    pub fn dialects(&self) -> impl Iterator<Item = &DialectInfo> {
        self.dialects.values()
    }
}
