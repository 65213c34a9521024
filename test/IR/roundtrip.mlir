// RUN: morf-opt %s --allow-unregistered-dialect | morf-opt --allow-unregistered-dialect | FileCheck %s
// RUN: morf-opt %s --allow-unregistered-dialect --print-op-generic | morf-opt --allow-unregistered-dialect | FileCheck %s

// The custom forms of the core ops and every attribute kind survive print and parse; the
// second RUN line goes through the generic form first.

func.func @callee(%x: tensor<?x384xf32>, %w: tensor<384xbf16>) -> tensor<?x384xf32> {
  func.return %x : tensor<?x384xf32>
}

func.func private @decl(%a: i32) -> (f32, index)

func.func @caller(%x: tensor<?x384xf32>, %w: tensor<384xbf16>) -> tensor<?x384xf32> {
  %r = func.call @callee(%x, %w) : (tensor<?x384xf32>, tensor<384xbf16>) -> tensor<?x384xf32>
  func.return %r : tensor<?x384xf32>
}

func.func @arg_attrs(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) {
  func.return
}

func.func @regions(%a: f32) -> f32 {
  %r:2 = "test.two"(%a) ({
  ^bb0(%i: index, %j: f32):
    %inner = "test.inner"(%j, %a) ({
      "test.deep"(%i) : (index) -> ()
    }) : (f32, f32) -> f32
    "test.yield"(%inner) : (f32) -> ()
  ^bb1:
    "test.yield"(%a) : (f32) -> ()
  }, {
  }) : (f32) -> (f32, i32)
  func.return %r#0 : f32
}

func.func @attributes() {
  "test.ints"() {i1 = true, f = false, i8 = -128 : i8, u8 = 255 : i8, i16 = 300 : i16, i32 = 7 : i32, i64 = -9223372036854775808 : i64, dflt = 42, idx = 3 : index, hex = 0x7f : i32} : () -> ()
  "test.floats"() {a = 1.5 : f32, b = -0.0 : f64, c = 2.5e-3 : f16, d = 1.0e+10 : bf16, e = 0x7FC00000 : f32, inf = 0x7F800000 : f32, ninf = 0xFF800000 : f32, bnan = 0x7FC0 : bf16, h = 0x3C00 : f16, dd = 3.14159 : f64, int_as_float = 2 : f32} : () -> ()
  "test.strings"() {s = "plain", esc = "quote \" backslash \\ newline \n tab \t hex \01\7f", empty = ""} : () -> ()
  "test.arrays"() {a = [1, 2.0, "three", [4 : i8, []], {k = unit}], e = [], da = array<i64: 1, -2, 3>, ea = array<i32>} : () -> ()
  "test.dicts"() {d = {a = 1 : i32, "quoted key" = "v", nested = {x}}, empty = {}} : () -> ()
  "test.types"() {t1 = f32, t2 = tensor<4x?x8xbf16>, t3 = (i32, f16) -> (index), t4 = index, t5 = tensor<i1>, t6 = () -> ()} : () -> ()
  "test.symbols"() {s = @callee, q = @"quoted sym"} : () -> ()
  "test.dense"() {splat = dense<1.0> : tensor<4x4xf32>, isplat = dense<-3> : tensor<2xi32>, bsplat = dense<true> : tensor<3xi1>, list = dense<[1.5, -2.0, 0.25]> : tensor<3xf32>, nested = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>, scalar = dense<7.0> : tensor<f64>, special = dense<[inf, -inf, 0.0]> : tensor<3xf32>, bools = dense<[true, false]> : tensor<2xi1>} : () -> ()
  "test.unit"() {u, v = unit} : () -> ()
  func.return
}

// CHECK-LABEL: func.func @callee(%x: tensor<?x384xf32>, %w: tensor<384xbf16>) -> tensor<?x384xf32> {
// CHECK-NEXT:    func.return %x : tensor<?x384xf32>
// CHECK-LABEL: func.func private @decl(i32) -> (f32, index)
// CHECK-LABEL: func.func @caller(
// CHECK-NEXT:    %r = func.call @callee(%x, %w) : (tensor<?x384xf32>, tensor<384xbf16>) -> tensor<?x384xf32>
// CHECK-NEXT:    func.return %r : tensor<?x384xf32>
// CHECK-LABEL: func.func @arg_attrs(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}) {
// CHECK-LABEL: func.func @regions(%a: f32) -> f32 {
// CHECK-NEXT:    %[[R:[0-9a-z_]+]], %{{[0-9a-z_]+}} = "test.two"(%a) ({
// CHECK-NEXT:    ^bb0(%i: index, %j: f32):
// CHECK-NEXT:      %inner = "test.inner"(%j, %a) ({
// CHECK-NEXT:        "test.deep"(%i) : (index) -> ()
// CHECK-NEXT:      }) : (f32, f32) -> f32
// CHECK-NEXT:      "test.yield"(%inner) : (f32) -> ()
// CHECK-NEXT:    ^bb1:
// CHECK-NEXT:      "test.yield"(%a) : (f32) -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:    }) : (f32) -> (f32, i32)
// CHECK-NEXT:    func.return %[[R]] : f32
// CHECK-LABEL: func.func @attributes() {
// CHECK-NEXT:    "test.ints"() {dflt = 42, f = false, hex = 127 : i32, i1 = true, i16 = 300 : i16, i32 = 7 : i32, i64 = -9223372036854775808, i8 = -128 : i8, idx = 3 : index, u8 = 255 : i8} : () -> ()
// CHECK-NEXT:    "test.floats"() {a = 1.5 : f32, b = -0.0, bnan = 0x7FC0 : bf16, c = {{.*}} : f16, d = {{.*}} : bf16, dd = 3.14159, e = 0x7FC00000 : f32, h = 1.0 : f16, inf = 0x7F800000 : f32, int_as_float = 2.0 : f32, ninf = 0xFF800000 : f32} : () -> ()
// CHECK-NEXT:    "test.strings"() {empty = "", esc = "quote \" backslash \\ newline \n tab \t hex \01\7F", s = "plain"} : () -> ()
// CHECK-NEXT:    "test.arrays"() {a = [1, 2.0, "three", [4 : i8, []], {k}], da = [1, -2, 3], e = [], ea = []} : () -> ()
// CHECK-NEXT:    "test.dicts"() {d = {a = 1 : i32, nested = {x}, "quoted key" = "v"}, empty = {}} : () -> ()
// CHECK-NEXT:    "test.types"() {t1 = f32, t2 = tensor<4x?x8xbf16>, t3 = (i32, f16) -> index, t4 = index, t5 = tensor<i1>, t6 = () -> ()} : () -> ()
// CHECK-NEXT:    "test.symbols"() {q = @"quoted sym", s = @callee} : () -> ()
// CHECK-NEXT:    "test.dense"() {bools = dense<[true, false]> : tensor<2xi1>, bsplat = dense<true> : tensor<3xi1>, isplat = dense<-3> : tensor<2xi32>, list = dense<[1.5, -2.0, 0.25]> : tensor<3xf32>, nested = dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>, scalar = dense<7.0> : tensor<f64>, special = dense<[0x7F800000, 0xFF800000, 0.0]> : tensor<3xf32>, splat = dense<1.0> : tensor<4x4xf32>} : () -> ()
// CHECK-NEXT:    "test.unit"() {u, v} : () -> ()
// CHECK-NEXT:    func.return
