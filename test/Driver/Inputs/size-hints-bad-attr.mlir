module attributes {morf.size_hints = "M=many"} {
  func.func @f(%x: tensor<?xf32> {morf.dims = ["M"]}) -> tensor<?xf32> {
    return %x : tensor<?xf32>
  }
}
