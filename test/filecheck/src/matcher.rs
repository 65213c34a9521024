//! Matching check strings against the input (LLVM's `checkInput`,
//! `FileCheckString::Check`, `CheckDag`, `CheckNot`, `CheckNext`,
//! `CheckSame`).

use crate::diag::{Diags, Kind, Loc, SourceId};
use crate::directive::CheckString;
use crate::pattern::{CheckKind, Context, Pattern};

/// State for one run over the input.
pub struct Matcher<'a> {
    /// Diagnostics sink (holds the input buffer as `input_src`).
    pub diags: &'a mut Diags,
    /// The input buffer's id.
    pub input_src: SourceId,
    /// Variables.
    pub ctx: &'a mut Context,
    /// `--allow-deprecated-dag-overlap`
    pub allow_dag_overlap: bool,
    /// `--enable-var-scope`
    pub enable_var_scope: bool,
}

fn desc(prefix: &str, pat: &Pattern) -> String {
    if pat.count > 1 {
        format!("{prefix}-COUNT")
    } else {
        format!("{prefix}{}", pat.kind.suffix())
    }
}

impl Matcher<'_> {
    fn input(&self) -> &[u8] {
        &self.diags.sources[self.input_src].text
    }

    fn at(&self, off: usize) -> Loc {
        Loc { src: self.input_src, off }
    }

    /// Runs all checks; returns true on success.
    pub fn check_input(&mut self, checks: &[CheckString]) -> bool {
        let input_len = self.input().len();
        let mut failed = false;
        let (mut i, mut j) = (0, 0);
        let mut buf_start = 0;
        loop {
            let (region_start, region_end);
            if j == checks.len() {
                region_start = buf_start;
                region_end = input_len;
            } else {
                if checks[j].pat.kind != CheckKind::Label {
                    j += 1;
                    continue;
                }
                let Some((pos, len)) = self.check_string(&checks[j], buf_start, input_len, true) else {
                    return false;
                };
                region_start = buf_start;
                region_end = pos + len;
                buf_start = pos + len;
                j += 1;
            }
            if i != 0 && self.enable_var_scope {
                self.ctx.clear_locals();
            }
            let mut start = region_start;
            while i != j {
                match self.check_string(&checks[i], start, region_end, false) {
                    Some((pos, len)) => start = pos + len,
                    None => {
                        failed = true;
                        i = j;
                        break;
                    }
                }
                i += 1;
            }
            if j == checks.len() {
                break;
            }
        }
        !failed
    }

    fn report_not_found(&mut self, prefix: &str, pat: &Pattern, from: usize, errs: Option<Vec<String>>) {
        let notes = pat.substitution_notes(self.ctx);
        match errs {
            Some(errs) => {
                let msg = format!("{}: unable to match pattern: {}", desc(prefix, pat), errs.join(", "));
                self.diags.emit(pat.loc, Kind::Error, &msg);
            }
            None => {
                let msg = format!("{}: expected string not found in input", desc(prefix, pat));
                self.diags.emit(pat.loc, Kind::Error, &msg);
            }
        }
        let input = self.input();
        let skip =
            input[from..].iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(input.len() - from);
        let l = self.at(from + skip);
        self.diags.emit(l, Kind::Note, "scanning from here");
        for n in notes {
            self.diags.emit(l, Kind::Note, &n);
        }
    }

    fn find(&mut self, prefix: &str, pat: &Pattern, from: usize, end: usize) -> Option<(usize, usize)> {
        let res = {
            let input = &self.diags.sources[self.input_src].text;
            pat.find_in(&input[from..end], self.ctx)
        };
        match res {
            Ok(Some(f)) => Some((from + f.pos, f.len)),
            Ok(None) => {
                self.report_not_found(prefix, pat, from, None);
                None
            }
            Err(e) => {
                self.report_not_found(prefix, pat, from, Some(e.0));
                None
            }
        }
    }

    fn check_string(&mut self, cs: &CheckString, start: usize, end: usize, label_scan: bool) -> Option<(usize, usize)> {
        let mut last_pos = start;
        let mut nots: Vec<&(Pattern, String)> = Vec::new();
        if !label_scan {
            last_pos = self.check_dag(cs, start, end, &mut nots)?;
        }
        let mut last_end = last_pos;
        let mut first = last_pos;
        for i in 1..=cs.pat.count {
            let (pos, len) = self.find(&cs.prefix, &cs.pat, last_end, end)?;
            if i == 1 {
                first = pos;
            }
            last_end = pos + len;
        }
        let len = last_end - first;
        if !label_scan {
            if !self.check_next_same(cs, last_pos, first) {
                return None;
            }
            if !self.check_not(&nots, last_pos, first) {
                return None;
            }
        }
        Some((first, len))
    }

    fn check_next_same(&mut self, cs: &CheckString, from: usize, to: usize) -> bool {
        let kind = cs.pat.kind;
        if !matches!(kind, CheckKind::Next | CheckKind::Empty | CheckKind::Same) {
            return true;
        }
        let (count, first_nl) = {
            let r = &self.input()[from..to];
            let mut n = 0;
            let mut first_nl = None;
            let mut i = 0;
            while i < r.len() {
                if r[i] == b'\n' || r[i] == b'\r' {
                    n += 1;
                    if i + 1 < r.len() && (r[i + 1] == b'\n' || r[i + 1] == b'\r') && r[i] != r[i + 1] {
                        i += 1;
                    }
                    if n == 1 {
                        first_nl = Some(from + i + 1);
                    }
                }
                i += 1;
            }
            (n, first_nl)
        };
        let name = format!("{}{}", cs.prefix, kind.suffix());
        let msg = if kind == CheckKind::Same {
            if count == 0 {
                return true;
            }
            format!("{name}: is not on the same line as the previous match")
        } else if count == 1 {
            return true;
        } else if count == 0 {
            format!("{name}: is on the same line as previous match")
        } else {
            format!("{name}: is not on the line after the previous match")
        };
        self.diags.emit(cs.pat.loc, Kind::Error, &msg);
        let (a, b) = (self.at(to), self.at(from));
        let what = if kind == CheckKind::Same { "'same'" } else { "'next'" };
        self.diags.emit(a, Kind::Note, &format!("{what} match was here"));
        self.diags.emit(b, Kind::Note, "previous match ended here");
        if let (Some(nl), true) = (first_nl, count > 1 || kind == CheckKind::Same) {
            let l = self.at(nl);
            self.diags.emit(l, Kind::Note, "non-matching line after previous match is here");
        }
        false
    }

    fn check_not(&mut self, nots: &[&(Pattern, String)], from: usize, to: usize) -> bool {
        let mut ok = true;
        for (pat, prefix) in nots {
            let res = {
                let input = &self.diags.sources[self.input_src].text;
                pat.find_in(&input[from..to], self.ctx)
            };
            match res {
                Ok(None) => {}
                Ok(Some(f)) => {
                    let msg = format!("{}: excluded string found in input", desc(prefix, pat));
                    self.diags.emit(pat.loc, Kind::Error, &msg);
                    let l = self.at(from + f.pos);
                    self.diags.emit(l, Kind::Note, "found here");
                    for n in pat.substitution_notes(self.ctx) {
                        self.diags.emit(l, Kind::Note, &n);
                    }
                    ok = false;
                }
                Err(e) => {
                    let msg = format!("{}: unable to match pattern: {}", desc(prefix, pat), e.0.join(", "));
                    self.diags.emit(pat.loc, Kind::Error, &msg);
                    ok = false;
                }
            }
        }
        ok
    }

    fn check_dag<'c>(
        &mut self,
        cs: &'c CheckString,
        start: usize,
        end: usize,
        nots: &mut Vec<&'c (Pattern, String)>,
    ) -> Option<usize> {
        if cs.dag_not.is_empty() {
            return Some(start);
        }
        let mut start_pos = start;
        // Sorted, non-overlapping match ranges of the current DAG group.
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for (idx, item) in cs.dag_not.iter().enumerate() {
            let (pat, prefix) = item;
            if pat.kind == CheckKind::Not {
                nots.push(item);
                continue;
            }
            let mut match_pos = start_pos;
            let mut mi = 0;
            loop {
                let (pos, len) = self.find(prefix, pat, match_pos, end)?;
                let m = (pos, pos + len);
                if self.allow_dag_overlap {
                    if ranges.is_empty() {
                        ranges.push(m);
                    } else {
                        ranges[0].0 = ranges[0].0.min(m.0);
                        ranges[0].1 = ranges[0].1.max(m.1);
                    }
                    break;
                }
                let mut overlap = false;
                while mi < ranges.len() {
                    if m.0 < ranges[mi].1 {
                        overlap = ranges[mi].0 < m.1;
                        break;
                    }
                    mi += 1;
                }
                if !overlap {
                    ranges.insert(mi, m);
                    break;
                }
                match_pos = ranges[mi].1;
                mi += 1;
            }
            let group_end = cs.dag_not.get(idx + 1).is_none_or(|(p, _)| p.kind == CheckKind::Not);
            if group_end {
                if !nots.is_empty() {
                    let first = ranges[0].0;
                    if !self.check_not(nots, start_pos, first) {
                        return None;
                    }
                    nots.clear();
                }
                start_pos = ranges.last().expect("non-empty").1;
                ranges.clear();
            }
        }
        Some(start_pos)
    }
}
