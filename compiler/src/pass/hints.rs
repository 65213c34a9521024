//! Size hints: the sizes of named dynamic dimensions (`M=576000,N=384`, by the `morf.dims`
//! names of the function arguments), given to a whole pipeline at once.
//!
//! Some passes specialize their decisions for sizes (the fusion search prices plans with
//! them, the GPU mapping picks schedules with them) and declare a `size-hints` option for
//! that ([`SIZE_HINTS_OPTION`]). [`apply_size_hints`] gives hints to every pass of a
//! pipeline that declares the option, asking the [`PassRegistry`] which ones do, so no list
//! of pass names is kept anywhere. A pass whose options in the text already set
//! `size-hints` keeps them: an option written explicitly wins over the pipeline's hints.
//!
//! Hints only specialize: the passes keep the program correct for any size.
//!
//! Where hints come from, in order of precedence: an explicit flag or argument
//! (`morf-opt --size-hints`, `EngineOptions::size_hints`), then the module attribute
//! [`SIZE_HINTS_ATTR`] (`module attributes {morf.size_hints = "M=576000,N=384"}`, read by
//! [`module_size_hints`]), then (in `morf-run`) the shapes of the actual inputs.

use std::fmt;

use super::pipeline::{PipelineElement, PipelineText};
use super::{PassOptions, PassRegistry};
use crate::builtin::op_error;
use crate::context::{Context, OpId};
use crate::diag::Diagnostic;

/// The option through which a pass takes size hints.
pub const SIZE_HINTS_OPTION: &str = "size-hints";

/// The `builtin.module` attribute that holds size hints for the module, a string such as
/// `"M=576000,N=384"`.
pub const SIZE_HINTS_ATTR: &str = "morf.size_hints";

/// Sizes of named dynamic dimensions, in the order given: `M=576000,N=384`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SizeHints {
    entries: Vec<(String, u64)>,
}

impl SizeHints {
    /// Parses `NAME=SIZE,NAME=SIZE`: names are identifiers (`[A-Za-z_][A-Za-z0-9_]*`, as
    /// they travel in pass-option text), sizes unsigned integers, each name at most once,
    /// at least one item. Spaces around items, names and sizes are allowed.
    pub fn parse(text: &str) -> Result<SizeHints, String> {
        let mut entries: Vec<(String, u64)> = Vec::new();
        for item in text.split(',').map(str::trim) {
            if item.is_empty() {
                if text.trim().is_empty() {
                    return Err("expected NAME=SIZE items such as 'M=576000,N=384', got nothing".into());
                }
                return Err(format!("empty item in '{text}' (expected NAME=SIZE items such as 'M=576000,N=384')"));
            }
            let Some((name, size)) = item.split_once('=') else {
                return Err(format!("expected NAME=SIZE, got '{item}'"));
            };
            let (name, size) = (name.trim(), size.trim());
            let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ident {
                return Err(format!("'{name}' in '{item}' is not a dimension name (expected an identifier)"));
            }
            let size: u64 =
                size.parse().map_err(|_| format!("the size of '{name}' in '{item}' is not an unsigned integer"))?;
            if entries.iter().any(|(n, _)| n == name) {
                return Err(format!("'{name}' is given twice"));
            }
            entries.push((name.to_string(), size));
        }
        Ok(SizeHints { entries })
    }

    /// The `(name, size)` pairs, in the order given.
    pub fn entries(&self) -> &[(String, u64)] {
        &self.entries
    }

    /// The size of `name`, if hinted.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    /// Whether no size is hinted.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// `M=576000,N=384`: the value of a `size-hints` option.
impl fmt::Display for SizeHints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (n, s)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{n}={s}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for SizeHints {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SizeHints::parse(s)
    }
}

/// What [`apply_size_hints`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HintsApplied {
    /// Passes that got the hints.
    pub given: usize,
    /// Passes that take hints but kept the `size-hints` written in their options.
    pub explicit: usize,
}

impl HintsApplied {
    /// Whether the pipeline has any pass that takes size hints.
    pub fn any_taker(&self) -> bool {
        self.given + self.explicit > 0
    }
}

impl PassRegistry {
    /// Whether the pass `name` takes size hints (declares a [`SIZE_HINTS_OPTION`] option).
    pub fn takes_size_hints(&self, name: &str) -> bool {
        self.get(name).is_some_and(|p| p.options.iter().any(|o| o.key == SIZE_HINTS_OPTION))
    }

    /// The passes that take size hints, sorted by name.
    pub fn size_hinted_passes(&self) -> Vec<&'static str> {
        self.passes().filter(|p| self.takes_size_hints(p.name)).map(|p| p.name).collect()
    }
}

/// Gives `hints` to every pass of `text` that takes size hints ([`PassRegistry::takes_size_hints`]),
/// at any nesting depth, as the option `size-hints=M=..,N=..`. A pass whose option text already
/// sets `size-hints` keeps it (the explicit option wins); a pass whose option text does not
/// parse is left alone (building it reports the error).
pub fn apply_size_hints(text: &mut PipelineText, reg: &PassRegistry, hints: &SizeHints) -> HintsApplied {
    apply_pass_option(text, reg, SIZE_HINTS_OPTION, &hints.to_string())
}

/// Gives option `key=value` to every pass of `text` that declares the option `key`, at any
/// nesting depth, as [`apply_size_hints`] gives size hints: a pass whose option text already
/// sets `key` keeps it, and one whose option text does not parse is left alone. (`morf-bench
/// --reserve-sms` gives `device=sms=N` this way.)
pub fn apply_pass_option(text: &mut PipelineText, reg: &PassRegistry, key: &str, value: &str) -> HintsApplied {
    let elements = match text {
        PipelineText::Anchored { elements, .. } => elements,
        PipelineText::Bare(elements) => elements,
    };
    let mut done = HintsApplied::default();
    apply_to(elements, reg, key, value, &mut done);
    done
}

fn apply_to(elements: &mut [PipelineElement], reg: &PassRegistry, key: &str, value: &str, done: &mut HintsApplied) {
    for e in elements {
        match e {
            PipelineElement::Nested { elements, .. } => apply_to(elements, reg, key, value, done),
            PipelineElement::Pass { name, options } => {
                if !reg.get(name).is_some_and(|p| p.options.iter().any(|o| o.key == key)) {
                    continue;
                }
                let Ok(parsed) = PassOptions::parse(options) else { continue };
                if parsed.get(key).is_some() {
                    done.explicit += 1;
                    continue;
                }
                *options = if options.trim().is_empty() {
                    format!("{key}={value}")
                } else {
                    format!("{key}={value} {options}")
                };
                done.given += 1;
            }
        }
    }
}

/// The size hints of `module`'s [`SIZE_HINTS_ATTR`] attribute, if it has one. An attribute
/// that is not a string, or whose text is not `NAME=SIZE,...`, is an error at the module.
pub fn module_size_hints(ctx: &Context, module: OpId) -> Result<Option<SizeHints>, Diagnostic> {
    let Some(a) = ctx.attr(module, SIZE_HINTS_ATTR) else { return Ok(None) };
    let Some(text) = ctx.attr_str(a) else {
        return Err(op_error(
            ctx,
            module,
            format!("attribute '{SIZE_HINTS_ATTR}' must be a string such as \"M=576000,N=384\""),
        ));
    };
    SizeHints::parse(text)
        .map(Some)
        .map_err(|e| op_error(ctx, module, format!("invalid size hints in attribute '{SIZE_HINTS_ATTR}': {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::{parse_pipeline, PassInfo, PassOptionInfo};

    const HINTED: &[PassOptionInfo] = &[
        PassOptionInfo { key: "size-hints", help: "", default: "" },
        PassOptionInfo { key: "threads", help: "", default: "" },
    ];

    fn registry() -> PassRegistry {
        let mut reg = PassRegistry::default();
        for (name, options) in [("plain", &[][..]), ("fuse", HINTED), ("to-gpu", HINTED)] {
            reg.register(PassInfo { name, description: "", options, create: |_| Err("unused".into()) });
        }
        reg
    }

    fn hinted(text: &str, hints: &str) -> (String, HintsApplied) {
        let mut p = parse_pipeline(text).unwrap();
        let done = apply_size_hints(&mut p, &registry(), &SizeHints::parse(hints).unwrap());
        (p.to_string(), done)
    }

    #[test]
    fn the_registry_says_which_passes_take_hints() {
        let reg = registry();
        assert_eq!(reg.size_hinted_passes(), ["fuse", "to-gpu"]);
        assert!(!reg.takes_size_hints("plain") && !reg.takes_size_hints("unknown"));
    }

    #[test]
    fn hints_reach_every_pass_that_takes_them() {
        let (text, done) = hinted("builtin.module(plain,fuse,func.func(plain,to-gpu{threads=128}))", "M=7,N=100");
        assert_eq!(
            text,
            "builtin.module(plain,fuse{size-hints=M=7,N=100},func.func(plain,to-gpu{size-hints=M=7,N=100 threads=128}))"
        );
        assert_eq!(done, HintsApplied { given: 2, explicit: 0 });
        let (text, _) = hinted("plain , fuse", "M=1");
        assert_eq!(text, "plain,fuse{size-hints=M=1}");
    }

    #[test]
    fn an_explicit_option_wins() {
        let (text, done) = hinted("builtin.module(fuse{size-hints=M=4 threads=2},to-gpu)", "M=7");
        assert_eq!(text, "builtin.module(fuse{size-hints=M=4 threads=2},to-gpu{size-hints=M=7})");
        assert_eq!(done, HintsApplied { given: 1, explicit: 1 });
        // An explicitly empty option also wins (no hints for that pass).
        let (text, _) = hinted("fuse{size-hints=}", "M=7");
        assert_eq!(text, "fuse{size-hints=}");
    }

    #[test]
    fn any_declared_option_is_given_the_same_way() {
        let mut p = parse_pipeline("builtin.module(plain,fuse{threads=4},to-gpu)").unwrap();
        let done = apply_pass_option(&mut p, &registry(), "threads", "64");
        assert_eq!(p.to_string(), "builtin.module(plain,fuse{threads=4},to-gpu{threads=64})");
        assert_eq!(done, HintsApplied { given: 1, explicit: 1 });
    }

    #[test]
    fn no_taker_and_unknown_passes_are_left_alone() {
        let (text, done) = hinted("builtin.module(plain,nope{x=1})", "M=7");
        assert_eq!(text, "builtin.module(plain,nope{x=1})");
        assert!(!done.any_taker());
        // Options that do not parse are left for the pass builder to report.
        let bad = PipelineElement::Pass { name: "fuse".into(), options: "a='b".into() };
        let mut p = PipelineText::Bare(vec![bad.clone()]);
        apply_size_hints(&mut p, &registry(), &SizeHints::parse("M=7").unwrap());
        assert_eq!(p, PipelineText::Bare(vec![bad]));
    }

    #[test]
    fn hints_parse_and_print() {
        let h = SizeHints::parse(" M = 576000 , N=384").unwrap();
        assert_eq!(h.to_string(), "M=576000,N=384");
        assert_eq!((h.get("N"), h.get("K")), (Some(384), None));
        for (bad, msg) in [
            ("", "got nothing"),
            ("M", "expected NAME=SIZE, got 'M'"),
            ("M=x", "the size of 'M' in 'M=x' is not an unsigned integer"),
            ("M=-1", "not an unsigned integer"),
            ("M=1,,N=2", "empty item"),
            ("N x=1", "is not a dimension name"),
            ("1M=1", "is not a dimension name"),
            ("M=1,M=2", "'M' is given twice"),
        ] {
            let e = SizeHints::parse(bad).unwrap_err();
            assert!(e.contains(msg), "{bad}: {e}");
        }
    }

    #[test]
    fn the_module_attribute_is_read_and_checked() {
        let mut ctx = Context::new();
        let src = "module attributes {morf.size_hints = \"M=7,N=100\"} {\n}\n";
        ctx.add_source("a.mlir", src);
        let m = crate::asm::parse_source(&mut ctx, "a.mlir", src, 0).unwrap();
        assert_eq!(module_size_hints(&ctx, m).unwrap().unwrap().to_string(), "M=7,N=100");

        let src = "module attributes {morf.size_hints = \"M=seven\"} {\n}\n";
        ctx.add_source("b.mlir", src);
        let m = crate::asm::parse_source(&mut ctx, "b.mlir", src, 0).unwrap();
        let d = module_size_hints(&ctx, m).unwrap_err();
        assert!(
            ctx.render(&d).starts_with("b.mlir:1:1: error: 'builtin.module' op invalid size hints"),
            "{}",
            ctx.render(&d)
        );

        let src = "module attributes {morf.size_hints = 3} {\n}\n";
        ctx.add_source("c.mlir", src);
        let m = crate::asm::parse_source(&mut ctx, "c.mlir", src, 0).unwrap();
        assert!(module_size_hints(&ctx, m).unwrap_err().message.contains("must be a string"));

        let src = "module {\n}\n";
        ctx.add_source("d.mlir", src);
        let m = crate::asm::parse_source(&mut ctx, "d.mlir", src, 0).unwrap();
        assert_eq!(module_size_hints(&ctx, m).unwrap(), None);
    }
}
