//! The plan language: terms that say which kernels run, in which order, and what each holds.
//!
//! A plan is a right-nested list of kernels ending in `end`:
//! `(seq (nest 0) (seq (nest 1) (seq (nest 2) end)))` is the unfused plan of three nests.
//! The first child of a `seq` is always a *kernel term*; every rewrite works on `seq` classes,
//! so a kernel class holds exactly one e-node and its analysis data (the kernel it denotes) is
//! exact. Semantic attributes (the nest index, the split size, the row style) are children that
//! are leaves, so equal e-nodes mean equal kernels.
//!
//! | term | meaning |
//! | --- | --- |
//! | `(nest i)` | nest `i` as its own kernel |
//! | `(partial S i)` | column reduction `i` as a pointwise nest in row order, each program folding `S` rows into an f32 workspace row |
//! | `(final S i)` | the small reduction of the workspace of `(partial S i)`, plus nest `i`'s epilogue |
//! | `(fuse a b)` | one kernel computing kernels `a` then `b` (multi-output) |
//! | `(rowfused persistent r p)` | one program per row: row reduction `r`, then `p` on the row held in registers |
//! | `(rowfused looped r p)` | the same with the row in chunks: a second pass re-reads it |

use egg::{Id, RecExpr};

pub use plan_lang::PlanLang;

mod plan_lang {
    // The variants are documented in the module table; `define_language!` cannot carry docs.
    #![allow(missing_docs)]
    use egg::{define_language, Id};

    define_language! {
        /// The plan language (see the module docs).
        pub enum PlanLang {
            "seq" = Seq([Id; 2]),
            "end" = End,
            "nest" = Nest(Id),
            "partial" = Partial([Id; 2]),
            "final" = Final([Id; 2]),
            "fuse" = Fuse([Id; 2]),
            "rowfused" = RowFused([Id; 3]),
            "persistent" = Persistent,
            "looped" = Looped,
            Num(u64),
        }
    }
}

/// The unfused plan of `nests` (nest ids, program order): one kernel per nest.
pub fn unfused_term(nests: &[usize]) -> RecExpr<PlanLang> {
    let mut expr = RecExpr::default();
    let mut rest = expr.add(PlanLang::End);
    let leaves: Vec<Id> = nests
        .iter()
        .map(|&n| {
            let num = expr.add(PlanLang::Num(n as u64));
            expr.add(PlanLang::Nest(num))
        })
        .collect();
    for &k in leaves.iter().rev() {
        rest = expr.add(PlanLang::Seq([k, rest]));
    }
    expr
}
