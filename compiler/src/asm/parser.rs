//! The parser of the MLIR-syntax text format: generic ops, custom op forms (through the
//! registry's parse hooks), regions, blocks, types and attributes.
//!
//! Guarantees: any input, however malformed, large or deeply nested, ends in `Ok` or in one
//! [`Diagnostic`] with a file:line:col location; nothing panics, recursion is bounded by
//! [`MAX_NESTING`], and every loop consumes input.
//!
//! Values may be used before their definition (as in MLIR); such uses get placeholders that
//! the definition replaces. Uses that are never defined are errors at the end of the
//! enclosing isolated scope, and uses that are defined but not dominated are left to the
//! verifier.

use std::collections::HashMap;

use crate::asm::lexer::{lex, skip_trivia, Tok, Token};
use crate::attrs::{Attr, AttrData};
use crate::context::{BlockId, Context, OpId, OperationState, RegionId, Sym, Value, ValueDef};
use crate::diag::Diagnostic;
use crate::location::Loc;
use crate::numerics::FloatKind;
use crate::registry::Traits;
use crate::types::{Dim, Type, TypeData, MAX_DIM, MAX_RANK};

/// Result of a parse step.
pub type PResult<T> = Result<T, Diagnostic>;

/// One declared argument: name (without `%`), type, location and attribute dictionary.
pub type ArgDecl = (String, Type, Loc, Option<Attr>);

/// How deeply regions, types and attributes may nest.
pub const MAX_NESTING: usize = 128;

/// Parser for custom op formats: the same object as the main parser.
pub type OpParser<'a> = Parser<'a>;

/// A value reference as written, before it is resolved to a [`Value`].
#[derive(Clone, Debug)]
pub struct UnresolvedOperand {
    /// The name without `%`.
    pub name: String,
    /// The result number after `#`.
    pub number: Option<u32>,
    /// Where it was written.
    pub loc: Loc,
}

/// One naming scope: the values a region defines.
#[derive(Default)]
struct Scope {
    /// A number unique within one parse, naming this scope in [`Forward::chain`].
    id: u32,
    values: HashMap<String, (Vec<Value>, Loc)>,
    /// Whether names of enclosing scopes are invisible (an isolated-from-above region).
    isolated: bool,
    /// Forward references awaiting a definition (only used on isolated scopes).
    forward: HashMap<String, Vec<Forward>>,
}

/// Uses of a name before its definition, from one scope: one placeholder stands for them.
struct Forward {
    /// The placeholder the uses refer to until the definition replaces it.
    ph: Value,
    /// The first use.
    loc: Loc,
    /// The ids of the scopes the uses sit in, from the isolated scope inward. Only a
    /// definition in one of these scopes is visible to the uses: a value defined in a
    /// nested region (such as the body of the op that uses it) is not.
    chain: Vec<u32>,
    /// A definition of the name that the uses cannot see, for the error at the end.
    hidden_def: Option<Loc>,
}

/// The parser state.
pub struct Parser<'a> {
    /// The context that receives the IR.
    pub ctx: &'a mut Context,
    src: &'a str,
    file: Sym,
    line_offset: u32,
    line_starts: Vec<usize>,
    tok: Token,
    scopes: Vec<Scope>,
    next_scope_id: u32,
    depth: usize,
}

/// Parses `src` (named `file_name` in diagnostics) into a new `builtin.module` and returns it.
/// A file whose top level is a single `builtin.module` returns that module; otherwise the
/// top-level ops are wrapped in an implicit module.
///
/// `line_offset` is added to every line number (for `--split-input-file` chunks).
pub fn parse_source(ctx: &mut Context, file_name: &str, src: &str, line_offset: u32) -> PResult<OpId> {
    let file = ctx.sym(file_name);
    let mut line_starts = vec![0];
    for (i, b) in src.bytes().enumerate() {
        if b == b'\n' {
            line_starts.push(i + 1);
        }
    }
    let mut p = Parser {
        ctx,
        src,
        file,
        line_offset,
        line_starts,
        tok: Token { tok: Tok::Eof, start: 0, end: 0 },
        scopes: Vec::new(),
        next_scope_id: 0,
        depth: 0,
    };
    p.tok = p.lex_at(0)?;
    p.parse_top_level()
}

impl<'a> Parser<'a> {
    // ----- positions and errors -----

    /// The location of byte offset `pos`.
    pub fn loc_at(&self, pos: usize) -> Loc {
        let line = match self.line_starts.binary_search(&pos) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let col = self.src[self.line_starts[line]..pos.min(self.src.len())].chars().count() + 1;
        Loc::File { file: self.file, line: line as u32 + 1 + self.line_offset, col: col as u32 }
    }

    /// The location of the current token.
    pub fn loc(&self) -> Loc {
        self.loc_at(self.tok.start)
    }

    /// An error at the current token.
    pub fn error(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(self.loc(), msg)
    }

    /// An error at `loc`.
    pub fn error_at(&self, loc: Loc, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(loc, msg)
    }

    fn lex_at(&self, pos: usize) -> PResult<Token> {
        lex(self.src, pos).map_err(|e| Diagnostic::error(self.loc_at(e.pos), e.message))
    }

    fn bump(&mut self) -> PResult<Token> {
        let next = self.lex_at(self.tok.end)?;
        Ok(std::mem::replace(&mut self.tok, next))
    }

    /// The current token.
    pub fn peek(&self) -> &Tok {
        &self.tok.tok
    }

    /// Whether the current token is the punctuation `p`.
    pub fn at_punct(&self, p: &str) -> bool {
        matches!(&self.tok.tok, Tok::Punct(q) if *q == p)
    }

    /// Whether the current token is the keyword `kw`.
    pub fn at_keyword(&self, kw: &str) -> bool {
        matches!(&self.tok.tok, Tok::Ident(s) if s == kw)
    }

    /// Consumes punctuation `p` if present.
    pub fn parse_optional_punct(&mut self, p: &str) -> PResult<bool> {
        if self.at_punct(p) {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes punctuation `p` or fails with "expected 'p'".
    pub fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.at_punct(p) {
            self.bump()?;
            Ok(())
        } else {
            Err(self.error(format!("expected '{p}', found {}", self.tok.tok.describe())))
        }
    }

    /// Consumes keyword `kw` if present.
    pub fn parse_optional_keyword(&mut self, kw: &str) -> PResult<bool> {
        if self.at_keyword(kw) {
            self.bump()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Consumes keyword `kw` or fails.
    pub fn expect_keyword(&mut self, kw: &str) -> PResult<()> {
        if self.parse_optional_keyword(kw)? {
            Ok(())
        } else {
            Err(self.error(format!("expected '{kw}', found {}", self.tok.tok.describe())))
        }
    }

    /// Parses an integer literal, optionally negative (`0`, `-3`, `0x10`), with no type suffix.
    pub fn parse_integer(&mut self) -> PResult<i64> {
        let neg = self.parse_optional_punct("-")?;
        let Tok::Int(text) = self.tok.tok.clone() else {
            return Err(self.error(format!("expected integer literal, found {}", self.tok.tok.describe())));
        };
        let v = match text.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).ok(),
            None => text.parse::<i64>().ok(),
        }
        .ok_or_else(|| self.error(format!("integer literal '{text}' is out of range")))?;
        self.bump()?;
        Ok(if neg { -v } else { v })
    }

    /// Parses a bare identifier and returns it.
    pub fn parse_keyword(&mut self, what: &str) -> PResult<String> {
        match &self.tok.tok {
            Tok::Ident(s) => {
                let s = s.clone();
                self.bump()?;
                Ok(s)
            }
            t => Err(self.error(format!("expected {what}, found {}", t.describe()))),
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error(format!("nesting is too deep (more than {MAX_NESTING} levels)")));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----- top level -----

    fn parse_top_level(&mut self) -> PResult<OpId> {
        let loc = self.loc();
        let region = self.ctx.create_region();
        let block = self.ctx.create_block(region, &[]);
        self.push_scope(true);
        while !matches!(self.tok.tok, Tok::Eof) {
            let op = self.parse_operation()?;
            self.ctx.append_op(block, op);
        }
        self.finish_isolated_scope()?;
        let ops: Vec<OpId> = self.ctx.block_ops(block).collect();
        if ops.len() == 1 && self.ctx.op_name(ops[0]) == "builtin.module" {
            let m = ops[0];
            self.ctx.detach_op(m);
            let wrapper = self.ctx.create_op(OperationState::new("builtin.module", loc).region(region));
            self.ctx.erase_op(wrapper);
            return Ok(m);
        }
        Ok(self.ctx.create_op(OperationState::new("builtin.module", loc).region(region)))
    }

    fn push_scope(&mut self, isolated: bool) {
        let id = self.next_scope_id;
        self.next_scope_id = self.next_scope_id.wrapping_add(1);
        self.scopes.push(Scope { id, isolated, ..Default::default() });
    }

    fn finish_isolated_scope(&mut self) -> PResult<()> {
        let Some(scope) = self.scopes.pop() else { return Ok(()) };
        let first =
            scope.forward.iter().flat_map(|(name, uses)| uses.iter().map(move |f| (name, f))).min_by_key(|(_, f)| {
                match f.loc {
                    Loc::File { line, col, .. } => (line, col),
                    Loc::Unknown => (0, 0),
                }
            });
        let Some((name, f)) = first else { return Ok(()) };
        let name = name.split('#').next().unwrap_or(name);
        Err(match f.hidden_def {
            Some(def) => Diagnostic::error(f.loc, format!("use of value '%{name}' outside the region that defines it"))
                .with_note(def, "defined here"),
            None => self.error_at(f.loc, format!("use of undeclared SSA value name '%{name}'")),
        })
    }

    // ----- operations -----

    /// Parses one operation (results, name, operands, regions, attributes, types).
    pub fn parse_operation(&mut self) -> PResult<OpId> {
        self.enter()?;
        let r = self.parse_operation_inner();
        self.leave();
        r
    }

    fn parse_operation_inner(&mut self) -> PResult<OpId> {
        // Result list.
        let mut result_defs: Vec<(String, u32, Loc)> = Vec::new();
        if let Tok::ValueId(..) = self.tok.tok {
            loop {
                let loc = self.loc();
                let (name, num) = match &self.tok.tok {
                    Tok::ValueId(n, num) => (n.clone(), *num),
                    t => return Err(self.error(format!("expected SSA value name, found {}", t.describe()))),
                };
                if num.is_some() {
                    return Err(self.error("result names cannot carry a result number ('#')"));
                }
                self.bump()?;
                let mut count = 1;
                if self.parse_optional_punct(":")? {
                    count = match &self.tok.tok {
                        Tok::Int(s) => s.parse::<u32>().ok().filter(|&c| (1..=4096).contains(&c)),
                        _ => None,
                    }
                    .ok_or_else(|| self.error("expected a result count between 1 and 4096"))?;
                    self.bump()?;
                }
                result_defs.push((name, count, loc));
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
            self.expect_punct("=")?;
        }
        let op_loc = self.loc();
        let op = match self.tok.tok.clone() {
            Tok::Str(name) => {
                self.bump()?;
                self.parse_generic_op(name, op_loc)?
            }
            Tok::Ident(name) => {
                self.bump()?;
                self.parse_custom_op(name, op_loc)?
            }
            t => return Err(self.error(format!("expected operation name, found {}", t.describe()))),
        };
        // Trailing location.
        self.parse_optional_trailing_loc(op)?;
        // Bind results.
        let nres = self.ctx.results(op).len();
        let declared: u32 = result_defs.iter().map(|r| r.1).sum();
        if !result_defs.is_empty() && declared as usize != nres {
            let msg = format!(
                "operation defines {nres} result{} but was provided {declared} to bind",
                if nres == 1 { "" } else { "s" }
            );
            self.erase_unbound(op);
            return Err(self.error_at(result_defs[0].2, msg));
        }
        if result_defs.is_empty() && nres != 0 {
            // Results nobody can name are still fine (MLIR allows it).
        }
        let mut idx = 0;
        for (name, count, loc) in result_defs {
            let vals: Vec<Value> = self.ctx.results(op)[idx..idx + count as usize].to_vec();
            idx += count as usize;
            if count == 1 && !name.chars().all(|c| c.is_ascii_digit()) {
                let s = self.ctx.sym(&name);
                self.ctx.values[vals[0]].name = Some(s);
            }
            self.define(&name, vals, loc)?;
        }
        Ok(op)
    }

    fn erase_unbound(&mut self, op: OpId) {
        if self.ctx.results(op).iter().all(|r| self.ctx.uses(*r).is_empty()) {
            self.ctx.erase_op(op);
        }
    }

    fn parse_optional_trailing_loc(&mut self, op: OpId) -> PResult<()> {
        if self.at_keyword("loc") {
            let l = self.parse_location()?;
            if l.is_known() {
                self.ctx.ops[op].loc = l;
            }
        }
        Ok(())
    }

    /// Parses `loc(...)`: `loc("file":line:col)`, `loc(unknown)`, `loc("name")`.
    pub fn parse_location(&mut self) -> PResult<Loc> {
        self.expect_keyword("loc")?;
        self.expect_punct("(")?;
        let mut result = Loc::Unknown;
        match self.tok.tok.clone() {
            Tok::Ident(s) if s == "unknown" => {
                self.bump()?;
            }
            Tok::Str(file) => {
                self.bump()?;
                if self.parse_optional_punct(":")? {
                    let line = self.parse_u32("line number")?;
                    self.expect_punct(":")?;
                    let col = self.parse_u32("column number")?;
                    let f = self.ctx.sym(&file);
                    result = Loc::File { file: f, line, col };
                }
            }
            t => return Err(self.error(format!("expected location, found {}", t.describe()))),
        }
        self.expect_punct(")")?;
        Ok(result)
    }

    fn parse_u32(&mut self, what: &str) -> PResult<u32> {
        match &self.tok.tok {
            Tok::Int(s) => {
                let v = s.parse::<u32>().map_err(|_| self.error(format!("invalid {what}")))?;
                self.bump()?;
                Ok(v)
            }
            t => Err(self.error(format!("expected {what}, found {}", t.describe()))),
        }
    }

    fn check_op_name(&self, name: &str, loc: Loc) -> PResult<()> {
        let Some((dialect, rest)) = name.split_once('.') else {
            return Err(self.error_at(loc, format!("operation name '{name}' must be 'dialect.op'")));
        };
        if dialect.is_empty() || rest.is_empty() {
            return Err(self.error_at(loc, format!("operation name '{name}' must be 'dialect.op'")));
        }
        if self.ctx.registry().op(name).is_none() {
            let dialect_known = self.ctx.registry().dialect(dialect).is_some();
            if dialect_known {
                return Err(self.error_at(
                    loc,
                    format!("unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"),
                ));
            }
            if !self.ctx.registry().allow_unregistered {
                return Err(self.error_at(
                    loc,
                    format!("operation '{name}' of unregistered dialect '{dialect}' (use --allow-unregistered-dialect to accept it)"),
                ));
            }
        }
        Ok(())
    }

    fn parse_generic_op(&mut self, name: String, loc: Loc) -> PResult<OpId> {
        self.check_op_name(&name, loc)?;
        let mut state = OperationState::new(&name, loc);
        self.expect_punct("(")?;
        let mut operands = Vec::new();
        if !self.at_punct(")") {
            loop {
                operands.push(self.parse_operand()?);
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct(")")?;
        // Properties `<{...}>` are accepted and kept as attributes.
        if self.at_punct("<") {
            self.bump()?;
            let props = self.parse_attribute_dict_entries()?;
            self.expect_punct(">")?;
            state.attrs.extend(props);
        }
        let isolated = self.ctx.registry().op(&name).is_some_and(|i| i.has(Traits::ISOLATED_FROM_ABOVE));
        if self.at_punct("(") {
            self.bump()?;
            loop {
                let r = self.parse_region(&[], isolated)?;
                state.regions.push(r);
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
            self.expect_punct(")")?;
        }
        if self.at_punct("{") {
            let attrs = self.parse_attribute_dict_entries()?;
            state.attrs.extend(attrs);
        }
        self.expect_punct(":")?;
        let ty_loc = self.loc();
        let fty = self.parse_type()?;
        let Some((ins, outs)) = self.ctx.function_parts(fty).map(|(a, b)| (a.to_vec(), b.to_vec())) else {
            return Err(self.error_at(ty_loc, "expected function type for a generic operation"));
        };
        if ins.len() != operands.len() {
            return Err(self.error_at(
                ty_loc,
                format!(
                    "expected {} operand type{} but had {}",
                    operands.len(),
                    if operands.len() == 1 { "" } else { "s" },
                    ins.len()
                ),
            ));
        }
        for (o, t) in operands.into_iter().zip(ins) {
            let v = self.resolve_operand(&o, t)?;
            state.operands.push(v);
        }
        state.result_types = outs;
        Ok(self.ctx.create_op(state))
    }

    fn parse_custom_op(&mut self, name: String, loc: Loc) -> PResult<OpId> {
        let resolved = if self.ctx.registry().op(&name).is_some() {
            name.clone()
        } else if name == "module" {
            "builtin.module".to_string()
        } else if name == "return" {
            "func.return".to_string()
        } else {
            return Err(self.error_at(loc, format!("custom op '{name}' is unknown")));
        };
        let Some(info) = self.ctx.registry().op(&resolved).cloned() else {
            return Err(self.error_at(loc, format!("custom op '{name}' is unknown")));
        };
        let Some(parse) = info.parse else {
            return Err(self.error_at(loc, format!("'{resolved}' has no custom form; write it in generic form")));
        };
        let mut state = OperationState::new(&resolved, loc);
        parse(self, &mut state)?;
        Ok(self.ctx.create_op(state))
    }

    // ----- values -----

    /// Parses `%name` or `%name#N`.
    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand> {
        let loc = self.loc();
        match self.tok.tok.clone() {
            Tok::ValueId(name, number) => {
                self.bump()?;
                Ok(UnresolvedOperand { name, number, loc })
            }
            t => Err(self.error(format!("expected SSA operand, found {}", t.describe()))),
        }
    }

    /// Parses a comma-separated list of operands (possibly empty if `allow_empty`).
    pub fn parse_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand>> {
        let mut v = Vec::new();
        if !matches!(self.tok.tok, Tok::ValueId(..)) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_operand()?);
            if !self.at_punct(",") {
                break;
            }
            // Only continue if a value follows the comma.
            let next = self.lex_at(self.tok.end)?;
            if !matches!(next.tok, Tok::ValueId(..)) {
                break;
            }
            self.bump()?;
        }
        Ok(v)
    }

    fn lookup(&self, name: &str) -> Option<(Vec<Value>, Loc)> {
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.values.get(name) {
                return Some(v.clone());
            }
            if s.isolated {
                break;
            }
        }
        None
    }

    fn isolated_scope_index(&self) -> usize {
        let mut i = self.scopes.len() - 1;
        while i > 0 && !self.scopes[i].isolated {
            i -= 1;
        }
        i
    }

    /// Resolves an operand to a value of type `ty`; uses before the definition get a
    /// placeholder.
    pub fn resolve_operand(&mut self, o: &UnresolvedOperand, ty: Type) -> PResult<Value> {
        let key = match o.number {
            Some(n) => format!("{}#{}", o.name, n),
            None => o.name.clone(),
        };
        let v = if let Some((vals, _)) = self.lookup(&o.name) {
            let idx = o.number.unwrap_or(0) as usize;
            match vals.get(idx) {
                Some(v) => *v,
                None => {
                    return Err(self.error_at(o.loc, format!("result number {idx} out of range for '%{}'", o.name)));
                }
            }
        } else {
            let si = self.isolated_scope_index();
            let chain: Vec<u32> = self.scopes[si..].iter().map(|s| s.id).collect();
            let existing =
                self.scopes[si].forward.get(&key).and_then(|v| v.iter().find(|f| f.chain == chain).map(|f| f.ph));
            match existing {
                Some(ph) => ph,
                None => {
                    let ph = self.ctx.new_placeholder(ty, o.loc);
                    let f = Forward { ph, loc: o.loc, chain, hidden_def: None };
                    self.scopes[si].forward.entry(key.clone()).or_default().push(f);
                    ph
                }
            }
        };
        let vt = self.ctx.value_type(v);
        if vt != ty {
            return Err(self.error_at(
                o.loc,
                format!(
                    "use of value '%{}' expects different type than prior uses: '{}' vs '{}'",
                    o.name,
                    self.ctx.type_to_string(ty),
                    self.ctx.type_to_string(vt)
                ),
            ));
        }
        Ok(v)
    }

    /// Resolves a list of operands against a list of types.
    pub fn resolve_operands(&mut self, os: &[UnresolvedOperand], tys: &[Type], loc: Loc) -> PResult<Vec<Value>> {
        if os.len() != tys.len() {
            return Err(self.error_at(loc, format!("{} operands present, but expected {}", os.len(), tys.len())));
        }
        os.iter().zip(tys).map(|(o, t)| self.resolve_operand(o, *t)).collect()
    }

    /// Binds `name` to `vals` in the current scope (resolving forward references).
    fn define(&mut self, name: &str, vals: Vec<Value>, loc: Loc) -> PResult<()> {
        // Redefinition within the visible scopes.
        let cur = self.scopes.len() - 1;
        if let Some((_, prev)) = self.scopes[cur].values.get(name) {
            let prev = *prev;
            return Err(Diagnostic::error(loc, format!("redefinition of SSA value '%{name}'"))
                .with_note(prev, "previously defined here"));
        }
        if let Some((_, prev)) = self.lookup(name) {
            return Err(Diagnostic::error(loc, format!("redefinition of SSA value '%{name}'"))
                .with_note(prev, "previously defined here"));
        }
        let si = self.isolated_scope_index();
        let cur_id = self.scopes[cur].id;
        for (i, v) in vals.iter().enumerate() {
            let keys = if i == 0 { vec![name.to_string(), format!("{name}#0")] } else { vec![format!("{name}#{i}")] };
            for key in keys {
                if let Some(uses) = self.scopes[si].forward.remove(&key) {
                    // Uses outside this scope (in an enclosing region, such as the operands of
                    // the op whose body is being parsed) cannot see this definition: they
                    // stay pending, and the placeholder they hold stays valid.
                    let (visible, hidden): (Vec<Forward>, Vec<Forward>) =
                        uses.into_iter().partition(|f| f.chain.contains(&cur_id));
                    if !hidden.is_empty() {
                        let hidden = hidden
                            .into_iter()
                            .map(|f| Forward { hidden_def: f.hidden_def.or(Some(loc)), ..f })
                            .collect();
                        self.scopes[si].forward.insert(key.clone(), hidden);
                    }
                    for Forward { ph, loc: uloc, .. } in visible {
                        let (pt, vt) = (self.ctx.value_type(ph), self.ctx.value_type(*v));
                        if pt != vt {
                            return Err(Diagnostic::error(
                                uloc,
                                format!(
                                    "use of value '%{name}' expects different type than its definition: '{}' vs '{}'",
                                    self.ctx.type_to_string(pt),
                                    self.ctx.type_to_string(vt)
                                ),
                            )
                            .with_note(loc, "defined here"));
                        }
                        self.ctx.replace_all_uses_with(ph, *v);
                        self.ctx.remove_value(ph);
                    }
                }
            }
        }
        // Uses with a result number beyond the op's results.
        let prefix = format!("{name}#");
        let bad: Option<Loc> = self.scopes[si]
            .forward
            .iter()
            .filter(|(k, _)| k.starts_with(&prefix) && k[prefix.len()..].chars().all(|c| c.is_ascii_digit()))
            .flat_map(|(_, u)| u.iter())
            .find(|f| f.chain.contains(&cur_id))
            .map(|f| f.loc);
        if let Some(l) = bad {
            return Err(Diagnostic::error(l, format!("result number out of range for '%{name}'")));
        }
        self.scopes[cur].values.insert(name.to_string(), (vals, loc));
        Ok(())
    }

    // ----- regions and blocks -----

    /// Parses an argument declaration list `(%a: t, %b: t)` as in a function signature;
    /// returns (name, type, loc) triples.
    pub fn parse_argument_list(&mut self) -> PResult<Vec<(String, Type, Loc)>> {
        Ok(self.parse_argument_list_with_attrs()?.into_iter().map(|(n, t, l, _)| (n, t, l)).collect())
    }

    /// Like [`Self::parse_argument_list`], also returning each argument's attribute
    /// dictionary (`%x: t {morf.dims = ["M", "N"]}`), if written.
    pub fn parse_argument_list_with_attrs(&mut self) -> PResult<Vec<ArgDecl>> {
        self.parse_argument_list_impl(false)
    }

    /// The argument list of a function: named arguments as in
    /// [`Self::parse_argument_list_with_attrs`], or, for a declaration, bare types
    /// (`(i32, f32)`), which come back with empty names.
    pub fn parse_function_argument_list(&mut self) -> PResult<Vec<ArgDecl>> {
        self.parse_argument_list_impl(true)
    }

    fn parse_argument_list_impl(&mut self, allow_bare: bool) -> PResult<Vec<ArgDecl>> {
        self.expect_punct("(")?;
        let mut args = Vec::new();
        let bare = allow_bare && self.at_type_start();
        if !self.at_punct(")") {
            loop {
                let loc = self.loc();
                let name = match self.tok.tok.clone() {
                    Tok::ValueId(n, None) if !bare => n,
                    _ if bare && self.at_type_start() => String::new(),
                    t => return Err(self.error(format!("expected SSA identifier, found {}", t.describe()))),
                };
                if !bare {
                    self.bump()?;
                    self.expect_punct(":")?;
                }
                let t = self.parse_type()?;
                let mut attrs = None;
                if self.at_punct("{") {
                    let entries = self.parse_attribute_dict_entries()?;
                    let e = entries.into_iter().map(|(k, v)| (self.ctx.sym(&k), v)).collect();
                    attrs = Some(self.ctx.dict_attr(e));
                }
                if self.at_keyword("loc") {
                    self.parse_location()?;
                }
                args.push((name, t, loc, attrs));
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct(")")?;
        Ok(args)
    }

    /// Parses a region `{ ... }`. `entry_args` become the entry block's arguments (a
    /// function's signature); `isolated` hides the values of enclosing regions.
    pub fn parse_region(&mut self, entry_args: &[(String, Type, Loc)], isolated: bool) -> PResult<RegionId> {
        self.enter()?;
        let r = self.parse_region_inner(entry_args, isolated);
        self.leave();
        r
    }

    fn parse_region_inner(&mut self, entry_args: &[(String, Type, Loc)], isolated: bool) -> PResult<RegionId> {
        self.expect_punct("{")?;
        let region = self.ctx.create_region();
        self.push_scope(isolated);
        let mut block_labels: HashMap<String, Loc> = HashMap::new();
        // Entry block without a label.
        if !matches!(self.tok.tok, Tok::CaretId(_)) && (!self.at_punct("}") || !entry_args.is_empty()) {
            let b = self.ctx.create_block(region, &[]);
            for (name, t, loc) in entry_args {
                self.add_named_arg(b, name, *t, *loc)?;
            }
            self.parse_block_body(b)?;
        } else if matches!(self.tok.tok, Tok::CaretId(_)) && !entry_args.is_empty() {
            return Err(self.error("invalid block name in region with named arguments"));
        }
        while let Tok::CaretId(label) = self.tok.tok.clone() {
            let loc = self.loc();
            self.bump()?;
            if let Some(prev) = block_labels.get(&label) {
                return Err(Diagnostic::error(loc, format!("redefinition of block '^{label}'"))
                    .with_note(*prev, "previously defined here"));
            }
            block_labels.insert(label.clone(), loc);
            let b = self.ctx.create_block(region, &[]);
            let l = self.ctx.sym(&label);
            self.ctx.blocks[b].label = Some(l);
            if self.at_punct("(") {
                let args = self.parse_argument_list()?;
                for (name, t, aloc) in args {
                    self.add_named_arg(b, &name, t, aloc)?;
                }
            }
            self.expect_punct(":")?;
            self.parse_block_body(b)?;
        }
        self.expect_punct("}")?;
        if isolated {
            self.finish_isolated_scope()?;
        } else {
            let s = self.scopes.pop();
            debug_assert!(s.is_none_or(|s| s.forward.is_empty()));
        }
        Ok(region)
    }

    fn add_named_arg(&mut self, b: BlockId, name: &str, t: Type, loc: Loc) -> PResult<()> {
        let sym = if name.chars().all(|c| c.is_ascii_digit()) { None } else { Some(self.ctx.sym(name)) };
        let v = self.ctx.add_block_arg(b, t, sym, loc);
        self.define(name, vec![v], loc)
    }

    fn parse_block_body(&mut self, b: BlockId) -> PResult<()> {
        while !self.at_punct("}") && !matches!(self.tok.tok, Tok::CaretId(_)) {
            if matches!(self.tok.tok, Tok::Eof) {
                return Err(self.error("expected '}' at end of region, found end of file"));
            }
            let op = self.parse_operation()?;
            self.ctx.append_op(b, op);
        }
        Ok(())
    }

    // ----- attributes -----

    /// Parses `{name = attr, unit_name, ...}` and returns the entries.
    pub fn parse_attribute_dict_entries(&mut self) -> PResult<Vec<(String, Attr)>> {
        self.enter()?;
        let r = self.parse_attribute_dict_entries_inner();
        self.leave();
        r
    }

    fn parse_attribute_dict_entries_inner(&mut self) -> PResult<Vec<(String, Attr)>> {
        self.expect_punct("{")?;
        let mut out: Vec<(String, Attr)> = Vec::new();
        if !self.at_punct("}") {
            loop {
                let loc = self.loc();
                let name = match self.tok.tok.clone() {
                    Tok::Ident(s) => s,
                    Tok::Str(s) => s,
                    t => return Err(self.error(format!("expected attribute name, found {}", t.describe()))),
                };
                self.bump()?;
                if out.iter().any(|(n, _)| *n == name) {
                    return Err(self.error_at(loc, format!("duplicate key '{name}' in dictionary attribute")));
                }
                let value =
                    if self.parse_optional_punct("=")? { self.parse_attribute()? } else { self.ctx.unit_attr() };
                out.push((name, value));
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct("}")?;
        Ok(out)
    }

    /// Parses an optional attribute dictionary into `state`.
    pub fn parse_optional_attr_dict(&mut self, state: &mut OperationState) -> PResult<()> {
        if self.at_punct("{") {
            let a = self.parse_attribute_dict_entries()?;
            state.attrs.extend(a);
        }
        Ok(())
    }

    /// Parses `attributes {...}` if present (the form used after a region-holding op).
    pub fn parse_optional_attr_dict_with_keyword(&mut self, state: &mut OperationState) -> PResult<()> {
        if self.parse_optional_keyword("attributes")? {
            let a = self.parse_attribute_dict_entries()?;
            state.attrs.extend(a);
        }
        Ok(())
    }

    /// Whether the current token can start a type.
    pub fn at_type_start(&self) -> bool {
        match &self.tok.tok {
            Tok::Ident(s) => is_builtin_type_keyword(s),
            Tok::BangId(_) => true,
            Tok::Punct("(") => true,
            _ => false,
        }
    }

    /// Parses an attribute value.
    pub fn parse_attribute(&mut self) -> PResult<Attr> {
        self.enter()?;
        let r = self.parse_attribute_inner();
        self.leave();
        r
    }

    fn parse_attribute_inner(&mut self) -> PResult<Attr> {
        let loc = self.loc();
        match self.tok.tok.clone() {
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump()?;
                Ok(self.ctx.bool_attr(s == "true"))
            }
            Tok::Ident(s) if s == "unit" => {
                self.bump()?;
                Ok(self.ctx.unit_attr())
            }
            Tok::Ident(s) if s == "dense" => self.parse_dense(),
            Tok::Ident(s) if s == "array" => self.parse_array_attr(),
            Tok::Int(_) | Tok::Float(_) | Tok::Punct("-") => self.parse_number_attr(),
            Tok::Str(s) => {
                self.bump()?;
                Ok(self.ctx.str_attr(&s))
            }
            Tok::AtId(s) => {
                self.bump()?;
                if self.at_punct(":") {
                    let next = self.lex_at(self.tok.end)?;
                    if matches!(next.tok, Tok::Punct(":")) {
                        return Err(self.error("nested symbol references are not supported"));
                    }
                }
                Ok(self.ctx.symbol_ref_attr(&s))
            }
            Tok::Punct("[") => {
                self.bump()?;
                let mut items = Vec::new();
                if !self.at_punct("]") {
                    loop {
                        items.push(self.parse_attribute()?);
                        if !self.parse_optional_punct(",")? {
                            break;
                        }
                    }
                }
                self.expect_punct("]")?;
                Ok(self.ctx.array_attr(items))
            }
            Tok::Punct("{") => {
                let entries = self.parse_attribute_dict_entries()?;
                let e = entries.into_iter().map(|(k, v)| (self.ctx.sym(&k), v)).collect();
                Ok(self.ctx.dict_attr(e))
            }
            Tok::HashId(s) => Err(self.error_at(loc, format!("undefined attribute alias '#{s}'"))),
            _ if self.at_type_start() => {
                let t = self.parse_type()?;
                Ok(self.ctx.type_attr(t))
            }
            t => Err(self.error(format!("expected attribute value, found {}", t.describe()))),
        }
    }

    /// `array<i64: 1, 2>`: a dense array, kept as an array of integer attributes.
    fn parse_array_attr(&mut self) -> PResult<Attr> {
        self.expect_keyword("array")?;
        self.expect_punct("<")?;
        let t = self.parse_type()?;
        if !self.ctx.is_int_or_index(t) {
            return Err(self.error("only integer dense arrays are supported"));
        }
        let mut items = Vec::new();
        if self.parse_optional_punct(":")? {
            loop {
                let neg = self.parse_optional_punct("-")?;
                let v = self.parse_int_literal(neg)?;
                items.push(self.ctx.int_attr(v, t));
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct(">")?;
        Ok(self.ctx.array_attr(items))
    }

    fn parse_int_literal(&mut self, neg: bool) -> PResult<i64> {
        let loc = self.loc();
        let Tok::Int(s) = self.tok.tok.clone() else {
            return Err(self.error(format!("expected integer literal, found {}", self.tok.tok.describe())));
        };
        self.bump()?;
        let mag: i128 = if let Some(h) = s.strip_prefix("0x") {
            i128::from_str_radix(h, 16).map_err(|_| self.error_at(loc, "integer literal is too large"))?
        } else {
            s.parse::<i128>().map_err(|_| self.error_at(loc, "integer literal is too large"))?
        };
        let v = if neg { -mag } else { mag };
        i64::try_from(v).map_err(|_| self.error_at(loc, "integer literal is too large"))
    }

    fn parse_number_attr(&mut self) -> PResult<Attr> {
        let loc = self.loc();
        let neg = self.parse_optional_punct("-")?;
        match self.tok.tok.clone() {
            Tok::Int(s) if !neg && s.starts_with("0x") && s.len() >= 18 => {
                // A 64-bit pattern such as 0xFFF0000000000000 (f64 -inf) does not fit an i64:
                // read it as raw bits, which only a float type may take.
                self.bump()?;
                let bits =
                    u64::from_str_radix(&s[2..], 16).map_err(|_| self.error_at(loc, "integer literal is too large"))?;
                let ty = if self.parse_optional_punct(":")? { self.parse_type()? } else { self.ctx.i64_type() };
                match self.ctx.float_kind(ty) {
                    Some(k) => self.float_from_bits(bits, k, ty, loc),
                    None => {
                        let v = i64::try_from(bits).map_err(|_| self.error_at(loc, "integer literal is too large"))?;
                        self.check_int_fits(v, ty, loc)?;
                        Ok(self.ctx.int_attr(v, ty))
                    }
                }
            }
            Tok::Int(s) => {
                let hex = s.starts_with("0x");
                let v = self.parse_int_literal(neg)?;
                let ty = if self.parse_optional_punct(":")? { self.parse_type()? } else { self.ctx.i64_type() };
                if let Some(k) = self.ctx.float_kind(ty) {
                    if !hex {
                        let f = v as f64;
                        return Ok(self.ctx.float_attr(f, ty));
                    }
                    return self.float_from_bits(v as u64, k, ty, loc);
                }
                self.check_int_fits(v, ty, loc)?;
                Ok(self.ctx.int_attr(v, ty))
            }
            Tok::Float(s) => {
                self.bump()?;
                let mut f: f64 = s.parse().map_err(|_| self.error_at(loc, "invalid float literal"))?;
                if neg {
                    f = -f;
                }
                let ty = if self.parse_optional_punct(":")? { self.parse_type()? } else { self.ctx.f64_type() };
                if !self.ctx.is_float(ty) {
                    return Err(self.error_at(loc, "floating point value not valid for specified type"));
                }
                Ok(self.ctx.float_attr(f, ty))
            }
            t => Err(self.error(format!("expected number, found {}", t.describe()))),
        }
    }

    fn float_from_bits(&mut self, bits: u64, k: FloatKind, ty: Type, loc: Loc) -> PResult<Attr> {
        let v = self.bits_to_f64(bits, k, loc)?;
        Ok(self.ctx.intern_attr(AttrData::Float { bits: v.to_bits(), ty }))
    }

    fn bits_to_f64(&self, bits: u64, k: FloatKind, loc: Loc) -> PResult<f64> {
        Ok(match k {
            FloatKind::F64 => f64::from_bits(bits),
            FloatKind::F32 => {
                let b = u32::try_from(bits)
                    .map_err(|_| self.error_at(loc, "hexadecimal float literal is too large for 'f32'"))?;
                f32::from_bits(b) as f64
            }
            FloatKind::F16 | FloatKind::BF16 => {
                let b =
                    u16::try_from(bits).map_err(|_| self.error_at(loc, "hexadecimal float literal is too large"))?;
                if k == FloatKind::BF16 {
                    f32::from_bits((b as u32) << 16) as f64
                } else {
                    crate::numerics::f16_bits_to_f64(b)
                }
            }
        })
    }

    fn check_int_fits(&self, v: i64, ty: Type, loc: Loc) -> PResult<()> {
        match self.ctx.type_data(ty) {
            TypeData::Integer(w) => {
                let w = *w;
                if w < 64 {
                    let (min, max) = if w == 1 { (0i64, 1i64) } else { (-(1i64 << (w - 1)), (1i64 << w) - 1) };
                    if v < min || v > max {
                        return Err(self.error_at(loc, format!("integer constant out of range for type 'i{w}'")));
                    }
                }
                Ok(())
            }
            TypeData::Index => Ok(()),
            _ => Err(self.error_at(loc, "integer literal not valid for specified type")),
        }
    }

    fn parse_dense(&mut self) -> PResult<Attr> {
        let start = self.loc();
        self.expect_keyword("dense")?;
        self.expect_punct("<")?;
        let mut values: Vec<(f64, Loc, bool, Option<u64>)> = Vec::new();
        let mut shape_seen: Vec<usize> = Vec::new();
        let is_list = self.at_punct("[");
        if is_list {
            self.parse_dense_list(0, &mut values, &mut shape_seen)?;
        } else if !self.at_punct(">") {
            let v = self.parse_dense_scalar()?;
            values.push(v);
        }
        self.expect_punct(">")?;
        self.expect_punct(":")?;
        let tloc = self.loc();
        let ty = self.parse_type()?;
        // Any shaped type: a tensor, or a shaped dialect type such as `!mloop.buffer<2xf32>`.
        let Some(shape) = self.ctx.shape_of(ty).map(|s| s.to_vec()) else {
            return Err(self.error_at(tloc, "elements literal must be a tensor type"));
        };
        let elem = self.ctx.element_type(ty);
        let mut n: u64 = 1;
        for d in &shape {
            match d {
                Dim::Static(s) => n = n.saturating_mul(*s),
                Dim::Dynamic => return Err(self.error_at(tloc, "elements literal type must have static shape")),
            }
        }
        let is_float = self.ctx.is_float(elem);
        for (_, l, was_float, _) in &values {
            if *was_float && !is_float {
                return Err(self.error_at(*l, "expected integer elements, but parsed floating-point"));
            }
        }
        let splat = !is_list && values.len() == 1;
        if !splat {
            if values.len() as u64 != n {
                return Err(self.error_at(
                    start,
                    format!(
                        "inferred shape of elements literal ([{}]) does not match type ([{}])",
                        shape_seen.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "),
                        shape.iter().map(|d| self.ctx.dim_to_string(*d)).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            let expected: Vec<usize> = shape.iter().map(|d| d.as_static().unwrap_or(0) as usize).collect();
            if !expected.is_empty() && expected != shape_seen {
                return Err(self.error_at(start, "elements literal nesting does not match the tensor shape"));
            }
        } else if values.is_empty() {
            return Err(self.error_at(start, "expected an elements literal"));
        }
        if let Some(w) = match self.ctx.type_data(elem) {
            TypeData::Integer(w) => Some(*w),
            _ => None,
        } {
            for (v, l, _, hex) in &values {
                if hex.is_some_and(|b| b > (1u64 << 53)) {
                    return Err(self.error_at(*l, "integer element is too large (at most 2^53)"));
                }
                let iv = *v as i64;
                if w == 1 && iv != 0 && iv != 1 {
                    return Err(self.error_at(*l, "integer constant out of range for type 'i1'"));
                }
                self.check_int_fits(iv, elem, *l)?;
            }
        }
        let mut raw: Vec<f64> = Vec::with_capacity(values.len());
        for (v, l, _, hex) in &values {
            match (hex, self.ctx.float_kind(elem)) {
                (Some(bits), Some(k)) => raw.push(self.bits_to_f64(*bits, k, *l)?),
                _ => raw.push(*v),
            }
        }
        if splat {
            Ok(self.ctx.splat_attr(ty, raw[0]))
        } else {
            Ok(self.ctx.dense_attr(ty, &raw))
        }
    }

    fn parse_dense_list(
        &mut self,
        depth: usize,
        out: &mut Vec<(f64, Loc, bool, Option<u64>)>,
        shape: &mut Vec<usize>,
    ) -> PResult<()> {
        self.enter()?;
        self.expect_punct("[")?;
        let mut count = 0usize;
        let (mut lists, mut scalars) = (false, false);
        if !self.at_punct("]") {
            loop {
                if self.at_punct("[") {
                    lists = true;
                    self.parse_dense_list(depth + 1, out, shape)?;
                } else {
                    scalars = true;
                    let v = self.parse_dense_scalar()?;
                    out.push(v);
                }
                if lists && scalars {
                    return Err(self.error("elements literal mixes nested lists and scalars"));
                }
                count += 1;
                if out.len() > (1 << 26) {
                    return Err(self.error("elements literal is too large"));
                }
                if !self.parse_optional_punct(",")? {
                    break;
                }
            }
        }
        self.expect_punct("]")?;
        // Inner lists finish first, so a level's length is unknown (usize::MAX) until its
        // first list closes; every later list at that level must agree with it.
        if shape.len() <= depth {
            shape.resize(depth + 1, usize::MAX);
        }
        if shape[depth] == usize::MAX {
            shape[depth] = count;
        } else if shape[depth] != count {
            return Err(self.error("elements literal has rows of different lengths"));
        }
        self.leave();
        Ok(())
    }

    /// An element: its value, where it is, whether it was written as a float, and its bits if
    /// it was written in hex (a float's bit pattern, as the printer writes NaN and inf).
    fn parse_dense_scalar(&mut self) -> PResult<(f64, Loc, bool, Option<u64>)> {
        let loc = self.loc();
        match self.tok.tok.clone() {
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump()?;
                Ok((if s == "true" { 1.0 } else { 0.0 }, loc, false, None))
            }
            _ => {
                let neg = self.parse_optional_punct("-")?;
                match self.tok.tok.clone() {
                    Tok::Int(s) => {
                        if let Some(h) = s.strip_prefix("0x").filter(|_| !neg) {
                            // Hex is a float's bit pattern or an integer; the type decides later.
                            let bits = u64::from_str_radix(h, 16)
                                .map_err(|_| self.error_at(loc, "integer literal is too large"))?;
                            self.bump()?;
                            return Ok((bits as f64, loc, false, Some(bits)));
                        }
                        let hex = None;
                        let v = self.parse_int_literal(neg)?;
                        if v.unsigned_abs() > (1u64 << 53) {
                            return Err(self.error_at(loc, "integer element is too large (at most 2^53)"));
                        }
                        Ok((v as f64, loc, false, hex))
                    }
                    Tok::Float(s) => {
                        self.bump()?;
                        let f: f64 = s.parse().map_err(|_| self.error_at(loc, "invalid float literal"))?;
                        Ok((if neg { -f } else { f }, loc, true, None))
                    }
                    Tok::Ident(s) if s == "inf" || s == "nan" => {
                        self.bump()?;
                        let f = if s == "inf" { f64::INFINITY } else { f64::NAN };
                        Ok((if neg { -f } else { f }, loc, true, None))
                    }
                    t => Err(self.error(format!("expected element literal, found {}", t.describe()))),
                }
            }
        }
    }

    // ----- types -----

    /// Parses a type.
    pub fn parse_type(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    /// Parses `: type`.
    pub fn parse_colon_type(&mut self) -> PResult<Type> {
        self.expect_punct(":")?;
        self.parse_type()
    }

    /// Parses a comma-separated list of types.
    pub fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut v = vec![self.parse_type()?];
        while self.parse_optional_punct(",")? {
            v.push(self.parse_type()?);
        }
        Ok(v)
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        let loc = self.loc();
        match self.tok.tok.clone() {
            Tok::Punct("(") => {
                self.bump()?;
                let mut inputs = Vec::new();
                if !self.at_punct(")") {
                    inputs = self.parse_type_list()?;
                }
                self.expect_punct(")")?;
                self.expect_punct("->")?;
                let results = self.parse_function_result_types()?;
                Ok(self.ctx.function_type(&inputs, &results))
            }
            Tok::BangId(name) => {
                self.bump()?;
                self.parse_dialect_type(name, loc)
            }
            Tok::Ident(s) => {
                self.bump()?;
                match s.as_str() {
                    "index" => Ok(self.ctx.index_type()),
                    "f16" => Ok(self.ctx.float_type(FloatKind::F16)),
                    "bf16" => Ok(self.ctx.float_type(FloatKind::BF16)),
                    "f32" => Ok(self.ctx.float_type(FloatKind::F32)),
                    "f64" => Ok(self.ctx.float_type(FloatKind::F64)),
                    "tensor" => self.parse_tensor_type(loc),
                    _ => {
                        if let Some(w) = s.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
                            if matches!(w, 1 | 8 | 16 | 32 | 64) {
                                return Ok(self.ctx.int_type(w));
                            }
                            return Err(self.error_at(loc, format!("unsupported integer width {w}")));
                        }
                        Err(self.error_at(loc, format!("unknown type '{s}'")))
                    }
                }
            }
            t => Err(self.error(format!("expected type, found {}", t.describe()))),
        }
    }

    fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.at_punct("(") {
            // Either a parenthesized result list or a function type as the single result.
            let save = self.tok.clone();
            self.bump()?;
            let mut list = Vec::new();
            if !self.at_punct(")") {
                list = self.parse_type_list()?;
            }
            self.expect_punct(")")?;
            if self.at_punct("->") {
                // `(a) -> (b) -> c` is a function returning a function; reparse.
                self.tok = save;
                let t = self.parse_type()?;
                return Ok(vec![t]);
            }
            Ok(list)
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    /// Scans `4x?x` dims directly from the source after `<`; returns them and leaves the
    /// current token at what follows (the element type).
    fn scan_dims(&mut self) -> PResult<Vec<Dim>> {
        let b = self.src.as_bytes();
        let mut p = self.tok.start;
        let mut dims = Vec::new();
        loop {
            let s = p;
            let dim = if p < b.len() && b[p] == b'?' {
                p += 1;
                Dim::Dynamic
            } else if p < b.len() && b[p].is_ascii_digit() {
                while p < b.len() && b[p].is_ascii_digit() {
                    p += 1;
                }
                let v: u64 =
                    self.src[s..p].parse().map_err(|_| Diagnostic::error(self.loc_at(s), "dimension is too large"))?;
                if v > MAX_DIM {
                    return Err(Diagnostic::error(
                        self.loc_at(s),
                        format!("dimension {v} is too large (at most 2^40)"),
                    ));
                }
                Dim::Static(v)
            } else {
                break;
            };
            if p < b.len() && b[p] == b'x' {
                p += 1;
                dims.push(dim);
                if dims.len() > MAX_RANK {
                    return Err(Diagnostic::error(self.loc_at(s), format!("rank is too large (at most {MAX_RANK})")));
                }
            } else {
                return Err(Diagnostic::error(self.loc_at(p), "expected 'x' in dimension list"));
            }
        }
        let mut total: u64 = 1;
        for d in &dims {
            if let Dim::Static(v) = d {
                total = total.saturating_mul(*v);
            }
        }
        if total > MAX_DIM {
            return Err(Diagnostic::error(
                self.loc_at(self.tok.start),
                "shaped type has too many elements (at most 2^40)",
            ));
        }
        if p != self.tok.start {
            self.tok = self.lex_at(p)?;
        }
        Ok(dims)
    }

    fn parse_tensor_type(&mut self, loc: Loc) -> PResult<Type> {
        self.expect_punct("<")?;
        if self.at_punct("*") {
            return Err(self.error("unranked tensors are not supported"));
        }
        let dims = self.scan_dims()?;
        let elem = self.parse_type()?;
        if !self.ctx.is_float(elem) && !self.ctx.is_int_or_index(elem) {
            return Err(self.error_at(loc, "invalid tensor element type: expected an integer, index or float type"));
        }
        if self.at_punct(",") {
            return Err(self.error("tensor encodings are not supported"));
        }
        self.expect_punct(">")?;
        Ok(self.ctx.tensor_type(&dims, elem))
    }

    fn parse_dialect_type(&mut self, name: String, loc: Loc) -> PResult<Type> {
        let known = self.ctx.registry().type_verifier(&name);
        if known.is_none() && !self.ctx.registry().allow_unregistered {
            return Err(self.error_at(loc, format!("unknown type '!{name}'")));
        }
        let mut shape = Vec::new();
        let mut elem = None;
        let mut params = Vec::new();
        if self.parse_optional_punct("<")? {
            shape = self.scan_dims()?;
            if self.at_type_start() {
                elem = Some(self.parse_type()?);
                while self.parse_optional_punct(",")? {
                    params.push(self.parse_attribute()?);
                }
            } else if !shape.is_empty() {
                return Err(self.error("expected element type after dimension list"));
            } else if !self.at_punct(">") {
                loop {
                    params.push(self.parse_attribute()?);
                    if !self.parse_optional_punct(",")? {
                        break;
                    }
                }
            }
            self.expect_punct(">")?;
        }
        let data = TypeData::Dialect { name, shape, elem, params };
        if let Some(v) = known {
            v(self.ctx, &data).map_err(|m| self.error_at(loc, m))?;
        }
        Ok(self.ctx.intern_type(data))
    }
}

/// Whether `s` is a keyword that starts a builtin type.
pub fn is_builtin_type_keyword(s: &str) -> bool {
    matches!(s, "index" | "f16" | "bf16" | "f32" | "f64" | "tensor")
        || (s.len() > 1 && s.starts_with('i') && s[1..].chars().all(|c| c.is_ascii_digit()))
}

/// Decodes the bytes of a source file named `file_name`. Input that is not UTF-8 is an
/// error at the line and column of the first bad byte (columns count the characters before
/// it), so a driver reports binary garbage like any other broken input.
pub fn decode_source(ctx: &mut Context, file_name: &str, bytes: &[u8]) -> PResult<String> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line = good.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            // The prefix is valid UTF-8, so this cannot fail.
            let col = std::str::from_utf8(&good[line_start..]).map_or(0, |s| s.chars().count()) as u32 + 1;
            let file = ctx.sym(file_name);
            Err(Diagnostic::error(
                Loc::File { file, line, col },
                format!("invalid UTF-8 in source (byte 0x{:02x})", bytes[e.valid_up_to()]),
            ))
        }
    }
}

/// Parses a standalone type from text (for command-line options and tests).
pub fn parse_type_str(ctx: &mut Context, text: &str) -> PResult<Type> {
    let file = ctx.sym("<type>");
    let mut p = Parser {
        ctx,
        src: text,
        file,
        line_offset: 0,
        line_starts: vec![0],
        tok: Token { tok: Tok::Eof, start: 0, end: 0 },
        scopes: vec![Scope { isolated: true, ..Default::default() }],
        next_scope_id: 1,
        depth: 0,
    };
    p.tok = p.lex_at(0)?;
    let t = p.parse_type()?;
    if !matches!(p.tok.tok, Tok::Eof) {
        return Err(p.error("unexpected text after type"));
    }
    Ok(t)
}

/// Parses a standalone attribute from text (for command-line options and tests).
pub fn parse_attr_str(ctx: &mut Context, text: &str) -> PResult<Attr> {
    let file = ctx.sym("<attribute>");
    let mut p = Parser {
        ctx,
        src: text,
        file,
        line_offset: 0,
        line_starts: vec![0],
        tok: Token { tok: Tok::Eof, start: 0, end: 0 },
        scopes: vec![Scope { isolated: true, ..Default::default() }],
        next_scope_id: 1,
        depth: 0,
    };
    p.tok = p.lex_at(0)?;
    let a = p.parse_attribute()?;
    if !matches!(p.tok.tok, Tok::Eof) {
        return Err(p.error("unexpected text after attribute"));
    }
    Ok(a)
}

#[allow(dead_code)]
fn _assert_skip(src: &[u8]) -> usize {
    skip_trivia(src, 0)
}

impl Context {
    /// Whether `v` is still a parser placeholder (never true after a successful parse).
    pub fn is_placeholder(&self, v: Value) -> bool {
        matches!(self.value(v).def, ValueDef::Placeholder)
    }
}
