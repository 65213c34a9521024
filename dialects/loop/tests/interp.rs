//! Interprets hand-written `mloop` nests and compares them with expected arrays; checks
//! run-time errors (out-of-bounds accesses, bad steps) and custom/generic round trips.

use std::cell::RefCell;
use std::rc::Rc;

use morf_ir::interp::{array::Array, run_function, RtValue};
use morf_ir::{
    builtin::lookup_function, parse_source, print_op, verify, Builder, Context, Dim, FloatKind, Loc, OpId,
    OperationState, PrintOptions,
};

fn ctx() -> Context {
    let mut c = Context::new();
    morf_loop::register(&mut c);
    c
}

fn parse(ctx: &mut Context, src: &str) -> OpId {
    let m = parse_source(ctx, "t.mlir", src, 0).unwrap_or_else(|d| panic!("parse: {}", d.message));
    verify(ctx, m).unwrap_or_else(|d| panic!("verify: {}", d.message));
    m
}

fn f32_buffer(ctx: &mut Context, shape: Vec<usize>, data: Vec<f64>) -> RtValue {
    let elem = ctx.f32_type();
    RtValue::Buffer { elem, data: Rc::new(RefCell::new(Array::new(shape, data))) }
}

/// Runs `@name` of `src` on `args`.
fn run(src: &str, name: &str, args: Vec<RtValue>) -> Result<Vec<RtValue>, String> {
    let mut c = ctx();
    let m = parse(&mut c, src);
    let f = lookup_function(&c, m, name).expect("function");
    run_function(&c, f, args).map_err(|d| d.message)
}

fn array_of(v: &RtValue) -> Array {
    match v {
        RtValue::Buffer { data, .. } => data.borrow().clone(),
        other => panic!("expected a buffer, got {other:?}"),
    }
}

const ROWSUM: &str = r#"
func.func @rowsum(%x: !mloop.buffer<?x?xf32>) -> !mloop.buffer<?xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %out = mloop.alloc(%m) : !mloop.buffer<?xf32>
  mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
    %s = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
      %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
      mloop.yield %v : f32
    }
    mloop.store %s, %out[%i] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %out : !mloop.buffer<?xf32>
}
"#;

#[test]
fn row_sum() {
    let mut c = ctx();
    let x = f32_buffer(&mut c, vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = run(ROWSUM, "rowsum", vec![x]).unwrap();
    assert_eq!(array_of(&r[0]), Array::new(vec![2], vec![6.0, 15.0]));
}

#[test]
fn column_sum_through_a_workspace() {
    // Rows go to split i rem 2; partial sums accumulate into ws[2, N]; a reduce sums them.
    let src = r#"
func.func @colsum(%x: !mloop.buffer<?x?xf32>) -> (!mloop.buffer<?xf32>, !mloop.buffer<2x?xf32>) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %zero = mloop.constant 0.0 : f32
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %ws = mloop.alloc(%n) : !mloop.buffer<2x?xf32>
  mloop.fill %zero, %ws : !mloop.buffer<2x?xf32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) {
    %s = mloop.rem %i, %c2 : index
    %v = mloop.load %x[%i, %j] : !mloop.buffer<?x?xf32>
    mloop.accumulate sum %v, %ws[%s, %j] : !mloop.buffer<2x?xf32>
    mloop.yield
  }
  %out = mloop.alloc(%n) : !mloop.buffer<?xf32>
  mloop.parallel (%j) = (%c0) to (%n) step (%c1) {
    %t = mloop.reduce sum (%s) = (%c0) to (%c2) step (%c1) init(%zero) : f32 {
      %p = mloop.load %ws[%s, %j] : !mloop.buffer<2x?xf32>
      mloop.yield %p : f32
    }
    mloop.store %t, %out[%j] : !mloop.buffer<?xf32>
    mloop.yield
  }
  return %out, %ws : !mloop.buffer<?xf32>, !mloop.buffer<2x?xf32>
}
"#;
    let mut c = ctx();
    let x = f32_buffer(&mut c, vec![3, 2], vec![1.0, 10.0, 2.0, 20.0, 3.0, 30.0]);
    let r = run(src, "colsum", vec![x]).unwrap();
    assert_eq!(array_of(&r[0]), Array::new(vec![2], vec![6.0, 60.0]));
    assert_eq!(array_of(&r[1]), Array::new(vec![2, 2], vec![4.0, 40.0, 2.0, 20.0]));
}

#[test]
fn parallel_runs_in_lexicographic_order() {
    // Each iteration stores a running counter: the result is row-major 0, 1, 2, ...
    let src = r#"
func.func @order() -> !mloop.buffer<2x3xf32> {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %c3 = mloop.constant 3 : index
  %one = mloop.constant 1.0 : f32
  %zero = mloop.constant 0.0 : f32
  %ord = mloop.alloc() : !mloop.buffer<2x3xf32>
  %cnt = mloop.alloc() : !mloop.buffer<f32>
  mloop.store %zero, %cnt[] : !mloop.buffer<f32>
  mloop.parallel (%i, %j) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {
    %k = mloop.load %cnt[] : !mloop.buffer<f32>
    mloop.store %k, %ord[%i, %j] : !mloop.buffer<2x3xf32>
    mloop.accumulate sum %one, %cnt[] : !mloop.buffer<f32>
    mloop.yield
  }
  mloop.dealloc %cnt : !mloop.buffer<f32>
  return %ord : !mloop.buffer<2x3xf32>
}
"#;
    let r = run(src, "order", vec![]).unwrap();
    assert_eq!(array_of(&r[0]), Array::new(vec![2, 3], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]));
}

#[test]
fn for_with_iter_args_and_steps() {
    // Sum of 1, 4, 7 (lb 1, ub 10, step 3) as index and as f32, and the count.
    let src = r#"
func.func @f() -> (index, f32, index) {
  %c1 = mloop.constant 1 : index
  %c3 = mloop.constant 3 : index
  %c10 = mloop.constant 10 : index
  %z = mloop.constant 0 : index
  %zf = mloop.constant 0.0 : f32
  %r:3 = mloop.for %i = %c1 to %c10 step %c3 iter_args(%a = %z, %b = %zf, %n = %z) -> (index, f32, index) {
    %a2 = mloop.add %a, %i : index
    %fi = mloop.convert %i : index to f32
    %b2 = mloop.add %b, %fi : f32
    %n2 = mloop.add %n, %c1 : index
    mloop.yield %a2, %b2, %n2 : index, f32, index
  }
  return %r#0, %r#1, %r#2 : index, f32, index
}
"#;
    let r = run(src, "f", vec![]).unwrap();
    assert_eq!(r[0].as_int(), Some(12));
    assert_eq!(r[1].as_float(), Some(12.0));
    assert_eq!(r[2].as_int(), Some(3));
}

#[test]
fn zero_trip_for_yields_inits() {
    let src = r#"
func.func @f() -> f32 {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %init = mloop.constant 2.5 : f32
  %r = mloop.for %i = %c1 to %c0 step %c1 iter_args(%a = %init) -> (f32) {
    %b = mloop.add %a, %a : f32
    mloop.yield %b : f32
  }
  return %r : f32
}
"#;
    assert_eq!(run(src, "f", vec![]).unwrap()[0].as_float(), Some(2.5));
}

#[test]
fn reduce_rounds_to_the_init_type_at_each_step() {
    // 300 ones summed in bf16 stop at 256 (256 + 1 rounds back to 256); in f32 they give
    // 300. max and prod combine too.
    let src = r#"
func.func @f() -> (bf16, f32, f32, f32) {
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c300 = mloop.constant 300 : index
  %c4 = mloop.constant 4 : index
  %zh = mloop.constant 0.0 : bf16
  %oh = mloop.constant 1.0 : bf16
  %z = mloop.constant 0.0 : f32
  %o = mloop.constant 1.0 : f32
  %a = mloop.reduce sum (%i) = (%c0) to (%c300) step (%c1) init(%zh) : bf16 {
    mloop.yield %oh : bf16
  }
  %b = mloop.reduce sum (%i) = (%c0) to (%c300) step (%c1) init(%z) : f32 {
    mloop.yield %o : f32
  }
  %m = mloop.reduce max (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) init(%z) : f32 {
    %p = mloop.mul %i, %j : index
    %f = mloop.convert %p : index to f32
    mloop.yield %f : f32
  }
  %two = mloop.constant 2.0 : f32
  %p = mloop.reduce prod (%i) = (%c1) to (%c4) step (%c1) init(%o) : f32 {
    mloop.yield %two : f32
  }
  return %a, %b, %m, %p : bf16, f32, f32, f32
}
"#;
    let r = run(src, "f", vec![]).unwrap();
    assert_eq!(r[0].as_float(), Some(256.0));
    assert_eq!(r[1].as_float(), Some(300.0));
    assert_eq!(r[2].as_float(), Some(9.0));
    assert_eq!(r[3].as_float(), Some(8.0));
}

#[test]
fn scalar_semantics() {
    // Floor division and remainder on index; f32 rounding; NaN-propagating max; select.
    let src = r#"
func.func @f(%x: f32, %nan: f32) -> (index, index, index, index, f32, f32, f32, bf16) {
  %m7 = mloop.constant -7 : index
  %c2 = mloop.constant 2 : index
  %m2 = mloop.constant -2 : index
  %q = mloop.div %m7, %c2 : index
  %r = mloop.rem %m7, %c2 : index
  %q2 = mloop.div %c2, %m2 : index
  %r2 = mloop.rem %m7, %m2 : index
  %third = mloop.constant 3.0 : f32
  %one = mloop.constant 1.0 : f32
  %d = mloop.div %one, %third : f32
  %mx = mloop.max %x, %nan : f32
  %p = mloop.cmp gt, %x, %one : f32
  %s = mloop.select %p, %x, %one : f32
  %h = mloop.convert %d : f32 to bf16
  return %q, %r, %q2, %r2, %d, %mx, %s, %h : index, index, index, index, f32, f32, f32, bf16
}
"#;
    let r = run(src, "f", vec![RtValue::Float(5.0), RtValue::Float(f64::NAN)]).unwrap();
    assert_eq!(r[0].as_int(), Some(-4));
    assert_eq!(r[1].as_int(), Some(1));
    assert_eq!(r[2].as_int(), Some(-1));
    assert_eq!(r[3].as_int(), Some(-1));
    assert_eq!(r[4].as_float(), Some(FloatKind::F32.round(1.0 / 3.0)));
    assert!(r[5].as_float().unwrap().is_nan());
    assert_eq!(r[6].as_float(), Some(5.0));
    assert_eq!(r[7].as_float(), Some(FloatKind::BF16.round(FloatKind::F32.round(1.0 / 3.0))));
}

#[test]
fn alloc_fills_nan_and_constant_buffer_is_fresh() {
    let src = r#"
func.func @f() -> (!mloop.buffer<2xf32>, !mloop.buffer<2xf32>, !mloop.buffer<2xf32>) {
  %a = mloop.alloc() : !mloop.buffer<2xf32>
  %c0 = mloop.constant 0 : index
  %c1 = mloop.constant 1 : index
  %c2 = mloop.constant 2 : index
  %z = mloop.constant 9.0 : f32
  %k = mloop.constant_buffer dense<[1.0, 2.0]> : !mloop.buffer<2xf32>
  mloop.for %i = %c0 to %c2 step %c1 {
    %l = mloop.constant_buffer dense<[1.0, 2.0]> : !mloop.buffer<2xf32>
    mloop.store %z, %l[%i] : !mloop.buffer<2xf32>
    mloop.yield
  }
  %l2 = mloop.constant_buffer dense<[1.0, 2.0]> : !mloop.buffer<2xf32>
  mloop.store %z, %k[%c0] : !mloop.buffer<2xf32>
  return %a, %k, %l2 : !mloop.buffer<2xf32>, !mloop.buffer<2xf32>, !mloop.buffer<2xf32>
}
"#;
    let r = run(src, "f", vec![]).unwrap();
    assert!(array_of(&r[0]).data.iter().all(|v| v.is_nan()));
    assert_eq!(array_of(&r[1]).data, vec![9.0, 2.0]);
    assert_eq!(array_of(&r[2]).data, vec![1.0, 2.0]);
}

#[test]
fn out_of_bounds_load_is_a_diagnostic() {
    let src = r#"
func.func @f(%x: !mloop.buffer<?xf32>, %i: index) -> f32 {
  %v = mloop.load %x[%i] : !mloop.buffer<?xf32>
  return %v : f32
}
"#;
    let mut c = ctx();
    let x = f32_buffer(&mut c, vec![4], vec![0.0; 4]);
    let e = run(src, "f", vec![x.clone(), RtValue::Int(4)]).unwrap_err();
    assert_eq!(e, "'mloop.load' op index 4 is out of bounds for dim 0 of size 4 (indices [4], shape [4])");
    let e = run(src, "f", vec![x.clone(), RtValue::Int(-1)]).unwrap_err();
    assert!(e.contains("index -1 is out of bounds"), "{e}");
    assert!(run(src, "f", vec![x, RtValue::Int(3)]).is_ok());
}

#[test]
fn accumulate_and_store_bounds_and_bad_steps() {
    let src = r#"
func.func @acc(%w: !mloop.buffer<2x2xf32>, %i: index, %v: f32) {
  %c0 = mloop.constant 0 : index
  mloop.accumulate sum %v, %w[%c0, %i] : !mloop.buffer<2x2xf32>
  return
}
func.func @par(%s: index) {
  %c0 = mloop.constant 0 : index
  %c4 = mloop.constant 4 : index
  mloop.parallel (%i) = (%c0) to (%c4) step (%s) {
    mloop.yield
  }
  return
}
func.func @red(%s: index) -> f32 {
  %c0 = mloop.constant 0 : index
  %c4 = mloop.constant 4 : index
  %z = mloop.constant 0.0 : f32
  %r = mloop.reduce sum (%i) = (%c0) to (%c4) step (%s) init(%z) : f32 {
    mloop.yield %z : f32
  }
  return %r : f32
}
func.func @alloc(%n: index) -> !mloop.buffer<?xf32> {
  %b = mloop.alloc(%n) : !mloop.buffer<?xf32>
  return %b : !mloop.buffer<?xf32>
}
"#;
    let mut c = ctx();
    let w = f32_buffer(&mut c, vec![2, 2], vec![0.0; 4]);
    let e = run(src, "acc", vec![w.clone(), RtValue::Int(2), RtValue::Float(1.0)]).unwrap_err();
    assert!(e.starts_with("'mloop.accumulate' op index 2 is out of bounds for dim 1 of size 2"), "{e}");
    assert!(run(src, "par", vec![RtValue::Int(0)])
        .unwrap_err()
        .contains("'mloop.parallel' op step 0 must be positive"));
    assert!(run(src, "red", vec![RtValue::Int(-1)])
        .unwrap_err()
        .contains("'mloop.reduce' op step -1 must be positive"));
    assert!(run(src, "alloc", vec![RtValue::Int(-3)]).unwrap_err().contains("size -3 for dim 0 is negative"));
    assert!(run(src, "alloc", vec![RtValue::Int(1 << 40)]).unwrap_err().contains("too large"));
}

#[test]
fn round_trips_custom_and_generic() {
    let mut c = ctx();
    let m = parse(&mut c, ROWSUM);
    let custom = print_op(&c, m, &PrintOptions::default());
    let generic = print_op(&c, m, &PrintOptions { generic: true, ..Default::default() });
    for text in [&custom, &generic] {
        let mut c2 = ctx();
        let m2 = parse(&mut c2, text);
        assert_eq!(print_op(&c2, m2, &PrintOptions::default()), custom);
    }
    assert!(custom.contains("mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {"), "{custom}");
}

#[test]
fn buffer_type_helpers() {
    let mut c = ctx();
    let f32t = c.f32_type();
    let bt = morf_loop::buffer_type(&mut c, &[Dim::Dynamic, Dim::Static(4)], f32t);
    assert_eq!(c.type_to_string(bt), "!mloop.buffer<?x4xf32>");
    assert_eq!(morf_loop::buffer_parts(&c, bt).map(|(s, e)| (s.len(), e)), Some((2, f32t)));
    assert!(morf_loop::is_buffer(&c, bt) && !morf_loop::is_buffer(&c, f32t));
    let e = parse_source(&mut ctx(), "t.mlir", "func.func @f(%b: !mloop.buffer<4xindex>) {\n  return\n}", 0)
        .expect_err("index elements are rejected");
    assert!(e.message.contains("element type must be f16, bf16, f32, f64 or i1"), "{}", e.message);
}

#[test]
fn ops_built_by_name_verify_print_and_run() {
    // What a lowering does: build `mloop.parallel` and `mloop.reduce` through
    // `OperationState`, with operands and attributes in the documented order and names.
    let mut c = ctx();
    let (f32t, idx) = (c.f32_type(), c.index_type());
    let bt = morf_loop::buffer_type(&mut c, &[Dim::Dynamic], f32t);
    let mut b = Builder::new_module(&mut c);
    let (func, args) = b.func("sums", &[bt], &[bt]);
    let x = args[0];
    let cst = |b: &mut Builder<'_>, a, t| {
        let op = b.op("mloop.constant", &[], &[t], &[("value", a)]);
        b.ctx.result(op, 0)
    };
    let (a0, a1, af) = (b.ctx.int_attr(0, idx), b.ctx.int_attr(1, idx), b.ctx.float_attr(0.0, f32t));
    let (c0, c1, zero) = (cst(&mut b, a0, idx), cst(&mut b, a1, idx), cst(&mut b, af, f32t));
    let dim_attr = b.ctx.i64_attr(0);
    let n = b.op("mloop.dim", &[x], &[idx], &[("index", dim_attr)]);
    let n = b.ctx.result(n, 0);
    let out_t = morf_loop::buffer_type(b.ctx, &[Dim::Static(1)], f32t);
    let out = b.op("mloop.alloc", &[], &[out_t], &[]);
    let out = b.ctx.result(out, 0);
    // %s = reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) { load x[j]; yield }
    let outer = b.insertion_block();
    let r = b.ctx.create_region();
    let body = b.ctx.create_block(r, &[idx]);
    let j = b.ctx.block_args(body)[0];
    b.set_insertion_point(body);
    let v = b.op("mloop.load", &[x, j], &[f32t], &[]);
    let v = b.ctx.result(v, 0);
    b.op("mloop.yield", &[v], &[], &[]);
    b.set_insertion_point(outer);
    let kind = b.ctx.str_attr("sum");
    let st = OperationState::new("mloop.reduce", Loc::Unknown)
        .operands(&[c0, n, c1, zero])
        .results(&[f32t])
        .attr("kind", kind)
        .region(r);
    let red = b.insert(st);
    let s = b.ctx.result(red, 0);
    b.op("mloop.store", &[s, out, c0], &[], &[]);
    b.ret(func, &[out]);
    let m = b.module();
    // The function's declared result is ?-shaped; give it the static one we return.
    let fty = c.function_type(&[bt], &[out_t]);
    let fta = c.type_attr(fty);
    c.set_attr(func, "function_type", fta);
    verify(&c, m).unwrap_or_else(|d| panic!("verify: {}", d.message));
    let text = print_op(&c, m, &PrintOptions::default());
    assert!(text.contains("mloop.reduce sum (%arg1) = (%0) to (%3) step (%1) init(%2) : f32 {"), "{text}");
    let xb = f32_buffer(&mut c, vec![3], vec![1.0, 2.0, 4.0]);
    let r = run_function(&c, func, vec![xb]).unwrap();
    assert_eq!(array_of(&r[0]).data, vec![7.0]);
}

#[test]
fn every_listed_scalar_function_has_its_op_with_the_elementwise_interface() {
    use morf_ir::interfaces::{BinaryFn, Elementwise, UnaryFn};
    use morf_ir::Traits;
    let c = ctx();
    let ew = |info: &morf_ir::OpInfo| info.elementwise.map(|f| f(&c, OpId::default()));
    for f in UnaryFn::ALL {
        let info = c.registry().op(&format!("mloop.{}", f.name())).expect("registered");
        assert_eq!(ew(info), Some(Some(Elementwise::Unary(*f))), "{}", info.name);
    }
    for f in BinaryFn::ALL {
        let info = c.registry().op(&format!("mloop.{}", f.name())).expect("registered");
        assert_eq!(ew(info), Some(Some(Elementwise::Binary(*f))), "{}", info.name);
        assert_eq!(info.has(Traits::COMMUTATIVE), f.commutative(), "{}", info.name);
    }
    // The registered kind is the typed handle's 'static info.
    assert!(std::ptr::eq(c.registry().op("mloop.add").unwrap(), morf_loop::ops::AddOp::info()));
    assert!(std::ptr::eq(c.registry().op("mloop.rem").unwrap(), morf_loop::ops::RemOp::info()));
    assert!(morf_loop::ops::RemOp::info().elementwise.is_none());
}

#[test]
fn typed_builders_accessors_and_casts() {
    use morf_ir::interfaces::{elementwise, BinaryFn, Elementwise};
    use morf_loop::ops::{AddOp, ConstantOp, LoadOp, StoreOp};
    let mut c = ctx();
    let (f32t, idx) = (c.f32_type(), c.index_type());
    let bt = morf_loop::buffer_type(&mut c, &[Dim::Static(2)], f32t);
    let mut b = Builder::new_module(&mut c);
    let (func, args) = b.func("f", &[bt], &[f32t]);
    let buf = args[0];
    let one = b.ctx.int_attr(1, idx);
    let st = ConstantOp::state(Loc::Unknown, idx, one);
    let i = ConstantOp(b.insert(st));
    let st = LoadOp::state(Loc::Unknown, buf, &[i.result(b.ctx)], f32t);
    let load = LoadOp(b.insert(st));
    let st = AddOp::state(Loc::Unknown, load.value(b.ctx), load.value(b.ctx), f32t);
    let add = AddOp(b.insert(st));
    let st = StoreOp::state(Loc::Unknown, add.result(b.ctx), buf, &[i.result(b.ctx)]);
    b.insert(st);
    b.ret(func, &[add.result(b.ctx)]);
    let m = b.module();
    verify(&c, m).unwrap_or_else(|d| panic!("verify: {}", d.message));
    assert_eq!(load.buffer(&c), buf);
    assert_eq!(load.indices(&c), &[i.result(&c)]);
    assert!(c.isa::<LoadOp>(load.id()) && !c.isa::<StoreOp>(load.id()));
    assert_eq!(c.dyn_cast::<AddOp>(add.id()), Some(add));
    assert_eq!(elementwise(&c, add.id()), Some(Elementwise::Binary(BinaryFn::Add)));
    assert_eq!(elementwise(&c, load.id()), None);
    let xb = f32_buffer(&mut c, vec![2], vec![1.0, 2.5]);
    let r = run_function(&c, func, vec![xb.clone()]).unwrap();
    assert_eq!(r[0].as_float(), Some(5.0));
    assert_eq!(array_of(&xb).data, vec![1.0, 5.0]);
}

#[test]
fn generated_verifier_reports_counts_and_operand_kinds() {
    let bad = [
        ("%r = \"mloop.add\"(%a) : (f32) -> f32", "'mloop.add' op expects 2 operands, but got 1"),
        (
            "%r = \"mloop.load\"(%a) : (f32) -> f32",
            "'mloop.load' op operand #0 ('buffer') must be a '!mloop.buffer', got 'f32'",
        ),
        ("%r = \"mloop.pow\"(%i, %i) : (index, index) -> index", "'mloop.pow' op operands must have a float type"),
        ("%r = \"mloop.cmp\"(%a, %a) : (f32, f32) -> i1", "'mloop.cmp' op requires attribute 'predicate'"),
    ];
    for (line, want) in bad {
        let src = format!("func.func @f(%a: f32, %i: index) {{\n  {line}\n  return\n}}");
        let mut c = ctx();
        let m = parse_source(&mut c, "t.mlir", &src, 0).unwrap_or_else(|d| panic!("parse: {}", d.message));
        let e = verify(&c, m).expect_err(line);
        assert!(e.message.contains(want), "{line}: {}", e.message);
    }
}
