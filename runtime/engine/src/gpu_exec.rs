//! The host executor of GPU-level modules: runs a host `func.func` (the `mloop` buffer ops,
//! scalar `mloop` ops and `mgpu.launch`, see `docs/dialects/gpu.md`) against a real GPU
//! through `morf-runtime`, after the module's kernels were emitted as PTX and loaded.
//!
//! How each host op runs:
//! - `mloop.dim`: the size from the buffer's run-time shape;
//! - scalar ops (`mloop.constant`, `mloop.add`, ...): their interpreter hooks, on a
//!   [`Machine`] that holds only scalars;
//! - `mloop.alloc`: a device buffer (from a pool of freed ones, so a timed call after a
//!   warm-up call does no `cuMemAlloc`); `mloop.dealloc` returns it to the pool;
//! - `mloop.fill`: a 16- or 32-bit `cuMemsetD*Async` on the stream (f64: an upload);
//! - `mloop.constant_buffer`: its interpreter hook, then an upload;
//! - `mgpu.launch`: a launch, buffers passed as device pointers, `index` values as 64-bit
//!   integers, floats as their bit patterns;
//! - `func.return`: its operands become the results (download them with
//!   [`GpuExecutor::download`]).
//!
//! Element storage on the device: bf16 and f16 as 2-byte values, f32 as 4, f64 as 8, i1 as
//! 1 byte, row-major. Everything goes to one stream, so a call's launches run in order and
//! events recorded around [`GpuExecutor::call`] time the whole host sequence.

use std::collections::HashMap;
use std::rc::Rc;

use morf_gpu::ops::{LaunchOp, ResidentBlocksOp};
use morf_ir::interp::{Array, Machine, RtValue};
use morf_ir::{Context, Dim, FloatKind, OpId, Type, TypeData, Value};
use morf_loop::ops::{AllocOp, ConstantBufferOp, DeallocOp, DimOp, FillOp};
use morf_runtime::{DeviceBuffer, EventPair, Gpu, KernelArg, Module};

/// How one element is stored on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevElem {
    /// A float of this kind.
    Float(FloatKind),
    /// An `i1`, one byte (0 or 1).
    Bool,
}

impl DevElem {
    /// The storage of element type `t`, if the device can hold it.
    pub fn of(ctx: &Context, t: Type) -> Option<DevElem> {
        match ctx.type_data(t) {
            TypeData::Float(k) => Some(DevElem::Float(*k)),
            TypeData::Integer(1) => Some(DevElem::Bool),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DevElem::Float(k) => k.bits() as usize / 8,
            DevElem::Bool => 1,
        }
    }

    /// The little-endian bytes of `data` in this storage (values must already be
    /// representable: morf-run rounds inputs to their type when it binds them).
    pub fn encode(self, data: &[f64]) -> Vec<u8> {
        let mut out = vec![0u8; data.len() * self.size()];
        self.encode_to(data, &mut out);
        out
    }

    /// [`DevElem::encode`] with its storage reserved fallibly: an error instead of an
    /// abort when the host is out of memory.
    pub fn try_encode(self, data: &[f64]) -> Result<Vec<u8>, morf_runtime::RuntimeError> {
        let bytes = data.len().saturating_mul(self.size());
        Vec::<u8>::new().try_reserve_exact(bytes).map_err(|_| {
            morf_runtime::RuntimeError::Usage(format!("out of host memory: cannot stage {bytes} bytes for the GPU"))
        })?;
        // Zeroed by the allocator: the pages are first touched by the parallel encoding.
        let mut out = vec![0u8; bytes];
        self.encode_to(data, &mut out);
        Ok(out)
    }

    /// Writes the bytes of `data` into `out` (`data.len() * size()` bytes), in parallel
    /// for large arrays (a 100000 x 32768 input is 3.3 G values).
    fn encode_to(self, data: &[f64], out: &mut [u8]) {
        let size = self.size();
        let one = |src: &[f64], dst: &mut [u8]| {
            let dst = dst.chunks_exact_mut(size);
            match self {
                DevElem::Float(FloatKind::BF16) => src
                    .iter()
                    .zip(dst)
                    .for_each(|(v, d)| d.copy_from_slice(&half::bf16::from_f64(*v).to_bits().to_le_bytes())),
                DevElem::Float(FloatKind::F16) => src
                    .iter()
                    .zip(dst)
                    .for_each(|(v, d)| d.copy_from_slice(&half::f16::from_f64(*v).to_bits().to_le_bytes())),
                DevElem::Float(FloatKind::F32) => {
                    src.iter().zip(dst).for_each(|(v, d)| d.copy_from_slice(&(*v as f32).to_le_bytes()))
                }
                DevElem::Float(FloatKind::F64) => {
                    src.iter().zip(dst).for_each(|(v, d)| d.copy_from_slice(&v.to_le_bytes()))
                }
                DevElem::Bool => src.iter().zip(dst).for_each(|(v, d)| d[0] = (*v != 0.0) as u8),
            }
        };
        par_zip(data, 1, out, size, one);
    }

    /// The values of little-endian `bytes` in this storage.
    pub fn decode(self, bytes: &[u8]) -> Vec<f64> {
        let size = self.size();
        let mut out = vec![0.0; bytes.len() / size];
        let one = |src: &[u8], dst: &mut [f64]| {
            let src = src.chunks_exact(size);
            match self {
                DevElem::Float(FloatKind::BF16) => src
                    .zip(dst)
                    .for_each(|(c, d)| *d = half::bf16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64()),
                DevElem::Float(FloatKind::F16) => {
                    src.zip(dst).for_each(|(c, d)| *d = half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f64())
                }
                DevElem::Float(FloatKind::F32) => {
                    src.zip(dst).for_each(|(c, d)| *d = f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                }
                DevElem::Float(FloatKind::F64) => src
                    .zip(dst)
                    .for_each(|(c, d)| *d = f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])),
                DevElem::Bool => src.zip(dst).for_each(|(c, d)| *d = (c[0] != 0) as u8 as f64),
            }
        };
        let whole = out.len() * size;
        par_zip(&bytes[..whole], size, &mut out, 1, one);
        out
    }

    /// The bit pattern of `v` as a kernel parameter or fill value (low bits of a u64).
    pub fn bits(self, v: f64) -> u64 {
        match self {
            DevElem::Float(FloatKind::BF16) => half::bf16::from_f64(v).to_bits() as u64,
            DevElem::Float(FloatKind::F16) => half::f16::from_f64(v).to_bits() as u64,
            DevElem::Float(FloatKind::F32) => (v as f32).to_bits() as u64,
            DevElem::Float(FloatKind::F64) => v.to_bits(),
            DevElem::Bool => (v != 0.0) as u64,
        }
    }
}

/// A buffer on the device with its shape and element type.
#[derive(Debug)]
pub struct DevArray {
    /// The memory.
    pub buf: DeviceBuffer,
    /// Run-time shape (row-major).
    pub shape: Vec<usize>,
    /// The element type (for results).
    pub elem: Type,
    /// How elements are stored.
    pub storage: DevElem,
}

impl DevArray {
    /// Element count.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A value of a host function run on the GPU.
#[derive(Clone, Debug)]
pub enum DevValue {
    /// A device buffer (shared: a result may be an argument).
    Buffer(Rc<DevArray>),
    /// A scalar.
    Scalar(RtValue),
}

/// Why a GPU run failed: a runtime error, or a diagnostic at a host op.
#[derive(Debug)]
pub enum ExecError {
    /// A CUDA or runtime failure.
    Runtime(morf_runtime::RuntimeError),
    /// An op the host executor cannot run, or an interpreter error of a scalar op.
    Diagnostic(morf_ir::Diagnostic),
}

impl From<morf_runtime::RuntimeError> for ExecError {
    fn from(e: morf_runtime::RuntimeError) -> Self {
        ExecError::Runtime(e)
    }
}

impl From<morf_ir::Diagnostic> for ExecError {
    fn from(d: morf_ir::Diagnostic) -> Self {
        ExecError::Diagnostic(d)
    }
}

type ExecResult<T> = Result<T, ExecError>;

fn op_err(ctx: &Context, op: OpId, msg: impl Into<String>) -> ExecError {
    ExecError::Diagnostic(morf_ir::builtin::op_error(ctx, op, msg.into()))
}

/// One launch of the last call, recorded when launch timing is on
/// ([`GpuExecutor::set_launch_timing`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchInfo {
    /// The kernel's name.
    pub kernel: String,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory, in bytes.
    pub shared_bytes: u32,
    /// Bytes of the buffers the launch is passed, each buffer counted once (its element count
    /// times its element size, as stored on the device): an upper bound on the memory traffic
    /// a kernel that touches each element at most once moves (a buffer read and written counts
    /// once).
    pub arg_bytes: u64,
}

/// Per-launch events: pair `i` brackets launch `i` of the last call. The pairs are
/// created on first use and reused by later calls.
#[derive(Default)]
struct LaunchTiming {
    events: Vec<EventPair>,
    launches: Vec<LaunchInfo>,
}

/// Runs one host function of a loaded GPU module, any number of times.
pub struct GpuExecutor<'a> {
    gpu: &'a Gpu,
    module: &'a Module,
    ctx: &'a Context,
    func: OpId,
    /// Freed device buffers by size in bytes, reused by `mloop.alloc`.
    pool: HashMap<usize, Vec<DeviceBuffer>>,
    /// Launches of the last call.
    pub launches: usize,
    /// Events around each launch, when launch timing is on (off by default: the normal
    /// path records nothing between launches).
    timing: Option<LaunchTiming>,
}

impl<'a> GpuExecutor<'a> {
    /// An executor of host function `func`, whose kernels are in `module`.
    pub fn new(gpu: &'a Gpu, module: &'a Module, ctx: &'a Context, func: OpId) -> Self {
        GpuExecutor { gpu, module, ctx, func, pool: HashMap::new(), launches: 0, timing: None }
    }

    /// Turns per-launch timing on or off. While on, [`GpuExecutor::call`] records a pair
    /// of CUDA events around each kernel launch (on the same stream, so they bracket that
    /// launch alone) and remembers each launch's kernel and configuration; read them with
    /// [`GpuExecutor::launch_infos`] and [`GpuExecutor::launch_times_ms`]. Launches of
    /// zero blocks enqueue nothing but are still recorded (timed as about 0).
    pub fn set_launch_timing(&mut self, on: bool) {
        match (on, self.timing.is_some()) {
            (true, false) => self.timing = Some(LaunchTiming::default()),
            (false, true) => self.timing = None,
            _ => {}
        }
    }

    /// The launches of the last call, in order (empty unless launch timing is on).
    pub fn launch_infos(&self) -> &[LaunchInfo] {
        self.timing.as_ref().map(|t| t.launches.as_slice()).unwrap_or(&[])
    }

    /// The GPU time of each launch of the last call, in milliseconds, in launch order
    /// (waits for the call to finish; empty unless launch timing is on).
    pub fn launch_times_ms(&self) -> Result<Vec<f32>, morf_runtime::RuntimeError> {
        match &self.timing {
            Some(t) => t.events[..t.launches.len()].iter().map(EventPair::elapsed_ms).collect(),
            None => Ok(Vec::new()),
        }
    }

    fn alloc(&mut self, shape: Vec<usize>, elem: Type, storage: DevElem) -> ExecResult<Rc<DevArray>> {
        let bytes = shape.iter().try_fold(storage.size(), |a, &d| a.checked_mul(d)).ok_or_else(|| {
            ExecError::Runtime(morf_runtime::RuntimeError::Usage(format!(
                "a device buffer of shape {shape:?} is too large to address"
            )))
        })?;
        let buf = match self.pool.get_mut(&bytes).and_then(Vec::pop) {
            Some(b) => b,
            None => self.gpu.alloc_bytes(bytes)?,
        };
        Ok(Rc::new(DevArray { buf, shape, elem, storage }))
    }

    /// Gives the memory of `v` back to the pool if nothing else holds it.
    pub fn release(&mut self, v: DevValue) {
        if let DevValue::Buffer(rc) = v {
            if let Ok(a) = Rc::try_unwrap(rc) {
                self.pool.entry(a.buf.len()).or_default().push(a.buf);
            }
        }
    }

    /// Uploads an interpreter value (a tensor or buffer argument, or a scalar) as a
    /// buffer of element type `elem` (a type of this executor's context; the value may
    /// come from another context).
    pub fn upload(&mut self, v: &RtValue, elem: Type) -> ExecResult<DevValue> {
        let storage = || {
            DevElem::of(self.ctx, elem).ok_or_else(|| {
                ExecError::Runtime(morf_runtime::RuntimeError::Usage(format!(
                    "buffers of {} cannot go to the GPU",
                    self.ctx.type_to_string(elem)
                )))
            })
        };
        // Encoded from the value's own elements (no copy of a multi-gigabyte input).
        let (shape, storage, bytes) = match v {
            RtValue::Tensor { array, .. } => {
                let st = storage()?;
                (array.shape.clone(), st, st.try_encode(&array.data)?)
            }
            RtValue::Buffer { data, .. } => {
                let (a, st) = (data.borrow(), storage()?);
                (a.shape.clone(), st, st.try_encode(&a.data)?)
            }
            other => return Ok(DevValue::Scalar(other.clone())),
        };
        let a = self.alloc(shape, elem, storage)?;
        self.gpu.write(&a.buf, &bytes)?;
        Ok(DevValue::Buffer(a))
    }

    /// Downloads a result as an interpreter value (a buffer).
    pub fn download(&self, v: &DevValue) -> ExecResult<RtValue> {
        match v {
            DevValue::Scalar(s) => Ok(s.clone()),
            DevValue::Buffer(a) => {
                let bytes = self.gpu.download(&a.buf)?;
                let n = (a.len() * a.storage.size()).min(bytes.len());
                let data = a.storage.decode(&bytes[..n]);
                Ok(RtValue::Buffer {
                    elem: a.elem,
                    data: Rc::new(std::cell::RefCell::new(Array::new(a.shape.clone(), data))),
                })
            }
        }
    }

    /// Runs the host function once on `args` (asynchronously: launches are queued; call
    /// [`Gpu::synchronize`] or download to wait). Returns its results.
    pub fn call(&mut self, args: &[DevValue]) -> ExecResult<Vec<DevValue>> {
        let ctx = self.ctx;
        let func = self.func;
        let block = ctx
            .regions(func)
            .first()
            .and_then(|r| ctx.entry_block(*r))
            .ok_or_else(|| op_err(ctx, func, "is a declaration; it cannot run"))?;
        let params = ctx.block_args(block);
        if params.len() != args.len() {
            return Err(op_err(ctx, func, format!("expects {} arguments, got {}", params.len(), args.len())));
        }
        self.launches = 0;
        if let Some(t) = &mut self.timing {
            t.launches.clear();
        }
        let mut bufs: HashMap<Value, Rc<DevArray>> = HashMap::new();
        let mut m = Machine::new();
        for (p, a) in params.iter().zip(args) {
            match a {
                DevValue::Buffer(b) => {
                    bufs.insert(*p, b.clone());
                }
                DevValue::Scalar(s) => m.set(*p, s.clone()),
            }
        }
        let buffer = |bufs: &HashMap<Value, Rc<DevArray>>, op: OpId, v: Value| -> ExecResult<Rc<DevArray>> {
            bufs.get(&v).cloned().ok_or_else(|| op_err(ctx, op, "operand is not a live device buffer"))
        };
        for op in ctx.block_ops(block) {
            let name = ctx.op_name(op);
            match name {
                DimOp::NAME => {
                    let b = buffer(&bufs, op, ctx.operand(op, 0))?;
                    let i = ctx.attr(op, "index").and_then(|a| ctx.attr_int(a)).unwrap_or(-1);
                    let n = usize::try_from(i)
                        .ok()
                        .and_then(|i| b.shape.get(i).copied())
                        .ok_or_else(|| op_err(ctx, op, format!("dim {i} out of range")))?;
                    m.set(ctx.result(op, 0), RtValue::Int(n as i64));
                }
                AllocOp::NAME => {
                    let r = ctx.result(op, 0);
                    let ty = ctx.value_type(r);
                    let (dims, elem) = morf_loop::buffer_parts(ctx, ty)
                        .map(|(d, e)| (d.to_vec(), e))
                        .ok_or_else(|| op_err(ctx, op, "expected a buffer result"))?;
                    let mut sizes = ctx.operands(op).iter();
                    let mut shape = Vec::with_capacity(dims.len());
                    for d in dims {
                        shape.push(match d {
                            Dim::Static(n) => n as usize,
                            Dim::Dynamic => {
                                let v = *sizes.next().ok_or_else(|| op_err(ctx, op, "missing a dynamic size"))?;
                                let n = m.int(ctx, op, v)?;
                                usize::try_from(n).map_err(|_| op_err(ctx, op, format!("negative size {n}")))?
                            }
                        });
                    }
                    let storage = DevElem::of(ctx, elem).ok_or_else(|| {
                        op_err(ctx, op, format!("buffers of {} cannot go to the GPU", ctx.type_to_string(elem)))
                    })?;
                    let a = self.alloc(shape, elem, storage)?;
                    bufs.insert(r, a);
                }
                DeallocOp::NAME => {
                    let v = ctx.operand(op, 0);
                    let b = bufs.remove(&v).ok_or_else(|| op_err(ctx, op, "operand is not a live device buffer"))?;
                    self.release(DevValue::Buffer(b));
                }
                FillOp::NAME => {
                    let v = m.get(ctx, ctx.operand(op, 0))?.clone();
                    let x = match v {
                        RtValue::Float(f) => f,
                        RtValue::Int(i) => i as f64,
                        _ => return Err(op_err(ctx, op, "fill value is not a scalar")),
                    };
                    let b = buffer(&bufs, op, ctx.operand(op, 1))?;
                    let bits = b.storage.bits(x);
                    match b.storage.size() {
                        2 => self.gpu.fill_u16(&b.buf, bits as u16, b.len())?,
                        4 => self.gpu.fill_u32(&b.buf, bits as u32, b.len())?,
                        _ => {
                            let vals = Array::try_splat(vec![b.len()], x).map_err(|_| {
                                op_err(ctx, op, format!("out of host memory filling {} elements", b.len()))
                            })?;
                            self.gpu.write(&b.buf, &b.storage.try_encode(&vals.data)?)?
                        }
                    }
                }
                ConstantBufferOp::NAME => {
                    m.run_op(ctx, op)?;
                    let r = ctx.result(op, 0);
                    let v = m.get(ctx, r)?.clone();
                    let elem = morf_loop::buffer_parts(ctx, ctx.value_type(r))
                        .map(|(_, e)| e)
                        .ok_or_else(|| op_err(ctx, op, "expected a buffer result"))?;
                    match self.upload(&v, elem)? {
                        DevValue::Buffer(b) => {
                            bufs.insert(r, b);
                        }
                        DevValue::Scalar(_) => return Err(op_err(ctx, op, "expected a buffer")),
                    }
                }
                ResidentBlocksOp::NAME => {
                    // The compiled kernel's occupancy at this configuration, from the driver.
                    let r = ResidentBlocksOp(op);
                    let kernel = r.kernel(ctx).ok_or_else(|| op_err(ctx, op, "has no 'kernel' symbol"))?;
                    let dim = |v: Value, what: &str| -> ExecResult<u32> {
                        let n = m.int(ctx, op, v)?;
                        u32::try_from(n)
                            .map_err(|_| op_err(ctx, op, format!("{what} = {n} does not fit a CUDA launch")))
                    };
                    let (threads, shared) = (dim(r.threads(ctx), "threads")?, dim(r.shared(ctx), "shared")?);
                    // A kernel launched in clusters: the clusters that fit, in blocks.
                    let cluster = r.callee(ctx).and_then(|f| f.cluster(ctx)).unwrap_or(1).clamp(1, 8) as u32;
                    let n = self
                        .gpu
                        .resident_cluster_blocks(self.module, kernel, threads, shared, cluster)
                        .map_err(|e| op_err(ctx, op, format!("occupancy of @{kernel}: {e}")))?;
                    m.set(r.result(ctx), RtValue::Int(n as i64));
                }
                LaunchOp::NAME => {
                    let kernel = morf_gpu::ops::kernel::launch_kernel_name(ctx, op)
                        .ok_or_else(|| op_err(ctx, op, "has no 'kernel' symbol"))?
                        .to_string();
                    let ops = ctx.operands(op);
                    if ops.len() < 3 {
                        return Err(op_err(ctx, op, "expected blocks, threads and shared operands"));
                    }
                    let dim = |v: Value, what: &str| -> ExecResult<u32> {
                        let n = m.int(ctx, op, v)?;
                        u32::try_from(n)
                            .map_err(|_| op_err(ctx, op, format!("{what} = {n} does not fit a CUDA launch")))
                    };
                    let (grid, threads, shared) =
                        (dim(ops[0], "blocks")?, dim(ops[1], "threads")?, dim(ops[2], "shared")?);
                    let mut holders: Vec<Rc<DevArray>> = Vec::new();
                    let mut words: Vec<Option<u64>> = Vec::new();
                    for &a in &ops[3..] {
                        if let Some(b) = bufs.get(&a) {
                            holders.push(b.clone());
                            words.push(None);
                        } else {
                            let w = match m.get(ctx, a)? {
                                RtValue::Int(i) => *i as u64,
                                RtValue::Float(f) => {
                                    let st = DevElem::of(ctx, ctx.value_type(a))
                                        .ok_or_else(|| op_err(ctx, op, "unsupported scalar kernel argument"))?;
                                    st.bits(*f)
                                }
                                _ => return Err(op_err(ctx, op, "unsupported kernel argument")),
                            };
                            words.push(Some(w));
                        }
                    }
                    // Each distinct buffer once (a buffer passed twice is one buffer).
                    let mut arg_bytes = 0u64;
                    for (k, h) in holders.iter().enumerate() {
                        if !holders[..k].iter().any(|o| Rc::ptr_eq(o, h)) {
                            arg_bytes += (h.len() * h.storage.size()) as u64;
                        }
                    }
                    let mut hi = holders.iter();
                    let args: Vec<KernelArg<'_>> = words
                        .iter()
                        .map(|w| match w {
                            Some(w) => Some(KernelArg::U64(*w)),
                            None => hi.next().map(|h| KernelArg::Ptr(&h.buf)),
                        })
                        .collect::<Option<_>>()
                        .ok_or_else(|| op_err(ctx, op, "internal error: a buffer argument lost its device buffer"))?;
                    if let Some(t) = &mut self.timing {
                        if t.events.len() <= t.launches.len() {
                            t.events.push(self.gpu.event_pair()?);
                        }
                        t.events[t.launches.len()].record_start()?;
                    }
                    // A cooperative kernel (one with grid barriers) runs with all its blocks
                    // resident: the runtime caps its grid at what fits.
                    // A resident-grid kernel (a grid tail) runs plainly with the same cap.
                    let callee = LaunchOp(op).callee(ctx);
                    let cooperative = callee.is_some_and(|f| f.cooperative(ctx).is_some());
                    let resident = callee.is_some_and(|f| f.resident_grid(ctx).is_some());
                    let grid = if cooperative {
                        self.gpu.launch_cooperative(self.module, &kernel, grid, threads, shared, &args)
                    } else if resident {
                        self.gpu.launch_resident(self.module, &kernel, grid, threads, shared, &args)
                    } else {
                        self.gpu.launch(self.module, &kernel, grid, threads, shared, &args).map(|_| grid)
                    }
                    .map_err(|e| op_err(ctx, op, format!("launch of @{kernel} failed: {e}")))?;
                    if let Some(t) = &mut self.timing {
                        t.events[t.launches.len()].record_end()?;
                        t.launches.push(LaunchInfo { kernel, grid, block: threads, shared_bytes: shared, arg_bytes });
                    }
                    self.launches += 1;
                }
                morf_ir::builtin::ReturnOp::NAME => {
                    let mut out = Vec::new();
                    for &v in ctx.operands(op) {
                        match bufs.get(&v) {
                            Some(b) => out.push(DevValue::Buffer(b.clone())),
                            None => out.push(DevValue::Scalar(m.get(ctx, v)?.clone())),
                        }
                    }
                    return Ok(out);
                }
                _ => {
                    if !ctx.regions(op).is_empty() {
                        return Err(op_err(
                            ctx,
                            op,
                            "has regions; a GPU-level host function runs only straight-line code on the host",
                        ));
                    }
                    if ctx
                        .operands(op)
                        .iter()
                        .chain(ctx.results(op))
                        .any(|v| bufs.contains_key(v) || morf_loop::is_buffer(ctx, ctx.value_type(*v)))
                    {
                        return Err(op_err(
                            ctx,
                            op,
                            "touches a buffer on the host; only mloop.dim/alloc/fill/dealloc and mgpu.launch may (move the work into a kernel)",
                        ));
                    }
                    m.run_op(ctx, op)?;
                }
            }
        }
        Ok(Vec::new())
    }
}

/// The names of the `mgpu.func` kernels of `module`, in order.
pub fn kernel_names(ctx: &Context, module: OpId) -> Vec<String> {
    let mut out = Vec::new();
    ctx.walk(module, &mut |op| {
        if ctx.op_name(op) == morf_gpu::ops::FuncOp::NAME {
            if let Some(n) = morf_ir::builtin::symbol_name(ctx, op) {
                out.push(n.to_string());
            }
        }
    });
    out
}

/// Elements per piece of [`par_zip`]'s work.
const PAR_CHUNK: usize = 1 << 20;

/// Runs `f` over matching pieces of `src` (`a` items an element) and `dst` (`b` items an
/// element), on the machine's threads when there are many elements: the conversion of a
/// multi-gigabyte argument to and from its device bytes. The result does not depend on the
/// number of threads.
fn par_zip<S: Sync, D: Send>(src: &[S], a: usize, dst: &mut [D], b: usize, f: impl Fn(&[S], &mut [D]) + Sync) {
    let n = src.len() / a;
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.div_ceil(PAR_CHUNK)).max(1);
    if threads == 1 {
        f(src, dst);
        return;
    }
    let per = n.div_ceil(threads);
    std::thread::scope(|s| {
        for (src, dst) in src.chunks(per * a).zip(dst.chunks_mut(per * b)) {
            let f = &f;
            s.spawn(move || f(src, dst));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_round_trips() {
        let vals = [0.0, 1.5, -2.25, 3.0e-3, 65504.0];
        for k in [FloatKind::BF16, FloatKind::F16, FloatKind::F32, FloatKind::F64] {
            let st = DevElem::Float(k);
            let data: Vec<f64> = vals.iter().map(|v| k.round(*v)).collect();
            let bytes = st.encode(&data);
            assert_eq!(bytes.len(), data.len() * st.size());
            assert_eq!(st.decode(&bytes), data, "{k:?}");
        }
        assert_eq!(DevElem::Float(FloatKind::BF16).bits(1.0), 0x3f80);
        assert_eq!(DevElem::Float(FloatKind::F16).bits(1.0), 0x3c00);
        assert_eq!(DevElem::Float(FloatKind::F32).bits(1.0), 0x3f80_0000);
        assert_eq!(DevElem::Bool.decode(&DevElem::Bool.encode(&[1.0, 0.0])), vec![1.0, 0.0]);
    }

    #[test]
    fn large_arrays_convert_in_parallel_as_one_pass_would() {
        // Over several pieces of the parallel conversion, with a ragged last piece: the same
        // bytes as element-by-element encoding, and back to the same values.
        let n = 3 * PAR_CHUNK + 12345;
        let data: Vec<f64> = (0..n).map(|i| FloatKind::BF16.round(((i * 7919) % 1000) as f64 / 64.0 - 7.0)).collect();
        for k in [FloatKind::BF16, FloatKind::F32] {
            let st = DevElem::Float(k);
            let bytes = st.encode(&data);
            let mut one = Vec::new();
            for v in &data {
                match k {
                    FloatKind::BF16 => one.extend(half::bf16::from_f64(*v).to_bits().to_le_bytes()),
                    _ => one.extend((*v as f32).to_le_bytes()),
                }
            }
            assert!(bytes == one, "{k:?}");
            assert!(st.decode(&bytes) == data, "{k:?}");
            assert!(st.try_encode(&data).unwrap() == bytes);
        }
    }
}
