module {
  func.func @layernorm_bwd(%x: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]}, %w: !mloop.buffer<?xbf16> {morf.dims = ["N"]}, %dy: !mloop.buffer<?x?xbf16> {morf.dims = ["M", "N"]}, %mean: !mloop.buffer<?xf32> {morf.dims = ["M"]}, %rstd: !mloop.buffer<?xf32> {morf.dims = ["M"], morf.random = "positive"}) -> (!mloop.buffer<?x?xbf16>, !mloop.buffer<?xbf16>, !mloop.buffer<?xbf16>) {
    %0 = mloop.dim %x, 0 : !mloop.buffer<?x?xbf16>
    %1 = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
    %2 = mloop.dim %w, 0 : !mloop.buffer<?xbf16>
    %3 = mloop.dim %dy, 0 : !mloop.buffer<?x?xbf16>
    %4 = mloop.dim %dy, 1 : !mloop.buffer<?x?xbf16>
    %5 = mloop.constant 1 : index
    %6 = mloop.constant 0.0 : f32
    %7 = mloop.convert %1 : index to f32
    %8 = mloop.constant 0 : index
    %9 = mloop.dim %mean, 0 : !mloop.buffer<?xf32>
    %10 = mloop.sub %9, %5 : index
    %11 = mloop.dim %rstd, 0 : !mloop.buffer<?xf32>
    %12 = mloop.sub %11, %5 : index
    %13 = mloop.sub %2, %5 : index
    %14 = mloop.convert %4 : index to f32
    %15 = mloop.alloc(%4) : !mloop.buffer<?xbf16>
    %16 = mloop.alloc(%4) : !mloop.buffer<?xbf16>
    %17 = mloop.alloc(%3, %4) : !mloop.buffer<?x?xbf16>
    %18 = mloop.constant 32 : index
    %19 = mloop.constant 31 : index
    %20 = mloop.add %0, %19 : index
    %21 = mloop.div %20, %18 : index
    %workspace = mloop.alloc(%21, %1) : !mloop.buffer<?x?xf32>
    mloop.fill %6, %workspace : !mloop.buffer<?x?xf32>
    %workspace_1 = mloop.alloc(%21, %1) : !mloop.buffer<?x?xf32>
    mloop.fill %6, %workspace_1 : !mloop.buffer<?x?xf32>
    %22 = mloop.constant 1.0 : f32
    %23 = mloop.div %22, %7 : f32
    %24 = mloop.constant 1.0 : f32
    %25 = mloop.div %24, %14 : f32
    %26 = mloop.dim %x, 1 : !mloop.buffer<?x?xbf16>
    %27 = mloop.dim %dy, 1 : !mloop.buffer<?x?xbf16>
    %28 = mloop.dim %17, 1 : !mloop.buffer<?x?xbf16>
    %29 = mloop.dim %workspace, 1 : !mloop.buffer<?x?xf32>
    %30 = mloop.dim %workspace_1, 1 : !mloop.buffer<?x?xf32>
    %31 = mloop.constant 32 : index
    %32 = mloop.constant 1 : index
    %33 = mloop.constant 31 : index
    %34 = mloop.add %0, %33 : index
    %35 = mloop.div %34, %31 : index
    %36 = mloop.constant 1 : index
    %37 = mloop.constant 66 : index
    %38 = mloop.min %35, %37 : index
    %39 = mloop.constant 1 : index
    %40 = mloop.max %38, %39 : index
    %41 = mloop.constant 2 : index
    %42 = mloop.mul %40, %41 : index
    %43 = mloop.constant 131072 : index
    %44 = mloop.constant 512 : index
    %45 = mgpu.resident_blocks @layernorm_bwd_k0 threads(%44) shared(%43)
    %46 = mloop.constant 2 : index
    %47 = mloop.constant 1 : index
    %48 = mloop.div %45, %46 : index
    %49 = mloop.max %48, %47 : index
    %50 = mloop.div %42, %46 : index
    %51 = mloop.min %50, %49 : index
    %52 = mloop.mul %51, %46 : index
    mgpu.launch @layernorm_bwd_k0 blocks(%52) threads(%44) shared(%43) args(%0, %1, %13, %26, %27, %28, %10, %mean, %12, %rstd, %x, %dy, %w, %4, %17, %workspace, %workspace_1, %29, %30) : index, index, index, index, index, index, index, !mloop.buffer<?xf32>, index, !mloop.buffer<?xf32>, !mloop.buffer<?x?xbf16>, !mloop.buffer<?x?xbf16>, !mloop.buffer<?xbf16>, index, !mloop.buffer<?x?xbf16>, !mloop.buffer<?x?xf32>, !mloop.buffer<?x?xf32>, index, index
    %53 = mloop.dim %workspace, 1 : !mloop.buffer<?x?xf32>
    %54 = mloop.dim %workspace_1, 1 : !mloop.buffer<?x?xf32>
    %55 = mloop.constant 1 : index
    %56 = mloop.constant 32 : index
    %57 = mloop.constant 1 : index
    %58 = mloop.constant 31 : index
    %59 = mloop.add %1, %58 : index
    %60 = mloop.div %59, %56 : index
    %61 = mloop.constant 528 : index
    %62 = mloop.min %60, %61 : index
    %63 = mloop.constant 1 : index
    %64 = mloop.max %62, %63 : index
    %65 = mloop.constant 0 : index
    %66 = mloop.constant 512 : index
    mgpu.launch @layernorm_bwd_k1 blocks(%64) threads(%66) shared(%65) args(%1, %21, %workspace, %53, %workspace_1, %54, %15, %16) : index, index, !mloop.buffer<?x?xf32>, index, !mloop.buffer<?x?xf32>, index, !mloop.buffer<?xbf16>, !mloop.buffer<?xbf16>
    mloop.dealloc %workspace : !mloop.buffer<?x?xf32>
    mloop.dealloc %workspace_1 : !mloop.buffer<?x?xf32>
    func.return %17, %15, %16 : !mloop.buffer<?x?xbf16>, !mloop.buffer<?xbf16>, !mloop.buffer<?xbf16>
  }
  mgpu.func @layernorm_bwd_k0(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: !mgpu.ptr<f32>, %arg8: index, %arg9: !mgpu.ptr<f32>, %arg10: !mgpu.ptr<bf16>, %arg11: !mgpu.ptr<bf16>, %arg12: !mgpu.ptr<bf16>, %arg13: index, %arg14: !mgpu.ptr<bf16>, %arg15: !mgpu.ptr<f32>, %arg16: !mgpu.ptr<f32>, %arg17: index, %arg18: index) kernel attributes {cluster = 2, max_threads = 512, min_ctas_per_sm = 1, morf.bench, morf.schedule = "RowFused threads=512 threads-per-row=512 rows-per-cta=1 vector=4 grid<=132 partials=Global cluster=2 fast: N=32768 vector=8 chunks=4 reload shared-accs"} {
    mgpu.cluster_arrive {relaxed}
    %0 = mloop.constant 1 : index
    %1 = mloop.constant 0 : index
    %2 = mloop.constant 32 : index
    %3 = mloop.constant 31 : index
    %4 = mgpu.thread_id : index
    %5 = mloop.constant 512 : index
    %6 = mgpu.block_id : index
    %7 = mloop.constant 2 : index
    %8 = mloop.constant 1024 : index
    %9 = mgpu.grid_dim : index
    %10 = mloop.constant 32768 : index
    %11 = mloop.constant 32767 : index
    %12 = mloop.constant 8 : index
    %13 = mloop.constant 8192 : index
    %14 = mloop.constant 16384 : index
    %15 = mloop.constant 24576 : index
    %16 = mloop.constant 4096 : index
    %17 = mloop.constant 12288 : index
    %18 = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>
    %19 = mloop.constant 0.0 : f32
    %20 = mloop.constant 4 : index
    %21 = mloop.constant 0.0 : f32
    %22 = mgpu.shared_alloc {size = 32} : !mgpu.ptr<f32, 3>
    %23 = mgpu.lane_id : index
    %24 = mgpu.warp_id : index
    %25 = mloop.constant 16 : index
    %26 = mgpu.shared_alloc {size = 2} : !mgpu.ptr<f32, 3>
    %27 = mloop.constant 1.0 : f32
    %28 = mloop.convert %arg1 : index to f32
    %29 = mloop.div %27, %28 : f32
    %30 = mgpu.shared_alloc {size = 32} : !mgpu.ptr<f32, 3>
    %31 = mloop.constant 1.0 : f32
    %32 = mloop.convert %arg13 : index to f32
    %33 = mloop.div %31, %32 : f32
    %34 = mloop.constant 3 : index
    %35 = mloop.constant 5 : index
    %36 = mloop.constant 6 : index
    %37 = mloop.constant 7 : index
    %38 = mgpu.shared_alloc {size = 32} : !mgpu.ptr<f32, 3>
    %39 = mgpu.shared_alloc {size = 32} : !mgpu.ptr<f32, 3>
    %40 = mloop.add %arg0, %3 : index
    %41 = mloop.div %40, %2 : index
    %42 = mloop.rem %6, %7 : index
    %43 = mloop.mul %42, %5 : index
    %44 = mloop.add %43, %4 : index
    %45 = mloop.div %6, %7 : index
    %46 = mloop.div %9, %7 : index
    %47 = mloop.cmp eq, %arg1, %10 : index
    %48 = mloop.cmp eq, %arg1, %10 : index
    %49 = mloop.cmp eq, %arg1, %10 : index
    %50 = mloop.cmp ge, %arg2, %11 : index
    %51 = mloop.cmp ge, %arg2, %11 : index
    %52 = mloop.cmp ge, %arg2, %11 : index
    %53 = mloop.cmp eq, %arg3, %10 : index
    %54 = mloop.cmp eq, %arg4, %10 : index
    %55 = mloop.cmp eq, %arg5, %10 : index
    %56 = mloop.select %47, %0, %1 : index
    %57 = mloop.select %48, %56, %1 : index
    %58 = mloop.select %49, %57, %1 : index
    %59 = mloop.select %50, %58, %1 : index
    %60 = mloop.select %51, %59, %1 : index
    %61 = mloop.select %52, %60, %1 : index
    %62 = mloop.select %53, %61, %1 : index
    %63 = mloop.select %54, %62, %1 : index
    %64 = mloop.select %55, %63, %1 : index
    %65 = mloop.cmp eq, %64, %0 : index
    mgpu.if %65 {
      %66 = mloop.mul %44, %12 : index
      %67 = mloop.add %66, %13 : index
      %68 = mloop.add %66, %14 : index
      %69 = mloop.add %66, %15 : index
      %70 = mloop.mul %4, %12 : index
      %71 = mloop.add %70, %16 : index
      %72 = mloop.add %70, %13 : index
      %73 = mloop.add %70, %17 : index
      mloop.for %arg19 = %45 to %41 step %46 {
        %74 = mloop.mul %arg19, %2 : index
        %75 = mloop.add %74, %2 : index
        %76 = mloop.min %75, %arg0 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%70] : !mgpu.ptr<f32, 3>
        %77 = mloop.add %70, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%77] : !mgpu.ptr<f32, 3>
        mgpu.store_vec %19, %19, %19, %19, %18[%71] : !mgpu.ptr<f32, 3>
        %78 = mloop.add %71, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%78] : !mgpu.ptr<f32, 3>
        mgpu.store_vec %19, %19, %19, %19, %18[%72] : !mgpu.ptr<f32, 3>
        %79 = mloop.add %72, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%79] : !mgpu.ptr<f32, 3>
        mgpu.store_vec %19, %19, %19, %19, %18[%73] : !mgpu.ptr<f32, 3>
        %80 = mloop.add %73, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%80] : !mgpu.ptr<f32, 3>
        %81 = mloop.add %14, %70 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%81] : !mgpu.ptr<f32, 3>
        %82 = mloop.add %81, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%82] : !mgpu.ptr<f32, 3>
        %83 = mloop.add %14, %71 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%83] : !mgpu.ptr<f32, 3>
        %84 = mloop.add %83, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%84] : !mgpu.ptr<f32, 3>
        %85 = mloop.add %14, %72 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%85] : !mgpu.ptr<f32, 3>
        %86 = mloop.add %85, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%86] : !mgpu.ptr<f32, 3>
        %87 = mloop.add %14, %73 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%87] : !mgpu.ptr<f32, 3>
        %88 = mloop.add %87, %20 : index
        mgpu.store_vec %19, %19, %19, %19, %18[%88] : !mgpu.ptr<f32, 3>
        mloop.for %arg20 = %74 to %76 step %0 {
          %89 = mloop.min %arg20, %arg6 : index
          %90 = mgpu.load %arg7[%89] {nc} : !mgpu.ptr<f32>
          %91 = mloop.min %arg20, %arg8 : index
          %92 = mgpu.load %arg9[%91] {nc} : !mgpu.ptr<f32>
          %93 = mloop.mul %arg20, %10 : index
          %94 = mloop.add %93, %66 : index
          %95, %96, %97, %98, %99, %100, %101, %102 = mgpu.load_vec %arg10[%94] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %103 = mloop.add %93, %67 : index
          %104, %105, %106, %107, %108, %109, %110, %111 = mgpu.load_vec %arg10[%103] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %112 = mloop.add %93, %68 : index
          %113, %114, %115, %116, %117, %118, %119, %120 = mgpu.load_vec %arg10[%112] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %121 = mloop.add %93, %69 : index
          %122, %123, %124, %125, %126, %127, %128, %129 = mgpu.load_vec %arg10[%121] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %130 = mloop.convert %95 : bf16 to f32
          %131 = mloop.convert %96 : bf16 to f32
          %132 = mloop.convert %97 : bf16 to f32
          %133 = mloop.convert %98 : bf16 to f32
          %134 = mloop.convert %99 : bf16 to f32
          %135 = mloop.convert %100 : bf16 to f32
          %136 = mloop.convert %101 : bf16 to f32
          %137 = mloop.convert %102 : bf16 to f32
          %138 = mloop.convert %104 : bf16 to f32
          %139 = mloop.convert %105 : bf16 to f32
          %140 = mloop.convert %106 : bf16 to f32
          %141 = mloop.convert %107 : bf16 to f32
          %142 = mloop.convert %108 : bf16 to f32
          %143 = mloop.convert %109 : bf16 to f32
          %144 = mloop.convert %110 : bf16 to f32
          %145 = mloop.convert %111 : bf16 to f32
          %146 = mloop.convert %113 : bf16 to f32
          %147 = mloop.convert %114 : bf16 to f32
          %148 = mloop.convert %115 : bf16 to f32
          %149 = mloop.convert %116 : bf16 to f32
          %150 = mloop.convert %117 : bf16 to f32
          %151 = mloop.convert %118 : bf16 to f32
          %152 = mloop.convert %119 : bf16 to f32
          %153 = mloop.convert %120 : bf16 to f32
          %154 = mloop.convert %122 : bf16 to f32
          %155 = mloop.convert %123 : bf16 to f32
          %156 = mloop.convert %124 : bf16 to f32
          %157 = mloop.convert %125 : bf16 to f32
          %158 = mloop.convert %126 : bf16 to f32
          %159 = mloop.convert %127 : bf16 to f32
          %160 = mloop.convert %128 : bf16 to f32
          %161 = mloop.convert %129 : bf16 to f32
          %162 = mloop.sub %130, %90 : f32
          %163 = mloop.sub %131, %90 : f32
          %164 = mloop.sub %132, %90 : f32
          %165 = mloop.sub %133, %90 : f32
          %166 = mloop.sub %134, %90 : f32
          %167 = mloop.sub %135, %90 : f32
          %168 = mloop.sub %136, %90 : f32
          %169 = mloop.sub %137, %90 : f32
          %170 = mloop.sub %138, %90 : f32
          %171 = mloop.sub %139, %90 : f32
          %172 = mloop.sub %140, %90 : f32
          %173 = mloop.sub %141, %90 : f32
          %174 = mloop.sub %142, %90 : f32
          %175 = mloop.sub %143, %90 : f32
          %176 = mloop.sub %144, %90 : f32
          %177 = mloop.sub %145, %90 : f32
          %178 = mloop.sub %146, %90 : f32
          %179 = mloop.sub %147, %90 : f32
          %180 = mloop.sub %148, %90 : f32
          %181 = mloop.sub %149, %90 : f32
          %182 = mloop.sub %150, %90 : f32
          %183 = mloop.sub %151, %90 : f32
          %184 = mloop.sub %152, %90 : f32
          %185 = mloop.sub %153, %90 : f32
          %186 = mloop.sub %154, %90 : f32
          %187 = mloop.sub %155, %90 : f32
          %188 = mloop.sub %156, %90 : f32
          %189 = mloop.sub %157, %90 : f32
          %190 = mloop.sub %158, %90 : f32
          %191 = mloop.sub %159, %90 : f32
          %192 = mloop.sub %160, %90 : f32
          %193 = mloop.sub %161, %90 : f32
          %194 = mloop.mul %162, %92 : f32
          %195 = mloop.mul %163, %92 : f32
          %196 = mloop.mul %164, %92 : f32
          %197 = mloop.mul %165, %92 : f32
          %198 = mloop.mul %166, %92 : f32
          %199 = mloop.mul %167, %92 : f32
          %200 = mloop.mul %168, %92 : f32
          %201 = mloop.mul %169, %92 : f32
          %202 = mloop.mul %170, %92 : f32
          %203 = mloop.mul %171, %92 : f32
          %204 = mloop.mul %172, %92 : f32
          %205 = mloop.mul %173, %92 : f32
          %206 = mloop.mul %174, %92 : f32
          %207 = mloop.mul %175, %92 : f32
          %208 = mloop.mul %176, %92 : f32
          %209 = mloop.mul %177, %92 : f32
          %210 = mloop.mul %178, %92 : f32
          %211 = mloop.mul %179, %92 : f32
          %212 = mloop.mul %180, %92 : f32
          %213 = mloop.mul %181, %92 : f32
          %214 = mloop.mul %182, %92 : f32
          %215 = mloop.mul %183, %92 : f32
          %216 = mloop.mul %184, %92 : f32
          %217 = mloop.mul %185, %92 : f32
          %218 = mloop.mul %186, %92 : f32
          %219 = mloop.mul %187, %92 : f32
          %220 = mloop.mul %188, %92 : f32
          %221 = mloop.mul %189, %92 : f32
          %222 = mloop.mul %190, %92 : f32
          %223 = mloop.mul %191, %92 : f32
          %224 = mloop.mul %192, %92 : f32
          %225 = mloop.mul %193, %92 : f32
          %226 = mloop.mul %arg20, %10 : index
          %227 = mloop.add %226, %66 : index
          %228, %229, %230, %231, %232, %233, %234, %235 = mgpu.load_vec %arg11[%227] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %236 = mloop.add %226, %67 : index
          %237, %238, %239, %240, %241, %242, %243, %244 = mgpu.load_vec %arg11[%236] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %245 = mloop.add %226, %68 : index
          %246, %247, %248, %249, %250, %251, %252, %253 = mgpu.load_vec %arg11[%245] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %254 = mloop.add %226, %69 : index
          %255, %256, %257, %258, %259, %260, %261, %262 = mgpu.load_vec %arg11[%254] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %263 = mloop.convert %228 : bf16 to f32
          %264 = mloop.convert %229 : bf16 to f32
          %265 = mloop.convert %230 : bf16 to f32
          %266 = mloop.convert %231 : bf16 to f32
          %267 = mloop.convert %232 : bf16 to f32
          %268 = mloop.convert %233 : bf16 to f32
          %269 = mloop.convert %234 : bf16 to f32
          %270 = mloop.convert %235 : bf16 to f32
          %271 = mloop.convert %237 : bf16 to f32
          %272 = mloop.convert %238 : bf16 to f32
          %273 = mloop.convert %239 : bf16 to f32
          %274 = mloop.convert %240 : bf16 to f32
          %275 = mloop.convert %241 : bf16 to f32
          %276 = mloop.convert %242 : bf16 to f32
          %277 = mloop.convert %243 : bf16 to f32
          %278 = mloop.convert %244 : bf16 to f32
          %279 = mloop.convert %246 : bf16 to f32
          %280 = mloop.convert %247 : bf16 to f32
          %281 = mloop.convert %248 : bf16 to f32
          %282 = mloop.convert %249 : bf16 to f32
          %283 = mloop.convert %250 : bf16 to f32
          %284 = mloop.convert %251 : bf16 to f32
          %285 = mloop.convert %252 : bf16 to f32
          %286 = mloop.convert %253 : bf16 to f32
          %287 = mloop.convert %255 : bf16 to f32
          %288 = mloop.convert %256 : bf16 to f32
          %289 = mloop.convert %257 : bf16 to f32
          %290 = mloop.convert %258 : bf16 to f32
          %291 = mloop.convert %259 : bf16 to f32
          %292 = mloop.convert %260 : bf16 to f32
          %293 = mloop.convert %261 : bf16 to f32
          %294 = mloop.convert %262 : bf16 to f32
          %295, %296, %297, %298, %299, %300, %301, %302 = mgpu.load_vec %arg12[%66] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %303, %304, %305, %306, %307, %308, %309, %310 = mgpu.load_vec %arg12[%67] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %311, %312, %313, %314, %315, %316, %317, %318 = mgpu.load_vec %arg12[%68] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %319, %320, %321, %322, %323, %324, %325, %326 = mgpu.load_vec %arg12[%69] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %327 = mloop.convert %295 : bf16 to f32
          %328 = mloop.convert %296 : bf16 to f32
          %329 = mloop.convert %297 : bf16 to f32
          %330 = mloop.convert %298 : bf16 to f32
          %331 = mloop.convert %299 : bf16 to f32
          %332 = mloop.convert %300 : bf16 to f32
          %333 = mloop.convert %301 : bf16 to f32
          %334 = mloop.convert %302 : bf16 to f32
          %335 = mloop.convert %303 : bf16 to f32
          %336 = mloop.convert %304 : bf16 to f32
          %337 = mloop.convert %305 : bf16 to f32
          %338 = mloop.convert %306 : bf16 to f32
          %339 = mloop.convert %307 : bf16 to f32
          %340 = mloop.convert %308 : bf16 to f32
          %341 = mloop.convert %309 : bf16 to f32
          %342 = mloop.convert %310 : bf16 to f32
          %343 = mloop.convert %311 : bf16 to f32
          %344 = mloop.convert %312 : bf16 to f32
          %345 = mloop.convert %313 : bf16 to f32
          %346 = mloop.convert %314 : bf16 to f32
          %347 = mloop.convert %315 : bf16 to f32
          %348 = mloop.convert %316 : bf16 to f32
          %349 = mloop.convert %317 : bf16 to f32
          %350 = mloop.convert %318 : bf16 to f32
          %351 = mloop.convert %319 : bf16 to f32
          %352 = mloop.convert %320 : bf16 to f32
          %353 = mloop.convert %321 : bf16 to f32
          %354 = mloop.convert %322 : bf16 to f32
          %355 = mloop.convert %323 : bf16 to f32
          %356 = mloop.convert %324 : bf16 to f32
          %357 = mloop.convert %325 : bf16 to f32
          %358 = mloop.convert %326 : bf16 to f32
          %359 = mloop.mul %263, %327 : f32
          %360 = mloop.mul %264, %328 : f32
          %361 = mloop.mul %265, %329 : f32
          %362 = mloop.mul %266, %330 : f32
          %363 = mloop.mul %267, %331 : f32
          %364 = mloop.mul %268, %332 : f32
          %365 = mloop.mul %269, %333 : f32
          %366 = mloop.mul %270, %334 : f32
          %367 = mloop.mul %271, %335 : f32
          %368 = mloop.mul %272, %336 : f32
          %369 = mloop.mul %273, %337 : f32
          %370 = mloop.mul %274, %338 : f32
          %371 = mloop.mul %275, %339 : f32
          %372 = mloop.mul %276, %340 : f32
          %373 = mloop.mul %277, %341 : f32
          %374 = mloop.mul %278, %342 : f32
          %375 = mloop.mul %279, %343 : f32
          %376 = mloop.mul %280, %344 : f32
          %377 = mloop.mul %281, %345 : f32
          %378 = mloop.mul %282, %346 : f32
          %379 = mloop.mul %283, %347 : f32
          %380 = mloop.mul %284, %348 : f32
          %381 = mloop.mul %285, %349 : f32
          %382 = mloop.mul %286, %350 : f32
          %383 = mloop.mul %287, %351 : f32
          %384 = mloop.mul %288, %352 : f32
          %385 = mloop.mul %289, %353 : f32
          %386 = mloop.mul %290, %354 : f32
          %387 = mloop.mul %291, %355 : f32
          %388 = mloop.mul %292, %356 : f32
          %389 = mloop.mul %293, %357 : f32
          %390 = mloop.mul %294, %358 : f32
          %391 = mloop.mul %194, %359 : f32
          %392 = mloop.mul %195, %360 : f32
          %393 = mloop.mul %196, %361 : f32
          %394 = mloop.mul %197, %362 : f32
          %395 = mloop.mul %198, %363 : f32
          %396 = mloop.mul %199, %364 : f32
          %397 = mloop.mul %200, %365 : f32
          %398 = mloop.mul %201, %366 : f32
          %399 = mloop.mul %202, %367 : f32
          %400 = mloop.mul %203, %368 : f32
          %401 = mloop.mul %204, %369 : f32
          %402 = mloop.mul %205, %370 : f32
          %403 = mloop.mul %206, %371 : f32
          %404 = mloop.mul %207, %372 : f32
          %405 = mloop.mul %208, %373 : f32
          %406 = mloop.mul %209, %374 : f32
          %407 = mloop.mul %210, %375 : f32
          %408 = mloop.mul %211, %376 : f32
          %409 = mloop.mul %212, %377 : f32
          %410 = mloop.mul %213, %378 : f32
          %411 = mloop.mul %214, %379 : f32
          %412 = mloop.mul %215, %380 : f32
          %413 = mloop.mul %216, %381 : f32
          %414 = mloop.mul %217, %382 : f32
          %415 = mloop.mul %218, %383 : f32
          %416 = mloop.mul %219, %384 : f32
          %417 = mloop.mul %220, %385 : f32
          %418 = mloop.mul %221, %386 : f32
          %419 = mloop.mul %222, %387 : f32
          %420 = mloop.mul %223, %388 : f32
          %421 = mloop.mul %224, %389 : f32
          %422 = mloop.mul %225, %390 : f32
          %423 = mloop.add %19, %391 : f32
          %424 = mloop.add %423, %392 : f32
          %425 = mloop.add %424, %393 : f32
          %426 = mloop.add %425, %394 : f32
          %427 = mloop.add %426, %395 : f32
          %428 = mloop.add %427, %396 : f32
          %429 = mloop.add %428, %397 : f32
          %430 = mloop.add %429, %398 : f32
          %431 = mloop.add %430, %399 : f32
          %432 = mloop.add %431, %400 : f32
          %433 = mloop.add %432, %401 : f32
          %434 = mloop.add %433, %402 : f32
          %435 = mloop.add %434, %403 : f32
          %436 = mloop.add %435, %404 : f32
          %437 = mloop.add %436, %405 : f32
          %438 = mloop.add %437, %406 : f32
          %439 = mloop.add %438, %407 : f32
          %440 = mloop.add %439, %408 : f32
          %441 = mloop.add %440, %409 : f32
          %442 = mloop.add %441, %410 : f32
          %443 = mloop.add %442, %411 : f32
          %444 = mloop.add %443, %412 : f32
          %445 = mloop.add %444, %413 : f32
          %446 = mloop.add %445, %414 : f32
          %447 = mloop.add %446, %415 : f32
          %448 = mloop.add %447, %416 : f32
          %449 = mloop.add %448, %417 : f32
          %450 = mloop.add %449, %418 : f32
          %451 = mloop.add %450, %419 : f32
          %452 = mloop.add %451, %420 : f32
          %453 = mloop.add %452, %421 : f32
          %454 = mloop.add %453, %422 : f32
          %455 = mgpu.warp_reduce sum %454 : f32
          %456 = mloop.cmp eq, %23, %1 : index
          mgpu.if %456 {
            mgpu.store %455, %22[%24] : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.barrier
          %457 = mloop.for %arg21 = %1 to %25 step %0 iter_args(%arg22 = %19) -> (f32) {
            %458 = mgpu.load %22[%arg21] : !mgpu.ptr<f32, 3>
            %459 = mloop.add %arg22, %458 : f32
            mloop.yield %459 : f32
          }
          %460 = mloop.rem %6, %7 : index
          mgpu.cluster_wait
          %461 = mloop.cmp lt, %4, %7 : index
          mgpu.if %461 {
            mgpu.cluster_store %457, %26[%460], %4 : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.cluster_arrive
          mgpu.cluster_wait
          %462 = mgpu.load %26[%1] : !mgpu.ptr<f32, 3>
          %463 = mgpu.load %26[%0] : !mgpu.ptr<f32, 3>
          %464 = mloop.add %462, %463 : f32
          mgpu.cluster_arrive {relaxed}
          %465 = mloop.add %21, %464 : f32
          %466 = mloop.mul %465, %29 : f32
          %467 = mloop.mul %arg20, %10 : index
          %468 = mloop.add %467, %66 : index
          %469, %470, %471, %472, %473, %474, %475, %476 = mgpu.load_vec %arg11[%468] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %477 = mloop.add %467, %67 : index
          %478, %479, %480, %481, %482, %483, %484, %485 = mgpu.load_vec %arg11[%477] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %486 = mloop.add %467, %68 : index
          %487, %488, %489, %490, %491, %492, %493, %494 = mgpu.load_vec %arg11[%486] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %495 = mloop.add %467, %69 : index
          %496, %497, %498, %499, %500, %501, %502, %503 = mgpu.load_vec %arg11[%495] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %504 = mloop.convert %469 : bf16 to f32
          %505 = mloop.convert %470 : bf16 to f32
          %506 = mloop.convert %471 : bf16 to f32
          %507 = mloop.convert %472 : bf16 to f32
          %508 = mloop.convert %473 : bf16 to f32
          %509 = mloop.convert %474 : bf16 to f32
          %510 = mloop.convert %475 : bf16 to f32
          %511 = mloop.convert %476 : bf16 to f32
          %512 = mloop.convert %478 : bf16 to f32
          %513 = mloop.convert %479 : bf16 to f32
          %514 = mloop.convert %480 : bf16 to f32
          %515 = mloop.convert %481 : bf16 to f32
          %516 = mloop.convert %482 : bf16 to f32
          %517 = mloop.convert %483 : bf16 to f32
          %518 = mloop.convert %484 : bf16 to f32
          %519 = mloop.convert %485 : bf16 to f32
          %520 = mloop.convert %487 : bf16 to f32
          %521 = mloop.convert %488 : bf16 to f32
          %522 = mloop.convert %489 : bf16 to f32
          %523 = mloop.convert %490 : bf16 to f32
          %524 = mloop.convert %491 : bf16 to f32
          %525 = mloop.convert %492 : bf16 to f32
          %526 = mloop.convert %493 : bf16 to f32
          %527 = mloop.convert %494 : bf16 to f32
          %528 = mloop.convert %496 : bf16 to f32
          %529 = mloop.convert %497 : bf16 to f32
          %530 = mloop.convert %498 : bf16 to f32
          %531 = mloop.convert %499 : bf16 to f32
          %532 = mloop.convert %500 : bf16 to f32
          %533 = mloop.convert %501 : bf16 to f32
          %534 = mloop.convert %502 : bf16 to f32
          %535 = mloop.convert %503 : bf16 to f32
          %536, %537, %538, %539, %540, %541, %542, %543 = mgpu.load_vec %arg12[%66] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %544, %545, %546, %547, %548, %549, %550, %551 = mgpu.load_vec %arg12[%67] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %552, %553, %554, %555, %556, %557, %558, %559 = mgpu.load_vec %arg12[%68] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %560, %561, %562, %563, %564, %565, %566, %567 = mgpu.load_vec %arg12[%69] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %568 = mloop.convert %536 : bf16 to f32
          %569 = mloop.convert %537 : bf16 to f32
          %570 = mloop.convert %538 : bf16 to f32
          %571 = mloop.convert %539 : bf16 to f32
          %572 = mloop.convert %540 : bf16 to f32
          %573 = mloop.convert %541 : bf16 to f32
          %574 = mloop.convert %542 : bf16 to f32
          %575 = mloop.convert %543 : bf16 to f32
          %576 = mloop.convert %544 : bf16 to f32
          %577 = mloop.convert %545 : bf16 to f32
          %578 = mloop.convert %546 : bf16 to f32
          %579 = mloop.convert %547 : bf16 to f32
          %580 = mloop.convert %548 : bf16 to f32
          %581 = mloop.convert %549 : bf16 to f32
          %582 = mloop.convert %550 : bf16 to f32
          %583 = mloop.convert %551 : bf16 to f32
          %584 = mloop.convert %552 : bf16 to f32
          %585 = mloop.convert %553 : bf16 to f32
          %586 = mloop.convert %554 : bf16 to f32
          %587 = mloop.convert %555 : bf16 to f32
          %588 = mloop.convert %556 : bf16 to f32
          %589 = mloop.convert %557 : bf16 to f32
          %590 = mloop.convert %558 : bf16 to f32
          %591 = mloop.convert %559 : bf16 to f32
          %592 = mloop.convert %560 : bf16 to f32
          %593 = mloop.convert %561 : bf16 to f32
          %594 = mloop.convert %562 : bf16 to f32
          %595 = mloop.convert %563 : bf16 to f32
          %596 = mloop.convert %564 : bf16 to f32
          %597 = mloop.convert %565 : bf16 to f32
          %598 = mloop.convert %566 : bf16 to f32
          %599 = mloop.convert %567 : bf16 to f32
          %600 = mloop.mul %504, %568 : f32
          %601 = mloop.mul %505, %569 : f32
          %602 = mloop.mul %506, %570 : f32
          %603 = mloop.mul %507, %571 : f32
          %604 = mloop.mul %508, %572 : f32
          %605 = mloop.mul %509, %573 : f32
          %606 = mloop.mul %510, %574 : f32
          %607 = mloop.mul %511, %575 : f32
          %608 = mloop.mul %512, %576 : f32
          %609 = mloop.mul %513, %577 : f32
          %610 = mloop.mul %514, %578 : f32
          %611 = mloop.mul %515, %579 : f32
          %612 = mloop.mul %516, %580 : f32
          %613 = mloop.mul %517, %581 : f32
          %614 = mloop.mul %518, %582 : f32
          %615 = mloop.mul %519, %583 : f32
          %616 = mloop.mul %520, %584 : f32
          %617 = mloop.mul %521, %585 : f32
          %618 = mloop.mul %522, %586 : f32
          %619 = mloop.mul %523, %587 : f32
          %620 = mloop.mul %524, %588 : f32
          %621 = mloop.mul %525, %589 : f32
          %622 = mloop.mul %526, %590 : f32
          %623 = mloop.mul %527, %591 : f32
          %624 = mloop.mul %528, %592 : f32
          %625 = mloop.mul %529, %593 : f32
          %626 = mloop.mul %530, %594 : f32
          %627 = mloop.mul %531, %595 : f32
          %628 = mloop.mul %532, %596 : f32
          %629 = mloop.mul %533, %597 : f32
          %630 = mloop.mul %534, %598 : f32
          %631 = mloop.mul %535, %599 : f32
          %632 = mloop.add %19, %600 : f32
          %633 = mloop.add %632, %601 : f32
          %634 = mloop.add %633, %602 : f32
          %635 = mloop.add %634, %603 : f32
          %636 = mloop.add %635, %604 : f32
          %637 = mloop.add %636, %605 : f32
          %638 = mloop.add %637, %606 : f32
          %639 = mloop.add %638, %607 : f32
          %640 = mloop.add %639, %608 : f32
          %641 = mloop.add %640, %609 : f32
          %642 = mloop.add %641, %610 : f32
          %643 = mloop.add %642, %611 : f32
          %644 = mloop.add %643, %612 : f32
          %645 = mloop.add %644, %613 : f32
          %646 = mloop.add %645, %614 : f32
          %647 = mloop.add %646, %615 : f32
          %648 = mloop.add %647, %616 : f32
          %649 = mloop.add %648, %617 : f32
          %650 = mloop.add %649, %618 : f32
          %651 = mloop.add %650, %619 : f32
          %652 = mloop.add %651, %620 : f32
          %653 = mloop.add %652, %621 : f32
          %654 = mloop.add %653, %622 : f32
          %655 = mloop.add %654, %623 : f32
          %656 = mloop.add %655, %624 : f32
          %657 = mloop.add %656, %625 : f32
          %658 = mloop.add %657, %626 : f32
          %659 = mloop.add %658, %627 : f32
          %660 = mloop.add %659, %628 : f32
          %661 = mloop.add %660, %629 : f32
          %662 = mloop.add %661, %630 : f32
          %663 = mloop.add %662, %631 : f32
          %664 = mgpu.warp_reduce sum %663 : f32
          %665 = mloop.cmp eq, %23, %1 : index
          mgpu.if %665 {
            mgpu.store %664, %30[%24] : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.barrier
          %666 = mloop.for %arg23 = %1 to %25 step %0 iter_args(%arg24 = %19) -> (f32) {
            %667 = mgpu.load %30[%arg23] : !mgpu.ptr<f32, 3>
            %668 = mloop.add %arg24, %667 : f32
            mloop.yield %668 : f32
          }
          %669 = mloop.rem %6, %7 : index
          mgpu.cluster_wait
          %670 = mloop.cmp lt, %4, %7 : index
          mgpu.if %670 {
            mgpu.cluster_store %666, %26[%669], %4 : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.cluster_arrive
          mgpu.cluster_wait
          %671 = mgpu.load %26[%1] : !mgpu.ptr<f32, 3>
          %672 = mgpu.load %26[%0] : !mgpu.ptr<f32, 3>
          %673 = mloop.add %671, %672 : f32
          mgpu.cluster_arrive {relaxed}
          %674 = mloop.add %21, %673 : f32
          %675 = mloop.mul %674, %33 : f32
          %676 = mloop.mul %arg20, %10 : index
          %677 = mloop.add %676, %66 : index
          %678, %679, %680, %681, %682, %683, %684, %685 = mgpu.load_vec %arg11[%677] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %686 = mloop.add %676, %67 : index
          %687, %688, %689, %690, %691, %692, %693, %694 = mgpu.load_vec %arg11[%686] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %695 = mloop.add %676, %68 : index
          %696, %697, %698, %699, %700, %701, %702, %703 = mgpu.load_vec %arg11[%695] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %704 = mloop.add %676, %69 : index
          %705, %706, %707, %708, %709, %710, %711, %712 = mgpu.load_vec %arg11[%704] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %713 = mloop.convert %678 : bf16 to f32
          %714 = mloop.convert %679 : bf16 to f32
          %715 = mloop.convert %680 : bf16 to f32
          %716 = mloop.convert %681 : bf16 to f32
          %717 = mloop.convert %682 : bf16 to f32
          %718 = mloop.convert %683 : bf16 to f32
          %719 = mloop.convert %684 : bf16 to f32
          %720 = mloop.convert %685 : bf16 to f32
          %721 = mloop.convert %687 : bf16 to f32
          %722 = mloop.convert %688 : bf16 to f32
          %723 = mloop.convert %689 : bf16 to f32
          %724 = mloop.convert %690 : bf16 to f32
          %725 = mloop.convert %691 : bf16 to f32
          %726 = mloop.convert %692 : bf16 to f32
          %727 = mloop.convert %693 : bf16 to f32
          %728 = mloop.convert %694 : bf16 to f32
          %729 = mloop.convert %696 : bf16 to f32
          %730 = mloop.convert %697 : bf16 to f32
          %731 = mloop.convert %698 : bf16 to f32
          %732 = mloop.convert %699 : bf16 to f32
          %733 = mloop.convert %700 : bf16 to f32
          %734 = mloop.convert %701 : bf16 to f32
          %735 = mloop.convert %702 : bf16 to f32
          %736 = mloop.convert %703 : bf16 to f32
          %737 = mloop.convert %705 : bf16 to f32
          %738 = mloop.convert %706 : bf16 to f32
          %739 = mloop.convert %707 : bf16 to f32
          %740 = mloop.convert %708 : bf16 to f32
          %741 = mloop.convert %709 : bf16 to f32
          %742 = mloop.convert %710 : bf16 to f32
          %743 = mloop.convert %711 : bf16 to f32
          %744 = mloop.convert %712 : bf16 to f32
          %745, %746, %747, %748, %749, %750, %751, %752 = mgpu.load_vec %arg12[%66] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %753, %754, %755, %756, %757, %758, %759, %760 = mgpu.load_vec %arg12[%67] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %761, %762, %763, %764, %765, %766, %767, %768 = mgpu.load_vec %arg12[%68] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %769, %770, %771, %772, %773, %774, %775, %776 = mgpu.load_vec %arg12[%69] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %777 = mloop.convert %745 : bf16 to f32
          %778 = mloop.convert %746 : bf16 to f32
          %779 = mloop.convert %747 : bf16 to f32
          %780 = mloop.convert %748 : bf16 to f32
          %781 = mloop.convert %749 : bf16 to f32
          %782 = mloop.convert %750 : bf16 to f32
          %783 = mloop.convert %751 : bf16 to f32
          %784 = mloop.convert %752 : bf16 to f32
          %785 = mloop.convert %753 : bf16 to f32
          %786 = mloop.convert %754 : bf16 to f32
          %787 = mloop.convert %755 : bf16 to f32
          %788 = mloop.convert %756 : bf16 to f32
          %789 = mloop.convert %757 : bf16 to f32
          %790 = mloop.convert %758 : bf16 to f32
          %791 = mloop.convert %759 : bf16 to f32
          %792 = mloop.convert %760 : bf16 to f32
          %793 = mloop.convert %761 : bf16 to f32
          %794 = mloop.convert %762 : bf16 to f32
          %795 = mloop.convert %763 : bf16 to f32
          %796 = mloop.convert %764 : bf16 to f32
          %797 = mloop.convert %765 : bf16 to f32
          %798 = mloop.convert %766 : bf16 to f32
          %799 = mloop.convert %767 : bf16 to f32
          %800 = mloop.convert %768 : bf16 to f32
          %801 = mloop.convert %769 : bf16 to f32
          %802 = mloop.convert %770 : bf16 to f32
          %803 = mloop.convert %771 : bf16 to f32
          %804 = mloop.convert %772 : bf16 to f32
          %805 = mloop.convert %773 : bf16 to f32
          %806 = mloop.convert %774 : bf16 to f32
          %807 = mloop.convert %775 : bf16 to f32
          %808 = mloop.convert %776 : bf16 to f32
          %809 = mloop.mul %713, %777 : f32
          %810 = mloop.mul %714, %778 : f32
          %811 = mloop.mul %715, %779 : f32
          %812 = mloop.mul %716, %780 : f32
          %813 = mloop.mul %717, %781 : f32
          %814 = mloop.mul %718, %782 : f32
          %815 = mloop.mul %719, %783 : f32
          %816 = mloop.mul %720, %784 : f32
          %817 = mloop.mul %721, %785 : f32
          %818 = mloop.mul %722, %786 : f32
          %819 = mloop.mul %723, %787 : f32
          %820 = mloop.mul %724, %788 : f32
          %821 = mloop.mul %725, %789 : f32
          %822 = mloop.mul %726, %790 : f32
          %823 = mloop.mul %727, %791 : f32
          %824 = mloop.mul %728, %792 : f32
          %825 = mloop.mul %729, %793 : f32
          %826 = mloop.mul %730, %794 : f32
          %827 = mloop.mul %731, %795 : f32
          %828 = mloop.mul %732, %796 : f32
          %829 = mloop.mul %733, %797 : f32
          %830 = mloop.mul %734, %798 : f32
          %831 = mloop.mul %735, %799 : f32
          %832 = mloop.mul %736, %800 : f32
          %833 = mloop.mul %737, %801 : f32
          %834 = mloop.mul %738, %802 : f32
          %835 = mloop.mul %739, %803 : f32
          %836 = mloop.mul %740, %804 : f32
          %837 = mloop.mul %741, %805 : f32
          %838 = mloop.mul %742, %806 : f32
          %839 = mloop.mul %743, %807 : f32
          %840 = mloop.mul %744, %808 : f32
          %841 = mloop.mul %arg20, %10 : index
          %842 = mloop.add %841, %66 : index
          %843, %844, %845, %846, %847, %848, %849, %850 = mgpu.load_vec %arg10[%842] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %851 = mloop.add %841, %67 : index
          %852, %853, %854, %855, %856, %857, %858, %859 = mgpu.load_vec %arg10[%851] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %860 = mloop.add %841, %68 : index
          %861, %862, %863, %864, %865, %866, %867, %868 = mgpu.load_vec %arg10[%860] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %869 = mloop.add %841, %69 : index
          %870, %871, %872, %873, %874, %875, %876, %877 = mgpu.load_vec %arg10[%869] {nc} : !mgpu.ptr<bf16> -> bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16
          %878 = mloop.convert %843 : bf16 to f32
          %879 = mloop.convert %844 : bf16 to f32
          %880 = mloop.convert %845 : bf16 to f32
          %881 = mloop.convert %846 : bf16 to f32
          %882 = mloop.convert %847 : bf16 to f32
          %883 = mloop.convert %848 : bf16 to f32
          %884 = mloop.convert %849 : bf16 to f32
          %885 = mloop.convert %850 : bf16 to f32
          %886 = mloop.convert %852 : bf16 to f32
          %887 = mloop.convert %853 : bf16 to f32
          %888 = mloop.convert %854 : bf16 to f32
          %889 = mloop.convert %855 : bf16 to f32
          %890 = mloop.convert %856 : bf16 to f32
          %891 = mloop.convert %857 : bf16 to f32
          %892 = mloop.convert %858 : bf16 to f32
          %893 = mloop.convert %859 : bf16 to f32
          %894 = mloop.convert %861 : bf16 to f32
          %895 = mloop.convert %862 : bf16 to f32
          %896 = mloop.convert %863 : bf16 to f32
          %897 = mloop.convert %864 : bf16 to f32
          %898 = mloop.convert %865 : bf16 to f32
          %899 = mloop.convert %866 : bf16 to f32
          %900 = mloop.convert %867 : bf16 to f32
          %901 = mloop.convert %868 : bf16 to f32
          %902 = mloop.convert %870 : bf16 to f32
          %903 = mloop.convert %871 : bf16 to f32
          %904 = mloop.convert %872 : bf16 to f32
          %905 = mloop.convert %873 : bf16 to f32
          %906 = mloop.convert %874 : bf16 to f32
          %907 = mloop.convert %875 : bf16 to f32
          %908 = mloop.convert %876 : bf16 to f32
          %909 = mloop.convert %877 : bf16 to f32
          %910 = mloop.sub %878, %90 : f32
          %911 = mloop.sub %879, %90 : f32
          %912 = mloop.sub %880, %90 : f32
          %913 = mloop.sub %881, %90 : f32
          %914 = mloop.sub %882, %90 : f32
          %915 = mloop.sub %883, %90 : f32
          %916 = mloop.sub %884, %90 : f32
          %917 = mloop.sub %885, %90 : f32
          %918 = mloop.sub %886, %90 : f32
          %919 = mloop.sub %887, %90 : f32
          %920 = mloop.sub %888, %90 : f32
          %921 = mloop.sub %889, %90 : f32
          %922 = mloop.sub %890, %90 : f32
          %923 = mloop.sub %891, %90 : f32
          %924 = mloop.sub %892, %90 : f32
          %925 = mloop.sub %893, %90 : f32
          %926 = mloop.sub %894, %90 : f32
          %927 = mloop.sub %895, %90 : f32
          %928 = mloop.sub %896, %90 : f32
          %929 = mloop.sub %897, %90 : f32
          %930 = mloop.sub %898, %90 : f32
          %931 = mloop.sub %899, %90 : f32
          %932 = mloop.sub %900, %90 : f32
          %933 = mloop.sub %901, %90 : f32
          %934 = mloop.sub %902, %90 : f32
          %935 = mloop.sub %903, %90 : f32
          %936 = mloop.sub %904, %90 : f32
          %937 = mloop.sub %905, %90 : f32
          %938 = mloop.sub %906, %90 : f32
          %939 = mloop.sub %907, %90 : f32
          %940 = mloop.sub %908, %90 : f32
          %941 = mloop.sub %909, %90 : f32
          %942 = mloop.mul %910, %92 : f32
          %943 = mloop.mul %911, %92 : f32
          %944 = mloop.mul %912, %92 : f32
          %945 = mloop.mul %913, %92 : f32
          %946 = mloop.mul %914, %92 : f32
          %947 = mloop.mul %915, %92 : f32
          %948 = mloop.mul %916, %92 : f32
          %949 = mloop.mul %917, %92 : f32
          %950 = mloop.mul %918, %92 : f32
          %951 = mloop.mul %919, %92 : f32
          %952 = mloop.mul %920, %92 : f32
          %953 = mloop.mul %921, %92 : f32
          %954 = mloop.mul %922, %92 : f32
          %955 = mloop.mul %923, %92 : f32
          %956 = mloop.mul %924, %92 : f32
          %957 = mloop.mul %925, %92 : f32
          %958 = mloop.mul %926, %92 : f32
          %959 = mloop.mul %927, %92 : f32
          %960 = mloop.mul %928, %92 : f32
          %961 = mloop.mul %929, %92 : f32
          %962 = mloop.mul %930, %92 : f32
          %963 = mloop.mul %931, %92 : f32
          %964 = mloop.mul %932, %92 : f32
          %965 = mloop.mul %933, %92 : f32
          %966 = mloop.mul %934, %92 : f32
          %967 = mloop.mul %935, %92 : f32
          %968 = mloop.mul %936, %92 : f32
          %969 = mloop.mul %937, %92 : f32
          %970 = mloop.mul %938, %92 : f32
          %971 = mloop.mul %939, %92 : f32
          %972 = mloop.mul %940, %92 : f32
          %973 = mloop.mul %941, %92 : f32
          %974 = mloop.mul %942, %466 : f32
          %975 = mloop.mul %943, %466 : f32
          %976 = mloop.mul %944, %466 : f32
          %977 = mloop.mul %945, %466 : f32
          %978 = mloop.mul %946, %466 : f32
          %979 = mloop.mul %947, %466 : f32
          %980 = mloop.mul %948, %466 : f32
          %981 = mloop.mul %949, %466 : f32
          %982 = mloop.mul %950, %466 : f32
          %983 = mloop.mul %951, %466 : f32
          %984 = mloop.mul %952, %466 : f32
          %985 = mloop.mul %953, %466 : f32
          %986 = mloop.mul %954, %466 : f32
          %987 = mloop.mul %955, %466 : f32
          %988 = mloop.mul %956, %466 : f32
          %989 = mloop.mul %957, %466 : f32
          %990 = mloop.mul %958, %466 : f32
          %991 = mloop.mul %959, %466 : f32
          %992 = mloop.mul %960, %466 : f32
          %993 = mloop.mul %961, %466 : f32
          %994 = mloop.mul %962, %466 : f32
          %995 = mloop.mul %963, %466 : f32
          %996 = mloop.mul %964, %466 : f32
          %997 = mloop.mul %965, %466 : f32
          %998 = mloop.mul %966, %466 : f32
          %999 = mloop.mul %967, %466 : f32
          %1000 = mloop.mul %968, %466 : f32
          %1001 = mloop.mul %969, %466 : f32
          %1002 = mloop.mul %970, %466 : f32
          %1003 = mloop.mul %971, %466 : f32
          %1004 = mloop.mul %972, %466 : f32
          %1005 = mloop.mul %973, %466 : f32
          %1006 = mloop.add %974, %675 : f32
          %1007 = mloop.add %975, %675 : f32
          %1008 = mloop.add %976, %675 : f32
          %1009 = mloop.add %977, %675 : f32
          %1010 = mloop.add %978, %675 : f32
          %1011 = mloop.add %979, %675 : f32
          %1012 = mloop.add %980, %675 : f32
          %1013 = mloop.add %981, %675 : f32
          %1014 = mloop.add %982, %675 : f32
          %1015 = mloop.add %983, %675 : f32
          %1016 = mloop.add %984, %675 : f32
          %1017 = mloop.add %985, %675 : f32
          %1018 = mloop.add %986, %675 : f32
          %1019 = mloop.add %987, %675 : f32
          %1020 = mloop.add %988, %675 : f32
          %1021 = mloop.add %989, %675 : f32
          %1022 = mloop.add %990, %675 : f32
          %1023 = mloop.add %991, %675 : f32
          %1024 = mloop.add %992, %675 : f32
          %1025 = mloop.add %993, %675 : f32
          %1026 = mloop.add %994, %675 : f32
          %1027 = mloop.add %995, %675 : f32
          %1028 = mloop.add %996, %675 : f32
          %1029 = mloop.add %997, %675 : f32
          %1030 = mloop.add %998, %675 : f32
          %1031 = mloop.add %999, %675 : f32
          %1032 = mloop.add %1000, %675 : f32
          %1033 = mloop.add %1001, %675 : f32
          %1034 = mloop.add %1002, %675 : f32
          %1035 = mloop.add %1003, %675 : f32
          %1036 = mloop.add %1004, %675 : f32
          %1037 = mloop.add %1005, %675 : f32
          %1038 = mloop.sub %809, %1006 : f32
          %1039 = mloop.sub %810, %1007 : f32
          %1040 = mloop.sub %811, %1008 : f32
          %1041 = mloop.sub %812, %1009 : f32
          %1042 = mloop.sub %813, %1010 : f32
          %1043 = mloop.sub %814, %1011 : f32
          %1044 = mloop.sub %815, %1012 : f32
          %1045 = mloop.sub %816, %1013 : f32
          %1046 = mloop.sub %817, %1014 : f32
          %1047 = mloop.sub %818, %1015 : f32
          %1048 = mloop.sub %819, %1016 : f32
          %1049 = mloop.sub %820, %1017 : f32
          %1050 = mloop.sub %821, %1018 : f32
          %1051 = mloop.sub %822, %1019 : f32
          %1052 = mloop.sub %823, %1020 : f32
          %1053 = mloop.sub %824, %1021 : f32
          %1054 = mloop.sub %825, %1022 : f32
          %1055 = mloop.sub %826, %1023 : f32
          %1056 = mloop.sub %827, %1024 : f32
          %1057 = mloop.sub %828, %1025 : f32
          %1058 = mloop.sub %829, %1026 : f32
          %1059 = mloop.sub %830, %1027 : f32
          %1060 = mloop.sub %831, %1028 : f32
          %1061 = mloop.sub %832, %1029 : f32
          %1062 = mloop.sub %833, %1030 : f32
          %1063 = mloop.sub %834, %1031 : f32
          %1064 = mloop.sub %835, %1032 : f32
          %1065 = mloop.sub %836, %1033 : f32
          %1066 = mloop.sub %837, %1034 : f32
          %1067 = mloop.sub %838, %1035 : f32
          %1068 = mloop.sub %839, %1036 : f32
          %1069 = mloop.sub %840, %1037 : f32
          %1070 = mloop.mul %1038, %92 : f32
          %1071 = mloop.mul %1039, %92 : f32
          %1072 = mloop.mul %1040, %92 : f32
          %1073 = mloop.mul %1041, %92 : f32
          %1074 = mloop.mul %1042, %92 : f32
          %1075 = mloop.mul %1043, %92 : f32
          %1076 = mloop.mul %1044, %92 : f32
          %1077 = mloop.mul %1045, %92 : f32
          %1078 = mloop.mul %1046, %92 : f32
          %1079 = mloop.mul %1047, %92 : f32
          %1080 = mloop.mul %1048, %92 : f32
          %1081 = mloop.mul %1049, %92 : f32
          %1082 = mloop.mul %1050, %92 : f32
          %1083 = mloop.mul %1051, %92 : f32
          %1084 = mloop.mul %1052, %92 : f32
          %1085 = mloop.mul %1053, %92 : f32
          %1086 = mloop.mul %1054, %92 : f32
          %1087 = mloop.mul %1055, %92 : f32
          %1088 = mloop.mul %1056, %92 : f32
          %1089 = mloop.mul %1057, %92 : f32
          %1090 = mloop.mul %1058, %92 : f32
          %1091 = mloop.mul %1059, %92 : f32
          %1092 = mloop.mul %1060, %92 : f32
          %1093 = mloop.mul %1061, %92 : f32
          %1094 = mloop.mul %1062, %92 : f32
          %1095 = mloop.mul %1063, %92 : f32
          %1096 = mloop.mul %1064, %92 : f32
          %1097 = mloop.mul %1065, %92 : f32
          %1098 = mloop.mul %1066, %92 : f32
          %1099 = mloop.mul %1067, %92 : f32
          %1100 = mloop.mul %1068, %92 : f32
          %1101 = mloop.mul %1069, %92 : f32
          %1102 = mloop.convert %1070 : f32 to bf16
          %1103 = mloop.convert %1071 : f32 to bf16
          %1104 = mloop.convert %1072 : f32 to bf16
          %1105 = mloop.convert %1073 : f32 to bf16
          %1106 = mloop.convert %1074 : f32 to bf16
          %1107 = mloop.convert %1075 : f32 to bf16
          %1108 = mloop.convert %1076 : f32 to bf16
          %1109 = mloop.convert %1077 : f32 to bf16
          %1110 = mloop.convert %1078 : f32 to bf16
          %1111 = mloop.convert %1079 : f32 to bf16
          %1112 = mloop.convert %1080 : f32 to bf16
          %1113 = mloop.convert %1081 : f32 to bf16
          %1114 = mloop.convert %1082 : f32 to bf16
          %1115 = mloop.convert %1083 : f32 to bf16
          %1116 = mloop.convert %1084 : f32 to bf16
          %1117 = mloop.convert %1085 : f32 to bf16
          %1118 = mloop.convert %1086 : f32 to bf16
          %1119 = mloop.convert %1087 : f32 to bf16
          %1120 = mloop.convert %1088 : f32 to bf16
          %1121 = mloop.convert %1089 : f32 to bf16
          %1122 = mloop.convert %1090 : f32 to bf16
          %1123 = mloop.convert %1091 : f32 to bf16
          %1124 = mloop.convert %1092 : f32 to bf16
          %1125 = mloop.convert %1093 : f32 to bf16
          %1126 = mloop.convert %1094 : f32 to bf16
          %1127 = mloop.convert %1095 : f32 to bf16
          %1128 = mloop.convert %1096 : f32 to bf16
          %1129 = mloop.convert %1097 : f32 to bf16
          %1130 = mloop.convert %1098 : f32 to bf16
          %1131 = mloop.convert %1099 : f32 to bf16
          %1132 = mloop.convert %1100 : f32 to bf16
          %1133 = mloop.convert %1101 : f32 to bf16
          %1134 = mloop.mul %arg20, %10 : index
          %1135 = mloop.add %1134, %66 : index
          mgpu.store_vec %1102, %1103, %1104, %1105, %1106, %1107, %1108, %1109, %arg14[%1135] : !mgpu.ptr<bf16>
          %1136 = mloop.add %1134, %67 : index
          mgpu.store_vec %1110, %1111, %1112, %1113, %1114, %1115, %1116, %1117, %arg14[%1136] : !mgpu.ptr<bf16>
          %1137 = mloop.add %1134, %68 : index
          mgpu.store_vec %1118, %1119, %1120, %1121, %1122, %1123, %1124, %1125, %arg14[%1137] : !mgpu.ptr<bf16>
          %1138 = mloop.add %1134, %69 : index
          mgpu.store_vec %1126, %1127, %1128, %1129, %1130, %1131, %1132, %1133, %arg14[%1138] : !mgpu.ptr<bf16>
          %1139 = mloop.mul %713, %942 : f32
          %1140 = mloop.mul %714, %943 : f32
          %1141 = mloop.mul %715, %944 : f32
          %1142 = mloop.mul %716, %945 : f32
          %1143 = mloop.mul %717, %946 : f32
          %1144 = mloop.mul %718, %947 : f32
          %1145 = mloop.mul %719, %948 : f32
          %1146 = mloop.mul %720, %949 : f32
          %1147 = mloop.mul %721, %950 : f32
          %1148 = mloop.mul %722, %951 : f32
          %1149 = mloop.mul %723, %952 : f32
          %1150 = mloop.mul %724, %953 : f32
          %1151 = mloop.mul %725, %954 : f32
          %1152 = mloop.mul %726, %955 : f32
          %1153 = mloop.mul %727, %956 : f32
          %1154 = mloop.mul %728, %957 : f32
          %1155 = mloop.mul %729, %958 : f32
          %1156 = mloop.mul %730, %959 : f32
          %1157 = mloop.mul %731, %960 : f32
          %1158 = mloop.mul %732, %961 : f32
          %1159 = mloop.mul %733, %962 : f32
          %1160 = mloop.mul %734, %963 : f32
          %1161 = mloop.mul %735, %964 : f32
          %1162 = mloop.mul %736, %965 : f32
          %1163 = mloop.mul %737, %966 : f32
          %1164 = mloop.mul %738, %967 : f32
          %1165 = mloop.mul %739, %968 : f32
          %1166 = mloop.mul %740, %969 : f32
          %1167 = mloop.mul %741, %970 : f32
          %1168 = mloop.mul %742, %971 : f32
          %1169 = mloop.mul %743, %972 : f32
          %1170 = mloop.mul %744, %973 : f32
          %1171, %1172, %1173, %1174 = mgpu.load_vec %18[%70] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1175 = mloop.add %70, %20 : index
          %1176, %1177, %1178, %1179 = mgpu.load_vec %18[%1175] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1180 = mloop.add %1171, %1139 : f32
          %1181 = mloop.add %1172, %1140 : f32
          %1182 = mloop.add %1173, %1141 : f32
          %1183 = mloop.add %1174, %1142 : f32
          %1184 = mloop.add %1176, %1143 : f32
          %1185 = mloop.add %1177, %1144 : f32
          %1186 = mloop.add %1178, %1145 : f32
          %1187 = mloop.add %1179, %1146 : f32
          mgpu.store_vec %1180, %1181, %1182, %1183, %18[%70] : !mgpu.ptr<f32, 3>
          %1188 = mloop.add %70, %20 : index
          mgpu.store_vec %1184, %1185, %1186, %1187, %18[%1188] : !mgpu.ptr<f32, 3>
          %1189, %1190, %1191, %1192 = mgpu.load_vec %18[%71] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1193 = mloop.add %71, %20 : index
          %1194, %1195, %1196, %1197 = mgpu.load_vec %18[%1193] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1198 = mloop.add %1189, %1147 : f32
          %1199 = mloop.add %1190, %1148 : f32
          %1200 = mloop.add %1191, %1149 : f32
          %1201 = mloop.add %1192, %1150 : f32
          %1202 = mloop.add %1194, %1151 : f32
          %1203 = mloop.add %1195, %1152 : f32
          %1204 = mloop.add %1196, %1153 : f32
          %1205 = mloop.add %1197, %1154 : f32
          mgpu.store_vec %1198, %1199, %1200, %1201, %18[%71] : !mgpu.ptr<f32, 3>
          %1206 = mloop.add %71, %20 : index
          mgpu.store_vec %1202, %1203, %1204, %1205, %18[%1206] : !mgpu.ptr<f32, 3>
          %1207, %1208, %1209, %1210 = mgpu.load_vec %18[%72] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1211 = mloop.add %72, %20 : index
          %1212, %1213, %1214, %1215 = mgpu.load_vec %18[%1211] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1216 = mloop.add %1207, %1155 : f32
          %1217 = mloop.add %1208, %1156 : f32
          %1218 = mloop.add %1209, %1157 : f32
          %1219 = mloop.add %1210, %1158 : f32
          %1220 = mloop.add %1212, %1159 : f32
          %1221 = mloop.add %1213, %1160 : f32
          %1222 = mloop.add %1214, %1161 : f32
          %1223 = mloop.add %1215, %1162 : f32
          mgpu.store_vec %1216, %1217, %1218, %1219, %18[%72] : !mgpu.ptr<f32, 3>
          %1224 = mloop.add %72, %20 : index
          mgpu.store_vec %1220, %1221, %1222, %1223, %18[%1224] : !mgpu.ptr<f32, 3>
          %1225, %1226, %1227, %1228 = mgpu.load_vec %18[%73] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1229 = mloop.add %73, %20 : index
          %1230, %1231, %1232, %1233 = mgpu.load_vec %18[%1229] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1234 = mloop.add %1225, %1163 : f32
          %1235 = mloop.add %1226, %1164 : f32
          %1236 = mloop.add %1227, %1165 : f32
          %1237 = mloop.add %1228, %1166 : f32
          %1238 = mloop.add %1230, %1167 : f32
          %1239 = mloop.add %1231, %1168 : f32
          %1240 = mloop.add %1232, %1169 : f32
          %1241 = mloop.add %1233, %1170 : f32
          mgpu.store_vec %1234, %1235, %1236, %1237, %18[%73] : !mgpu.ptr<f32, 3>
          %1242 = mloop.add %73, %20 : index
          mgpu.store_vec %1238, %1239, %1240, %1241, %18[%1242] : !mgpu.ptr<f32, 3>
          %1243 = mloop.add %14, %70 : index
          %1244, %1245, %1246, %1247 = mgpu.load_vec %18[%1243] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1248 = mloop.add %1243, %20 : index
          %1249, %1250, %1251, %1252 = mgpu.load_vec %18[%1248] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1253 = mloop.add %1244, %713 : f32
          %1254 = mloop.add %1245, %714 : f32
          %1255 = mloop.add %1246, %715 : f32
          %1256 = mloop.add %1247, %716 : f32
          %1257 = mloop.add %1249, %717 : f32
          %1258 = mloop.add %1250, %718 : f32
          %1259 = mloop.add %1251, %719 : f32
          %1260 = mloop.add %1252, %720 : f32
          %1261 = mloop.add %14, %70 : index
          mgpu.store_vec %1253, %1254, %1255, %1256, %18[%1261] : !mgpu.ptr<f32, 3>
          %1262 = mloop.add %1261, %20 : index
          mgpu.store_vec %1257, %1258, %1259, %1260, %18[%1262] : !mgpu.ptr<f32, 3>
          %1263 = mloop.add %14, %71 : index
          %1264, %1265, %1266, %1267 = mgpu.load_vec %18[%1263] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1268 = mloop.add %1263, %20 : index
          %1269, %1270, %1271, %1272 = mgpu.load_vec %18[%1268] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1273 = mloop.add %1264, %721 : f32
          %1274 = mloop.add %1265, %722 : f32
          %1275 = mloop.add %1266, %723 : f32
          %1276 = mloop.add %1267, %724 : f32
          %1277 = mloop.add %1269, %725 : f32
          %1278 = mloop.add %1270, %726 : f32
          %1279 = mloop.add %1271, %727 : f32
          %1280 = mloop.add %1272, %728 : f32
          %1281 = mloop.add %14, %71 : index
          mgpu.store_vec %1273, %1274, %1275, %1276, %18[%1281] : !mgpu.ptr<f32, 3>
          %1282 = mloop.add %1281, %20 : index
          mgpu.store_vec %1277, %1278, %1279, %1280, %18[%1282] : !mgpu.ptr<f32, 3>
          %1283 = mloop.add %14, %72 : index
          %1284, %1285, %1286, %1287 = mgpu.load_vec %18[%1283] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1288 = mloop.add %1283, %20 : index
          %1289, %1290, %1291, %1292 = mgpu.load_vec %18[%1288] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1293 = mloop.add %1284, %729 : f32
          %1294 = mloop.add %1285, %730 : f32
          %1295 = mloop.add %1286, %731 : f32
          %1296 = mloop.add %1287, %732 : f32
          %1297 = mloop.add %1289, %733 : f32
          %1298 = mloop.add %1290, %734 : f32
          %1299 = mloop.add %1291, %735 : f32
          %1300 = mloop.add %1292, %736 : f32
          %1301 = mloop.add %14, %72 : index
          mgpu.store_vec %1293, %1294, %1295, %1296, %18[%1301] : !mgpu.ptr<f32, 3>
          %1302 = mloop.add %1301, %20 : index
          mgpu.store_vec %1297, %1298, %1299, %1300, %18[%1302] : !mgpu.ptr<f32, 3>
          %1303 = mloop.add %14, %73 : index
          %1304, %1305, %1306, %1307 = mgpu.load_vec %18[%1303] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1308 = mloop.add %1303, %20 : index
          %1309, %1310, %1311, %1312 = mgpu.load_vec %18[%1308] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
          %1313 = mloop.add %1304, %737 : f32
          %1314 = mloop.add %1305, %738 : f32
          %1315 = mloop.add %1306, %739 : f32
          %1316 = mloop.add %1307, %740 : f32
          %1317 = mloop.add %1309, %741 : f32
          %1318 = mloop.add %1310, %742 : f32
          %1319 = mloop.add %1311, %743 : f32
          %1320 = mloop.add %1312, %744 : f32
          %1321 = mloop.add %14, %73 : index
          mgpu.store_vec %1313, %1314, %1315, %1316, %18[%1321] : !mgpu.ptr<f32, 3>
          %1322 = mloop.add %1321, %20 : index
          mgpu.store_vec %1317, %1318, %1319, %1320, %18[%1322] : !mgpu.ptr<f32, 3>
          mloop.yield
        }
        %1323, %1324, %1325, %1326 = mgpu.load_vec %18[%70] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1327 = mloop.add %70, %20 : index
        %1328, %1329, %1330, %1331 = mgpu.load_vec %18[%1327] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1332, %1333, %1334, %1335 = mgpu.load_vec %18[%71] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1336 = mloop.add %71, %20 : index
        %1337, %1338, %1339, %1340 = mgpu.load_vec %18[%1336] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1341, %1342, %1343, %1344 = mgpu.load_vec %18[%72] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1345 = mloop.add %72, %20 : index
        %1346, %1347, %1348, %1349 = mgpu.load_vec %18[%1345] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1350, %1351, %1352, %1353 = mgpu.load_vec %18[%73] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1354 = mloop.add %73, %20 : index
        %1355, %1356, %1357, %1358 = mgpu.load_vec %18[%1354] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1359 = mloop.add %14, %70 : index
        %1360, %1361, %1362, %1363 = mgpu.load_vec %18[%1359] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1364 = mloop.add %1359, %20 : index
        %1365, %1366, %1367, %1368 = mgpu.load_vec %18[%1364] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1369 = mloop.add %14, %71 : index
        %1370, %1371, %1372, %1373 = mgpu.load_vec %18[%1369] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1374 = mloop.add %1369, %20 : index
        %1375, %1376, %1377, %1378 = mgpu.load_vec %18[%1374] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1379 = mloop.add %14, %72 : index
        %1380, %1381, %1382, %1383 = mgpu.load_vec %18[%1379] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1384 = mloop.add %1379, %20 : index
        %1385, %1386, %1387, %1388 = mgpu.load_vec %18[%1384] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1389 = mloop.add %14, %73 : index
        %1390, %1391, %1392, %1393 = mgpu.load_vec %18[%1389] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1394 = mloop.add %1389, %20 : index
        %1395, %1396, %1397, %1398 = mgpu.load_vec %18[%1394] : !mgpu.ptr<f32, 3> -> f32, f32, f32, f32
        %1399 = mloop.mul %arg19, %arg17 : index
        %1400 = mloop.add %1399, %66 : index
        %1401 = mgpu.load %arg15[%1400] : !mgpu.ptr<f32>
        %1402 = mloop.add %1401, %1323 : f32
        mgpu.store %1402, %arg15[%1400] : !mgpu.ptr<f32>
        %1403 = mloop.add %1400, %0 : index
        %1404 = mgpu.load %arg15[%1403] : !mgpu.ptr<f32>
        %1405 = mloop.add %1404, %1324 : f32
        mgpu.store %1405, %arg15[%1403] : !mgpu.ptr<f32>
        %1406 = mloop.add %1400, %7 : index
        %1407 = mgpu.load %arg15[%1406] : !mgpu.ptr<f32>
        %1408 = mloop.add %1407, %1325 : f32
        mgpu.store %1408, %arg15[%1406] : !mgpu.ptr<f32>
        %1409 = mloop.add %1400, %34 : index
        %1410 = mgpu.load %arg15[%1409] : !mgpu.ptr<f32>
        %1411 = mloop.add %1410, %1326 : f32
        mgpu.store %1411, %arg15[%1409] : !mgpu.ptr<f32>
        %1412 = mloop.add %1400, %20 : index
        %1413 = mgpu.load %arg15[%1412] : !mgpu.ptr<f32>
        %1414 = mloop.add %1413, %1328 : f32
        mgpu.store %1414, %arg15[%1412] : !mgpu.ptr<f32>
        %1415 = mloop.add %1400, %35 : index
        %1416 = mgpu.load %arg15[%1415] : !mgpu.ptr<f32>
        %1417 = mloop.add %1416, %1329 : f32
        mgpu.store %1417, %arg15[%1415] : !mgpu.ptr<f32>
        %1418 = mloop.add %1400, %36 : index
        %1419 = mgpu.load %arg15[%1418] : !mgpu.ptr<f32>
        %1420 = mloop.add %1419, %1330 : f32
        mgpu.store %1420, %arg15[%1418] : !mgpu.ptr<f32>
        %1421 = mloop.add %1400, %37 : index
        %1422 = mgpu.load %arg15[%1421] : !mgpu.ptr<f32>
        %1423 = mloop.add %1422, %1331 : f32
        mgpu.store %1423, %arg15[%1421] : !mgpu.ptr<f32>
        %1424 = mloop.mul %arg19, %arg17 : index
        %1425 = mloop.add %1424, %67 : index
        %1426 = mgpu.load %arg15[%1425] : !mgpu.ptr<f32>
        %1427 = mloop.add %1426, %1332 : f32
        mgpu.store %1427, %arg15[%1425] : !mgpu.ptr<f32>
        %1428 = mloop.add %1425, %0 : index
        %1429 = mgpu.load %arg15[%1428] : !mgpu.ptr<f32>
        %1430 = mloop.add %1429, %1333 : f32
        mgpu.store %1430, %arg15[%1428] : !mgpu.ptr<f32>
        %1431 = mloop.add %1425, %7 : index
        %1432 = mgpu.load %arg15[%1431] : !mgpu.ptr<f32>
        %1433 = mloop.add %1432, %1334 : f32
        mgpu.store %1433, %arg15[%1431] : !mgpu.ptr<f32>
        %1434 = mloop.add %1425, %34 : index
        %1435 = mgpu.load %arg15[%1434] : !mgpu.ptr<f32>
        %1436 = mloop.add %1435, %1335 : f32
        mgpu.store %1436, %arg15[%1434] : !mgpu.ptr<f32>
        %1437 = mloop.add %1425, %20 : index
        %1438 = mgpu.load %arg15[%1437] : !mgpu.ptr<f32>
        %1439 = mloop.add %1438, %1337 : f32
        mgpu.store %1439, %arg15[%1437] : !mgpu.ptr<f32>
        %1440 = mloop.add %1425, %35 : index
        %1441 = mgpu.load %arg15[%1440] : !mgpu.ptr<f32>
        %1442 = mloop.add %1441, %1338 : f32
        mgpu.store %1442, %arg15[%1440] : !mgpu.ptr<f32>
        %1443 = mloop.add %1425, %36 : index
        %1444 = mgpu.load %arg15[%1443] : !mgpu.ptr<f32>
        %1445 = mloop.add %1444, %1339 : f32
        mgpu.store %1445, %arg15[%1443] : !mgpu.ptr<f32>
        %1446 = mloop.add %1425, %37 : index
        %1447 = mgpu.load %arg15[%1446] : !mgpu.ptr<f32>
        %1448 = mloop.add %1447, %1340 : f32
        mgpu.store %1448, %arg15[%1446] : !mgpu.ptr<f32>
        %1449 = mloop.mul %arg19, %arg17 : index
        %1450 = mloop.add %1449, %68 : index
        %1451 = mgpu.load %arg15[%1450] : !mgpu.ptr<f32>
        %1452 = mloop.add %1451, %1341 : f32
        mgpu.store %1452, %arg15[%1450] : !mgpu.ptr<f32>
        %1453 = mloop.add %1450, %0 : index
        %1454 = mgpu.load %arg15[%1453] : !mgpu.ptr<f32>
        %1455 = mloop.add %1454, %1342 : f32
        mgpu.store %1455, %arg15[%1453] : !mgpu.ptr<f32>
        %1456 = mloop.add %1450, %7 : index
        %1457 = mgpu.load %arg15[%1456] : !mgpu.ptr<f32>
        %1458 = mloop.add %1457, %1343 : f32
        mgpu.store %1458, %arg15[%1456] : !mgpu.ptr<f32>
        %1459 = mloop.add %1450, %34 : index
        %1460 = mgpu.load %arg15[%1459] : !mgpu.ptr<f32>
        %1461 = mloop.add %1460, %1344 : f32
        mgpu.store %1461, %arg15[%1459] : !mgpu.ptr<f32>
        %1462 = mloop.add %1450, %20 : index
        %1463 = mgpu.load %arg15[%1462] : !mgpu.ptr<f32>
        %1464 = mloop.add %1463, %1346 : f32
        mgpu.store %1464, %arg15[%1462] : !mgpu.ptr<f32>
        %1465 = mloop.add %1450, %35 : index
        %1466 = mgpu.load %arg15[%1465] : !mgpu.ptr<f32>
        %1467 = mloop.add %1466, %1347 : f32
        mgpu.store %1467, %arg15[%1465] : !mgpu.ptr<f32>
        %1468 = mloop.add %1450, %36 : index
        %1469 = mgpu.load %arg15[%1468] : !mgpu.ptr<f32>
        %1470 = mloop.add %1469, %1348 : f32
        mgpu.store %1470, %arg15[%1468] : !mgpu.ptr<f32>
        %1471 = mloop.add %1450, %37 : index
        %1472 = mgpu.load %arg15[%1471] : !mgpu.ptr<f32>
        %1473 = mloop.add %1472, %1349 : f32
        mgpu.store %1473, %arg15[%1471] : !mgpu.ptr<f32>
        %1474 = mloop.mul %arg19, %arg17 : index
        %1475 = mloop.add %1474, %69 : index
        %1476 = mgpu.load %arg15[%1475] : !mgpu.ptr<f32>
        %1477 = mloop.add %1476, %1350 : f32
        mgpu.store %1477, %arg15[%1475] : !mgpu.ptr<f32>
        %1478 = mloop.add %1475, %0 : index
        %1479 = mgpu.load %arg15[%1478] : !mgpu.ptr<f32>
        %1480 = mloop.add %1479, %1351 : f32
        mgpu.store %1480, %arg15[%1478] : !mgpu.ptr<f32>
        %1481 = mloop.add %1475, %7 : index
        %1482 = mgpu.load %arg15[%1481] : !mgpu.ptr<f32>
        %1483 = mloop.add %1482, %1352 : f32
        mgpu.store %1483, %arg15[%1481] : !mgpu.ptr<f32>
        %1484 = mloop.add %1475, %34 : index
        %1485 = mgpu.load %arg15[%1484] : !mgpu.ptr<f32>
        %1486 = mloop.add %1485, %1353 : f32
        mgpu.store %1486, %arg15[%1484] : !mgpu.ptr<f32>
        %1487 = mloop.add %1475, %20 : index
        %1488 = mgpu.load %arg15[%1487] : !mgpu.ptr<f32>
        %1489 = mloop.add %1488, %1355 : f32
        mgpu.store %1489, %arg15[%1487] : !mgpu.ptr<f32>
        %1490 = mloop.add %1475, %35 : index
        %1491 = mgpu.load %arg15[%1490] : !mgpu.ptr<f32>
        %1492 = mloop.add %1491, %1356 : f32
        mgpu.store %1492, %arg15[%1490] : !mgpu.ptr<f32>
        %1493 = mloop.add %1475, %36 : index
        %1494 = mgpu.load %arg15[%1493] : !mgpu.ptr<f32>
        %1495 = mloop.add %1494, %1357 : f32
        mgpu.store %1495, %arg15[%1493] : !mgpu.ptr<f32>
        %1496 = mloop.add %1475, %37 : index
        %1497 = mgpu.load %arg15[%1496] : !mgpu.ptr<f32>
        %1498 = mloop.add %1497, %1358 : f32
        mgpu.store %1498, %arg15[%1496] : !mgpu.ptr<f32>
        %1499 = mloop.mul %arg19, %arg18 : index
        %1500 = mloop.add %1499, %66 : index
        %1501 = mgpu.load %arg16[%1500] : !mgpu.ptr<f32>
        %1502 = mloop.add %1501, %1360 : f32
        mgpu.store %1502, %arg16[%1500] : !mgpu.ptr<f32>
        %1503 = mloop.add %1500, %0 : index
        %1504 = mgpu.load %arg16[%1503] : !mgpu.ptr<f32>
        %1505 = mloop.add %1504, %1361 : f32
        mgpu.store %1505, %arg16[%1503] : !mgpu.ptr<f32>
        %1506 = mloop.add %1500, %7 : index
        %1507 = mgpu.load %arg16[%1506] : !mgpu.ptr<f32>
        %1508 = mloop.add %1507, %1362 : f32
        mgpu.store %1508, %arg16[%1506] : !mgpu.ptr<f32>
        %1509 = mloop.add %1500, %34 : index
        %1510 = mgpu.load %arg16[%1509] : !mgpu.ptr<f32>
        %1511 = mloop.add %1510, %1363 : f32
        mgpu.store %1511, %arg16[%1509] : !mgpu.ptr<f32>
        %1512 = mloop.add %1500, %20 : index
        %1513 = mgpu.load %arg16[%1512] : !mgpu.ptr<f32>
        %1514 = mloop.add %1513, %1365 : f32
        mgpu.store %1514, %arg16[%1512] : !mgpu.ptr<f32>
        %1515 = mloop.add %1500, %35 : index
        %1516 = mgpu.load %arg16[%1515] : !mgpu.ptr<f32>
        %1517 = mloop.add %1516, %1366 : f32
        mgpu.store %1517, %arg16[%1515] : !mgpu.ptr<f32>
        %1518 = mloop.add %1500, %36 : index
        %1519 = mgpu.load %arg16[%1518] : !mgpu.ptr<f32>
        %1520 = mloop.add %1519, %1367 : f32
        mgpu.store %1520, %arg16[%1518] : !mgpu.ptr<f32>
        %1521 = mloop.add %1500, %37 : index
        %1522 = mgpu.load %arg16[%1521] : !mgpu.ptr<f32>
        %1523 = mloop.add %1522, %1368 : f32
        mgpu.store %1523, %arg16[%1521] : !mgpu.ptr<f32>
        %1524 = mloop.mul %arg19, %arg18 : index
        %1525 = mloop.add %1524, %67 : index
        %1526 = mgpu.load %arg16[%1525] : !mgpu.ptr<f32>
        %1527 = mloop.add %1526, %1370 : f32
        mgpu.store %1527, %arg16[%1525] : !mgpu.ptr<f32>
        %1528 = mloop.add %1525, %0 : index
        %1529 = mgpu.load %arg16[%1528] : !mgpu.ptr<f32>
        %1530 = mloop.add %1529, %1371 : f32
        mgpu.store %1530, %arg16[%1528] : !mgpu.ptr<f32>
        %1531 = mloop.add %1525, %7 : index
        %1532 = mgpu.load %arg16[%1531] : !mgpu.ptr<f32>
        %1533 = mloop.add %1532, %1372 : f32
        mgpu.store %1533, %arg16[%1531] : !mgpu.ptr<f32>
        %1534 = mloop.add %1525, %34 : index
        %1535 = mgpu.load %arg16[%1534] : !mgpu.ptr<f32>
        %1536 = mloop.add %1535, %1373 : f32
        mgpu.store %1536, %arg16[%1534] : !mgpu.ptr<f32>
        %1537 = mloop.add %1525, %20 : index
        %1538 = mgpu.load %arg16[%1537] : !mgpu.ptr<f32>
        %1539 = mloop.add %1538, %1375 : f32
        mgpu.store %1539, %arg16[%1537] : !mgpu.ptr<f32>
        %1540 = mloop.add %1525, %35 : index
        %1541 = mgpu.load %arg16[%1540] : !mgpu.ptr<f32>
        %1542 = mloop.add %1541, %1376 : f32
        mgpu.store %1542, %arg16[%1540] : !mgpu.ptr<f32>
        %1543 = mloop.add %1525, %36 : index
        %1544 = mgpu.load %arg16[%1543] : !mgpu.ptr<f32>
        %1545 = mloop.add %1544, %1377 : f32
        mgpu.store %1545, %arg16[%1543] : !mgpu.ptr<f32>
        %1546 = mloop.add %1525, %37 : index
        %1547 = mgpu.load %arg16[%1546] : !mgpu.ptr<f32>
        %1548 = mloop.add %1547, %1378 : f32
        mgpu.store %1548, %arg16[%1546] : !mgpu.ptr<f32>
        %1549 = mloop.mul %arg19, %arg18 : index
        %1550 = mloop.add %1549, %68 : index
        %1551 = mgpu.load %arg16[%1550] : !mgpu.ptr<f32>
        %1552 = mloop.add %1551, %1380 : f32
        mgpu.store %1552, %arg16[%1550] : !mgpu.ptr<f32>
        %1553 = mloop.add %1550, %0 : index
        %1554 = mgpu.load %arg16[%1553] : !mgpu.ptr<f32>
        %1555 = mloop.add %1554, %1381 : f32
        mgpu.store %1555, %arg16[%1553] : !mgpu.ptr<f32>
        %1556 = mloop.add %1550, %7 : index
        %1557 = mgpu.load %arg16[%1556] : !mgpu.ptr<f32>
        %1558 = mloop.add %1557, %1382 : f32
        mgpu.store %1558, %arg16[%1556] : !mgpu.ptr<f32>
        %1559 = mloop.add %1550, %34 : index
        %1560 = mgpu.load %arg16[%1559] : !mgpu.ptr<f32>
        %1561 = mloop.add %1560, %1383 : f32
        mgpu.store %1561, %arg16[%1559] : !mgpu.ptr<f32>
        %1562 = mloop.add %1550, %20 : index
        %1563 = mgpu.load %arg16[%1562] : !mgpu.ptr<f32>
        %1564 = mloop.add %1563, %1385 : f32
        mgpu.store %1564, %arg16[%1562] : !mgpu.ptr<f32>
        %1565 = mloop.add %1550, %35 : index
        %1566 = mgpu.load %arg16[%1565] : !mgpu.ptr<f32>
        %1567 = mloop.add %1566, %1386 : f32
        mgpu.store %1567, %arg16[%1565] : !mgpu.ptr<f32>
        %1568 = mloop.add %1550, %36 : index
        %1569 = mgpu.load %arg16[%1568] : !mgpu.ptr<f32>
        %1570 = mloop.add %1569, %1387 : f32
        mgpu.store %1570, %arg16[%1568] : !mgpu.ptr<f32>
        %1571 = mloop.add %1550, %37 : index
        %1572 = mgpu.load %arg16[%1571] : !mgpu.ptr<f32>
        %1573 = mloop.add %1572, %1388 : f32
        mgpu.store %1573, %arg16[%1571] : !mgpu.ptr<f32>
        %1574 = mloop.mul %arg19, %arg18 : index
        %1575 = mloop.add %1574, %69 : index
        %1576 = mgpu.load %arg16[%1575] : !mgpu.ptr<f32>
        %1577 = mloop.add %1576, %1390 : f32
        mgpu.store %1577, %arg16[%1575] : !mgpu.ptr<f32>
        %1578 = mloop.add %1575, %0 : index
        %1579 = mgpu.load %arg16[%1578] : !mgpu.ptr<f32>
        %1580 = mloop.add %1579, %1391 : f32
        mgpu.store %1580, %arg16[%1578] : !mgpu.ptr<f32>
        %1581 = mloop.add %1575, %7 : index
        %1582 = mgpu.load %arg16[%1581] : !mgpu.ptr<f32>
        %1583 = mloop.add %1582, %1392 : f32
        mgpu.store %1583, %arg16[%1581] : !mgpu.ptr<f32>
        %1584 = mloop.add %1575, %34 : index
        %1585 = mgpu.load %arg16[%1584] : !mgpu.ptr<f32>
        %1586 = mloop.add %1585, %1393 : f32
        mgpu.store %1586, %arg16[%1584] : !mgpu.ptr<f32>
        %1587 = mloop.add %1575, %20 : index
        %1588 = mgpu.load %arg16[%1587] : !mgpu.ptr<f32>
        %1589 = mloop.add %1588, %1395 : f32
        mgpu.store %1589, %arg16[%1587] : !mgpu.ptr<f32>
        %1590 = mloop.add %1575, %35 : index
        %1591 = mgpu.load %arg16[%1590] : !mgpu.ptr<f32>
        %1592 = mloop.add %1591, %1396 : f32
        mgpu.store %1592, %arg16[%1590] : !mgpu.ptr<f32>
        %1593 = mloop.add %1575, %36 : index
        %1594 = mgpu.load %arg16[%1593] : !mgpu.ptr<f32>
        %1595 = mloop.add %1594, %1397 : f32
        mgpu.store %1595, %arg16[%1593] : !mgpu.ptr<f32>
        %1596 = mloop.add %1575, %37 : index
        %1597 = mgpu.load %arg16[%1596] : !mgpu.ptr<f32>
        %1598 = mloop.add %1597, %1398 : f32
        mgpu.store %1598, %arg16[%1596] : !mgpu.ptr<f32>
        mloop.yield
      }
      mgpu.yield
    } else {
      mloop.for %arg25 = %45 to %41 step %46 {
        %1599 = mloop.mul %arg25, %2 : index
        %1600 = mloop.add %1599, %2 : index
        %1601 = mloop.min %1600, %arg0 : index
        mloop.for %arg26 = %1599 to %1601 step %0 {
          %1602 = mloop.min %arg26, %arg6 : index
          %1603 = mgpu.load %arg7[%1602] {nc} : !mgpu.ptr<f32>
          %1604 = mloop.min %arg26, %arg8 : index
          %1605 = mgpu.load %arg9[%1604] {nc} : !mgpu.ptr<f32>
          %1606 = mloop.max %arg1, %1 : index
          %1607 = mloop.for %arg27 = %44 to %1606 step %8 iter_args(%arg28 = %19) -> (f32) {
            %1608 = mloop.mul %arg26, %arg3 : index
            %1609 = mloop.add %1608, %arg27 : index
            %1610 = mgpu.load %arg10[%1609] {nc} : !mgpu.ptr<bf16>
            %1611 = mloop.convert %1610 : bf16 to f32
            %1612 = mloop.sub %1611, %1603 : f32
            %1613 = mloop.mul %1612, %1605 : f32
            %1614 = mloop.mul %arg26, %arg4 : index
            %1615 = mloop.add %1614, %arg27 : index
            %1616 = mgpu.load %arg11[%1615] {nc} : !mgpu.ptr<bf16>
            %1617 = mloop.convert %1616 : bf16 to f32
            %1618 = mloop.min %arg27, %arg2 : index
            %1619 = mgpu.load %arg12[%1618] {nc} : !mgpu.ptr<bf16>
            %1620 = mloop.convert %1619 : bf16 to f32
            %1621 = mloop.mul %1617, %1620 : f32
            %1622 = mloop.mul %1613, %1621 : f32
            %1623 = mloop.add %arg28, %1622 : f32
            mloop.yield %1623 : f32
          }
          %1624 = mgpu.warp_reduce sum %1607 : f32
          %1625 = mloop.cmp eq, %23, %1 : index
          mgpu.if %1625 {
            mgpu.store %1624, %38[%24] : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.barrier
          %1626 = mloop.for %arg29 = %1 to %25 step %0 iter_args(%arg30 = %19) -> (f32) {
            %1627 = mgpu.load %38[%arg29] : !mgpu.ptr<f32, 3>
            %1628 = mloop.add %arg30, %1627 : f32
            mloop.yield %1628 : f32
          }
          %1629 = mloop.rem %6, %7 : index
          mgpu.cluster_wait
          %1630 = mloop.cmp lt, %4, %7 : index
          mgpu.if %1630 {
            mgpu.cluster_store %1626, %26[%1629], %4 : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.cluster_arrive
          mgpu.cluster_wait
          %1631 = mgpu.load %26[%1] : !mgpu.ptr<f32, 3>
          %1632 = mgpu.load %26[%0] : !mgpu.ptr<f32, 3>
          %1633 = mloop.add %1631, %1632 : f32
          mgpu.cluster_arrive {relaxed}
          %1634 = mloop.add %21, %1633 : f32
          %1635 = mloop.mul %1634, %29 : f32
          %1636 = mloop.max %arg1, %1 : index
          %1637 = mloop.for %arg31 = %44 to %1636 step %8 iter_args(%arg32 = %19) -> (f32) {
            %1638 = mloop.mul %arg26, %arg4 : index
            %1639 = mloop.add %1638, %arg31 : index
            %1640 = mgpu.load %arg11[%1639] {nc} : !mgpu.ptr<bf16>
            %1641 = mloop.convert %1640 : bf16 to f32
            %1642 = mloop.min %arg31, %arg2 : index
            %1643 = mgpu.load %arg12[%1642] {nc} : !mgpu.ptr<bf16>
            %1644 = mloop.convert %1643 : bf16 to f32
            %1645 = mloop.mul %1641, %1644 : f32
            %1646 = mloop.add %arg32, %1645 : f32
            mloop.yield %1646 : f32
          }
          %1647 = mgpu.warp_reduce sum %1637 : f32
          %1648 = mloop.cmp eq, %23, %1 : index
          mgpu.if %1648 {
            mgpu.store %1647, %39[%24] : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.barrier
          %1649 = mloop.for %arg33 = %1 to %25 step %0 iter_args(%arg34 = %19) -> (f32) {
            %1650 = mgpu.load %39[%arg33] : !mgpu.ptr<f32, 3>
            %1651 = mloop.add %arg34, %1650 : f32
            mloop.yield %1651 : f32
          }
          %1652 = mloop.rem %6, %7 : index
          mgpu.cluster_wait
          %1653 = mloop.cmp lt, %4, %7 : index
          mgpu.if %1653 {
            mgpu.cluster_store %1649, %26[%1652], %4 : !mgpu.ptr<f32, 3>
            mgpu.yield
          }
          mgpu.cluster_arrive
          mgpu.cluster_wait
          %1654 = mgpu.load %26[%1] : !mgpu.ptr<f32, 3>
          %1655 = mgpu.load %26[%0] : !mgpu.ptr<f32, 3>
          %1656 = mloop.add %1654, %1655 : f32
          mgpu.cluster_arrive {relaxed}
          %1657 = mloop.add %21, %1656 : f32
          %1658 = mloop.mul %1657, %33 : f32
          %1659 = mloop.max %arg1, %1 : index
          mloop.for %arg35 = %44 to %1659 step %8 {
            %1660 = mloop.mul %arg26, %arg4 : index
            %1661 = mloop.add %1660, %arg35 : index
            %1662 = mgpu.load %arg11[%1661] {nc} : !mgpu.ptr<bf16>
            %1663 = mloop.convert %1662 : bf16 to f32
            %1664 = mloop.min %arg35, %arg2 : index
            %1665 = mgpu.load %arg12[%1664] {nc} : !mgpu.ptr<bf16>
            %1666 = mloop.convert %1665 : bf16 to f32
            %1667 = mloop.mul %1663, %1666 : f32
            %1668 = mloop.mul %arg26, %arg3 : index
            %1669 = mloop.add %1668, %arg35 : index
            %1670 = mgpu.load %arg10[%1669] {nc} : !mgpu.ptr<bf16>
            %1671 = mloop.convert %1670 : bf16 to f32
            %1672 = mgpu.load %arg7[%1602] {nc} : !mgpu.ptr<f32>
            %1673 = mloop.sub %1671, %1672 : f32
            %1674 = mgpu.load %arg9[%1604] {nc} : !mgpu.ptr<f32>
            %1675 = mloop.mul %1673, %1674 : f32
            %1676 = mloop.mul %1675, %1635 : f32
            %1677 = mloop.add %1676, %1658 : f32
            %1678 = mloop.sub %1667, %1677 : f32
            %1679 = mloop.mul %1678, %1674 : f32
            %1680 = mloop.convert %1679 : f32 to bf16
            %1681 = mloop.mul %arg26, %arg5 : index
            %1682 = mloop.add %1681, %arg35 : index
            mgpu.store %1680, %arg14[%1682] : !mgpu.ptr<bf16>
            %1683 = mloop.mul %arg26, %arg4 : index
            %1684 = mloop.add %1683, %arg35 : index
            %1685 = mgpu.load %arg11[%1684] {nc} : !mgpu.ptr<bf16>
            %1686 = mloop.convert %1685 : bf16 to f32
            %1687 = mloop.mul %arg26, %arg3 : index
            %1688 = mloop.add %1687, %arg35 : index
            %1689 = mgpu.load %arg10[%1688] {nc} : !mgpu.ptr<bf16>
            %1690 = mloop.convert %1689 : bf16 to f32
            %1691 = mgpu.load %arg7[%1602] {nc} : !mgpu.ptr<f32>
            %1692 = mloop.sub %1690, %1691 : f32
            %1693 = mgpu.load %arg9[%1604] {nc} : !mgpu.ptr<f32>
            %1694 = mloop.mul %1692, %1693 : f32
            %1695 = mloop.mul %1686, %1694 : f32
            %1696 = mloop.div %arg26, %2 : index
            %1697 = mloop.mul %1696, %arg17 : index
            %1698 = mloop.add %1697, %arg35 : index
            %1699 = mgpu.load %arg15[%1698] : !mgpu.ptr<f32>
            %1700 = mloop.add %1699, %1695 : f32
            mgpu.store %1700, %arg15[%1698] : !mgpu.ptr<f32>
            %1701 = mloop.mul %arg26, %arg4 : index
            %1702 = mloop.add %1701, %arg35 : index
            %1703 = mgpu.load %arg11[%1702] {nc} : !mgpu.ptr<bf16>
            %1704 = mloop.convert %1703 : bf16 to f32
            %1705 = mloop.mul %1696, %arg18 : index
            %1706 = mloop.add %1705, %arg35 : index
            %1707 = mgpu.load %arg16[%1706] : !mgpu.ptr<f32>
            %1708 = mloop.add %1707, %1704 : f32
            mgpu.store %1708, %arg16[%1706] : !mgpu.ptr<f32>
            mloop.yield
          }
          mloop.yield
        }
        mloop.yield
      }
      mgpu.yield
    }
    mgpu.cluster_wait
    mgpu.return
  }
  mgpu.func @layernorm_bwd_k1(%arg0: index, %arg1: index, %arg2: !mgpu.ptr<f32>, %arg3: index, %arg4: !mgpu.ptr<f32>, %arg5: index, %arg6: !mgpu.ptr<bf16>, %arg7: !mgpu.ptr<bf16>) kernel attributes {max_threads = 512, morf.schedule = "FinalReduction threads=512 threads-per-row=32 rows-per-cta=16 vector=4 grid<=528 partials=None"} {
    %0 = mgpu.shared_alloc {size = 512} : !mgpu.ptr<f32, 3>
    %1 = mgpu.shared_alloc {size = 512} : !mgpu.ptr<f32, 3>
    %2 = mloop.constant 1 : index
    %3 = mloop.constant 0 : index
    %4 = mgpu.lane_id : index
    %5 = mgpu.warp_id : index
    %6 = mgpu.block_id : index
    %7 = mgpu.grid_dim : index
    %8 = mloop.constant 32 : index
    %9 = mloop.constant 31 : index
    %10 = mloop.constant 16 : index
    %11 = mloop.constant 0.0 : f32
    %12 = mloop.constant 64 : index
    %13 = mloop.constant 0.0 : f32
    %14 = mloop.max %arg0, %3 : index
    %15 = mloop.add %14, %9 : index
    %16 = mloop.div %15, %8 : index
    %17 = mloop.mul %5, %8 : index
    %18 = mloop.add %17, %4 : index
    %19 = mloop.cmp eq, %5, %3 : index
    mloop.for %arg8 = %6 to %16 step %7 {
      %20 = mloop.mul %arg8, %8 : index
      %21 = mloop.add %20, %4 : index
      %22 = mloop.cmp lt, %21, %14 : index
      mgpu.if %22 {
        %23 = mloop.max %arg1, %3 : index
        %24 = mloop.max %23, %5 : index
        %25 = mloop.sub %24, %5 : index
        %26 = mloop.div %25, %12 : index
        %27 = mloop.mul %26, %12 : index
        %28 = mloop.add %5, %27 : index
        %29 = mloop.for %arg9 = %5 to %28 step %12 iter_args(%arg10 = %11) -> (f32) {
          %30 = mloop.mul %arg9, %arg3 : index
          %31 = mloop.add %30, %21 : index
          %32 = mgpu.load %arg2[%31] {nc} : !mgpu.ptr<f32>
          %33 = mloop.add %arg9, %10 : index
          %34 = mloop.mul %33, %arg3 : index
          %35 = mloop.add %34, %21 : index
          %36 = mgpu.load %arg2[%35] {nc} : !mgpu.ptr<f32>
          %37 = mloop.add %33, %10 : index
          %38 = mloop.mul %37, %arg3 : index
          %39 = mloop.add %38, %21 : index
          %40 = mgpu.load %arg2[%39] {nc} : !mgpu.ptr<f32>
          %41 = mloop.add %37, %10 : index
          %42 = mloop.mul %41, %arg3 : index
          %43 = mloop.add %42, %21 : index
          %44 = mgpu.load %arg2[%43] {nc} : !mgpu.ptr<f32>
          %45 = mloop.add %arg10, %32 : f32
          %46 = mloop.add %45, %36 : f32
          %47 = mloop.add %46, %40 : f32
          %48 = mloop.add %47, %44 : f32
          mloop.yield %48 : f32
        }
        %49 = mloop.for %arg11 = %28 to %23 step %10 iter_args(%arg12 = %29) -> (f32) {
          %50 = mloop.mul %arg11, %arg3 : index
          %51 = mloop.add %50, %21 : index
          %52 = mgpu.load %arg2[%51] {nc} : !mgpu.ptr<f32>
          %53 = mloop.add %arg12, %52 : f32
          mloop.yield %53 : f32
        }
        mgpu.store %49, %0[%18] : !mgpu.ptr<f32, 3>
        %54 = mloop.max %arg1, %3 : index
        %55 = mloop.max %54, %5 : index
        %56 = mloop.sub %55, %5 : index
        %57 = mloop.div %56, %12 : index
        %58 = mloop.mul %57, %12 : index
        %59 = mloop.add %5, %58 : index
        %60 = mloop.for %arg13 = %5 to %59 step %12 iter_args(%arg14 = %11) -> (f32) {
          %61 = mloop.mul %arg13, %arg5 : index
          %62 = mloop.add %61, %21 : index
          %63 = mgpu.load %arg4[%62] {nc} : !mgpu.ptr<f32>
          %64 = mloop.add %arg13, %10 : index
          %65 = mloop.mul %64, %arg5 : index
          %66 = mloop.add %65, %21 : index
          %67 = mgpu.load %arg4[%66] {nc} : !mgpu.ptr<f32>
          %68 = mloop.add %64, %10 : index
          %69 = mloop.mul %68, %arg5 : index
          %70 = mloop.add %69, %21 : index
          %71 = mgpu.load %arg4[%70] {nc} : !mgpu.ptr<f32>
          %72 = mloop.add %68, %10 : index
          %73 = mloop.mul %72, %arg5 : index
          %74 = mloop.add %73, %21 : index
          %75 = mgpu.load %arg4[%74] {nc} : !mgpu.ptr<f32>
          %76 = mloop.add %arg14, %63 : f32
          %77 = mloop.add %76, %67 : f32
          %78 = mloop.add %77, %71 : f32
          %79 = mloop.add %78, %75 : f32
          mloop.yield %79 : f32
        }
        %80 = mloop.for %arg15 = %59 to %54 step %10 iter_args(%arg16 = %60) -> (f32) {
          %81 = mloop.mul %arg15, %arg5 : index
          %82 = mloop.add %81, %21 : index
          %83 = mgpu.load %arg4[%82] {nc} : !mgpu.ptr<f32>
          %84 = mloop.add %arg16, %83 : f32
          mloop.yield %84 : f32
        }
        mgpu.store %80, %1[%18] : !mgpu.ptr<f32, 3>
        mgpu.yield
      }
      mgpu.barrier
      mgpu.if %22 {
        mgpu.if %19 {
          %85 = mloop.for %arg17 = %3 to %10 step %2 iter_args(%arg18 = %13) -> (f32) {
            %86 = mloop.mul %arg17, %8 : index
            %87 = mloop.add %86, %4 : index
            %88 = mgpu.load %0[%87] : !mgpu.ptr<f32, 3>
            %89 = mloop.add %arg18, %88 : f32
            mloop.yield %89 : f32
          }
          %90 = mloop.convert %85 : f32 to bf16
          mgpu.store %90, %arg6[%21] : !mgpu.ptr<bf16>
          %91 = mloop.for %arg19 = %3 to %10 step %2 iter_args(%arg20 = %13) -> (f32) {
            %92 = mloop.mul %arg19, %8 : index
            %93 = mloop.add %92, %4 : index
            %94 = mgpu.load %1[%93] : !mgpu.ptr<f32, 3>
            %95 = mloop.add %arg20, %94 : f32
            mloop.yield %95 : f32
          }
          %96 = mloop.convert %91 : f32 to bf16
          mgpu.store %96, %arg7[%21] : !mgpu.ptr<bf16>
          mgpu.yield
        }
        mgpu.yield
      }
      mgpu.barrier
      mloop.yield
    }
    mgpu.return
  }
}
