//! Print/parse round trips of the core syntax, and parse errors with locations.

use morf_ir::{parse_source, print_op, verify, Context, PrintOptions};

fn roundtrip(src: &str, allow: bool) -> String {
    let mut ctx = Context::new();
    ctx.registry_mut().allow_unregistered = allow;
    let m = parse_source(&mut ctx, "t.mlir", src, 0).unwrap_or_else(|e| panic!("{}", ctx.render(&e)));
    verify(&ctx, m).unwrap_or_else(|e| panic!("{}", ctx.render(&e)));
    let a = print_op(&ctx, m, &PrintOptions::default());
    let g = print_op(&ctx, m, &PrintOptions { generic: true, debug_info: false });
    for text in [&a, &g] {
        let mut c2 = Context::new();
        c2.registry_mut().allow_unregistered = allow;
        let m2 = parse_source(&mut c2, "t2.mlir", text, 0).unwrap_or_else(|e| panic!("{}\n{}", c2.render(&e), text));
        verify(&c2, m2).unwrap();
        assert_eq!(print_op(&c2, m2, &PrintOptions::default()), a, "custom form is not a fixed point");
        assert_eq!(print_op(&c2, m2, &PrintOptions { generic: true, debug_info: false }), g);
    }
    a
}

#[test]
fn func_and_generic_ops() {
    let src = r#"
func.func @f(%x: tensor<?x384xf32>, %w: tensor<384xbf16>) -> (tensor<?x384xf32>, tensor<384xbf16>) {
  %0 = "foo.bar"(%x) {a = 1 : i32, b, c = [1, 2.5, "s"], d = dense<[1.0, 2.0]> : tensor<2xf32>, e = @sym, f = tensor<4xf32>, g = {k = true}} : (tensor<?x384xf32>) -> tensor<?x384xf32>
  %r:2 = "foo.two"(%0, %w) ({
  ^bb0(%a: f32):
    "foo.yield"(%a) : (f32) -> ()
  }) : (tensor<?x384xf32>, tensor<384xbf16>) -> (tensor<?x384xf32>, tensor<384xbf16>)
  return %r#0, %r#1 : tensor<?x384xf32>, tensor<384xbf16>
}
"#;
    let out = roundtrip(src, true);
    assert!(out.contains("func.func @f(%x: tensor<?x384xf32>, %w: tensor<384xbf16>)"), "{out}");
}

#[test]
fn errors_have_locations() {
    let cases = [
        ("func.func @f() {\n  %0 = \"foo.bar\"(%y) : (f32) -> f32\n  func.return\n}", "2:18", "undeclared"),
        ("func.func @f() {\n  func.return\n", "3:1", "expected"),
        ("%0 = tensor<3x>", "1:", "error"),
        ("func.func @f(%a: tensor<99999999999999999999xf32>) {\n func.return\n}", "1:25", "too large"),
    ];
    for (src, at, what) in cases {
        let mut ctx = Context::new();
        ctx.registry_mut().allow_unregistered = true;
        let e = parse_source(&mut ctx, "t.mlir", src, 0).expect_err(src);
        let r = ctx.render(&e);
        assert!(r.contains(&format!("t.mlir:{at}")), "{r}");
        assert!(r.contains(what), "{r}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut src = String::new();
    for _ in 0..100_000 {
        src.push('[');
    }
    let mut ctx = Context::new();
    ctx.registry_mut().allow_unregistered = true;
    let text = format!("\"a.b\"() {{x = {src}}} : () -> ()");
    let e = parse_source(&mut ctx, "t.mlir", &text, 0).unwrap_err();
    let r = ctx.render(&e);
    assert!(r.contains("too deep"), "{r}");
}

#[test]
fn f64_negative_infinity_round_trips() {
    let src = "\"a.b\"() {x = 0xFFF0000000000000 : f64, y = 0xFF800000 : f32} : () -> ()";
    let out = roundtrip(src, true);
    assert!(out.contains("0xFFF0000000000000 : f64"), "{out}");
}
