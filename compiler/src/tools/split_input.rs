//! `--split-input-file`: cutting a file into chunks at `// -----` lines.

/// The marker line between chunks.
pub const SPLIT_MARKER: &str = "// -----";

/// One chunk of a split file.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk<'a> {
    /// Its text (the marker lines are not part of any chunk).
    pub text: &'a str,
    /// The number of lines of the file before the chunk (the parser's `line_offset`).
    pub line_offset: u32,
}

/// Splits `text` at lines that hold only `// -----` (surrounding blanks allowed). A text
/// without markers is one chunk.
pub fn split_input(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 0u32;
    let mut pos = 0usize;
    let mut line = 0u32;
    while pos < text.len() {
        let end = text[pos..].find('\n').map(|e| pos + e + 1).unwrap_or(text.len());
        let l = &text[pos..end];
        if l.trim() == SPLIT_MARKER {
            chunks.push(Chunk { text: &text[start..pos], line_offset: start_line });
            start = end;
            start_line = line + 1;
        }
        pos = end;
        line += 1;
    }
    chunks.push(Chunk { text: &text[start..], line_offset: start_line });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_keeps_line_numbers() {
        let t = "a\nb\n// -----\nc\n  // -----  \nd";
        let c = split_input(t);
        assert_eq!(c.len(), 3);
        assert_eq!(c[0], Chunk { text: "a\nb\n", line_offset: 0 });
        assert_eq!(c[1], Chunk { text: "c\n", line_offset: 3 });
        assert_eq!(c[2], Chunk { text: "d", line_offset: 5 });
        assert_eq!(split_input("x").len(), 1);
        // A marker with more dashes or text after it is not a marker.
        assert_eq!(split_input("a\n// ------\n// ----- x\n").len(), 1);
    }
}
