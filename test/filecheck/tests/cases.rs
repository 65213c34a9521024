//! Shared table of (name, check file, input, extra args, expected exit code)
//! cases, used by the unit tests and the differential test against LLVM.

/// One case.
pub struct Case {
    pub name: &'static str,
    pub check: &'static str,
    pub input: &'static str,
    pub args: &'static [&'static str],
    pub expect: i32,
}

macro_rules! c {
    ($n:expr, $c:expr, $i:expr, $e:expr) => {
        Case {
            name: $n,
            check: $c,
            input: $i,
            args: &[],
            expect: $e,
        }
    };
    ($n:expr, $c:expr, $i:expr, $a:expr, $e:expr) => {
        Case {
            name: $n,
            check: $c,
            input: $i,
            args: &$a,
            expect: $e,
        }
    };
}

pub const CASES: &[Case] = &[
    c!("plain", "CHECK: foo\n", "a foo b\n", 0),
    c!("plain-missing", "CHECK: foo\n", "bar\n", 1),
    c!("plain-order", "CHECK: b\nCHECK: a\n", "a\nb\n", 1),
    c!("plain-multiline", "CHECK: a\nCHECK: c\n", "a\nb\nc\n", 0),
    c!("same-line-twice", "CHECK: a\nCHECK: a\n", "a a\n", 0),
    c!("next-ok", "CHECK: a\nCHECK-NEXT: b\n", "a\nb\n", 0),
    c!("next-skip", "CHECK: a\nCHECK-NEXT: b\n", "a\nx\nb\n", 1),
    c!("next-same-line", "CHECK: a\nCHECK-NEXT: b\n", "a b\n", 1),
    c!("next-first", "CHECK-NEXT: b\n", "b\n", 2),
    c!(
        "next-after-dag-first",
        "CHECK-DAG: a\nCHECK-NEXT: b\n",
        "a\nb\n",
        2
    ),
    c!("same-ok", "CHECK: a\nCHECK-SAME: b\n", "a b\n", 0),
    c!("same-fail", "CHECK: a\nCHECK-SAME: b\n", "a\nb\n", 1),
    c!("same-first", "CHECK-SAME: b\n", "b\n", 2),
    c!(
        "empty-ok",
        "CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n",
        "a\n\nb\n",
        0
    ),
    c!("empty-fail", "CHECK: a\nCHECK-EMPTY:\n", "a\nx\n\n", 1),
    c!("empty-nonempty", "CHECK: a\nCHECK-EMPTY: x\n", "a\n\n", 2),
    c!("empty-first", "CHECK-EMPTY:\n", "\n", 2),
    c!(
        "not-ok",
        "CHECK: a\nCHECK-NOT: x\nCHECK: b\n",
        "a\nb\nx\n",
        0
    ),
    c!(
        "not-fail",
        "CHECK: a\nCHECK-NOT: x\nCHECK: b\n",
        "a\nx\nb\n",
        1
    ),
    c!(
        "not-before-first",
        "CHECK: a\nCHECK-NOT: x\nCHECK: b\n",
        "x\na\nb\n",
        0
    ),
    c!("not-trailing", "CHECK: a\nCHECK-NOT: x\n", "a\nx\n", 1),
    c!("not-only", "CHECK-NOT: x\n", "a\n", 0),
    c!("dag-any-order", "CHECK-DAG: b\nCHECK-DAG: a\n", "a\nb\n", 0),
    c!("dag-overlap", "CHECK-DAG: a\nCHECK-DAG: a\n", "a\n", 1),
    c!("dag-two", "CHECK-DAG: a\nCHECK-DAG: a\n", "a\na\n", 0),
    c!("dag-then-check", "CHECK-DAG: b\nCHECK: c\n", "b\nc\n", 0),
    c!("dag-after-check", "CHECK: c\nCHECK-DAG: b\n", "b\nc\n", 1),
    c!(
        "dag-not-dag",
        "CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n",
        "a\nx\nb\n",
        1
    ),
    c!(
        "dag-not-dag-ok",
        "CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n",
        "x\na\nb\n",
        0
    ),
    c!(
        "dag-group-order",
        "CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n",
        "b\na\n",
        1
    ),
    c!(
        "label-ok",
        "CHECK-LABEL: f1\nCHECK: a\nCHECK-LABEL: f2\nCHECK: b\n",
        "f1\na\nf2\nb\n",
        0
    ),
    c!(
        "label-block",
        "CHECK-LABEL: f1\nCHECK: b\nCHECK-LABEL: f2\n",
        "f1\na\nf2\nb\n",
        1
    ),
    c!("label-missing", "CHECK-LABEL: f3\n", "f1\n", 1),
    c!("label-var", "CHECK-LABEL: [[X:f]]\n", "f\n", 2),
    c!(
        "label-not",
        "CHECK-LABEL: f1\nCHECK-NOT: x\nCHECK-LABEL: f2\n",
        "f1\nx\nf2\n",
        1
    ),
    c!("count-ok", "CHECK-COUNT-3: a\n", "a\na\na\n", 0),
    c!("count-few", "CHECK-COUNT-3: a\n", "a\na\n", 1),
    c!(
        "count-gap",
        "CHECK: x\nCHECK-COUNT-2: foo\n",
        "x\nfoo\nbar\nfoo\n",
        0
    ),
    c!("count-zero", "CHECK-COUNT-0: a\n", "a\n", 2),
    c!(
        "count-next",
        "CHECK-COUNT-2: a\nCHECK-NEXT: b\n",
        "a\na\nb\n",
        0
    ),
    c!("ws-collapse", "CHECK: a   b\n", "a \t b\n", 0),
    c!("ws-required", "CHECK: a b\n", "ab\n", 1),
    c!(
        "ws-strict",
        "CHECK: a  b\n",
        "a b\n",
        ["--strict-whitespace"],
        1
    ),
    c!("ws-trailing", "CHECK: a   \n", "a\n", 0),
    c!("regex", "CHECK: a{{[0-9]+}}b\n", "a123b\n", 0),
    c!("regex-anchor", "CHECK: {{^}}b\n", "ab\n", 1),
    c!("regex-anchor-ok", "CHECK: {{^}}b\n", "a\nb\n", 0),
    c!("regex-dollar", "CHECK: a{{$}}\n", "ab\n", 1),
    c!("regex-alt", "CHECK: x{{a|b}}y\n", "xby\n", 0),
    c!("regex-d-literal", "CHECK: {{a\\db}}\n", "a1b\n", 1),
    c!("regex-dot-newline", "CHECK: a{{.}}b\n", "a\nb\n", 1),
    c!("regex-negclass-newline", "CHECK: a{{[^x]}}b\n", "a\nb\n", 1),
    c!("regex-empty-alt", "CHECK: {{a||b}}\n", "a\n", 2),
    c!("regex-unterminated", "CHECK: {{a\n", "a\n", 2),
    c!("regex-bad-class", "CHECK: {{[[:foo:]]}}\n", "a\n", 2),
    c!("regex-lazy", "CHECK: {{a*?}}\n", "a\n", 2),
    c!("regex-class", "CHECK: {{[[:digit:]]+}}\n", "12\n", 0),
    c!(
        "var-def-use",
        "CHECK: x=[[X:[0-9]+]]\nCHECK: y=[[X]]\n",
        "x=12\ny=12\n",
        0
    ),
    c!(
        "var-def-use-fail",
        "CHECK: x=[[X:[0-9]+]]\nCHECK: y=[[X]]\n",
        "x=12\ny=13\n",
        1
    ),
    c!("var-undef", "CHECK: [[Y]]\n", "a\n", 1),
    c!(
        "var-escape",
        "CHECK: [[X:a.c]]\nCHECK: [[X]]\n",
        "a.c\nabc\n",
        1
    ),
    c!("var-bad-name", "CHECK: [[1X:a]]\n", "a\n", 2),
    c!("var-define-cli", "CHECK: v=[[V]]\n", "v=7\n", ["-DV=7"], 0),
    c!(
        "var-define-cli-bad",
        "CHECK: v=[[V]]\n",
        "v=7\n",
        ["-DV"],
        2
    ),
    c!(
        "num-def-use",
        "CHECK: n=[[#N:]]\nCHECK: m=[[#N+1]]\n",
        "n=4\nm=5\n",
        0
    ),
    c!(
        "num-def-use-fail",
        "CHECK: n=[[#N:]]\nCHECK: m=[[#N+1]]\n",
        "n=4\nm=6\n",
        1
    ),
    c!(
        "num-hex",
        "CHECK: n=[[#%x,N:]]\nCHECK: m=[[#N+1]]\n",
        "n=f\nm=10\n",
        0
    ),
    c!("num-same-line", "CHECK: [[#N:]] [[#N]]\n", "1 1\n", 2),
    c!("line", "CHECK: l[[@LINE]]\n", "l1\n", 0),
    c!(
        "line-offset",
        "\nCHECK: l[[@LINE-1]] [[#@LINE+1]]\n",
        "l1 3\n",
        0
    ),
    c!("line-bad", "CHECK: l[[@LINE]]\n", "l2\n", 1),
    c!("no-checks", "nothing\n", "a\n", 2),
    c!("run-not-check", "RUN: foo\n", "a\n", 2),
    c!("com-ignored", "COM: CHECK: zzz\nCHECK: a\n", "a\n", 0),
    c!("prefix-word", "XCHECK: zzz\nCHECK: a\n", "a\n", 0),
    c!("prefix-no-colon", "CHECK a\nCHECK: a\n", "a\n", 0),
    c!("empty-pattern", "CHECK:\n", "a\n", 2),
    c!("misspelled", "CHECK_NEXT: a\n", "a\n", 2),
    c!("bad-not-combo", "CHECK-NOT-NEXT: a\n", "a\n", 2),
    c!("empty-input", "CHECK: a\n", "", 2),
    c!(
        "empty-input-allowed",
        "CHECK-NOT: a\n",
        "",
        ["--allow-empty"],
        0
    ),
    c!(
        "prefixes",
        "A: a\nB: b\n",
        "a\nb\n",
        ["--check-prefixes=A,B"],
        0
    ),
    c!(
        "prefix-unused",
        "A: a\n",
        "a\n",
        ["--check-prefixes=A,B"],
        2
    ),
    c!(
        "prefix-unused-allowed",
        "A: a\n",
        "a\n",
        ["--check-prefixes=A,B", "--allow-unused-prefixes"],
        0
    ),
    c!("prefix-dup", "A: a\n", "a\n", ["--check-prefixes=A,A"], 2),
    c!("prefix-bad", "A: a\n", "a\n", ["--check-prefix=A.B"], 2),
    c!(
        "implicit-not",
        "CHECK: a\n",
        "a\nx\n",
        ["--implicit-check-not=x"],
        1
    ),
    c!(
        "implicit-not-ok",
        "CHECK: a\n",
        "a\ny\n",
        ["--implicit-check-not=x"],
        0
    ),
    c!(
        "implicit-not-only",
        "nothing\n",
        "y\n",
        ["--implicit-check-not=x"],
        0
    ),
    c!(
        "full-lines",
        "CHECK: a\n",
        "ab\n",
        ["--match-full-lines"],
        1
    ),
    c!(
        "full-lines-ok",
        "CHECK: a b\n",
        "  a b  \n",
        ["--match-full-lines"],
        0
    ),
    c!("ignore-case", "CHECK: ABC\n", "abc\n", ["--ignore-case"], 0),
    c!("literal", "CHECK{LITERAL}: {{a}}\n", "{{a}}\n", 0),
    c!(
        "unknown-option",
        "CHECK: a\n",
        "a\n",
        ["--no-such-option"],
        1
    ),
    c!(
        "var-scope",
        "CHECK-LABEL: f\nCHECK: [[X:a]]\nCHECK-LABEL: g\nCHECK: [[X]]\n",
        "f\na\ng\na\n",
        ["--enable-var-scope"],
        1
    ),
    c!(
        "var-scope-default",
        "CHECK-LABEL: f\nCHECK: [[X:a]]\nCHECK-LABEL: g\nCHECK: [[X]]\n",
        "f\na\ng\na\n",
        0
    ),
    c!("crlf", "CHECK: a\r\nCHECK-NEXT: b\r\n", "a\r\nb\r\n", 0),
];
