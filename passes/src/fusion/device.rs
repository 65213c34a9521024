//! The device description the fusion cost model prices plans against.
//!
//! Every number is a field that a pass option can override (`device=sms=132,bandwidth=4.27e12`),
//! so the model is never tied to one GPU. [`Device::h200`] holds the defaults, measured or taken
//! from the data sheet of an NVIDIA H200.

use std::fmt;

/// What the cost model knows about the target GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Device {
    /// A name for reports.
    pub name: String,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Achievable DRAM copy bandwidth, bytes read plus bytes written per second.
    pub copy_bandwidth_bytes_per_s: f64,
    /// Bandwidth of a re-read that hits L2.
    pub l2_bandwidth_bytes_per_s: f64,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// How many times its fair share (`bandwidth / sms`) of DRAM bandwidth one busy SM can draw
    /// when others idle (4: a lone H200 SM sustains roughly 130 GB/s).
    pub sm_bandwidth_share: f64,
    /// Registers one thread may use at most.
    pub max_registers_per_thread: u32,
    /// Shared memory per SM, in bytes.
    pub shared_mem_per_sm: u64,
    /// Shared memory one CTA may have, static and dynamic together, in bytes (227 KiB on
    /// sm_90, where the SM's other KiB is reserved): a kernel asking more does not launch.
    pub shared_mem_per_cta: u64,
    /// Fixed cost of one kernel in a stream of dependent kernels, in seconds.
    ///
    /// 2.5 us: the launch itself plus the drain of one grid and the ramp of the next. It is what
    /// separates a fused plan from an unfused one when the tensors are tiny.
    pub launch_overhead_s: f64,
    /// L2 cache size in bytes.
    pub l2_bytes: u64,
    /// The cost model's constants that the tuner's measurements calibrate
    /// (`tools/morf-tune/scripts/calibrate_model.py`): fitted per device, not facts of it.
    pub model: ModelConstants,
}

/// Constants of the fusion cost model's latency and bandwidth terms (`fusion::cost`), fitted
/// to measurements of one device. Each has an override key of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConstants {
    /// A row's memory round trip with its loads and stores, seconds (`row-trip`).
    pub row_trip_s: f64,
    /// Each reduction of a chain of dependent warp reductions (a shuffle tree), seconds
    /// (`warp-chain`).
    pub warp_chain_s: f64,
    /// The flush of one shared partial at the end of a split, seconds (`flush`).
    pub flush_s: f64,
    /// Bytes in flight per SM at which a launch draws half its SM's share of the bandwidth
    /// (`inflight-half`).
    pub half_bw_inflight: f64,
    /// The sharpness of that knee (`inflight-knee`): the share drawn with `x` bytes in flight
    /// is `x / (x^p + half^p)^(1/p)`; 1 is the soft `x / (x + half)`, a large `p` approaches
    /// Little's law with a fixed latency, `min(1, x / half)`.
    pub inflight_knee: f64,
    /// How fast an SM answers a row with few rows in flight: a row waits
    /// `min(1, load_base + load_step x rows in flight per SM)` of its round trip
    /// (`load-base`, `load-step`).
    pub load_base: f64,
    /// See `load_base`.
    pub load_step: f64,
}

impl ModelConstants {
    /// The constants fitted on the H200 by `calibrate_model.py` (2026-12-02, 31 measured
    /// points over 10 shapes; docs/perf.md, "Issue 11, tenth session"). Before that fit, by
    /// hand: a 1.2 us round trip, 0.15 us a warp reduction, 1.5 us a flush, 8 KiB at half
    /// bandwidth.
    pub fn h200() -> Self {
        ModelConstants {
            row_trip_s: 0.8e-6,
            warp_chain_s: 0.3e-6,
            flush_s: 1.0e-6,
            half_bw_inflight: 4096.0,
            inflight_knee: 1.0,
            load_base: 0.4,
            load_step: 0.1,
        }
    }
}

impl Device {
    /// NVIDIA H200: 132 SMs, 4.27 TB/s measured copy bandwidth, 64 Ki registers and 228 KiB
    /// shared memory per SM, 50 MiB L2.
    pub fn h200() -> Device {
        Device {
            name: "h200".into(),
            sms: 132,
            copy_bandwidth_bytes_per_s: 4.27e12,
            l2_bandwidth_bytes_per_s: 1.0e13,
            registers_per_sm: 65536,
            sm_bandwidth_share: 4.0,
            max_registers_per_thread: 255,
            shared_mem_per_sm: 228 * 1024,
            shared_mem_per_cta: 227 * 1024,
            launch_overhead_s: 2.5e-6,
            l2_bytes: 50 * 1024 * 1024,
            model: ModelConstants::h200(),
        }
    }

    /// Applies `key=value` overrides separated by commas, e.g.
    /// `sms=108,bandwidth=2.0e12,launch=3e-6`. Keys: `name`, `sms`, `bandwidth`, `l2-bandwidth`,
    /// `sm-share`, `registers`, `max-registers`, `smem`, `smem-cta`, `launch`, `l2`, and the model's
    /// constants ([`ModelConstants`]): `row-trip`, `warp-chain`, `flush`, `inflight-half`,
    /// `inflight-knee`, `load-base`, `load-step`.
    pub fn with_overrides(mut self, text: &str) -> Result<Device, String> {
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| format!("expected 'key=value', got '{item}'"))?;
            let num = || value.parse::<f64>().map_err(|_| format!("'{key}' expects a number, got '{value}'"));
            match key {
                "name" => self.name = value.to_string(),
                "sms" => self.sms = num()? as u32,
                "bandwidth" => self.copy_bandwidth_bytes_per_s = num()?,
                "l2-bandwidth" => self.l2_bandwidth_bytes_per_s = num()?,
                "sm-share" => self.sm_bandwidth_share = num()?,
                "registers" => self.registers_per_sm = num()? as u32,
                "max-registers" => self.max_registers_per_thread = num()? as u32,
                "smem" => self.shared_mem_per_sm = num()? as u64,
                "smem-cta" => self.shared_mem_per_cta = num()? as u64,
                "launch" => self.launch_overhead_s = num()?,
                "l2" => self.l2_bytes = num()? as u64,
                "row-trip" => self.model.row_trip_s = num()?,
                "warp-chain" => self.model.warp_chain_s = num()?,
                "flush" => self.model.flush_s = num()?,
                "inflight-half" => self.model.half_bw_inflight = num()?,
                "inflight-knee" => self.model.inflight_knee = num()?.max(0.1),
                "load-base" => self.model.load_base = num()?,
                "load-step" => self.model.load_step = num()?,
                _ => return Err(format!("unknown device key '{key}'")),
            }
        }
        Ok(self)
    }

    /// Parses a full option value: the H200 defaults with `text`'s overrides applied.
    pub fn parse(text: &str) -> Result<Device, String> {
        Device::h200().with_overrides(text)
    }
}

impl Default for Device {
    fn default() -> Self {
        Device::h200()
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} SMs, {:.2} TB/s, launch {:.2} us, {} regs/SM, {} KiB smem/SM, {} MiB L2)",
            self.name,
            self.sms,
            self.copy_bandwidth_bytes_per_s / 1e12,
            self.launch_overhead_s * 1e6,
            self.registers_per_sm,
            self.shared_mem_per_sm / 1024,
            self.l2_bytes / (1024 * 1024)
        )
    }
}
