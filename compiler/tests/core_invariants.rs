//! Invariants of the core data structures: use lists after random edit sequences, print and
//! parse round trips of every type and attribute kind, and `clone_op`.

use std::collections::HashMap;

use morf_ir::asm::{parse_attr_str, parse_type_str};
use morf_ir::{parse_source, print_op, verify, Context, Loc, OpId, OperationState, PrintOptions, Value};

/// A tiny deterministic generator (no external crate; the sequence must not change).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Every operand is recorded in its value's use list, and every use points back at it.
fn check_use_lists(ctx: &Context, ops: &[OpId], values: &[Value]) {
    let mut expected: HashMap<Value, Vec<(OpId, usize)>> = HashMap::new();
    for &op in ops {
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            expected.entry(v).or_default().push((op, i));
        }
    }
    for &v in values {
        let mut got: Vec<(OpId, usize)> = ctx.uses(v).iter().map(|u| (u.op, u.index)).collect();
        let mut want = expected.remove(&v).unwrap_or_default();
        got.sort();
        want.sort();
        assert_eq!(got, want, "use list of {v:?}");
        for u in ctx.uses(v) {
            assert_eq!(ctx.operand(u.op, u.index), v);
        }
    }
    assert!(expected.is_empty(), "operands that refer to unknown values: {expected:?}");
}

#[test]
fn use_lists_survive_random_edits() {
    for seed in 0..20u64 {
        let mut rng = Lcg(seed);
        let mut ctx = Context::new();
        ctx.registry_mut().allow_unregistered = true;
        let f32t = ctx.f32_type();
        let region = ctx.create_region();
        let block = ctx.create_block(region, &[f32t, f32t]);
        let mut values: Vec<Value> = ctx.block_args(block).to_vec();
        let mut ops: Vec<OpId> = Vec::new();
        for _step in 0..300 {
            match rng.next(5) {
                // Create an op using 0..3 existing values.
                0 | 1 => {
                    let n = rng.next(4);
                    let operands: Vec<Value> = (0..n).map(|_| values[rng.next(values.len())]).collect();
                    let op =
                        ctx.create_op(OperationState::new("t.op", Loc::Unknown).operands(&operands).results(&[f32t]));
                    ctx.append_op(block, op);
                    values.push(ctx.result(op, 0));
                    ops.push(op);
                }
                // Erase an op whose result has no uses (first drop its uses by RAUW).
                2 if !ops.is_empty() => {
                    let k = rng.next(ops.len());
                    let op = ops[k];
                    let r = ctx.result(op, 0);
                    let repl = ctx.block_args(block)[rng.next(2)];
                    ctx.replace_all_uses_with(r, repl);
                    // Its own operands may use its result? No: an op cannot use its own result here.
                    ctx.erase_op(op);
                    ops.remove(k);
                    values.retain(|v| *v != r);
                }
                // Replace all uses of one value by another (never by a value defined later
                // by the same op, which the edit does not care about).
                3 => {
                    let (a, b) = (values[rng.next(values.len())], values[rng.next(values.len())]);
                    if a != b {
                        ctx.replace_all_uses_with(a, b);
                    }
                }
                // Change one operand.
                _ => {
                    let with_operands: Vec<OpId> =
                        ops.iter().copied().filter(|o| !ctx.operands(*o).is_empty()).collect();
                    if !with_operands.is_empty() {
                        let op = with_operands[rng.next(with_operands.len())];
                        let i = rng.next(ctx.operands(op).len());
                        ctx.set_operand(op, i, values[rng.next(values.len())]);
                    }
                }
            }
            check_use_lists(&ctx, &ops, &values);
        }
    }
}

#[test]
fn every_type_round_trips() {
    let types = [
        "f16",
        "bf16",
        "f32",
        "f64",
        "i1",
        "i8",
        "i16",
        "i32",
        "i64",
        "index",
        "tensor<f32>",
        "tensor<4xf32>",
        "tensor<?x384xbf16>",
        "tensor<1x2x1x4x1x6x1x8x1x1x1x1x1x1x1x16xi8>",
        "tensor<0xindex>",
        "() -> ()",
        "(f32) -> f32",
        "(i32, f16) -> (f32, index)",
        "(f32) -> ((i32) -> f32)",
        "tensor<1099511627776xi1>",
    ];
    for t in types {
        let mut ctx = Context::new();
        let ty = parse_type_str(&mut ctx, t).unwrap_or_else(|e| panic!("{t}: {}", e.message));
        let printed = ctx.type_to_string(ty);
        let again = parse_type_str(&mut ctx, &printed).unwrap_or_else(|e| panic!("{printed}: {}", e.message));
        assert_eq!(ty, again, "{t} printed as {printed}");
        assert_eq!(printed, ctx.type_to_string(again));
    }
}

#[test]
fn every_attribute_round_trips() {
    let attrs = [
        "true",
        "false",
        "unit",
        "42",
        "-7 : i8",
        "255 : i8",
        "3 : index",
        "-9223372036854775808 : i64",
        "0x7f : i32",
        "1.5 : f32",
        "-0.0",
        "2.5e-3 : f16",
        "1.0e+10 : bf16",
        "0x7FC00000 : f32",
        "0x7F800000 : f32",
        "0xFF800000 : f32",
        "0x7FC0 : bf16",
        "0x7E00 : f16",
        "0x7FF8000000000000 : f64",
        "3.14159",
        "\"plain\"",
        "\"esc \\\" \\\\ \\n \\t \\01\\7f\"",
        "\"\"",
        "[]",
        "[1, 2.0, \"s\", [[]], {k}]",
        "array<i64: 1, -2>",
        "array<i8>",
        "{}",
        "{a = 1 : i32, \"quoted key\" = \"v\", n = {x}}",
        "f32",
        "tensor<4x?xbf16>",
        "(i32) -> index",
        "@sym",
        "@\"quoted sym\"",
        "dense<1.0> : tensor<4x4xf32>",
        "dense<-3> : tensor<2xi32>",
        "dense<true> : tensor<3xi1>",
        "dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>",
        "dense<[0x7F800000, 0xFF800000, 0.5]> : tensor<3xf32>",
        "dense<[inf, -inf, nan]> : tensor<3xf64>",
        "dense<7.0> : tensor<f64>",
        "dense<[]> : tensor<0xf32>",
    ];
    for a in attrs {
        let mut ctx = Context::new();
        let at = parse_attr_str(&mut ctx, a).unwrap_or_else(|e| panic!("{a}: {}", e.message));
        let printed = ctx.attr_to_string(at);
        let again =
            parse_attr_str(&mut ctx, &printed).unwrap_or_else(|e| panic!("{a} printed as {printed}: {}", e.message));
        assert_eq!(printed, ctx.attr_to_string(again), "{a}");
        // NaN payloads compare by bits, so interning makes the two identical too.
        assert_eq!(at, again, "{a} printed as {printed}");
    }
}

#[test]
fn clone_op_copies_regions_and_remaps_values() {
    let src = r#"
func.func @f(%a: f32) -> f32 {
  %x = "t.def"(%a) : (f32) -> f32
  %r = "t.region"(%x) ({
  ^bb0(%i: f32):
    %y = "t.add"(%i, %x, %a) : (f32, f32, f32) -> f32
    "t.yield"(%y) : (f32) -> ()
  }) {k = 1 : i32} : (f32) -> f32
  func.return %r : f32
}
"#;
    let mut ctx = Context::new();
    ctx.registry_mut().allow_unregistered = true;
    let m = parse_source(&mut ctx, "t.mlir", src, 0).unwrap_or_else(|e| panic!("{}", ctx.render(&e)));
    let all = ctx.walk_collect(m);
    let region_op = *all.iter().find(|o| ctx.op_name(**o) == "t.region").unwrap();
    let x = ctx.operand(region_op, 0);
    let before = print_op(&ctx, m, &PrintOptions::default());
    // Clone with %x mapped to the function argument.
    let a = ctx.operand(ctx.defining_op(x).unwrap(), 0);
    let mut map = HashMap::from([(x, a)]);
    let c = ctx.clone_op(region_op, &mut map);
    assert_ne!(c, region_op);
    assert_eq!(ctx.op_name(c), "t.region");
    assert_eq!(ctx.operands(c), &[a]);
    assert!(map.contains_key(&ctx.result(region_op, 0)));
    // The nested use of %x is remapped; the nested use of %a stays; the block argument is new.
    let inner: Vec<OpId> = ctx.walk_collect(c);
    let add = *inner.iter().find(|o| ctx.op_name(**o) == "t.add").unwrap();
    let ops = ctx.operands(add).to_vec();
    assert_eq!(ops[1], a);
    assert_eq!(ops[2], a);
    assert!(ctx.block_args(ctx.op_parent_block(add).unwrap()).contains(&ops[0]));
    // The original is untouched, and the clone can be inserted and verified.
    assert_eq!(print_op(&ctx, m, &PrintOptions::default()), before);
    ctx.insert_op_after(region_op, c);
    verify(&ctx, m).unwrap_or_else(|e| panic!("{}", ctx.render(&e)));
    let all_ops = ctx.walk_collect(m);
    let vals: Vec<Value> = all_ops
        .iter()
        .flat_map(|o| ctx.results(*o).to_vec())
        .chain(all_ops.iter().flat_map(|o| {
            ctx.regions(*o)
                .iter()
                .flat_map(|r| ctx.region_blocks(*r).collect::<Vec<_>>())
                .flat_map(|b| ctx.block_args(b).to_vec())
                .collect::<Vec<_>>()
        }))
        .collect();
    check_use_lists(&ctx, &all_ops, &vals);
}
