//! The textual pipeline syntax, as in MLIR:
//!
//! ```text
//! builtin.module(func.func(canonicalize{max-iterations=8},cse),dce)
//! canonicalize,cse                       (a bare list runs on the module)
//! ```

/// One element of a pipeline.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineElement {
    /// A pass with its option text (inside `{}`).
    Pass {
        /// Pass name.
        name: String,
        /// Option text.
        options: String,
    },
    /// `anchor(elements)`: run the elements on each op named `anchor`.
    Nested {
        /// Op name.
        anchor: String,
        /// Inner elements.
        elements: Vec<PipelineElement>,
    },
}

/// A parsed pipeline.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineText {
    /// `builtin.module(...)`.
    Anchored {
        /// The root op name.
        anchor: String,
        /// Its elements.
        elements: Vec<PipelineElement>,
    },
    /// A bare list, run on the root.
    Bare(Vec<PipelineElement>),
}

/// The element as pipeline text (`name{options}`, `anchor(a,b)`); parsing it gives it back.
impl std::fmt::Display for PipelineElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PipelineElement::Pass { name, options } if options.is_empty() => f.write_str(name),
            PipelineElement::Pass { name, options } => write!(f, "{name}{{{options}}}"),
            PipelineElement::Nested { anchor, elements } => write!(f, "{anchor}({})", list_text(elements)),
        }
    }
}

/// The pipeline as text (`builtin.module(a,b)` or `a,b`); parsing it gives it back.
impl std::fmt::Display for PipelineText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PipelineText::Anchored { anchor, elements } => write!(f, "{anchor}({})", list_text(elements)),
            PipelineText::Bare(elements) => f.write_str(&list_text(elements)),
        }
    }
}

fn list_text(elements: &[PipelineElement]) -> String {
    elements.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(",")
}

/// Parses pipeline text; errors carry the 1-based column of the problem.
pub fn parse_pipeline(text: &str) -> Result<PipelineText, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let elems = parse_list(&chars, &mut pos, 0)?;
    skip_ws(&chars, &mut pos);
    if pos != chars.len() {
        return Err(format!("unexpected '{}' at column {} of the pipeline", chars[pos], pos + 1));
    }
    if let [PipelineElement::Nested { anchor, elements }] = elems.as_slice() {
        if anchor == "builtin.module" {
            return Ok(PipelineText::Anchored { anchor: anchor.clone(), elements: elements.clone() });
        }
    }
    Ok(PipelineText::Bare(elems))
}

fn skip_ws(c: &[char], pos: &mut usize) {
    while *pos < c.len() && c[*pos].is_whitespace() {
        *pos += 1;
    }
}

fn parse_list(c: &[char], pos: &mut usize, depth: usize) -> Result<Vec<PipelineElement>, String> {
    if depth > 32 {
        return Err("pipeline nesting is too deep".into());
    }
    let mut out = Vec::new();
    loop {
        skip_ws(c, pos);
        let start = *pos;
        while *pos < c.len() && (c[*pos].is_ascii_alphanumeric() || matches!(c[*pos], '-' | '_' | '.')) {
            *pos += 1;
        }
        if *pos == start {
            return Err(format!("expected a pass name at column {} of the pipeline", start + 1));
        }
        let name: String = c[start..*pos].iter().collect();
        skip_ws(c, pos);
        if *pos < c.len() && c[*pos] == '(' {
            *pos += 1;
            let inner = parse_list(c, pos, depth + 1)?;
            skip_ws(c, pos);
            if *pos >= c.len() || c[*pos] != ')' {
                return Err(format!("expected ')' at column {} of the pipeline", *pos + 1));
            }
            *pos += 1;
            out.push(PipelineElement::Nested { anchor: name, elements: inner });
        } else if *pos < c.len() && c[*pos] == '{' {
            let ostart = *pos + 1;
            let mut d = 0;
            let mut quote: Option<char> = None;
            while *pos < c.len() {
                match c[*pos] {
                    // Braces inside a quoted option value (`{dump-egraph="a}b.dot"}`) do not count.
                    q if quote == Some(q) => quote = None,
                    _ if quote.is_some() => {}
                    q @ ('"' | '\'') => quote = Some(q),
                    '{' => d += 1,
                    '}' => {
                        d -= 1;
                        if d == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                *pos += 1;
            }
            if *pos >= c.len() {
                return Err(format!("unterminated '{{' in the options of '{name}'"));
            }
            let options: String = c[ostart..*pos].iter().collect();
            *pos += 1;
            out.push(PipelineElement::Pass { name, options });
        } else {
            out.push(PipelineElement::Pass { name, options: String::new() });
        }
        skip_ws(c, pos);
        if *pos < c.len() && c[*pos] == ',' {
            *pos += 1;
            continue;
        }
        return Ok(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_pipeline() {
        let p = parse_pipeline("builtin.module(func.func(canonicalize{max-iterations=8},cse),dce)").unwrap();
        let PipelineText::Anchored { elements, .. } = p else { panic!("expected anchored") };
        assert_eq!(elements.len(), 2);
        assert!(
            matches!(&elements[0], PipelineElement::Nested { anchor, elements } if anchor == "func.func" && elements.len() == 2)
        );
    }

    #[test]
    fn errors_have_columns() {
        assert!(parse_pipeline("builtin.module(cse").unwrap_err().contains("column"));
        assert!(parse_pipeline("cse,,dce").is_err());
        assert!(parse_pipeline("cse{a=1").is_err());
    }

    #[test]
    fn quoted_option_values_may_hold_braces() {
        let p = parse_pipeline("builtin.module(f{dump-egraph=\"/tmp/a }{ b.dot\" report},cse)").unwrap();
        let PipelineText::Anchored { elements, .. } = p else { panic!("expected anchored") };
        assert_eq!(
            elements[0],
            PipelineElement::Pass { name: "f".into(), options: "dump-egraph=\"/tmp/a }{ b.dot\" report".into() }
        );
        assert!(parse_pipeline("f{a=\"x}").is_err());
    }

    #[test]
    fn printing_round_trips() {
        for t in ["builtin.module(func.func(canonicalize{max-iterations=8},cse),dce)", "cse,dce", "f{a=\"x }\" b}"] {
            let p = parse_pipeline(t).unwrap();
            assert_eq!(p.to_string(), t);
            assert_eq!(parse_pipeline(&p.to_string()).unwrap(), p);
        }
    }
}
